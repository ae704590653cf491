import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScoreControls, SentenceVerdict } from '../../source/ui/controls.ts';
import { ScoreScreen } from '../../source/ui/screens/score/Screen.tsx';
import { init, update } from '../../source/ui/screens/score/model.ts';
import type { KeyPress } from '../../source/ui/keys/binding.ts';
import { sentenceSpans } from '../../source/text/sentences.ts';
import { textWidth } from '../../source/format/text.ts';
import { KEYS } from '../support/keys.ts';
import { renderScreen, resize, until } from '../support/screen.tsx';

const TEXT = 'Ann sails to Dover. A stranger \u001B]0;owned\u0007appears. The war ends.';

/** A scoring whose answers the test hands out one at a time. */
function fakeScoring() {
	const spans = sentenceSpans(TEXT);
	const verdicts: SentenceVerdict[] = spans.map(() => 'pending');
	const listeners = new Set<() => void>();
	const controls: ScoreControls = {
		book: 'voyage',
		text: TEXT,
		annotator: 'openai/test',
		sentences: () =>
			spans.map((s, i) => ({
				start: s.start,
				end: s.end,
				verdict: verdicts[i]!,
				questions: verdicts[i] === 'confusing' ? 'Who is the stranger?' : '',
				types: verdicts[i] === 'confusing' ? ['entity omission'] : [],
			})),
		score: () => {
			const answered = verdicts.filter((v) => v === 'clear' || v === 'confusing');
			return answered.length === 0
				? null
				: (100 * answered.filter((v) => v === 'clear').length) / answered.length;
		},
		status: () => `${verdicts.filter((v) => v !== 'pending').length} answered`,
		start: async () => {},
		cancel: () => {},
		onChange: (l) => {
			listeners.add(l);
			return () => listeners.delete(l);
		},
	};
	const answer = (i: number, v: SentenceVerdict) => {
		verdicts[i] = v;
		for (const l of listeners) l();
	};
	return { controls, answer };
}

test('the score screen marks each sentence as its answer arrives and shows the questions of confusing ones', async () => {
	const { controls, answer } = fakeScoring();
	let back = 0;
	const app = renderScreen(<ScoreScreen controls={controls} onBack={() => back++} onQuit={() => {}} />);
	const frame = () => app.lastFrame() ?? '';
	await until(
		frame,
		(f) => /0\/3 sentences · —/u.test(f) && /··· {2}✓ clear/u.test(f),
		'nothing answered yet',
	);
	answer(0, 'clear');
	await until(frame, (f) => /1\/3 sentences · 100\.0/u.test(f), 'the first answer');
	answer(1, 'confusing');
	answer(2, 'failed');
	const f = await until(frame, (x) => /3\/3 sentences · 50\.0/u.test(x), 'every answer');
	assert.match(f, /✓✗\? {2}✓ clear/u);
	assert.match(f, /Questions: Who is the stranger\?/u);
	assert.ok(!f.includes('\u001B]0;'), 'a title-change sequence from the summary never reaches the frame');
	// The footer lists the screen's keys from the one binding table, page keys included.
	assert.match(f, /pgup/u);
	app.stdin.write('?');
	await until(frame, (x) => /pgdn\s+scroll the text down/u.test(x), 'the help');
	app.stdin.write(KEYS.escape);
	await until(frame, (x) => !/scroll the text down/u.test(x), 'esc closes the help first');
	assert.equal(back, 0);
	app.stdin.write(KEYS.escape);
	await until(
		() => String(back),
		(x) => x === '1',
		'esc again goes back',
	);
	app.unmount();
});

test('the score screen fits the terminal with its help open, many sentences and long questions, and re-lays out on resize', async () => {
	const text = Array.from({ length: 60 }, (_, i) => `Sentence ${i + 1} tells of the voyage to Dover.`).join(
		' ',
	);
	const spans = sentenceSpans(text);
	const questions = Array.from(
		{ length: 12 },
		(_, i) => `Who is the stranger of chapter ${i + 1}, and why does he sail?`,
	).join(' ');
	const controls: ScoreControls = {
		book: 'voyage',
		text,
		annotator: 'openai/test',
		sentences: () =>
			spans.map((s, i) => ({
				start: s.start,
				end: s.end,
				verdict: i % 3 === 0 ? 'confusing' : 'clear',
				questions: i % 3 === 0 ? questions : '',
				types: i % 3 === 0 ? ['entity omission'] : [],
			})),
		score: () => 66.7,
		status: () => 'done',
		start: async () => {},
		cancel: () => {},
		onChange: () => () => {},
	};
	const app = renderScreen(<ScoreScreen controls={controls} onBack={() => {}} onQuit={() => {}} />);
	const frame = () => app.lastFrame() ?? '';
	// A frame as tall as the terminal scrolls its first line (the header) away.
	// ...and a frame laid out for this width, not one left from a narrower terminal: its text fills the width.
	const fits = (f: string, columns: number, rows: number) =>
		f.split('\n').length < rows &&
		f.split('\n').every((l) => textWidth(l) <= columns) &&
		f.split('\n').some((l) => textWidth(l) > columns - 10) &&
		f.startsWith('BooookScore');
	for (const [columns, rows] of [
		[80, 24],
		[60, 20],
		[120, 40],
	] as const) {
		resize(app, columns, rows);
		await until(
			frame,
			(f) => fits(f, columns, rows) && f.includes('Questions: Who is the stranger'),
			`the screen fitting ${columns}×${rows}`,
		);
		app.stdin.write('?');
		await until(
			frame,
			(f) => fits(f, columns, rows) && /pgdn\s+scroll the text down/u.test(f),
			`the help fitting ${columns}×${rows}`,
		);
		app.stdin.write('?');
		await until(frame, (f) => !f.includes('scroll the text down'), 'the help closed');
	}
	app.unmount();
});

test('at 80×24 the legend is never broken across rows, and a long error in the status wraps whole', async () => {
	// 70 sentences: the marks take a row and most of the next, and the legend does not fit after them.
	const text = Array.from({ length: 70 }, (_, i) => `Sentence ${i + 1} tells of the voyage.`).join(' ');
	const spans = sentenceSpans(text);
	const error =
		'stopped: the server answered 429 with insufficient_quota: the account has no credit left; add credit, then continue with: booook score frankenstein-2026-01-01 --sessions-dir /tmp/sessions';
	const controls: ScoreControls = {
		book: 'voyage',
		text,
		annotator: 'openai/test',
		sentences: () =>
			spans.map((s, i) => ({
				start: s.start,
				end: s.end,
				verdict: i < 30 ? 'clear' : 'pending',
				questions: '',
				types: [],
			})),
		score: () => 100,
		status: () => error,
		start: async () => {},
		cancel: () => {},
		onChange: () => () => {},
	};
	const app = renderScreen(<ScoreScreen controls={controls} onBack={() => {}} onQuit={() => {}} />);
	resize(app, 80, 24);
	const f = await until(
		() => app.lastFrame() ?? '',
		(x) => x.split('\n').every((l) => textWidth(l) <= 80) && x.includes('✓ clear'),
		'the screen at 80 columns',
	);
	const lines = f.split('\n');
	assert.ok(lines.length < 24, f);
	assert.ok(
		lines.some((l) => l.includes('✓ clear  ✗ confusing  ? unreadable  · waiting')),
		`the legend on one row:\n${f}`,
	);
	assert.ok(lines.join(' ').replace(/\s+/gu, ' ').includes(error), `the whole error:\n${f}`);
	assert.doesNotMatch(lines.at(-1)!, /…/u, 'the footer has whole keys');
	app.unmount();
});

test('with the help open, the score screen keys scroll the help (the one every screen shows) and leave the pick alone', () => {
	const world = { confusing: 3 };
	const press = (state: ReturnType<typeof init>, key: KeyPress) =>
		update(state, { type: 'press', press: key }, world);
	let ui = update(init(), { type: 'layout', layout: { page: 5, shownFrom: 0 } }, world).state;
	ui = press(ui, { input: '?' }).state;
	assert.deepEqual([ui.help, ui.helpScroll], [true, 0]);
	ui = press(ui, { input: 'j' }).state;
	ui = press(ui, { input: '', pageDown: true }).state;
	assert.deepEqual([ui.pick, ui.helpScroll], [0, 6]);
	ui = press(ui, { input: '', escape: true }).state;
	assert.equal(ui.help, false);
	assert.deepEqual(press(ui, { input: '', escape: true }).effects, [{ kind: 'back' }]);
});
