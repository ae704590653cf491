import { isSectionHeading } from '../text/chapters.ts';

/**
 * Hard-wrapped text (Gutenberg books are wrapped at about 72 columns) to one line per paragraph,
 * so that a line break means the same thing in every book: the end of a paragraph. Done once, when
 * a book is read, so chunking, the extractive baseline and every sentence count see the same text.
 * Pure.
 *
 * A line break inside a paragraph becomes a space. A paragraph ends at a blank line, before a line
 * indented deeper than the one before it (a first-line indent, a letter's address, verse), and
 * around a line that is clearly a heading ("Chapter 1", "BOOK ONE: 1805", "CHAPTER IV."). Blank
 * lines are kept as they are, so a book that already has one line per paragraph does not change.
 */

// An all-capitals line with a letter in it ("THE END", "PART TWO").
const CAPITALS = /^(?=.*\p{Lu})[^\p{Ll}]{1,60}$/u;

function isHeading(line: string): boolean {
	// CAPITALS is tried only on lines it can match (60 characters are at most 120 UTF-16 units): its
	// lookahead overflowed the stack on a line of millions of CJK characters.
	return isSectionHeading(line) || (line.length <= 120 && CAPITALS.test(line));
}

/**
 * Linear in the length of the text, in memory that is little more than the text's: lines are read
 * in place rather than split into an array, pieces are joined a block at a time, and the dash rule
 * looks only at the paragraph's last two characters. (Re-testing a regex against the growing
 * paragraph took 11 s for 100,000 short lines, trimming blanks with `/[ \t]+$/` is quadratic in a
 * run of blanks inside a line, and 16 million short lines split into an array needed gigabytes.)
 */
export function unwrapParagraphs(text: string): string {
	const blocks: string[] = [];
	let pieces: string[] = [];
	const add = (piece: string) => {
		pieces.push(piece);
		if (pieces.length >= JOIN_EVERY) {
			blocks.push(pieces.join(''));
			pieces = [];
		}
	};
	// The line before, as the join rule needs it: its indent, and whether it can be continued.
	let previous: { indent: number; open: boolean } | null = null;
	// The last two characters of the paragraph being built.
	let tail = '';
	for (let from = 0; ;) {
		const newline = text.indexOf('\n', from);
		const raw = text.slice(from, newline === -1 ? text.length : newline);
		// Only spaces and tabs: a stray control character at a line's end is text.
		const line = raw.slice(0, blankEnd(raw));
		const indent = blankStart(line);
		const bare = line.slice(indent);
		const heading = isHeading(bare);
		if (previous?.open && bare !== '' && indent <= previous.indent && !heading) {
			// A dash at the end of a line joins the next word without a space ("so--\nthen").
			const joint = tail === '--' || tail.endsWith('—') ? '' : ' ';
			if (joint) add(joint);
			add(bare);
			tail = bare.length >= 2 ? bare.slice(-2) : (tail + joint + bare).slice(-2);
		} else {
			if (previous) add('\n');
			add(line);
			tail = line.slice(-2);
		}
		previous = { indent, open: bare !== '' && !heading };
		if (newline === -1) break;
		from = newline + 1;
	}
	blocks.push(pieces.join(''));
	return blocks.join('');
}

/** Pieces joined into one string at a time: an array of every piece of a long book took 8 bytes and a string each. */
const JOIN_EVERY = 4096;

/** Where the blanks (spaces and tabs) at the end of `line` start. */
function blankEnd(line: string): number {
	let end = line.length;
	while (end > 0 && isBlank(line.charCodeAt(end - 1))) end--;
	return end;
}

/** How many blanks (spaces and tabs) `line` starts with. */
function blankStart(line: string): number {
	let start = 0;
	while (start < line.length && isBlank(line.charCodeAt(start))) start++;
	return start;
}

function isBlank(c: number): boolean {
	return c === 32 || c === 9;
}
