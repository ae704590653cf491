import type { ScoredSummary } from '../domain.ts';
import { badInput } from '../errors.ts';
import { nextSummaryId } from '../score/annotate.ts';
import { activeVersion, findNode } from '../summarize/graph.ts';
import type { BookSessionData, SessionData } from './schema.ts';
import { commandLine } from '../program.ts';
import { sessionsDirArg } from './dirs.ts';

/**
 * The summaries a session's score covers: a book run's final summary, pinned as a ScoredSummary
 * (the same node and version reuse theirs, so later edits never change what was scored), or all
 * of a collection's. `dir`: the sessions folder, as for `pinFinalSummary`.
 */
export function scoredSummaries(data: SessionData, dir: string): ScoredSummary['id'][] {
	if (data.kind === 'collection') {
		if (data.summaries.length === 0) throw badInput(`session "${data.id}" holds no summaries to score`);
		return data.summaries.map((s) => s.id);
	}
	return [pinFinalSummary(data, dir)];
}

/**
 * The refusal of work that needs a run's final summary, before the run has one: it names the
 * resume that finishes it, in the session's own folder (`dir`), and then `also` when given.
 */
export function noFinalSummary(id: string, dir: string, also = ''): Error {
	return badInput(
		`session "${id}" has no final summary yet: finish it with ${commandLine(`resume ${id}${sessionsDirArg(dir)}`)}${also}`,
	);
}

/**
 * A book run's final summary as a ScoredSummary: the one pinned for its root node and active version
 * already, else a new one added to `data` (kept by the session's next save). `dir`: the sessions
 * folder, for the command that finishes a run without one.
 */
export function pinFinalSummary(data: BookSessionData, dir: string): ScoredSummary['id'] {
	const { run } = data;
	const root = run.root ? findNode(run, run.root) : undefined;
	const version = root && root.active !== null ? activeVersion(root) : null;
	if (!root || root.active === null || !version) throw noFinalSummary(data.id, dir);
	const pinned = data.summaries.find((s) => s.node === root.id && s.version === root.active);
	if (pinned) return pinned.id;
	const id = nextSummaryId(data.summaries);
	data.summaries.push({
		id,
		book: data.book.title,
		text: version.text,
		units: 'nltk',
		node: root.id,
		version: root.active,
		source: 'run',
	});
	return id;
}
