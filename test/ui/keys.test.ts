import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Key } from 'ink';
import { pressesOf } from '../../source/ui/keys/presses.ts';
import { KEYS } from '../support/keys.ts';

const none = {} as Key;

test('a burst of typed keys is one press per character, control characters included', () => {
	assert.deepEqual(
		pressesOf('modd', none).map((p) => p.input),
		['m', 'o', 'd', 'd'],
	);
	// A text typed and saved faster than the terminal is read: the ctrl-s is its own press.
	const saved = pressesOf(`fix${KEYS.ctrlS}`, none);
	assert.deepEqual(saved.slice(0, 3), [{ input: 'f' }, { input: 'i' }, { input: 'x' }]);
	assert.deepEqual(saved[3], { input: 's', ctrl: true });
	assert.deepEqual(pressesOf(`a${KEYS.enter}b${KEYS.tab}c${KEYS.backspace}`, none), [
		{ input: 'a' },
		{ input: '', return: true },
		{ input: 'b' },
		{ input: '', tab: true },
		{ input: 'c' },
		{ input: '', backspace: true },
	]);
	assert.deepEqual(pressesOf('Vé', none), [{ input: 'V', shift: true }, { input: 'é' }]);
	// Pasted lines from Windows: one enter per line end.
	assert.deepEqual(pressesOf('a\r\nb', none), [{ input: 'a' }, { input: '', return: true }, { input: 'b' }]);
	// Characters beyond the basic plane stay whole.
	assert.deepEqual(
		pressesOf('a😀', none).map((p) => p.input),
		['a', '😀'],
	);
});

test('a named key Ink recognized is passed on as it is, with its modifiers', () => {
	assert.deepEqual(pressesOf('', { ...none, upArrow: true }), [{ input: '', upArrow: true }]);
	assert.deepEqual(pressesOf('s', { ...none, ctrl: true }), [{ input: 's', ctrl: true }]);
	assert.deepEqual(pressesOf('', { ...none, escape: true, meta: true }), [
		{ input: '', escape: true, meta: true },
	]);
	assert.deepEqual(pressesOf('q', none), [{ input: 'q' }]);
});

test('a footer fits its width with whole keys only, keeping help and quit, on every screen', async () => {
	const { footerItems, footerLine } = await import('../../source/ui/components/Footer.tsx');
	const screens = [
		'home',
		'filter',
		'run',
		'study',
		'score',
		'validate',
		'faithfulness',
		'results',
		'editor',
		'versions',
		'confirm',
		'form',
		'help',
		'reasons',
		'span',
		'types',
		'field',
	] as const;
	for (const screen of screens) {
		const items = footerItems(screen);
		for (const width of [80, 60]) {
			const line = footerLine(screen, width);
			assert.ok(line.length <= width, `${screen} at ${width}: ${line}`);
			// A crowded line is tightened: two spaces between items, a pair by its first keys ("↑↓ select").
			const shown = line.split(line.includes(' · ') ? ' · ' : '  ');
			const whole = (x: string) =>
				items.some((i) => i === x || (i[0] === x[0] && i.split(' ').at(-1) === x.split(' ').at(-1)));
			assert.ok(shown.every(whole), `${screen} at ${width}, an item cut: ${line}`);
			for (const kept of ['? help', 'q quit'])
				if (items.includes(kept))
					assert.ok(shown.includes(kept), `${screen} at ${width} lost ${kept}: ${line}`);
		}
	}
	assert.equal(footerLine('run', 500), footerItems('run').join(' · '), 'room for all: all of them');
});

test("every binding's label is made from its keys and names exactly the presses it matches; a press means one thing on a screen", async () => {
	const { BINDINGS } = await import('../../source/ui/keymap.ts');
	const { keyMatches, labelOf } = await import('../../source/ui/keys/binding.ts');
	type Press = import('../../source/ui/keys/binding.ts').KeyPress;
	const NAMED: Record<string, keyof Press> = {
		'↑': 'upArrow',
		'↓': 'downArrow',
		'←': 'leftArrow',
		'→': 'rightArrow',
		pgup: 'pageUp',
		pgdn: 'pageDown',
		home: 'home',
		end: 'end',
		enter: 'return',
		esc: 'escape',
		tab: 'tab',
		backspace: 'backspace',
		delete: 'delete',
	};
	// What a person reads a label's word to mean, written apart from the keymap's own reading.
	const names = (word: string, p: Press): boolean => {
		if (word in NAMED) return Boolean(p[NAMED[word]!]);
		const ctrl = /^ctrl-(.)$/u.exec(word);
		if (ctrl) return Boolean(p.ctrl) && p.input === ctrl[1];
		const digits = /^1-([1-9])$/u.exec(word);
		if (digits) return !p.ctrl && /^[1-9]$/u.test(p.input) && Number(p.input) <= Number(digits[1]);
		if (word === 'keys') return !p.ctrl && [...p.input].length === 1 && p.input >= ' ' && p.input !== '\x7f';
		const typed = word === 'space' ? ' ' : word;
		assert.equal([...typed].length, 1, `a label word that names no key: ${word}`);
		return !p.ctrl && p.input === typed;
	};
	const characters = [
		...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
		'é',
		'\x01',
	];
	const presses: Press[] = [
		...Object.values(NAMED).map((flag) => ({ input: '', [flag]: true })),
		...characters.flatMap((input) => [{ input }, { input, ctrl: true }]),
	];
	for (const b of BINDINGS) {
		const label = labelOf(b);
		for (const p of presses) {
			const matched = b.keys.some((k) => keyMatches(k, p));
			const named = label.split(' ').some((word) => names(word, p));
			assert.equal(matched, named, `${b.action} on ${b.on.join(',')}: "${label}" and ${JSON.stringify(p)}`);
		}
	}
	// And a press means one thing on a screen: no two of its actions match it.
	for (const screen of new Set(BINDINGS.flatMap((b) => b.on)))
		for (const p of presses) {
			const on = BINDINGS.filter((b) => b.on.includes(screen) && b.keys.some((k) => keyMatches(k, p)));
			const actions = new Set(on.map((b) => b.action));
			assert.ok(actions.size <= 1, `${JSON.stringify(p)} on ${screen}: ${[...actions].join(', ')}`);
		}
});

test("the editor's keys are the keymap's, so its help names them all: typing as in a field, and rows and new lines", async () => {
	const { actionFor } = await import('../../source/ui/keymap.ts');
	const { helpLines } = await import('../../source/ui/components/Help.tsx');
	const { editorPress } = await import('../../source/ui/screens/run/editor-keys.ts');
	const { editorOf, textOf } = await import('../../source/ui/state/editor.ts');
	assert.equal(actionFor('editor', { input: '', return: true }), 'newline');
	assert.equal(actionFor('editor', { input: '', upArrow: true }), 'up');
	assert.equal(actionFor('editor', { input: 'x' }), 'insert');
	assert.equal(actionFor('editor', { input: '', backspace: true }), 'erase');
	assert.equal(actionFor('editor', { input: 's', ctrl: true }), 'save');
	// In a one-line field, enter is done, not a new line.
	assert.equal(actionFor('field', { input: '', return: true }), 'save');
	const editor = helpLines('editor', 100).map((l) => l.text);
	const section = editor.slice(1, editor.indexOf(''));
	for (const said of ['a new line', 'cursor up a row', 'cursor down a row', 'cursor left', 'type:', 'save'])
		assert.ok(
			section.some((l) => l.includes(said)),
			`${said} in the editor's help:\n${section.join('\n')}`,
		);
	// And the editor does what its help says.
	// Enter after "ab", type "c", up (to the same column, after "a"), type "x".
	let buffer = editorOf('ab');
	for (const press of [
		{ input: '', return: true },
		{ input: 'c' },
		{ input: '', upArrow: true },
		{ input: 'x' },
	])
		buffer = editorPress(buffer, press, 40).buffer;
	assert.equal(textOf(buffer), 'axb\nc');
});
