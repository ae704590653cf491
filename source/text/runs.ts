/**
 * Maximal runs of one class of characters, the way the regex `X+` with the `u` flag finds them
 * (or `X+(?:[']X+)*`, words with inner apostrophes), but in constant stack. V8's regex engine
 * keeps a backtracking entry for each character a greedy `+` takes over a Unicode class (one that
 * can match a surrogate pair), and a run of a few million such characters overflowed the stack:
 * 10 million "中" crashed `plan` with "Maximum call stack size exceeded". Here a run is matched at
 * most STEP characters at a time and the pieces are joined. Pure.
 */

const STEP = 4096;
const pieces = new Map<string, RegExp>();

/**
 * [start, end) of each maximal run of characters of `kind` (a regex character class, such as
 * `[\p{L}\p{N}]`) in `text`, in order. Runs that only a single character of `joins` separates are
 * one run, as `kind+(?:[joins]kind+)*` would match them ("don't").
 */
export function* runsOf(text: string, kind: string, joins = ''): Generator<[number, number]> {
	let piece = pieces.get(kind);
	if (!piece) {
		piece = new RegExp(`${kind}{1,${STEP}}`, 'gu');
		pieces.set(kind, piece);
	}
	// A regex of its own: the caller may look for other runs while this one waits.
	const re = new RegExp(piece);
	let start = -1;
	let end = -1;
	for (let m = re.exec(text); m; m = re.exec(text)) {
		if (start >= 0 && (m.index === end || (m.index === end + 1 && joins.includes(text[end]!)))) {
			end = m.index + m[0].length;
			continue;
		}
		if (start >= 0) yield [start, end];
		start = m.index;
		end = m.index + m[0].length;
	}
	if (start >= 0) yield [start, end];
}

/**
 * `text.replace(/\s+/g, ' ')`, each run of whitespace made one space, in one pass. The regex
 * replace kept a record of every match before building the result: a text of 16 million words
 * needed more than 300 MB for it.
 */
export function collapseWhitespace(text: string): string {
	const blocks: string[] = [];
	let pieces: string[] = [];
	let from = 0;
	for (let i = 0; i < text.length; i++) {
		if (!isWhitespace(text.charCodeAt(i))) continue;
		let end = i + 1;
		while (end < text.length && isWhitespace(text.charCodeAt(end))) end++;
		// A single space stays as it is: nothing to cut there.
		if (end === i + 1 && text.charCodeAt(i) === 32) {
			i = end - 1;
			continue;
		}
		pieces.push(text.slice(from, i), ' ');
		from = end;
		i = end - 1;
		if (pieces.length >= JOIN_EVERY) {
			blocks.push(pieces.join(''));
			pieces = [];
		}
	}
	if (from === 0) return text;
	pieces.push(text.slice(from));
	blocks.push(pieces.join(''));
	return blocks.join('');
}

const JOIN_EVERY = 4096;

/** JavaScript's `\s`: the same set with or without the `u` flag (no whitespace lies outside the BMP). */
export function isWhitespace(c: number): boolean {
	return (
		c === 32 ||
		(c >= 9 && c <= 13) ||
		c === 0xa0 ||
		c === 0x1680 ||
		(c >= 0x2000 && c <= 0x200a) ||
		c === 0x2028 ||
		c === 0x2029 ||
		c === 0x202f ||
		c === 0x205f ||
		c === 0x3000 ||
		c === 0xfeff
	);
}
