/**
 * The in-app editor's buffer: lines of text and a cursor, edited by pure functions. Lines are shown
 * cut into rows of the pane's width (a summary is usually one long paragraph), and the cursor moves
 * up and down by those rows, as a reader sees them.
 */

export interface EditorState {
	lines: string[];
	/** Cursor: line and code-point column. */
	line: number;
	col: number;
	dirty: boolean;
}

export function editorOf(text: string): EditorState {
	const lines = text.split('\n');
	const last = lines.length - 1;
	return { lines, line: last, col: [...lines[last]!].length, dirty: false };
}

export function textOf(state: EditorState): string {
	return state.lines.join('\n');
}

const chars = (s: string) => [...s];

export type EditorKey =
	| { kind: 'insert'; text: string }
	| { kind: 'newline' }
	| { kind: 'backspace' }
	| { kind: 'delete' }
	| { kind: 'left' }
	| { kind: 'right' }
	| { kind: 'up' }
	| { kind: 'down' }
	| { kind: 'home' }
	| { kind: 'end' };

export function editKey(state: EditorState, key: EditorKey, width: number): EditorState {
	const { lines, line, col } = state;
	const current = chars(lines[line]!);
	const replace = (newLines: string[], l: number, c: number): EditorState => ({ lines: newLines, line: l, col: c, dirty: true });
	switch (key.kind) {
		case 'insert': {
			// Pasted text may hold newlines (and carriage returns from other systems).
			const pieces = key.text.replace(/\r\n?/gu, '\n').split('\n');
			const before = current.slice(0, col).join('');
			const after = current.slice(col).join('');
			if (pieces.length === 1) return replace(withLine(lines, line, before + pieces[0]! + after), line, col + chars(pieces[0]!).length);
			const inserted = [before + pieces[0]!, ...pieces.slice(1, -1), pieces.at(-1)! + after];
			const newLines = [...lines.slice(0, line), ...inserted, ...lines.slice(line + 1)];
			return replace(newLines, line + pieces.length - 1, chars(pieces.at(-1)!).length);
		}
		case 'newline': {
			const newLines = [...lines.slice(0, line), current.slice(0, col).join(''), current.slice(col).join(''), ...lines.slice(line + 1)];
			return replace(newLines, line + 1, 0);
		}
		case 'backspace': {
			if (col > 0) return replace(withLine(lines, line, [...current.slice(0, col - 1), ...current.slice(col)].join('')), line, col - 1);
			if (line === 0) return state;
			const prev = lines[line - 1]!;
			const newLines = [...lines.slice(0, line - 1), prev + lines[line]!, ...lines.slice(line + 1)];
			return replace(newLines, line - 1, chars(prev).length);
		}
		case 'delete': {
			if (col < current.length) return replace(withLine(lines, line, [...current.slice(0, col), ...current.slice(col + 1)].join('')), line, col);
			if (line === lines.length - 1) return state;
			const newLines = [...lines.slice(0, line), lines[line]! + lines[line + 1]!, ...lines.slice(line + 2)];
			return replace(newLines, line, col);
		}
		case 'left':
			if (col > 0) return { ...state, col: col - 1 };
			return line > 0 ? { ...state, line: line - 1, col: chars(lines[line - 1]!).length } : state;
		case 'right':
			if (col < current.length) return { ...state, col: col + 1 };
			return line < lines.length - 1 ? { ...state, line: line + 1, col: 0 } : state;
		case 'home':
			return { ...state, col: 0 };
		case 'end':
			return { ...state, col: current.length };
		case 'up':
		case 'down': {
			const rows = rowsOf(state, width);
			const at = cursorRow(state, width);
			const target = rows[at.row + (key.kind === 'up' ? -1 : 1)];
			if (!target) return key.kind === 'up' ? { ...state, col: 0 } : { ...state, col: current.length };
			return { ...state, line: target.line, col: Math.min(target.start + at.col, target.start + target.length) };
		}
	}
}

function withLine(lines: string[], at: number, text: string): string[] {
	const out = [...lines];
	out[at] = text;
	return out;
}

const rowWidth = (width: number) => Math.max(1, width - 1);

/** A row of the display: part of one line, `start`..`start + length` in code points. */
export interface Row {
	line: number;
	start: number;
	length: number;
	text: string;
}

/** The buffer cut into rows; one column is left free so the cursor can stand after a full row. */
export function rowsOf(state: EditorState, width: number): Row[] {
	const w = rowWidth(width);
	const rows: Row[] = [];
	state.lines.forEach((text, line) => {
		const cs = chars(text);
		if (cs.length === 0) rows.push({ line, start: 0, length: 0, text: '' });
		for (let start = 0; start < cs.length; start += w) rows.push({ line, start, length: Math.min(w, cs.length - start), text: cs.slice(start, start + w).join('') });
	});
	return rows;
}

export function cursorRow(state: EditorState, width: number): { row: number; col: number } {
	const rows = rowsOf(state, width);
	const w = rowWidth(width);
	for (let r = 0; r < rows.length; r++) {
		const row = rows[r]!;
		if (row.line !== state.line) continue;
		const last = r + 1 >= rows.length || rows[r + 1]!.line !== row.line;
		if (state.col < row.start + w || last) return { row: r, col: state.col - row.start };
	}
	return { row: 0, col: 0 };
}
