import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Judgment } from '../../source/domain.ts';
import { actionFor } from '../../source/ui/keymap.ts';
import type { KeyPress } from '../../source/ui/keys/binding.ts';
import {
	init,
	screenOf,
	undoneMessage,
	update,
	type WalkEffect,
	type WalkState,
	type WalkWorld,
} from '../../source/ui/screens/validate/model.ts';

const items = [
	{ id: 'a0', summary: 's0', sentence: 1 },
	{ id: 'a1', summary: 's0', sentence: 2 },
	{ id: 'a2', summary: 's1', sentence: null },
] as const;

/** A walk with verdicts kept as the store keeps them: each judge effect lands before the next key. */
function walk(verdicts: Record<string, Pick<Judgment, 'verdict' | 'reasons' | 'note'>> = {}) {
	let state: WalkState = init(0);
	const saved: WalkEffect[] = [];
	const given = new Map(Object.entries(verdicts));
	let latest: string | null = null;
	const ctx = (): WalkWorld => ({
		items: [...items],
		verdicts: given as WalkWorld['verdicts'],
		latest: latest as WalkWorld['latest'],
		sentences: () => 4,
		page: 10,
	});
	const press = (...keys: KeyPress[]) => {
		for (const key of keys) {
			const step = update(
				state,
				{ type: 'key', action: actionFor(screenOf(state.overlay), key), press: key },
				ctx(),
			);
			state = step.state;
			for (const e of step.effects) {
				saved.push(e);
				if (e.kind === 'judge') {
					given.set(e.annotation, { verdict: e.verdict, reasons: e.reasons, note: e.note });
					latest = e.annotation;
				}
			}
		}
	};
	const type = (text: string) => press(...[...text].map((c) => ({ input: c })));
	return {
		press,
		type,
		saved,
		get state() {
			return state;
		},
	};
}
const key = (input: string): KeyPress => ({ input });
const ENTER: KeyPress = { input: '', return: true };
const ESC: KeyPress = { input: '', escape: true };
const BACKSPACE: KeyPress = { input: '', delete: true };
const LEFT: KeyPress = { input: '', leftArrow: true };

test('verdicts move the walk on; partial takes the ticked standards, in their order', () => {
	const w = walk();
	w.press(key('a'), key('p'), key('3'), key('2'), key('3'), key('2'), key('2'), ENTER);
	assert.deepEqual(
		w.saved.map((e) => e.kind === 'judge' && [e.annotation, e.verdict, e.reasons]),
		[
			['a0', 'agree', []],
			['a1', 'partial', ['B. Answered in the summary']],
		],
	);
	assert.equal(w.state.index, 2);
	w.press(key('p'), ENTER);
	assert.match(w.state.message!, /pick at least one reason/);
	w.press(ESC);
	assert.equal(w.state.overlay.kind, 'none');
});

test('giving the verdict an item already has, or saving a note unchanged, saves nothing and says so', () => {
	const w = walk({ a0: { verdict: 'agree', reasons: [], note: 'odd' } });
	w.press(key('a'));
	assert.equal(w.saved.length, 0);
	assert.equal(w.state.message, 'unchanged: already agree; nothing saved');
	assert.equal(w.state.index, 1, 'the walk still moves on');
	w.press(LEFT, key('m'), ENTER);
	assert.equal(w.saved.length, 0);
	assert.equal(w.state.message, 'note unchanged; nothing saved');
	// A changed verdict keeps the note written on the item.
	w.press(key('d'));
	assert.deepEqual(w.saved, [
		{
			kind: 'judge',
			annotation: 'a0',
			verdict: 'disagree',
			reasons: [],
			note: 'odd',
			done: 'saved: disagree · m: a note on it',
		},
	]);
});

test('a note is typed letter by letter (letters that are keys elsewhere included) and edited', () => {
	const w = walk({ a0: { verdict: 'agree', reasons: [], note: null } });
	w.press(key('m'));
	assert.equal(screenOf(w.state.overlay), 'field');
	w.type('apdu?qhx');
	w.press(BACKSPACE, LEFT, LEFT, key('!'));
	assert.equal(w.state.overlay.kind === 'note' && w.state.overlay.field.text, 'apdu?!qh');
	w.press(ENTER);
	assert.deepEqual(w.saved, [
		{ kind: 'judge', annotation: 'a0', verdict: 'agree', reasons: [], note: 'apdu?!qh', done: 'note saved' },
	]);
});

test('adding an annotation goes through the keymap: span, questions, types, save', () => {
	const w = walk();
	w.press(key('h'), key(']'), key('>'), key('l'), key('l'), ENTER);
	assert.equal(w.state.overlay.kind === 'adding' && w.state.overlay.step, 'questions');
	w.press(ENTER);
	assert.match(w.state.message!, /write the questions/);
	w.type('Why [here]?');
	w.press(ENTER, key('3'), key('9'), key('1'), key('1'), ENTER);
	assert.deepEqual(w.saved, [
		{
			kind: 'annotate',
			summary: 's0',
			ranges: [
				[1, 2],
				[3, 3],
			],
			trims: [
				[1, 0],
				[0, 0],
			],
			questions: 'Why [here]?',
			types: ['causal omission'],
		},
	]);
	assert.equal(w.state.overlay.kind, 'none');
	w.press(key('h'), ESC);
	assert.equal(w.state.overlay.kind, 'none');
	assert.equal(w.saved.length, 1);
});

test('the results are asked for once, when the view opens, and kept', () => {
	const w = walk();
	w.press({ input: '', tab: true });
	assert.deepEqual(w.saved, [{ kind: 'results' }]);
	assert.deepEqual(w.state.overlay, { kind: 'results', scroll: 0, results: null });
	const results = { kind: 'sealed', judged: 0, total: 3, pooled: null } as const;
	const world = {
		items: [...items],
		verdicts: new Map(),
		latest: null,
		sentences: () => 4,
		page: 10,
	} as WalkWorld;
	const ready = update(w.state, { type: 'results', results }, world);
	assert.deepEqual(ready.state.overlay, { kind: 'results', scroll: 0, results });
	const scrolled = update(
		ready.state,
		{ type: 'key', action: 'down', press: { input: '', downArrow: true } },
		world,
	);
	assert.deepEqual(scrolled.effects, []);
	assert.equal(scrolled.state.overlay.kind === 'results' && scrolled.state.overlay.results, results);
	// Results that arrive after the view closed are dropped.
	assert.equal(update(init(0), { type: 'results', results }, world).state.overlay.kind, 'none');
});

test('undo takes back the latest verdict and goes to its item; quit stops the keys', () => {
	const w = walk();
	w.press(key('u'));
	assert.equal(w.state.message, 'nothing to undo');
	w.press(key('a'), key('a'), key('u'));
	assert.equal(w.state.index, 1);
	assert.equal(w.saved.at(-1)!.kind, 'undo');
	w.press({ input: 'c', ctrl: true }, key('a'));
	assert.deepEqual(w.saved.slice(-1), [{ kind: 'quit' }]);
});

test('m right after a verdict notes the item just judged, shown while written; the walk then goes on where it was', () => {
	const w = walk();
	w.press(key('a'));
	assert.equal(w.state.index, 1, 'the verdict moved the walk on');
	w.press(key('m'));
	assert.equal(w.state.overlay.kind === 'note' && w.state.overlay.annotation, 'a0');
	assert.equal(w.state.index, 0, 'the item being noted is the one shown');
	w.type('odd');
	w.press(ENTER);
	assert.deepEqual(w.saved.at(-1), {
		kind: 'judge',
		annotation: 'a0',
		verdict: 'agree',
		reasons: [],
		note: 'odd',
		done: 'note saved',
	});
	assert.equal(w.state.index, 1, 'back on the next item');
	// Partially agree too: its reasons dialog saves, and m notes that item; esc also goes back on.
	w.press(key('p'), key('1'), ENTER, key('m'));
	assert.equal(w.state.overlay.kind === 'note' && w.state.overlay.annotation, 'a1');
	w.press(ESC);
	assert.deepEqual([w.state.overlay.kind, w.state.index], ['none', 2]);
	// Any other key in between ends "just judged": m is for the item shown.
	w.press(key('d'), LEFT, key('m'));
	assert.equal(w.state.overlay.kind === 'note' && w.state.overlay.annotation, 'a1');
});

test('the status line says what an undo took back', () => {
	const j = (annotation: string, verdict: Judgment['verdict'], note: string | null = null) =>
		({ annotation, validator: 'v', verdict, reasons: [], note, at: '' }) as Judgment;
	const ctxItems = [...items] as WalkWorld['items'];
	const none = new Map() as WalkWorld['verdicts'];
	assert.equal(undoneMessage([], ctxItems, none), 'nothing to undo');
	assert.equal(
		undoneMessage([j('a1', 'agree')], ctxItems, none),
		'undone: agree on annotation 2; not judged now',
	);
	assert.equal(
		undoneMessage([j('a1', 'agree'), j('a1', 'agree', 'odd')], ctxItems, none),
		'undone: agree and its note on annotation 2; not judged now',
	);
	const stays = new Map([['a0', j('a0', 'disagree')]]) as WalkWorld['verdicts'];
	assert.equal(
		undoneMessage([j('a0', 'disagree', 'odd')], ctxItems, stays),
		'undone: the note edit on annotation 1; its disagree stays',
	);
	assert.equal(
		undoneMessage([j('a0', 'agree')], ctxItems, stays),
		'undone: agree on annotation 1; back to disagree',
	);
});
