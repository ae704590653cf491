import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Key } from 'ink';
import { pressesOf } from '../source/ui/keys/presses.ts';
import { KEYS } from './support/keys.ts';

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
	const { footerItems, footerLine } = await import('../source/ui/components/Footer.tsx');
	const screens = [
		'home',
		'filter',
		'run',
		'study',
		'score',
		'validate',
		'faith',
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
