/** How an interval is shown: its bounds, what it is over, and why there is none. */
import { counted } from './count.ts';
import { points, percentNumber, signedPoints } from './percent.ts';

/** What an interval can be over, as JSON names it (plural). */
export type IntervalUnit =
	'books' | 'summaries' | 'annotations' | 'sentences' | 'claims' | 'questions' | 'pairs' | 'judgments';

const ONE: Record<IntervalUnit, string> = {
	books: 'book',
	summaries: 'summary',
	annotations: 'annotation',
	sentences: 'sentence',
	claims: 'claim',
	questions: 'question',
	pairs: 'pair',
	judgments: 'judgment',
};

export interface ShownInterval {
	/** Null when there is no interval (`method` 'none'). */
	low: number | null;
	high: number | null;
	level: number;
	/** 'bootstrap': percentile, resampling `over`; 'wilson': score interval over `over`'s items; 'none'. */
	method: 'bootstrap' | 'wilson' | 'none';
	/** What the interval is over; null when there is none. */
	over: { unit: IntervalUnit; n: number } | null;
	/** The books (or summaries) that were too few for an interval over them; null when they were enough or are not a thing here. */
	tooFew: { unit: IntervalUnit; n: number } | null;
}

/** "9 sentences", "1 summary". */
export function units(u: { unit: IntervalUnit; n: number }): string {
	return counted(u.n, ONE[u.unit], u.unit);
}

/**
 * What an interval is, for a line or a table's note: "95% bootstrap interval over 87 books",
 * "95% Wilson interval over 9 annotations; 1 book is too few for one over books", "2 books are too
 * few for an interval over books".
 */
export function intervalNote(i: ShownInterval): string {
	const tooFew = i.tooFew && `${units(i.tooFew)} ${i.tooFew.n === 1 ? 'is' : 'are'} too few`;
	if (i.method === 'none')
		return tooFew ? `${tooFew} for an interval over ${i.tooFew!.unit}` : 'no interval: nothing counted';
	const what = `${Math.round(i.level * 100)}% ${i.method === 'wilson' ? 'Wilson' : 'bootstrap'} interval over ${units(i.over!)}`;
	return tooFew ? `${what}; ${tooFew} for one over ${i.tooFew!.unit}` : what;
}

/** The bounds in percentage points, "[35.4, 87.9]", or "" when there is none. */
export function bounds(i: ShownInterval, signed = false): string {
	if (i.low === null || i.high === null) return '';
	const show = signed ? signedPoints : (x: number) => points(x);
	return `[${show(i.low)}, ${show(i.high)}]`;
}

/** The interval as JSON: which, over what, and the bounds in percent rounded to 0.01 (null when none). */
export function intervalJson(i: ShownInterval) {
	return {
		method: i.method,
		level: i.level,
		over: i.over && { unit: i.over.unit, n: i.over.n },
		too_few: i.tooFew && { unit: i.tooFew.unit, n: i.tooFew.n },
		low: i.low === null ? null : percentNumber(i.low),
		high: i.high === null ? null : percentNumber(i.high),
	};
}

/** The bounds in percent for a program, `[low, high]` rounded to 0.01; null when there is no interval. */
export function boundsJson(i: ShownInterval | null): [number, number] | null {
	return i === null || i.low === null || i.high === null
		? null
		: [percentNumber(i.low), percentNumber(i.high)];
}
