import { counted } from '../format/count.ts';
import { badInput } from '../errors.ts';

/**
 * Plain-text books: bytes -> normalized text, and a title guessed from the text. Pure; `label` is
 * the name used in error messages.
 */

// Share of C0 control characters (other than \n \r \t \f) above which a file is taken for binary.
// Kept high because some exports legitimately use a few, e.g. \v for manual line breaks.
const MAX_CONTROL_SHARE = 0.1;

/** Line ends to LF; the one normalization every later offset depends on. */
export function normalizeNewlines(text: string): string {
	return text.replace(/\r\n?/g, '\n');
}

export function decodeTxt(bytes: Uint8Array, label: string): string {
	if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
		throw badInput(`${label}: the file is UTF-16 text; save it as UTF-8 and try again`);
	}
	if (bytes.includes(0)) {
		throw badInput(
			`${label}: looks like a binary file, not text (it contains NUL bytes); give a UTF-8 .txt or an .epub file`,
		);
	}
	let decoded: string;
	try {
		// The decoder drops a leading UTF-8 BOM itself (ignoreBOM defaults to false).
		decoded = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
	} catch {
		throw badInput(`${label}: not valid UTF-8 text; re-save the file with UTF-8 encoding`);
	}
	const text = normalizeNewlines(decoded).trimEnd();
	if (text.trim() === '')
		throw badInput(`${label}: the file is empty (no text); give a book with text in it`);
	const controls = countControls(text);
	if (controls / text.length > MAX_CONTROL_SHARE) {
		throw badInput(
			`${label}: looks like a binary file, not text (${counted(controls, 'control character')}); give a UTF-8 .txt or an .epub file`,
		);
	}
	return text;
}

// Lines that open a section rather than name a book: Gutenberg texts stripped of their header
// usually start with one ("Letter 1", "Chapter 1", "BOOK ONE: 1805").
const SECTION_WORDS = [
	'chapter',
	'letter',
	'book',
	'part',
	'volume',
	'vol\\.',
	'section',
	'canto',
	'act',
	'scene',
	'stave',
	'prologue',
	'preface',
	'foreword',
	'introduction',
	'contents',
	'table of contents',
	'epilogue',
	'appendix',
	'dedication',
];
const SECTION_HEADING = new RegExp(`^(?:${SECTION_WORDS.join('|')})\\b|^(?:[ivxlcdm]+|\\d+)\\.?$`, 'i');
const MAX_TITLE_CHARS = 100;

/**
 * The title of a plain-text book, or null when the text does not state one:
 * 1. a Gutenberg-style `Title: ...` line among the first 50 lines;
 * 2. else the first non-empty line, if it is shorter than 100 characters, has a letter, stands
 *    alone (a blank line or the end follows it: a hard-wrapped first line of prose does not) and
 *    is not a section heading such as "Chapter 1" or "Letter 1".
 * The caller falls back to the file name.
 */
export function txtTitle(text: string): string | null {
	const lines = text.split('\n', 400).map(titleLine);
	for (const line of lines.slice(0, 50)) {
		const match = /^title: *(.+)$/i.exec(line);
		if (match?.[1] && match[1].length < MAX_TITLE_CHARS) return match[1];
	}
	const first = lines.findIndex((line) => line !== '');
	const line = lines[first];
	if (line === undefined) return null;
	const next = lines[first + 1];
	const standsAlone = next === undefined || next === '';
	if (line.length < MAX_TITLE_CHARS && /\p{L}/u.test(line) && standsAlone && !SECTION_HEADING.test(line))
		return line;
	return null;
}

/**
 * A line as the title rules read it: whitespace collapsed and trimmed. A line with LONG characters
 * that are not whitespace can be neither rule's title (even less "Title: " and its title), so it is
 * not collapsed (a book of one line of 16 million words needed gigabytes for that) but read as a
 * long line that is not blank.
 */
function titleLine(line: string): string {
	let shown = 0;
	for (let i = 0; i < line.length && shown < LONG; i++) if (!WHITESPACE.test(line[i]!)) shown++;
	return shown >= LONG ? LONG_LINE : line.replace(/\s+/g, ' ').trim();
}

const LONG = 2 * MAX_TITLE_CHARS;
const WHITESPACE = /\s/;
const LONG_LINE = '\u2026'.repeat(LONG);

/** How many C0 control characters other than \t \n \f \r `text` holds (a loop: a match array of them held 8 bytes each). */
function countControls(text: string): number {
	let count = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c <= 0x08 || c === 0x0b || (c >= 0x0e && c <= 0x1f)) count++;
	}
	return count;
}
