import type { BootstrapOptions } from './bootstrap.ts';
import { intervals, type Spread } from './interval.ts';
import type { JudgedSummary, Verdict } from './formats.ts';

/**
 * Annotation precision (paper §3 and Appendix G): of the annotations a validator judged, the share
 * that holds up. The paper counts agreement and partial agreement ("the span is confusing, but the
 * questions fail a standard"); `strict` counts agreement only.
 */

export interface JudgedItem {
	book: string;
	/** Who wrote the annotation: "human", "model", or any other name a caller uses. */
	source: string;
	verdict: Verdict;
}

export interface Precision {
	judged: number;
	agree: number;
	partial: number;
	disagree: number;
	/** (agree + partial) ÷ judged, in [0, 1]. */
	precision: number;
	/** agree ÷ judged. */
	strict: number;
	/** Books with at least one judged annotation of this source. */
	books: number;
	/** Intervals as `intervals` picks them: over books when there are enough, else over the judged annotations. */
	precisionInterval: Spread;
	strictInterval: Spread;
}

interface Tally {
	agree: number;
	partial: number;
	disagree: number;
}

const total = (t: readonly Tally[], pick: (x: Tally) => number): number => t.reduce((s, x) => s + pick(x), 0);
const judgedOf = (x: Tally): number => x.agree + x.partial + x.disagree;

/** The judgments of a precision study, one item per judged annotation. */
export function judgedItems(study: ReadonlyMap<string, JudgedSummary>): JudgedItem[] {
	return [...study].flatMap(([book, s]) =>
		s.judged.map((j) => ({ book, source: j.source, verdict: j.verdict })),
	);
}

/**
 * Precision per source, with intervals that resample whole books (annotations of a book share its
 * summary and its validator) when there are enough books, else Wilson's over the judged
 * annotations (`intervals`). Sources appear in the order they first occur.
 */
export function precisionBySource(
	items: readonly JudgedItem[],
	options: BootstrapOptions,
): Map<string, Precision> {
	const bySource = new Map<string, Map<string, Tally>>();
	for (const { book, source, verdict } of items) {
		let books = bySource.get(source);
		if (!books) bySource.set(source, (books = new Map()));
		let tally = books.get(book);
		if (!tally) books.set(book, (tally = { agree: 0, partial: 0, disagree: 0 }));
		tally[verdict] += 1;
	}
	const out = new Map<string, Precision>();
	for (const [source, books] of bySource) {
		const tallies = [...books.values()];
		const ratio = (num: (x: Tally) => number) => (sample: readonly Tally[]) =>
			total(sample, num) / total(sample, judgedOf);
		const agree = total(tallies, (x) => x.agree);
		const partial = total(tallies, (x) => x.partial);
		const disagree = total(tallies, (x) => x.disagree);
		const judged = agree + partial + disagree;
		const spreads = intervals(
			{ unit: 'books', values: tallies },
			{
				precision: {
					of: ratio((x) => x.agree + x.partial),
					pooled: { successes: agree + partial, n: judged, unit: 'annotations' },
				},
				strict: { of: ratio((x) => x.agree), pooled: { successes: agree, n: judged, unit: 'annotations' } },
			},
			options,
		);
		out.set(source, {
			judged,
			agree,
			partial,
			disagree,
			precision: (agree + partial) / judged,
			strict: agree / judged,
			books: tallies.length,
			precisionInterval: spreads.precision,
			strictInterval: spreads.strict,
		});
	}
	return out;
}
