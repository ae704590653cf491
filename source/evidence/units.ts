import { passageWhere } from './book-place.ts';
import type { Run, ScoredSummary } from '../domain.ts';
import { scoredSplit } from '../score/annotate.ts';
import { nodeEvidence, TOP_PASSAGES, tracerFor } from './evidence.ts';
import { sentenceKey } from './provenance.ts';
import type { Hit, PassageIndex } from './rank.ts';

/**
 * Evidence as a walk or a judge shows it, per sentence of a scored summary: the passage's text
 * (whitespace collapsed), a line saying where it is, and its range in the book for highlighting.
 * Its `text` and `where` are what the faithfulness screen's evidence slot and the model judge's
 * prompt read.
 */
export interface ShownEvidence {
	text: string;
	where: string;
	chunk: number;
	start: number;
	end: number;
	verbatim: boolean;
}

/** A ranked passage as it is shown: its text (whitespace collapsed) and where it is. */
export function shownHit(run: Pick<Run, 'chunks'>, book: string, hit: Hit): ShownEvidence {
	return {
		text: sentenceKey(book.slice(hit.start, hit.end)),
		where: passageWhere(book, run.chunks.length, hit, ', '),
		chunk: hit.chunk,
		start: hit.start,
		end: hit.end,
		verbatim: hit.verbatim,
	};
}

/**
 * A lookup from (summary, sentence index) to its evidence, for the summaries of one run: each
 * summary is traced once, on first use (a pinned version is traced as scored, not as the node's
 * active text now). An imported summary (no node) has none. Make a new lookup after the run changes.
 */
export function evidenceLookup(
	run: Run,
	book: string,
	index: PassageIndex,
	summaries: readonly Pick<ScoredSummary, 'id' | 'text' | 'node' | 'units'>[],
	top = TOP_PASSAGES,
) {
	const tracer = tracerFor(run, index);
	const done = new Map<string, ShownEvidence[][]>();
	return (unit: { summary: string; sentence: number }): ShownEvidence[] => {
		let all = done.get(unit.summary);
		if (!all) {
			const summary = summaries.find((s) => s.id === unit.summary);
			all =
				summary?.node && run.nodes.some((n) => n.id === summary.node)
					? nodeEvidence(run, index, summary.node, {
							text: summary.text,
							top,
							tracer,
							...scoredSplit(summary),
						}).map((s) => s.passages.map((p) => shownHit(run, book, p)))
					: [];
			done.set(unit.summary, all);
		}
		return all[unit.sentence] ?? [];
	};
}
