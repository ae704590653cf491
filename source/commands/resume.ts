import { Command } from '@commander-js/extra-typings';
import { checkBaseUrl, keyVariable } from '../llm/base-url.ts';
import { bookSession, resolveSessionsDir, Session } from '../store/session.ts';
import { prepareSession, sessionRun } from '../app/run.ts';
import { execute, runInteractive, type InteractiveOptions } from './execute.ts';
import {
	accountLimits,
	headlessNote,
	interactive,
	PRICES_HELP,
	sessionsDirOption,
	withDisplayOptions,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { output } from './output.ts';
import { ABANDON_BATCHES_HELP, refuseAwaitedBatches } from './batch-guard.ts';
import { printFinal } from './final.ts';
import { runFinished } from '../summarize/graph.ts';
import { commandLine } from '../program.ts';
import { sessionsDirArg } from '../store/dirs.ts';

export const spec = (exit: Exit) =>
	withRateLimitOptions(
		withDisplayOptions(
			new Command('resume')
				.description(
					'continue a session that was stopped, killed or failed; finished calls are not made again',
				)
				.argument('<id>', `session id (see: ${commandLine('sessions')})`)
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
					json: !!flags.json,
					prices: flags.prices,
					account: accountLimits(flags),
					baseUrl: flags.baseUrl,
					interactive: interactive(flags),
					note: headlessNote(flags),
					step: flags.step,
					abandonBatches: !!flags.abandonBatches,
				}),
			);
		});

/** `booook resume ID`: continues where the session stopped; finished calls are not made again. */
export async function resumeCommand(
	dir: string,
	id: string,
	opts: InteractiveOptions & { baseUrl?: string; interactive?: boolean; abandonBatches?: boolean },
): Promise<number> {
	// Before the session is opened (which saves it): a bad address changes nothing.
	if (opts.baseUrl) checkBaseUrl(opts.baseUrl, '--base-url', keyVariable('extractive'));
	await refuseAwaitedBatches(dir, id, opts.abandonBatches === true);
	const opened = await Session.open(dir, id);
	try {
		const session = bookSession(opened);
		const { imported } = session.data.run;
		if (imported) {
			// An imported summary was made elsewhere: no plan, no model, so nothing a resume could make.
			const at = `${id}${sessionsDirArg(dir)}`;
			output(opts.stderr ?? process.stderr).line(
				`session ${id} holds a summary imported from ${imported.file}: there is nothing to run; read it with ${commandLine(`evidence ${at}`)}, ${commandLine(`coverage ${at}`)} or ${commandLine(`report ${at}`)}`,
			);
			return 0;
		}
		// Before anything runs: it is measured against the state as it was read.
		const lost = await session.lostWork();
		if (lost) output(opts.stderr ?? process.stderr).line(`warning: ${lost}`);
		const book = await session.bookText();
		// In the terminal app a finished run still opens: its tree, its versions, edits and BooookScore.
		if (!opts.interactive && runFinished(session.data.run)) {
			if (!opts.json) {
				output(opts.stderr ?? process.stderr).line(`session ${id} is already done; its final summary:`);
				printFinal(session.data, book, opts.stdout ?? process.stdout, opts.stderr ?? process.stderr);
			}
			return 0;
		}
		if (opts.baseUrl)
			await session.updateRun({ config: { ...session.data.run.config, baseUrl: opts.baseUrl } });
		const run = sessionRun(session, await prepareSession(session, book, opts), opts);
		return await (opts.interactive ? runInteractive(run, opts) : execute(run, opts));
	} finally {
		await opened.close();
	}
}
