/**
 * A book's chapters, read from its headings: so a place in the book can be named the way a reader
 * finds it ("BOOK THREE: 1805 · CHAPTER IV", "Letter 3") rather than by a chunk number. Pure.
 */

// A section word with its number ("Chapter 1", "CHAPTER IV.", "Letter 3", "BOOK ONE: 1805"), a
// lone section word ("PREFACE", "Epilogue"), an ordinal one ("FIRST EPILOGUE: 1813 - 20"), or a
// lone number ("IV."): never a line of prose ("letter to Murat:" has no number after its word).
const WORDS =
	'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty';
const ORDINALS = 'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last';
const NUMBER = String.raw`(?:\d+|[ivxlcdm]+|${WORDS}|${ORDINALS})`;
const ORDINAL = `(?:${ORDINALS})`;
const SECTION = new RegExp(
	String.raw`^(?:chapter|letter|book|part|volume|vol\.|section|canto|act|scene|stave)\s+${NUMBER}\b[.:]?.{0,60}$` +
		String.raw`|^(?:prologue|preface|foreword|introduction|contents|epilogue|appendix)[.:]?$` +
		String.raw`|^${ORDINAL}\s+(?:epilogue|part|book)\b.{0,40}$` +
		String.raw`|^(?:[ivxlcdm]+|\d+)\.?$`,
	'iu',
);
/** Headings that hold chapters of their own (a book, a part, an epilogue in parts), not a chapter's. */
const OUTER =
	/^(?:book|part|volume|vol\.)\s|^(?:first|second|third|fourth|fifth|last)\s+(?:epilogue|part|book)\b/iu;

/** Whether a whole line (trimmed) is a section heading: a chapter's, a letter's, a book's or a part's. */
export function isSectionHeading(line: string): boolean {
	return line.length <= 80 && SECTION.test(line);
}

export interface Chapter {
	/** Position among the book's chapters, from 0. */
	index: number;
	/** As the book heads it; a chapter inside a book or part is named after both. */
	title: string;
	/** Character range `[start, end)` of the book, from its heading to the next chapter's. */
	start: number;
	end: number;
}

/** What text before a book's first heading is called (a title page, a preface without its heading). */
export const OPENING = '(opening)';

/**
 * The chapters of `book` (one paragraph a line, as booook reads books): each heading line starts
 * one, up to the next. A book's or part's heading directly followed by a chapter's heads no chapter
 * of its own but names the chapters under it. No headings: no chapters.
 */
export function chaptersOf(book: string): Chapter[] {
	const headings: { start: number; title: string; outer: boolean }[] = [];
	let from = 0;
	while (from < book.length) {
		const newline = book.indexOf('\n', from);
		const end = newline === -1 ? book.length : newline;
		// Only short lines can be headings: long paragraphs are skipped without a trim or a regex.
		if (end - from <= 120) {
			const line = book.slice(from, end).trim();
			if (line !== '' && isSectionHeading(line))
				headings.push({ start: from, title: line, outer: OUTER.test(line) });
		}
		from = end + 1;
	}
	joinSplitNumbers(book, headings);
	const chapters: Chapter[] = [];
	let outer: string | null = null;
	// Where a part's heading that names the chapter after it stands: that chapter starts there.
	let pending: number | null = null;
	const open = (start: number, title: string) => {
		const last = chapters.at(-1);
		if (last) last.end = start;
		chapters.push({ index: chapters.length, title, start, end: book.length });
		pending = null;
	};
	if (headings.length > 0 && book.slice(0, headings[0]!.start).trim() !== '') open(0, OPENING);
	headings.forEach((heading, i) => {
		if (!heading.outer) {
			open(pending ?? heading.start, outer ? `${outer} · ${heading.title}` : heading.title);
			return;
		}
		outer = heading.title;
		const next = headings[i + 1];
		// A part that opens straight onto its first chapter is named by that chapter's title.
		const opensOnChapter =
			next && !next.outer && book.slice(heading.start + heading.title.length, next.start).trim().length < 200;
		if (opensOnChapter) pending = heading.start;
		else open(heading.start, heading.title);
	});
	return chapters;
}

/**
 * "Chapter 1" with a line "0" right after it (blank lines between) is "Chapter 10" broken in two
 * by the text's line wrapping, as some mirrors of Gutenberg texts have it: one heading again.
 */
function joinSplitNumbers(book: string, headings: { start: number; title: string; outer: boolean }[]): void {
	for (let i = headings.length - 2; i >= 0; i--) {
		const [head, digits] = [headings[i]!, headings[i + 1]!];
		const between = book.slice(head.start + head.title.length, digits.start);
		if (/\d$/u.test(head.title) && /^\d+$/u.test(digits.title) && between.trim() === '') {
			head.title += digits.title;
			headings.splice(i + 1, 1);
		}
	}
}

/** The chapter that holds character `offset` of the book, or null when the book has no chapters. */
export function chapterAt(chapters: readonly Chapter[], offset: number): Chapter | null {
	let low = 0;
	let high = chapters.length - 1;
	let found: Chapter | null = null;
	while (low <= high) {
		const mid = (low + high) >> 1;
		if (chapters[mid]!.start <= offset) {
			found = chapters[mid]!;
			low = mid + 1;
		} else high = mid - 1;
	}
	return found ?? chapters[0] ?? null;
}
