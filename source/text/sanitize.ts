/**
 * Text from books and models is untrusted: before it reaches a terminal, remove what a terminal
 * would act on — escape sequences (CSI, OSC such as clipboard writes and title changes, DCS/PM/APC,
 * and lone ESC), C0 and C1 control characters other than newline and tab (a carriage return could
 * overwrite a line), and bidirectional overrides that reorder what is shown.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/gu;
// The same characters, to tell whether there is anything to remove (every escape starts with one).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u;

export function sanitize(text: string): string {
	return UNSAFE.test(text) ? removeUnsafe(text) : text;
}

/**
 * One value (a path, a title) inside a line of output: sanitized, with its line breaks and tabs
 * written as `\n` and `\t`, so a name holding one cannot pass for a line of its own (a file named
 * "x\nstatus: done") and still tells which file it is.
 */
export function oneLine(text: string): string {
	return sanitize(text).replace(/\n/gu, '\\n').replace(/\t/gu, '\\t');
}

const ESC = 0x1b;

/**
 * `text` without its escape sequences and then without the characters of CONTROLS, in one pass.
 * The escape sequences are what this regex matched (`replace(ESCAPES, '')`, as it was done):
 *
 *     \x1b\[[0-?]*[ -/]*[@-~]                          CSI
 *     \x1b[\]P^_X][\s\S]*?(?:\x07|\x1b\\|\x9c)        OSC, DCS, PM, APC, SOS up to the first terminator
 *     \x9b[0-?]*[ -/]*[@-~]                             8-bit CSI
 *     [\x9d\x90\x9e\x9f\x98][\s\S]*?(?:\x07|\x1b\\|\x9c)  their 8-bit openers
 *     \x1b[@-Z\\-_]?                                   any other ESC, with the byte after it
 *
 * The regex looked for a terminator to the end of the text at every opener that had none (20,000
 * unterminated ESC ] took 3 s, 40,000 took 12 s), its lazy `[\s\S]*?` overflowed the stack on a
 * string of millions of CJK characters, and a replace keeps a record of every match (a text of
 * millions of control characters took hundreds of MB). Here the first terminator at or after a
 * point is found once and remembered, and what is kept is joined a block at a time.
 */
function removeUnsafe(text: string): string {
	const blocks: string[] = [];
	let pieces: string[] = [];
	let from = 0;
	const cut = (at: number, resume: number) => {
		if (at > from) pieces.push(text.slice(from, at));
		from = resume;
		if (pieces.length >= JOIN_EVERY) {
			blocks.push(pieces.join(''));
			pieces = [];
		}
	};
	// The first terminator at or after `searchedFrom` (Infinity: none), remembered across openers.
	let searchedFrom = -1;
	let terminator = -1;
	const stringEnd = (start: number): number => {
		if (searchedFrom < 0 || searchedFrom > start || terminator < start) {
			searchedFrom = start;
			terminator = Infinity;
			for (let k = start; k < text.length; k++) {
				const c = text.charCodeAt(k);
				if (c === 0x07 || c === 0x9c || (c === ESC && text.charCodeAt(k + 1) === 0x5c)) {
					terminator = k;
					break;
				}
			}
		}
		if (terminator === Infinity) return -1;
		return terminator + (text.charCodeAt(terminator) === ESC ? 2 : 1);
	};
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		let end = -1;
		if (c === ESC) {
			const next = text.charCodeAt(i + 1);
			if (next === 0x5b) end = csiEnd(text, i + 2);
			else if (next === 0x5d || next === 0x50 || next === 0x5e || next === 0x5f || next === 0x58)
				end = stringEnd(i + 2);
			if (end < 0) end = i + ((next >= 0x40 && next <= 0x5a) || (next >= 0x5c && next <= 0x5f) ? 2 : 1);
		} else if (c === 0x9b) {
			end = csiEnd(text, i + 1);
		} else if (c === 0x9d || c === 0x90 || c === 0x9e || c === 0x9f || c === 0x98) {
			end = stringEnd(i + 1);
		}
		// Not part of a sequence: a control character alone goes (an 8-bit opener without its end too).
		if (end < 0 && isControl(c)) end = i + 1;
		if (end < 0) continue;
		cut(i, end);
		i = end - 1;
	}
	if (from === 0) return text;
	pieces.push(text.slice(from));
	blocks.push(pieces.join(''));
	return blocks.join('');
}

const JOIN_EVERY = 4096;

/** A character of CONTROLS. */
function isControl(c: number): boolean {
	return (
		c <= 0x08 ||
		(c >= 0x0b && c <= 0x1f) ||
		(c >= 0x7f && c <= 0x9f) ||
		(c >= 0x202a && c <= 0x202e) ||
		(c >= 0x2066 && c <= 0x2069) ||
		c === 0x200e ||
		c === 0x200f ||
		c === 0x061c
	);
}

/** The end of a CSI's parameters, intermediates and final byte from `start`, or -1 when there is no final byte. */
function csiEnd(text: string, start: number): number {
	let k = start;
	while (k < text.length && text.charCodeAt(k) >= 0x30 && text.charCodeAt(k) <= 0x3f) k++;
	while (k < text.length && text.charCodeAt(k) >= 0x20 && text.charCodeAt(k) <= 0x2f) k++;
	const c = text.charCodeAt(k);
	return c >= 0x40 && c <= 0x7e ? k + 1 : -1;
}

/**
 * `value` as JSON in which nothing a terminal would act on is raw, while every value parses back
 * unchanged: JSON.stringify escapes C0 controls itself (ESC becomes \u001b); DEL, C1 controls and
 * bidirectional overrides, which it leaves raw, are escaped here the same way. Outside strings JSON
 * holds only newlines and spaces, so every character replaced is inside a string.
 */
export function safeJson(value: unknown, indent?: number): string {
	return JSON.stringify(value, null, indent).replace(
		CONTROLS,
		(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
}
