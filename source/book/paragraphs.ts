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

// A section word with its number ("Chapter 1", "CHAPTER IV.", "Letter 3"), a lone section word
// ("PREFACE", "Epilogue"), or a lone number: never a wrapped line of prose ("letter to Murat:").
const HEADING =
	/^(?:chapter|letter|book|part|volume|vol\.|section|canto|act|scene|stave)\s+(?:\d+|[ivxlcdm]+|one|two|three|four|five|six|seven|eight|nine|ten|first|second|third|fourth|fifth|last)\b[.:]?.{0,60}$|^(?:prologue|preface|foreword|introduction|contents|epilogue|appendix)[.:]?$|^(?:[ivxlcdm]+|\d+)\.?$/iu;
// An all-capitals line with a letter in it ("THE END", "PART TWO").
const CAPITALS = /^(?=.*\p{Lu})[^\p{Ll}]{1,60}$/u;

function isHeading(line: string): boolean {
	return HEADING.test(line) || CAPITALS.test(line);
}

export function unwrapParagraphs(text: string): string {
	const out: string[] = [];
	// The line before, as the join rule needs it: its indent, and whether it can be continued.
	let previous: { indent: number; open: boolean } | null = null;
	for (const raw of text.split('\n')) {
		// Only spaces and tabs: a stray control character at a line's end is text.
		const line = raw.replace(/[ \t]+$/u, '');
		const bare = line.replace(/^[ \t]+/u, '');
		const indent = line.length - bare.length;
		const heading = isHeading(bare);
		if (previous?.open && bare !== '' && indent <= previous.indent && !heading) {
			const last = out.length - 1;
			// A dash at the end of a line joins the next word without a space ("so--\nthen").
			out[last] = /(?:--|—)$/u.test(out[last]!) ? `${out[last]}${bare}` : `${out[last]} ${bare}`;
		} else {
			out.push(line);
		}
		previous = { indent, open: bare !== '' && !heading };
	}
	return out.join('\n');
}
