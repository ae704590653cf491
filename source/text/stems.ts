import { stemmer } from 'stemmer';
import { isWhitespace, runsOf } from './runs.ts';
import { contentTokens } from './textrank.ts';

/**
 * Word stems for matching a paraphrase to its source: "fled"/"flees" and "creature"/"creatures"
 * meet at one stem (Porter's, through the `stemmer` package). Pure.
 */

/** Stems already worked out: a book of a million words has some tens of thousands of distinct ones. */
const known = new Map<string, string>();
/** Past this many, the memory starts again: a text of made-up words must not grow it without end. */
const KNOWN_MAX = 200_000;

/**
 * The stem of a lowercase word token: a possessive's "'s" dropped ("victor's" -> "victor"), the
 * accents of a Latin-script word dropped ("natásha" -> "natasha": translations mark stress that a
 * summary leaves out), then Porter's stem.
 */
export function stem(token: string): string {
	let found = known.get(token);
	if (found === undefined) {
		const bare = token.endsWith("'s") ? token.slice(0, -2) : token.endsWith("'") ? token.slice(0, -1) : token;
		found = stemmer(withoutAccents(bare));
		if (known.size >= KNOWN_MAX) known.clear();
		known.set(token, found);
	}
	return found;
}

/** Only Latin letters lose their marks: in other scripts a mark can be a vowel of the word. */
export function withoutAccents(word: string): string {
	if (!/[^ -~]/u.test(word)) return word;
	const parts = word.normalize('NFD');
	return /^[\p{Script=Latin}\p{M}\p{N}'’-]+$/u.test(parts) ? parts.replace(/\p{M}/gu, '') : word;
}

/** The stems of a text's content words (stopwords dropped), in order. */
export function contentStems(text: string): string[] {
	return contentTokens(text).map(stem);
}

const LETTERS = '[\\p{L}\\p{N}]';
/** Characters that may stand between a sentence's end and its first word: space and opening marks. */
const OPENERS = new Set(['"', "'", '“', '‘', '(', '[', '_', '*', '—', '-']);
const SENTENCE_ENDS = new Set(['.', '!', '?', '…']);

/**
 * Each word of `text` ([start, end), inner apostrophes kept: "Darcy's"), and whether it stands
 * inside a sentence: not first in a line or after a sentence's end, where every word is capitalized.
 */
export function* sentenceWords(text: string): Generator<{ start: number; end: number; inside: boolean }> {
	for (const [start, end] of runsOf(text, LETTERS, "'’")) {
		let i = start - 1;
		while (i >= 0 && (OPENERS.has(text[i]!) || (text[i] !== '\n' && isWhitespace(text.charCodeAt(i))))) i--;
		yield { start, end, inside: !(i < 0 || text[i] === '\n' || SENTENCE_ENDS.has(text[i]!)) };
	}
}

/** Whether a word starts with a capital letter. */
export function isCapitalized(word: string): boolean {
	const first = word[0]!;
	return first !== first.toLowerCase();
}

/**
 * The stems of the proper names of `text`: words that, where they stand inside a sentence (not
 * first in it, where every word is capitalized), are capitalized more often than not. The rule
 * needs no list of names and works for any book whose language capitalizes names: "Victor" is a
 * name, "The" is not (it is lowercase mid-sentence), and "Creature" in a book that always
 * capitalizes it counts as the name it is there.
 */
export function properNames(text: string): Set<string> {
	const counts = new Map<string, { upper: number; all: number }>();
	for (const { start, end, inside } of sentenceWords(text)) {
		if (!inside) continue;
		const word = text.slice(start, end);
		const lower = word.toLowerCase().replaceAll('’', "'");
		const c = counts.get(lower) ?? { upper: 0, all: 0 };
		c.all++;
		if (isCapitalized(word)) c.upper++;
		counts.set(lower, c);
	}
	const names = new Set<string>();
	for (const [word, c] of counts)
		if (c.upper * 2 > c.all && contentTokens(word).length > 0) names.add(stem(word));
	return names;
}
