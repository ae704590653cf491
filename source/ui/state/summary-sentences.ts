import type { ScoredSummary } from '../../domain.ts';
import type { Span } from '../../text/sentences.ts';
import { scoredSpans } from '../../score/annotate.ts';

/**
 * A scored summary's sentences, split once per summary: the walks show one summary's sentences on
 * every frame and every key, and a summary's text never changes during a walk.
 */
const split = new WeakMap<ScoredSummary, readonly Span[]>();

export function summarySentences(summary: ScoredSummary | undefined): readonly Span[] {
	if (!summary) return [];
	let spans = split.get(summary);
	if (!spans) split.set(summary, (spans = scoredSpans(summary)));
	return spans;
}
