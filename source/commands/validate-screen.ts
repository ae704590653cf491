import { sessionsDirArg } from '../config.ts';
import { badInput } from '../errors.ts';
import { validatorName, VALIDATE_MODES, type ValidateMode } from '../app/validation.ts';
import type { ValidationAsked, WalkedValidation } from '../ui/screens/validate/App.tsx';
import { output } from './output.ts';
import { validationWalked } from '../format/walk-end.ts';
import { commandLine, next, said, say } from '../program.ts';

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
 * `booook validate ID`: walk a session's annotations and judge them (paper Appendix G). Every
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
	const asked = validationAsked(dir, id, { ...opts, mode: opts.mode as ValidateMode });
	// The terminal app (Ink, React) loads only once the flags are known to be good.
	const { walkValidation } = await import('../ui/screens/validate/App.tsx');
	const walked = await walkValidation(dir, asked, { stdin, stdout });
	saidWalked(dir, asked, walked, opts.validator !== undefined);
	return 0;
}

/** A validation walk as the command (or the home screen) asks for it, its hints worded for `dir`. */
export function validationAsked(
	dir: string,
	id: string,
	opts: { validator?: string; mode: ValidateMode; seed: number; fraction?: number; program: string },
): ValidationAsked {
	return {
		id,
		validator: validatorName(opts.validator),
		mode: opts.mode,
		seed: opts.seed,
		fraction: opts.fraction,
		continueWith: next('validate', `${id}${sessionsDirArg(dir)}`),
		reportHint: commandLine(opts.program, `report ${id}${sessionsDirArg(dir)}`),
		// Above the screen, where it stays once the walk is over.
		lostWork: (warning) => output(process.stderr).line(`warning: ${say(warning, opts.program)}`),
		program: opts.program,
	};
}

/**
 * How far the walk got, on stderr, and the command that continues it (or reports it, once done);
 * `named`: the validator was named by `--validator`, which the command repeats.
 */
export function saidWalked(
	dir: string,
	asked: ValidationAsked,
	walked: WalkedValidation,
	named: boolean,
): void {
	output(process.stderr).line(
		say(validationWalked(asked, walked, named, sessionsDirArg(dir)), asked.program),
	);
}
