import { chaptersOf } from '../text/chapters.ts';
import type { Passage } from './passages.ts';

/**
 * Most characters in a place: about 3,500 words, ten printed pages, an ordinary novel's chapter.
 * A longer chapter (or a book without headings, which is one long stretch) is cut into equal parts
 * under it, so that a place stays something a reader finds by leafing, and one of a book that heads
 * only its five parts does not hold a fifth of the book. Round, from what a chapter is, not fitted
 * (on the development set, bench/evidence.ts --dev, 12,000 to 40,000 placed as many sentences).
 */
export const PLACE_CHARS = 20_000;

/** A place of the book: a run of consecutive passages, `[from, to)` by passage index. */
export interface Place {
	from: number;
	to: number;
}

/**
 * The book's places, in reading order: its chapters (read from its headings, `chaptersOf`), each cut
 * into the fewest equal parts of at most `chars` characters; a book without headings is cut the same
 * way as one chapter. A passage is in the place that holds its start, so every passage is in exactly
 * one place and no place is empty.
 */
export function bookPlaces(book: string, passages: readonly Passage[], chars = PLACE_CHARS): Place[] {
	const chapters = chaptersOf(book);
	const stretches = chapters.length > 0 ? chapters : [{ start: 0, end: book.length }];
	const places: Place[] = [];
	let p = 0;
	for (const { start, end } of stretches) {
		const parts = Math.max(1, Math.ceil((end - start) / chars));
		for (let k = 1; k <= parts; k++) {
			const until = k === parts ? end : start + ((end - start) * k) / parts;
			const from = p;
			while (p < passages.length && passages[p]!.start < until) p++;
			if (p > from) places.push({ from, to: p });
		}
	}
	// The chapters cover the book from their first heading (or from 0): nothing is left over, but a
	// passage past the last bound would still belong somewhere.
	if (p < passages.length) {
		const last = places.at(-1);
		if (last) last.to = passages.length;
		else places.push({ from: p, to: passages.length });
	}
	return places;
}
