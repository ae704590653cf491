import { shareOf } from './percent.ts';
import { sanitize } from '../text/sanitize.ts';

/** Where a chunk, a chapter or a passage is, as a person reads it: counted from 1, chapters as headed. */

/** "chunk 3 of 77" for the chunk at `index`. */
export function chunkPlace(index: number, chunks: number): string {
	return `chunk ${index + 1} of ${chunks}`;
}

/** Chunk indices (ascending) as runs of consecutive ones, `[first, last]` each: [0, 1, 2, 5] -> [[0, 2], [5, 5]]. */
export function chunkRuns(chunks: readonly number[]): [number, number][] {
	const runs: [number, number][] = [];
	for (const c of chunks) {
		const last = runs.at(-1);
		if (last && c === last[1] + 1) last[1] = c;
		else runs.push([c, c]);
	}
	return runs;
}

/** Chunk indices as a person reads them (counted from 1), in short ranges: [0, 1, 2, 5] -> "1-3, 6". */
export function chunkRanges(chunks: readonly number[]): string {
	return chunkRuns(chunks)
		.map(([a, b]) => (a === b ? `${a + 1}` : `${a + 1}-${b + 1}`))
		.join(', ');
}

/** A passage's place (evidence/book-place.ts `BookPlace`): `"Chapter 12" · 43%`, or `43%` in a book without headings. */
export function placeText(place: { chapter: { title: string } | null; position: number }): string {
	const at = `${shareOf(place.position, 1, 0)}%`;
	return place.chapter ? `${chapterName(place.chapter)} · ${at}` : at;
}

/**
 * A chapter as the book heads it, quoted: how a reader finds it. Not its index: the book's own
 * numbering skips letters, prefaces and parts, so "ch. 13" of "Chapter 9" would mislead. A
 * heading's escape sequences are removed first, as from the book's other text shown: quoted
 * alone, they showed as `\u001b]0;...` (and an 8-bit one raw, to the walks and the judge).
 */
export function chapterName(chapter: { title: string }): string {
	return JSON.stringify(sanitize(chapter.title));
}

/**
 * Sentences of a summary as a failure line names them: "summary s0, sentence 5" (sentences count
 * from 1 wherever a person reads them; the unit id `s0:4` is for the call log).
 */
export function sentencesName(summary: string, sentences: readonly number[]): string {
	return `summary ${summary}, sentence${sentences.length === 1 ? '' : 's'} ${sentences.map((i) => i + 1).join(', ')}`;
}
