import { chapterAt, chaptersOf, type Chapter } from '../text/chapters.ts';
import { chapterName, chunkPlace } from '../format/places.ts';
import { shareOf } from '../format/percent.ts';

/**
 * Where a passage is in its book, as a reader would look for it: the chapter that holds its start
 * (read from the book's headings; text before the first heading is the chapter `(opening)`) and
 * how far into the book it starts.
 */
export interface BookPlace {
	/** The chapter (index from 0, title as headed), or null when the book has no headings. */
	chapter: { index: number; title: string } | null;
	/** The passage's start over the book's length, in [0, 1]. */
	position: number;
}

/** The place of character `offset` of a book of `length` characters with `chapters`. */
export function bookPlace(chapters: readonly Chapter[], length: number, offset: number): BookPlace {
	const found = chapterAt(chapters, offset);
	return {
		chapter: found && { index: found.index, title: found.title },
		position: length > 0 ? Math.min(1, offset / length) : 0,
	};
}

/** A chapter and how many sentences of a summary cite a passage in it (their best one). */
export interface ChapterCitations {
	index: number;
	title: string;
	/** Character range of the book. */
	start: number;
	end: number;
	sentences: number;
}

/** Each chapter of the book with the sentences whose best passage starts in it (`starts`: those passages' starts). */
export function chapterCitations(
	chapters: readonly Chapter[],
	starts: readonly number[],
): ChapterCitations[] {
	const counts = chapters.map(() => 0);
	for (const start of starts) {
		const chapter = chapterAt(chapters, start);
		if (chapter) counts[chapter.index]!++;
	}
	return chapters.map((c) => ({
		index: c.index,
		title: c.title,
		start: c.start,
		end: c.end,
		sentences: counts[c.index]!,
	}));
}

/** The chapters of the book last asked about: a walk asks for one book's passages again and again. */
let last: { book: string; chapters: Chapter[] } | null = null;

function chaptersOfBook(book: string): Chapter[] {
	if (last?.book !== book) last = { book, chapters: chaptersOf(book) };
	return last.chapters;
}

/**
 * Where a passage is, for the line shown beside its text: its chapter (in a book with headings),
 * its chunk, how far into the book it starts, and whether it holds the sentence word for word.
 */
export function passageWhere(
	book: string,
	chunks: number,
	hit: { chunk: number; start: number; verbatim: boolean },
	separator: string,
): string {
	const { chapter, position } = bookPlace(chaptersOfBook(book), book.length, hit.start);
	return [
		...(chapter ? [chapterName(chapter)] : []),
		chunkPlace(hit.chunk, chunks),
		`${shareOf(position, 1, 0)}% into the book`,
		...(hit.verbatim ? ['word for word'] : []),
	].join(separator);
}
