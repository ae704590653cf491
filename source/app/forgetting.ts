import { sessionsDirArg } from '../config.ts';
import { badInput } from '../errors.ts';
import { forgettingMap, type ForgettingMap } from '../evidence/forgetting.ts';
import { PassageIndex } from '../evidence/rank.ts';
import { flag, next, said } from '../program.ts';
import { stepSummaries } from '../summarize/inc.ts';
import { bookRun } from './evidence-session.ts';

/** An incremental run's forgetting map, as `memory --forgetting` shows it. */
export interface Forgetting {
	map: ForgettingMap;
	/** The book's title. */
	title: string;
	/** The run has a final summary: a chunk still cited at its last step was kept to the end, not only so far. */
	finished: boolean;
}

/**
 * The forgetting map of session `id`'s incremental run, read from disk without its lock and with no
 * model call. Refused with a one-line error for a session that is not an incremental run, or whose
 * first step is not done. `onStep` hears of each step placed in the book.
 */
export async function forgettingOf(opts: {
	id: string;
	sessionsDir: string;
	onStep?: (done: number, steps: number) => void;
}): Promise<Forgetting> {
	const { id, sessionsDir } = opts;
	const { data, book } = await bookRun(sessionsDir, id, said`memory ${flag('--forgetting')}`);
	const run = data.run;
	if (run.config.method !== 'inc')
		throw badInput(
			said`forgetting is drawn for incremental runs; session "${id}" is hierarchical: summarize the book with ${next('run', 'BOOK --method inc')}`,
		);
	if (stepSummaries(run).length === 0)
		throw badInput(
			said`session "${id}" has no finished step yet: resume it with ${next('resume', `${id}${sessionsDirArg(sessionsDir)}`)}`,
		);
	const map = forgettingMap(run, new PassageIndex(book, run.chunks), opts.onStep);
	return { map, title: data.book.title, finished: run.root !== null };
}
