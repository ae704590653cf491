import type { Chunk } from '../domain.ts';
import { isWhitespace } from '../text/runs.ts';
import { sentenceSpans } from '../text/sentences.ts';

/**
 * A passage of the book shown as evidence: a few consecutive sentences of one paragraph, inside one
 * chunk, and never longer than `MAX_PASSAGE_CHARS`. Passages never cross a chunk (each belongs to
 * the chunk a summary can be traced to) nor a paragraph (a passage reads as a piece of the book),
 * and they never overlap, so each character of the book is in at most one passage and "the passage
 * that holds this sentence" is well defined (a sentence longer than the bound is cut into several).
 */
export interface Passage {
	/** Position among all passages of the book, in reading order. */
	index: number;
	chunk: number;
	/** Character range `[start, end)` of the book. */
	start: number;
	end: number;
}

/** Sentences per passage unless told: enough context to judge a claim, short enough to read beside it. */
export const PASSAGE_SENTENCES = 3;

/**
 * Most characters in a passage. Three sentences of ordinary prose (about 25 words, 140 characters,
 * each) stay well inside it, so it changes nothing there; where a book has almost no sentence
 * breaks, an unbounded "passage" of thousands of characters holds so many words that BM25 ranks it
 * first for unrelated sentences. 700 is five ordinary sentences: the bound cuts only text that is
 * not ordinary sentences.
 */
export const MAX_PASSAGE_CHARS = 700;

/** Where a piece of an overlong sentence may end, best first: after clause punctuation, else after a space. */
const CLAUSE_ENDS = new Set([',', ';', ':', '—', '–', ')']);

/**
 * `[start, end)` of `text` cut into pieces of at most `max` characters: each piece ends at the last
 * clause mark that leaves it at least half the bound, else at the last whitespace, else (a word
 * longer than the bound) at `max` itself, or one unit short of it where the cut would part a
 * surrogate pair. Whitespace between pieces belongs to none.
 */
export function boundedPieces(
	text: string,
	start: number,
	end: number,
	max = MAX_PASSAGE_CHARS,
): [number, number][] {
	const pieces: [number, number][] = [];
	let from = start;
	while (from < end) {
		while (from < end && isWhitespace(text.charCodeAt(from))) from++;
		if (from >= end) break;
		if (end - from <= max) {
			pieces.push([from, end]);
			break;
		}
		let cut = -1;
		let space = -1;
		for (let i = from + max; i > from; i--) {
			const c = text[i - 1]!;
			if (CLAUSE_ENDS.has(c) && i - from >= max / 2) {
				cut = i;
				break;
			}
			if (space < 0 && isWhitespace(c.charCodeAt(0))) space = i - 1;
		}
		if (cut < 0) cut = space > from ? space : hardCut(text, from, from + max);
		let to = cut;
		while (to > from && isWhitespace(text.charCodeAt(to - 1))) to--;
		pieces.push([from, to]);
		from = cut;
	}
	return pieces;
}

/** `at`, or one before it where `at` would part a surrogate pair (an emoji, a rare CJK character) unless that leaves nothing after `from`. */
function hardCut(text: string, from: number, at: number): number {
	const before = text.charCodeAt(at - 1);
	return before >= 0xd800 && before <= 0xdbff && at - 1 > from ? at - 1 : at;
}

/**
 * The passages of `book`, chunk by chunk, each of at most `sentences` sentences of one paragraph and
 * at most `maxChars` characters.
 */
export function splitPassages(
	book: string,
	chunks: readonly Chunk[],
	sentences = PASSAGE_SENTENCES,
	maxChars = MAX_PASSAGE_CHARS,
): Passage[] {
	if (!Number.isInteger(sentences) || sentences < 1)
		throw new Error(`sentences per passage must be a whole number of at least 1, got ${sentences}`);
	const passages: Passage[] = [];
	for (const chunk of chunks) {
		const text = book.slice(chunk.start, chunk.end);
		let group: { start: number; end: number; count: number } | null = null;
		const push = (start: number, end: number) =>
			passages.push({
				index: passages.length,
				chunk: chunk.index,
				start: chunk.start + start,
				end: chunk.start + end,
			});
		const close = () => {
			if (group) push(group.start, group.end);
			group = null;
		};
		for (const span of sentenceSpans(text)) {
			if (span.end - span.start > maxChars) {
				close();
				for (const [start, end] of boundedPieces(text, span.start, span.end, maxChars)) push(start, end);
				continue;
			}
			// The splitter makes every line break a boundary, and the book has a line per paragraph.
			if (
				group &&
				(group.count === sentences ||
					span.end - group.start > maxChars ||
					text.slice(group.end, span.start).includes('\n'))
			)
				close();
			if (group) {
				group.end = span.end;
				group.count++;
			} else group = { start: span.start, end: span.end, count: 1 };
		}
		close();
	}
	return passages;
}
