import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { openSession } from '../app/open-session.ts';
import { badInput } from '../errors.ts';
import { shown, type InteractiveOptions } from './execute.ts';
import {
	PRICES_HELP,
	sessionsDirOption,
	shownRunFlags,
	withDisplayOptions,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { output } from './output.ts';
import { ABANDON_BATCHES_HELP } from './batch-guard.ts';
import { refusalLine } from './open-refusal.ts';
import { printFinal } from './final.ts';
import { commandLine, say } from '../program.ts';

export const spec = (exit: Exit, program: string) =>
	withRateLimitOptions(
		withDisplayOptions(
			new Command('resume')
				.description(
					'continue a session that was stopped, killed or failed; finished calls are not made again',
				)
				.argument('<id>', `session id (see: ${commandLine(program, 'sessions')})`)
				.addOption(sessionsDirOption()),
		),
	)
		.option(
			'--base-url <url>',
			"replace the session's server address (for example after it moved); saved with the session",
		)
		.option('--prices <file>', PRICES_HELP)
		.option('--abandon-batches', ABANDON_BATCHES_HELP)
		.action(async (id, flags) => {
			exit(
				await resumeCommand(resolveSessionsDir(flags.sessionsDir), id, {
					...shownRunFlags(flags, program),
					baseUrl: flags.baseUrl,
					abandonBatches: !!flags.abandonBatches,
				}),
			);
		});

/** `booook resume ID`: continues where the session stopped; finished calls are not made again. */
export async function resumeCommand(
	dir: string,
	id: string,
	opts: InteractiveOptions & { baseUrl?: string; abandonBatches?: boolean },
): Promise<number> {
	const err = output(opts.stderr ?? process.stderr);
	const result = await openSession(dir, id, opts, {
		lostWork: (warning) => {
			err.line(`warning: ${say(warning, opts.program)}`);
			return true;
		},
	});
	// Never: resume goes on after its warning.
	if (result.kind === 'declined') return 0;
	if (result.kind === 'refused') {
		const line = refusalLine(result.reason, dir, 'resume', opts.program);
		// An imported summary has nothing to run, which is no error; batches still out are.
		if (result.reason.kind === 'batches') throw badInput(line);
		err.line(line);
		return 0;
	}
	const { opened } = result;
	// In the terminal app a finished run still opens: its tree, its versions, edits and BooookScore.
	if (opts.interactive || !opened.finished) return await shown(opened.prepare, opened.close, opts);
	try {
		if (!opts.json) {
			err.line(`session ${id} is already done; its final summary:`);
			printFinal(
				opened.session.data,
				opened.book,
				opts.stdout ?? process.stdout,
				opts.stderr ?? process.stderr,
			);
		}
		return 0;
	} finally {
		await opened.close();
	}
}
