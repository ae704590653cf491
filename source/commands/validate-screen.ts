import { sessionsDirArg } from '../config.ts';
import { dirname } from 'node:path';
import { badInput } from '../errors.ts';
import { WALK_MODES, type WalkMode } from '../score/validation.ts';
import type { Session } from '../store/session.ts';
import {
	beginAnnotationWalk,
	beginFaithfulnessWalk,
	openForValidation,
	validatorName,
} from '../app/validation.ts';
import { output } from './output.ts';
import { commandLine, next, said, say, shellWord } from '../program.ts';
import { inkStreams } from '../ui/terminal.ts';

/** The annotation walks, and the faithfulness walk over the summary's sentences. */
export const VALIDATE_MODES = [...WALK_MODES, 'faithfulness'] as const;

export interface ValidateOptions {
	/** How booook was started, for the command lines printed and shown. */
	program: string;
	/** Passed on to the "continue with" hint, so it names the same walk. */
	sessionsDir?: string;
	validator?: string;
	mode: string;
	seed: number;
	fraction?: number;
	stdin?: NodeJS.ReadStream;
	stdout?: NodeJS.WriteStream;
}

/**
 * `booook validate ID` (and a session's validation opened from the home screen): walk a session's
 * annotations and judge them (paper Appendix G). Every
 * verdict is saved as it is given; quitting and running the command again continues the walk.
 */
export async function validateInTerminal(dir: string, id: string, opts: ValidateOptions): Promise<number> {
	const stdin = opts.stdin ?? process.stdin;
	const stdout = opts.stdout ?? process.stdout;
	if (!(VALIDATE_MODES as readonly string[]).includes(opts.mode))
		throw badInput(`--mode ${opts.mode}: unknown mode; use ${VALIDATE_MODES.join(', ')}`);
	if (opts.fraction !== undefined && !(opts.fraction > 0 && opts.fraction <= 1))
		throw badInput(`--fraction ${opts.fraction}: give a share in (0, 1], e.g. 0.2`);
	if (!stdin.isTTY || !stdout.isTTY)
		throw badInput(
			said`validate is interactive and needs a terminal; for numbers from recorded verdicts use: ${next('precision', 'ID')} or ${next('report', 'ID')}`,
		);
	const validator = validatorName(opts.validator);
	const session = await openForValidation(dir, id, next('validate', `${id}${sessionsDirArg(dir)}`), {
		// Above the screen, where it stays once the walk is over.
		lostWork: (warning) => output(process.stderr).line(`warning: ${say(warning, opts.program)}`),
	});
	if (opts.mode === 'faithfulness') return validateFaithfulness(session, id, validator, opts, stdin, stdout);
	try {
		// The terminal app (Ink, React) loads only now, once the session is known to open.
		const [{ render }, { createElement }, { Root }, { ValidateScreen }] = await Promise.all([
			import('ink'),
			import('react'),
			import('../ui/root.tsx'),
			import('../ui/screens/validate/Screen.tsx'),
		]);
		const { walk, title, evidenceFor, progress } = await beginAnnotationWalk(session, validator, {
			mode: opts.mode as WalkMode,
			seed: opts.seed,
			fraction: opts.fraction,
		});
		const app = render(
			createElement(
				Root,
				{ program: opts.program },
				createElement(ValidateScreen, { walk, title, evidenceFor }),
			),
			{ ...inkStreams({ stdin, stdout }), exitOnCtrlC: false, patchConsole: false },
		);
		await app.waitUntilExit();
		const { judged, total } = progress();
		const fraction = opts.mode === 'sample' ? ` --fraction ${opts.fraction ?? 0.2}` : '';
		const who = opts.validator ? ` --validator ${shellWord(validator)}` : '';
		const next =
			judged < total
				? `Continue with: ${commandLine(opts.program, `validate ${id} --mode ${opts.mode} --seed ${opts.seed}${fraction}${who}${sessionsDirArg(dir)}`)}`
				: `See the results with: ${commandLine(opts.program, `report ${id}${sessionsDirArg(dir)}`)}`;
		output(process.stderr).line(`${validator}: ${judged}/${total} judged, all saved. ${next}`);
		return 0;
	} finally {
		await session.close();
	}
}

/** `booook validate ID --mode faithfulness`: the summary's sentences (or a model judge's claims of them), each given a verdict. */
async function validateFaithfulness(
	session: Session,
	id: string,
	validator: string,
	opts: ValidateOptions,
	stdin: NodeJS.ReadStream,
	stdout: NodeJS.WriteStream,
): Promise<number> {
	try {
		const [{ render }, { createElement }, { Root }, { FaithfulnessScreen }] = await Promise.all([
			import('ink'),
			import('react'),
			import('../ui/root.tsx'),
			import('../ui/screens/faithfulness/Screen.tsx'),
		]);
		const { walk, title, evidenceFor, progress } = await beginFaithfulnessWalk(session, validator, opts);
		const app = render(
			createElement(
				Root,
				{ program: opts.program },
				createElement(FaithfulnessScreen, {
					walk,
					title,
					evidenceFor,
					reportHint: commandLine(opts.program, `report ${id}${sessionsDirArg(dirname(session.path))}`),
				}),
			),
			{ ...inkStreams({ stdin, stdout }), exitOnCtrlC: false, patchConsole: false },
		);
		await app.waitUntilExit();
		const { judged, total } = progress();
		// A partial walk's sample is drawn from the seed and the fraction: the hint names both.
		const sample = walk.partial ? ` --fraction ${opts.fraction} --seed ${opts.seed}` : '';
		const who = opts.validator ? ` --validator ${shellWord(validator)}` : '';
		const where = sessionsDirArg(dirname(session.path));
		const next =
			judged < total
				? `Continue with: ${commandLine(opts.program, `validate ${id} --mode faithfulness${sample}${who}${where}`)}`
				: `See the results with: ${commandLine(opts.program, `report ${id}${where}`)}`;
		output(process.stderr).line(
			`${validator}: ${judged}/${total} ${walk.unitKind}${walk.partial ? ' of your sample' : ''} judged, all saved. ${next}`,
		);
		return 0;
	} finally {
		await session.close();
	}
}
