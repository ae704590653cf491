import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Editor } from '../../source/ui/components/Editor.tsx';
import {
	cursorRow,
	editKey,
	editorOf,
	rowsOf,
	rowWidth,
	screenRows,
	textOf,
	type EditorKey,
	type EditorState,
} from '../../source/ui/state/editor.ts';
import { textWidth } from '../../source/format/text.ts';
import { prng } from '../support/prng.ts';
import { renderScreen, until } from '../support/screen.tsx';

const PARAGRAPH =
	'Elizabeth walked into the garden where the count waited for news of the war, and a letter arrived from Moscow while snow fell on the old mill. Nobody spoke of her brother, who had gone to Paris in the spring with a regiment of hussars.';

/** Rows of one line as text, checked to cover the line exactly. */
function rowTexts(state: EditorState, width: number): string[] {
	const rows = rowsOf(state, width);
	for (const line of state.lines.keys()) {
		assert.equal(
			rows
				.filter((r) => r.line === line)
				.map((r) => r.text)
				.join(''),
			state.lines[line],
			'rows cover their line exactly',
		);
	}
	return rows.map((r) => r.text);
}

/** Breaks that cut a word although the word would fit a row of its own. */
function badBreaks(rows: string[], w: number): string[] {
	const bad: string[] = [];
	for (let i = 0; i + 1 < rows.length; i++) {
		const [row, next] = [rows[i]!, rows[i + 1]!];
		if (textWidth(row.trimEnd()) > w) bad.push(`row ${i} is wider than ${w}: ${JSON.stringify(row)}`);
		if (next.startsWith(' ')) bad.push(`row ${i + 1} starts with a space: ${JSON.stringify(next)}`);
		const firstWord = next.split(' ')[0]!;
		if (!row.endsWith(' ') && !next.startsWith(' ')) {
			// A break inside a word: only a word longer than a row may be cut.
			const word = (row.split(' ').at(-1) ?? '') + firstWord;
			if (textWidth(word) <= w) bad.push(`"${word}" cut between rows ${i} and ${i + 1}`);
		} else if (textWidth(row + firstWord) <= w && firstWord !== '') {
			bad.push(`"${firstWord}" would still fit on row ${i}`);
		}
	}
	return bad;
}

test('a long paragraph wraps at word boundaries at width 20: no word that would fit a row is cut, and each row is as full as it can be', () => {
	const state = editorOf(PARAGRAPH);
	const rows = rowTexts(state, 20);
	assert.ok(rows.length >= 10, `${rows.length} rows`);
	assert.deepEqual(badBreaks(rows, rowWidth(20)), [], rows.join('|\n'));
	assert.deepEqual(rows.slice(0, 3), ['Elizabeth walked ', 'into the garden ', 'where the count ']);
});

test('a word longer than a row is still cut, and random text of any width keeps the same rules', () => {
	const rows = rowTexts(editorOf('a supercalifragilisticexpialidocious word'), 12);
	assert.deepEqual(rows, ['a supercali', 'fragilistic', 'expialidoci', 'ous word']);
	const random = prng(11);
	for (let round = 0; round < 200; round++) {
		const words = Array.from(
			{ length: 1 + Math.floor(random() * 30) },
			() => 'x'.repeat(1 + Math.floor(random() * 14)) + (random() < 0.1 ? '日本' : ''),
		);
		const text = words.join(random() < 0.2 ? '  ' : ' ');
		const width = 6 + Math.floor(random() * 30);
		const rows = rowTexts(editorOf(text), width);
		assert.deepEqual(badBreaks(rows, rowWidth(width)), [], `width ${width}:\n${rows.join('|\n')}`);
	}
});

test('indentation at the start of a line is kept as part of its first row', () => {
	assert.deepEqual(rowTexts(editorOf('    indented words go here'), 13), [
		'    indented ',
		'words go ',
		'here',
	]);
});

const press = (state: EditorState, width: number, ...keys: (EditorKey | string)[]) =>
	keys.reduce((s, k) => editKey(s, typeof k === 'string' ? { kind: 'insert', text: k } : k, width), state);
const UP: EditorKey = { kind: 'up' };
const DOWN: EditorKey = { kind: 'down' };

test('typing at the end of a row: a word that outgrows the row moves to the next one, and the cursor with it', () => {
	// Rows of 10: "aaaa bbbb " | "cccc".
	let e = editorOf('aaaa bbbb cccc');
	e = { ...e, col: 9 }; // just after "bbbb"
	assert.deepEqual(cursorRow(e, 11), { row: 0, col: 9 });
	e = press(e, 11, 'X');
	assert.deepEqual(rowTexts(e, 11), ['aaaa bbbbX ', 'cccc']);
	assert.deepEqual(screenRows(e, 11).cursor, { row: 0, col: 10 }, 'after the X, in the free column');
	e = press(e, 11, 'Y');
	assert.deepEqual(rowTexts(e, 11), ['aaaa ', 'bbbbXY ', 'cccc']);
	assert.deepEqual(
		screenRows(e, 11).cursor,
		{ row: 1, col: 6 },
		'right after the Y, on the row the word moved to',
	);
	assert.equal(textOf(e), 'aaaa bbbbXY cccc');
});

test('at a break the cursor shows at the start of the next row; a space typed after a full row waits in the free column', () => {
	let e = { ...editorOf('aaaa bbbb cccc'), col: 10 }; // after the space that ends row 0
	assert.deepEqual(screenRows(e, 11).cursor, { row: 1, col: 0 });
	e = press(editorOf('aaaa bbbbb'), 11);
	assert.deepEqual(screenRows(e, 11).cursor, { row: 0, col: 10 });
	e = press(e, 11, ' ');
	assert.deepEqual(
		screenRows(e, 11),
		{ rows: ['aaaa bbbbb'], cursor: { row: 0, col: 10 } },
		'the hanging space is not drawn past the row',
	);
	e = press(e, 11, 'c');
	assert.deepEqual(screenRows(e, 11), { rows: ['aaaa bbbbb', 'c'], cursor: { row: 1, col: 1 } });
});

test('up and down move by the rows a reader sees, stop on a short row rather than the row after it, and keep the column across it', () => {
	// Rows of 10: "aaaa bbbb " | "cc " | "dddddddddd " | "ee".
	let e = editorOf('aaaa bbbb cc dddddddddd ee');
	assert.deepEqual(rowTexts(e, 11), ['aaaa bbbb ', 'cc ', 'dddddddddd ', 'ee']);
	e = { ...e, col: 8 };
	e = press(e, 11, DOWN);
	assert.deepEqual(
		cursorRow(e, 11),
		{ row: 1, col: 2 },
		'on the short row, after "cc", not on the row below it',
	);
	e = press(e, 11, DOWN);
	assert.deepEqual(cursorRow(e, 11), { row: 2, col: 8 }, 'back at column 8 where the row is long enough');
	e = press(e, 11, DOWN);
	assert.deepEqual(
		cursorRow(e, 11),
		{ row: 3, col: 2 },
		'the last row of the line: after its last character',
	);
	e = press(e, 11, UP, UP, UP);
	assert.deepEqual(cursorRow(e, 11), { row: 0, col: 8 });
	e = press(e, 11, { kind: 'left' }, DOWN);
	assert.deepEqual(cursorRow(e, 11), { row: 1, col: 2 });
	e = press(e, 11, DOWN);
	assert.deepEqual(cursorRow(e, 11), { row: 2, col: 7 }, 'a sideways move sets the column anew');
	// Screen columns, not characters: a wide character takes two.
	e = press(editorOf('日本語 abcdef\nabcdefgh'), 20, UP);
	assert.deepEqual(cursorRow(e, 20), { row: 0, col: 5 }, 'column 8 is after "日本語 a", five characters in');
});

test('the editor on screen breaks rows between words', async () => {
	const state = editorOf(PARAGRAPH);
	const r = renderScreen(<Editor title="Editing n1" state={state} width={20} height={30} />);
	const frame = await until(r.lastFrame, (f) => f.includes('Elizabeth'), 'the editor');
	const rows = frame.split('\n').slice(1, -1);
	assert.deepEqual(
		rows.slice(0, 3).map((l) => l.trimEnd()),
		['Elizabeth walked', 'into the garden', 'where the count'],
	);
	const words = new Set(PARAGRAPH.split(/\s+/u));
	for (const row of rows.slice(0, -1))
		for (const word of row.trim().split(/\s+/u))
			assert.ok(words.has(word), `"${word}" is a whole word of the text (row "${row}")`);
	r.unmount();
});
