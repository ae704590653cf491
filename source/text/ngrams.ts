import { runsOf } from './runs.ts';

/**
 * Word n-grams for the summary statistics. A word is a run of letters, combining marks and digits,
 * with apostrophes allowed inside it ("don't", "Anna's"), lowercased; quote marks around a word
 * are not part of it. The typographic apostrophe (’) counts as a plain one, so "don’t" in a book
 * and "don't" in a summary are the same word.
 */

// What `/[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*/gu` matches, found in constant stack (see runs.ts).
const LETTERS = '[\\p{L}\\p{M}\\p{N}]';
const APOSTROPHES = "'’";

/** Calls `visit` with each word of `text`, in order, without collecting them. */
export function forEachWord(text: string, visit: (word: string) => void): void {
	// Normalizing the whole text once is much cheaper than once per word on a book.
	const lower = text.toLowerCase().replaceAll('’', "'");
	for (const [start, end] of runsOf(lower, LETTERS, APOSTROPHES)) visit(lower.slice(start, end));
}

export function words(text: string): string[] {
	const out: string[] = [];
	forEachWord(text, (word) => out.push(word));
	return out;
}

// Words never contain a space, so joining with one keeps distinct n-grams distinct.
const SEPARATOR = ' ';

/** How often each n-gram of `words` occurs, keyed by its words joined with a space. */
export function ngramCounts(words: readonly string[], n: number): Map<string, number> {
	const counts = new Map<string, number>();
	for (let i = 0; i + n <= words.length; i++) {
		const key = words.slice(i, i + n).join(SEPARATOR);
		counts.set(key, (counts.get(key) ?? 0) + 1);
	}
	return counts;
}

/**
 * The n-grams of `wanted` (keys as from `ngramCounts`) that occur in `text`. One pass over the
 * text that builds a key only where all n words of the window are words of `wanted`: on a book
 * that skips most windows, and no set of the book's own n-grams is ever held.
 */
export function ngramsFoundIn(text: string, wanted: ReadonlySet<string>, n: number): Set<string> {
	const vocabulary = new Set<string>();
	for (const key of wanted) for (const word of key.split(SEPARATOR)) vocabulary.add(word);
	const found = new Set<string>();
	const window: string[] = [];
	let known = 0; // how many of the last words, counting back, are in the vocabulary
	forEachWord(text, (word) => {
		window.push(word);
		if (window.length > n) window.shift();
		known = vocabulary.has(word) ? known + 1 : 0;
		if (known >= n && found.size < wanted.size) {
			const key = window.join(SEPARATOR);
			if (wanted.has(key)) found.add(key);
		}
	});
	return found;
}
