import { splitSentences } from '../text/sentences.ts';
import type { SummaryScore } from './booookscore.ts';
import type { HumanAnnotatedSummary } from './formats.ts';
import { emptyCounts } from './labels.ts';

/**
 * BooookScore from human annotations (paper §4.1, footnote 13). People highlight spans, not
 * sentences: a span may cover part of a sentence or several, and a relation ties two spans to one
 * confusion. To compare with the model, which marks single sentences, each single span and each
 * relation counts as one confusing sentence; the sentences are our split of the summary. With that
 * count the per-type rates over all sentences are the paper's Table 1 (hierarchical column).
 */
export function scoreHumanSummary(annotated: HumanAnnotatedSummary): SummaryScore {
	const sentences = splitSentences(annotated.summary, { lineBreaks: false }).length;
	const units = [...annotated.singles, ...annotated.relations];
	const types = emptyCounts();
	for (const unit of units) for (const l of new Set(unit.labels)) types[l] += 1;
	return {
		sentences,
		confusing: units.length,
		failures: 0,
		// Not clamped: more units than sentences is possible in principle and the paper's formula
		// has no floor, so the number stays comparable with theirs.
		score: sentences === 0 ? null : 1 - units.length / sentences,
		types,
	};
}
