import type { Chunk } from '../domain.ts';
import { sentenceSpans } from '../text/sentences.ts';

/**
 * A passage of the book shown as evidence: a few consecutive sentences of one paragraph, inside one
 * chunk. Passages never cross a chunk (each belongs to the chunk a summary can be traced to) nor a
 * paragraph (a passage reads as a piece of the book), and they never overlap, so each sentence of the
 * book is in exactly one passage and "the passage that holds this sentence" is well defined.
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

/** The passages of `book`, chunk by chunk, each of at most `sentences` sentences of one paragraph. */
export function splitPassages(
	book: string,
	chunks: readonly Chunk[],
	sentences = PASSAGE_SENTENCES,
): Passage[] {
	if (!Number.isInteger(sentences) || sentences < 1)
		throw new Error(`sentences per passage must be a whole number of at least 1, got ${sentences}`);
	const passages: Passage[] = [];
	for (const chunk of chunks) {
		const text = book.slice(chunk.start, chunk.end);
		let group: { start: number; end: number; count: number } | null = null;
		const close = () => {
			if (group)
				passages.push({
					index: passages.length,
					chunk: chunk.index,
					start: chunk.start + group.start,
					end: chunk.start + group.end,
				});
			group = null;
		};
		for (const span of sentenceSpans(text)) {
			// The splitter makes every line break a boundary, and the book has a line per paragraph.
			if (group && (group.count === sentences || text.slice(group.end, span.start).includes('\n'))) close();
			if (group) {
				group.end = span.end;
				group.count++;
			} else group = { start: span.start, end: span.end, count: 1 };
		}
		close();
	}
	return passages;
}
