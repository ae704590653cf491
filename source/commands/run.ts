import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import type { ConfigInput } from '../config.ts';
import { checkNewRun } from '../app/run.ts';
import { shown, type InteractiveOptions } from './execute.ts';
import { sessionsDirOption, shownRunFlags, withDisplayOptions, type Exit } from './flags.ts';
import { configInput, withRunAndLimitOptions } from './run-config.ts';

export const spec = (exit: Exit, program: string) =>
	withRunAndLimitOptions(
		withDisplayOptions(
			new Command('run')
				.description('summarize BOOK (.txt or .epub) in a new session')
				.argument('<book>', 'a .txt (UTF-8) or .epub file')
				.option('--session <id>', 'name the new session (default: title-date-time-random)')
				.addOption(sessionsDirOption()),
		),
	).action(async (book, flags) => {
		exit(
			await runCommand(book, {
				config: configInput(flags),
				session: flags.session,
				sessionsDir: resolveSessionsDir(flags.sessionsDir),
				...shownRunFlags(flags, program),
			}),
		);
	});

export interface RunOptions extends InteractiveOptions {
	config: ConfigInput;
	session?: string;
	sessionsDir: string;
}

/**
 * `booook run BOOK`: a new session, then the run. Every check that can fail on bad input (book,
 * options, prompts, API key) happens before the session directory is created.
 */
export async function runCommand(path: string, opts: RunOptions): Promise<number> {
	const checked = await checkNewRun(path, opts.config, opts);
	const { run, close } = await checked.start(opts.sessionsDir, opts.session);
	return await shown(() => run, close, opts);
}
