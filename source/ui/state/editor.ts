/**
 * The in-app editor's buffer: lines of text and a cursor, edited by pure functions (each line as
 * a text field, text-field.ts; across lines here). Lines are shown
 * cut into rows of the pane's width (a summary is usually one long paragraph), and the cursor moves
 * up and down by those rows, as a reader sees them.
 */

import wrapAnsi from 'wrap-ansi';
import { textWidth } from '../../format/text.ts';
import { editField, type FieldEdit } from './text-field.ts';

export interface EditorState {
	lines: string[];
	/** Cursor: line and code-point column. */
	line: number;
	col: number;
	dirty: boolean;
	/** While moving up and down: the screen column the cursor keeps to where rows are long enough. */
	goal?: number;
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

/** A key in the editor: an edit within the line (as in every text field), or one across lines. */
export type EditorKey = FieldEdit | { kind: 'newline' } | { kind: 'up' } | { kind: 'down' };

export function editKey(state: EditorState, key: EditorKey, width: number): EditorState {
	const next = applyKey(state, key, width);
	// Any key but up and down sets the column anew.
	if (key.kind === 'up' || key.kind === 'down' || next.goal === undefined) return next;
	const { goal: _, ...rest } = next;
	return rest;
}

function applyKey(state: EditorState, key: EditorKey, width: number): EditorState {
	const { lines, line, col } = state;
	const current = chars(lines[line]!);
	const replace = (newLines: string[], l: number, c: number): EditorState => ({
		lines: newLines,
		line: l,
		col: c,
		dirty: true,
	});
	// Within the line, the line is a text field: the one implementation of cursor editing.
	const inLine = (edit: FieldEdit): EditorState => {
		const field = editField({ text: lines[line]!, cursor: col }, edit);
		if (field.text === lines[line]) return { ...state, col: field.cursor };
		return replace(withLine(lines, line, field.text), line, field.cursor);
	};
	switch (key.kind) {
		case 'insert': {
			// Pasted text may hold newlines (and carriage returns from other systems).
			const pieces = key.text.replace(/\r\n?/gu, '\n').split('\n');
			if (pieces.length === 1) return inLine(key);
			const before = current.slice(0, col).join('');
			const after = current.slice(col).join('');
			const inserted = [before + pieces[0]!, ...pieces.slice(1, -1), pieces.at(-1)! + after];
			const newLines = [...lines.slice(0, line), ...inserted, ...lines.slice(line + 1)];
			return replace(newLines, line + pieces.length - 1, chars(pieces.at(-1)!).length);
		}
		case 'newline': {
			const newLines = [
				...lines.slice(0, line),
				current.slice(0, col).join(''),
				current.slice(col).join(''),
				...lines.slice(line + 1),
			];
			return replace(newLines, line + 1, 0);
		}
		case 'erase': {
			if (col > 0) return inLine(key);
			if (line === 0) return state;
			const prev = lines[line - 1]!;
			const newLines = [...lines.slice(0, line - 1), prev + lines[line]!, ...lines.slice(line + 1)];
			return replace(newLines, line - 1, chars(prev).length);
		}
		case 'left':
			if (col > 0) return inLine(key);
			return line > 0 ? { ...state, line: line - 1, col: chars(lines[line - 1]!).length } : state;
		case 'right':
			if (col < current.length) return inLine(key);
			return line < lines.length - 1 ? { ...state, line: line + 1, col: 0 } : state;
		case 'start':
		case 'end':
			return inLine(key);
		case 'up':
		case 'down': {
			const rows = rowsOf(state, width);
			const at = cursorRow(state, width);
			const target = rows[at.row + (key.kind === 'up' ? -1 : 1)];
			if (!target) return key.kind === 'up' ? { ...state, col: 0 } : { ...state, col: current.length };
			// The column a reader keeps in mind while moving through shorter rows, in screen columns.
			const goal = state.goal ?? textWidth(chars(rows[at.row]!.text).slice(0, at.col).join(''));
			return {
				...state,
				line: target.line,
				col: target.start + indexAtColumn(target, goal, isLastOfLine(rows, rows.indexOf(target))),
				goal,
			};
		}
	}
}

function withLine(lines: string[], at: number, text: string): string[] {
	const out = [...lines];
	out[at] = text;
	return out;
}

/** Columns of text per row: one column is left free so the cursor can stand after a full row. */
export const rowWidth = (width: number) => Math.max(1, width - 1);

/**
 * A row of the display: part of one line, `start`..`start + length` in code points. A row that ends
 * at a word break keeps the spaces of that break at its end (they hang past the row's width, as in
 * word-wrapping editors), so rows cover their line exactly and the next row starts with a word.
 */
export interface Row {
	line: number;
	start: number;
	length: number;
	text: string;
}

/** The buffer cut into rows at word boundaries (a word longer than a row is cut). */
export function rowsOf(state: EditorState, width: number): Row[] {
	const w = rowWidth(width);
	const rows: Row[] = [];
	state.lines.forEach((text, line) => {
		const cs = chars(text);
		for (const [start, end] of rowSpans(cs, w))
			rows.push({ line, start, length: end - start, text: cs.slice(start, end).join('') });
	});
	return rows;
}

/**
 * Where one line's rows start and end. wrap-ansi (as Ink wraps text) decides the breaks; its rows
 * (trimmed) are then found in the line, so each break's spaces join the row before it. Spaces at
 * the start of a line are indentation, not a break: a stand-in letter for each keeps them in the
 * first row, where they take their columns.
 */
function rowSpans(cs: string[], w: number): [number, number][] {
	if (cs.length === 0) return [[0, 0]];
	let lead = 0;
	while (lead < cs.length && cs[lead] === ' ') lead++;
	const line = [...Array<string>(lead).fill('x'), ...cs.slice(lead)];
	const wrapped = wrapAnsi(line.join(''), w, { hard: true })
		.split('\n')
		.filter((row) => row !== '');
	const starts: number[] = [];
	let pos = 0;
	for (const row of wrapped) {
		while (pos < line.length && /\s/u.test(line[pos]!)) pos++;
		const length = chars(row).length;
		// Clean text comes back as it went in; anything else falls back to cutting at the width.
		if (line.slice(pos, pos + length).join('') !== row) return cutSpans(cs, w);
		starts.push(starts.length === 0 ? 0 : pos);
		pos += length;
	}
	if (starts.length === 0) return [[0, cs.length]];
	return starts.map((start, i) => [start, starts[i + 1] ?? cs.length]);
}

function cutSpans(cs: string[], w: number): [number, number][] {
	const spans: [number, number][] = [];
	for (let start = 0; start < cs.length; start += w) spans.push([start, Math.min(cs.length, start + w)]);
	return spans;
}

function isLastOfLine(rows: Row[], r: number): boolean {
	return r + 1 >= rows.length || rows[r + 1]!.line !== rows[r]!.line;
}

/**
 * The code-point index in `row` nearest to screen column `column`, at most its end. The end of a
 * row that is not its line's last is the start of the next row, so the cursor stops on the row's
 * last character there.
 */
function indexAtColumn(row: Row, column: number, last: boolean): number {
	const cs = chars(row.text);
	const max = last ? cs.length : Math.max(0, cs.length - 1);
	let i = 0;
	let x = 0;
	while (i < max && x + textWidth(cs[i]!) <= column) x += textWidth(cs[i++]!);
	return i;
}

/**
 * The row the cursor shows on and its code-point column in that row. A cursor at a break (the end
 * of one row is the start of the next) shows at the start of the next row, where what is typed
 * goes; at the end of a line it stays after the line's last character.
 */
export function cursorRow(state: EditorState, width: number): { row: number; col: number } {
	const rows = rowsOf(state, width);
	for (let r = 0; r < rows.length; r++) {
		const row = rows[r]!;
		if (row.line !== state.line) continue;
		if (state.col < row.start + row.length || isLastOfLine(rows, r))
			return { row: r, col: state.col - row.start };
	}
	return { row: 0, col: 0 };
}

/**
 * The rows as the screen draws them, cut to the row width (only the spaces hanging at a break can
 * pass it), and where the cursor stands among them: past the width it waits in the free column.
 */
export function screenRows(
	state: EditorState,
	width: number,
): { rows: string[]; cursor: { row: number; col: number } } {
	const w = rowWidth(width);
	const at = cursorRow(state, width);
	let cursorCol = 0;
	const rows = rowsOf(state, width).map((row, r) => {
		const cs = chars(row.text);
		let fit = 0;
		let x = 0;
		while (fit < cs.length && x + textWidth(cs[fit]!) <= w) x += textWidth(cs[fit++]!);
		if (r === at.row) cursorCol = Math.min(at.col, fit);
		return cs.slice(0, fit).join('');
	});
	return { rows, cursor: { row: at.row, col: cursorCol } };
}
