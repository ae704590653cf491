/**
 * Word wrap for text whose every character takes one column: the lines `wrapAnsi(text, width,
 * { hard: true, trim: true })` gives (what the terminal screens use), in a single pass. wrap-ansi
 * measures each word and each row with string-width, several milliseconds per thousand characters:
 * `evidence` on a node of 10 MB spent most of its 145 s there. Pure.
 */

// Characters of one column that NFC leaves alone and that are not whitespace (wrap-ansi breaks at
// spaces only, and trims other whitespace too): printable ASCII, Latin-1 and Latin Extended-A
// letters and signs (no soft hyphen, which takes none), and the dashes, quotes and ellipsis of
// typeset books.
function oneColumn(c: number): boolean {
	return (c >= 0x20 && c <= 0x7e) || (c >= 0xa1 && c <= 0x17f && c !== 0xad) || (c >= 0x2010 && c <= 0x2027);
}

/**
 * `text` as lines of at most `width` columns, exactly as wrap-ansi wraps it in hard mode with
 * trimming: words wrap at spaces, a word longer than a line is cut, every newline starts a line,
 * and spaces at a break go. Null when `text` has a character this does not measure (the caller
 * falls back to wrap-ansi).
 */
export function wrapColumns(text: string, width: number): string[] | null {
	const columns = Math.max(1, width);
	const lines = text.split('\n');
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c !== 10 && !oneColumn(c)) return null;
	}
	const rows: string[] = [];
	for (const line of lines) wrapLine(line, columns, rows);
	return rows;
}

/** wrap-ansi's `exec` for one line of one-column characters, its rows appended to `out`. */
function wrapLine(line: string, columns: number, out: string[]): void {
	if (isBlank(line)) {
		out.push('');
		return;
	}
	const rows = [''];
	const words = line.split(' ');
	for (let i = 0; i < words.length; i++) {
		const word = words[i]!;
		let row = trimStart(rows[rows.length - 1]!);
		rows[rows.length - 1] = row;
		if (i !== 0 && row.length > 0) {
			row += ' ';
			rows[rows.length - 1] = row;
		}
		const rowLength = row.length;
		if (word.length > columns) {
			const remaining = columns - rowLength;
			const breaksStartingThisLine = 1 + Math.floor((word.length - remaining - 1) / columns);
			const breaksStartingNextLine = Math.floor((word.length - 1) / columns);
			if (breaksStartingNextLine < breaksStartingThisLine) rows.push('');
			wrapWord(rows, word, columns);
			continue;
		}
		if (rowLength + word.length > columns && rowLength > 0 && word.length > 0) rows.push('');
		rows[rows.length - 1] += word;
	}
	for (const row of rows) out.push(trimEnd(row));
}

/** wrap-ansi's `wrapWord`: `word` cut across rows, filling the last row first; a stretch at a time. */
function wrapWord(rows: string[], word: string, columns: number): void {
	let visible = rows[rows.length - 1]!.length;
	for (let i = 0; i < word.length;) {
		if (visible + 1 > columns) {
			rows.push(word[i]!);
			visible = 1;
			i++;
		} else {
			const take = Math.min(columns - visible, word.length - i);
			rows[rows.length - 1] += word.slice(i, i + take);
			visible += take;
			i += take;
		}
		if (visible === columns && i < word.length) {
			rows.push('');
			visible = 0;
		}
	}
	if (!visible && rows[rows.length - 1]!.length > 0 && rows.length > 1) rows[rows.length - 2] += rows.pop()!;
}

function isBlank(line: string): boolean {
	for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) !== 32) return false;
	return true;
}

function trimStart(row: string): string {
	let i = 0;
	while (i < row.length && row.charCodeAt(i) === 32) i++;
	return i === 0 ? row : row.slice(i);
}

function trimEnd(row: string): string {
	let i = row.length;
	while (i > 0 && row.charCodeAt(i - 1) === 32) i--;
	return i === row.length ? row : row.slice(0, i);
}
