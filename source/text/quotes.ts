import type { Span } from './sentences.ts';

/*
 * Quotation marks the way dialogue in prose uses them. Double: a straight '"' opens and closes by
 * turns, '“' and '«' open, '”' and '»' close. Single: '‘' opens; a straight "'" or '’' opens at the
 * start of a word ('Who is there?') and closes at the end of one after an open single quote, and is
 * an apostrophe otherwise ("didn't", "the Bennets' house"). A paragraph (a line) starts outside
 * any quotation.
 */

interface Depth {
	double: number;
	single: number;
	/** A closing mark with no quotation open: the sentence began inside someone's speech. */
	stray: boolean;
	/** Quotation marks seen (apostrophes are not). */
	marks: number;
}

const outside = (): Depth => ({ double: 0, single: 0, stray: false, marks: 0 });

const WORD = /[\p{L}\p{N}]/u;
// What may stand before a quotation's opening mark.
const BEFORE_OPENING = /[\s([{—–\-"“‘«]/u;

/** Moves `depth` through `text`. */
function scan(text: string, depth: Depth): Depth {
	const chars = [...text];
	chars.forEach((c, k) => {
		const { single } = depth;
		if (/["“”«»‘]/u.test(c)) depth.marks++;
		if (c === '"') depth.double += depth.double > 0 ? -1 : 1;
		else if (c === '“' || c === '«') depth.double++;
		else if (c === '”' || c === '»') {
			if (depth.double > 0) depth.double--;
			else depth.stray = true;
		} else if (c === '‘') depth.single++;
		else if (c === "'" || c === '’') {
			const before = chars[k - 1];
			const after = chars[k + 1];
			const opens =
				(before === undefined || BEFORE_OPENING.test(before)) && after !== undefined && WORD.test(after);
			if (opens) depth.single++;
			else if (single > 0 && (after === undefined || !WORD.test(after))) depth.single--;
			if (depth.single !== single) depth.marks++;
		}
	});
	return depth;
}

/** Whether every quotation `text` opens it also closes, and it closes no double one it did not open. */
export function quotesBalanced(text: string): boolean {
	const depth = scan(text, outside());
	return depth.double === 0 && depth.single === 0 && !depth.stray;
}

/** Whether `text` has quotation marks (apostrophes do not count). */
export function hasQuotes(text: string): boolean {
	return scan(text, outside()).marks > 0;
}

/**
 * For each span of `text` (in order, not overlapping), whether it starts inside a quotation opened
 * earlier in its paragraph: a sentence of someone's speech, though it has no quotation mark itself.
 */
export function startsQuoted(text: string, spans: readonly Span[]): boolean[] {
	let depth = outside();
	let at = 0;
	return spans.map((span) => {
		// Only whitespace lies between spans; a line break there starts a new paragraph.
		if (text.slice(at, span.start).includes('\n')) depth = outside();
		const quoted = depth.double > 0 || depth.single > 0;
		depth = scan(text.slice(span.start, span.end), depth);
		at = span.end;
		return quoted;
	});
}
