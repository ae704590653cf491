import { sessionsDirArg } from '../config.ts';
import type { ScoredSummary } from '../domain.ts';
import { badInput } from '../errors.ts';
import { nextSummaryId } from '../score/annotate.ts';
import { activeVersion, findNode } from '../summarize/graph.ts';
import type { BookSessionData, SessionData, StateView } from './schema.ts';
import { next, said, type Said } from '../program.ts';

/**
 * The summaries a session's score covers: a book run's final summary, pinned as a ScoredSummary
 * (the same node and version reuse theirs, so later edits never change what was scored), or all
 * of a collection's. `pin`: the summary that must be added first to pin the final one, if any (the
 * session adds it through its journal: see `Session.scoredSummaries`).
 */
export function scoredSummaries(
	data: StateView<SessionData>,
	dir: string,
): { ids: ScoredSummary['id'][]; pin: ScoredSummary | null } {
	if (data.kind === 'collection') {
		if (data.summaries.length === 0) throw badInput(`session "${data.id}" holds no summaries to score`);
		return { ids: data.summaries.map((s) => s.id), pin: null };
	}
	const { id, pin } = finalSummaryPin(data, dir);
	return { ids: [id], pin };
}

/** `data` as it is once `pin` is added: to check work against before the pin is written. */
export function withPin<D extends StateView<SessionData>>(data: D, pin: ScoredSummary | null): D {
	return pin ? { ...data, summaries: [...data.summaries, pin] } : data;
}

/**
 * The refusal of work that needs a run's final summary, before the run has one: it names the
 * resume that finishes it, in the session's own folder (`dir`), and then `also` when given.
 */
export function noFinalSummary(id: string, dir: string, also: Said = ''): Error {
	return badInput(
		said`session "${id}" has no final summary yet: finish it with ${next('resume', `${id}${sessionsDirArg(dir)}`)}${also}`,
	);
}

/**
 * A book run's final summary as a ScoredSummary: the one pinned for its root node and active version
 * already (`pin` null), else a new one to add (`pin`). `dir`: the sessions folder, for the command
 * that finishes a run without one.
 */
export function finalSummaryPin(
	data: StateView<BookSessionData>,
	dir: string,
): { id: ScoredSummary['id']; pin: ScoredSummary | null } {
	const { run } = data;
	const root = run.root ? findNode(run, run.root) : undefined;
	const version = root && root.active !== null ? activeVersion(root) : null;
	if (!root || root.active === null || !version) throw noFinalSummary(data.id, dir);
	const pinned = data.summaries.find((s) => s.node === root.id && s.version === root.active);
	if (pinned) return { id: pinned.id, pin: null };
	const id = nextSummaryId(data.summaries);
	return {
		id,
		pin: {
			id,
			book: data.book.title,
			text: version.text,
			units: 'nltk',
			node: root.id,
			version: root.active,
			source: 'run',
		},
	};
}
