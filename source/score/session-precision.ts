import type { Annotation, Judgment, ScoredSummary } from '../domain.ts';
import type { JudgedItem } from './precision.ts';
import { verdictsOf } from './validation.ts';

/**
 * The judged items of a session for `precisionBySource`: what one validator said of the session's
 * annotations. Pure, over the parts of a session it reads.
 */

export interface JudgedSession {
	summaries: readonly ScoredSummary[];
	annotations: readonly Annotation[];
	judgments: readonly Judgment[];
}

/** The validators with at least one verdict, in the order they first judged. */
export function validatorsOf(session: JudgedSession): string[] {
	return [...new Set(session.judgments.map((j) => j.validator))];
}

/**
 * One item per annotation the validator judged, in the order of its first verdict on it; when it
 * judged one annotation more than once, its latest verdict stands (a changed mind, not two votes).
 *
 * Only confusing annotations count: precision asks how many of the flagged confusions hold up, so
 * a verdict on a sentence the annotator found clear (or could not read) is not about precision.
 *
 * Items are clustered by summary, not by book title: in a collection two files may summarize the
 * same book, and their annotations are separate clusters for the bootstrap. With one summary per
 * book (the authors' study) this is the same clustering as `judgedItems` on the file, in the same
 * order, so the intervals are identical.
 */
export function sessionJudgedItems(session: JudgedSession, validator: string): JudgedItem[] {
	const annotations = new Map(session.annotations.map((a) => [a.id, a]));
	const items: JudgedItem[] = [];
	for (const [id, j] of verdictsOf(session.judgments, validator)) {
		const a = annotations.get(id);
		if (!a || !a.confusing || a.failure !== null) continue;
		items.push({ book: a.summary, source: a.source, verdict: j.verdict });
	}
	return items;
}
