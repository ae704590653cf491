import { bookSession, Session } from '../store/session.ts';
import { execute, prepare, type ExecuteOptions } from './execute.ts';
import { printFinal } from './show.ts';

/** `booook resume ID`: continues where the session stopped; finished calls are not made again. */
export async function resumeCommand(dir: string, id: string, opts: ExecuteOptions & { baseUrl?: string }): Promise<number> {
	const opened = await Session.open(dir, id);
	try {
		const session = bookSession(opened);
		const book = await session.bookText();
		if (session.data.run.status === 'done' && session.data.run.root) {
			if (!opts.json) {
				(opts.stderr ?? process.stderr).write(`session ${id} is already done; its final summary:\n`);
				printFinal(session.data, book, opts.stdout ?? process.stdout, opts.stderr ?? process.stderr);
			}
			return 0;
		}
		if (opts.baseUrl) session.data.run.config.baseUrl = opts.baseUrl;
		const prepared = await prepare(session.data.run.config, book, opts);
		return await execute(session, prepared, opts);
	} finally {
		await opened.close();
	}
}
