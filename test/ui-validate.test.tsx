import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Annotation, ScoredSummary } from '../source/domain.ts';
import { walkProgress } from '../source/score/validation.ts';
import { Session } from '../source/store/session.ts';
import { ValidationStore } from '../source/store/validation-store.ts';
import { sentenceSpans } from '../source/text/sentences.ts';
import { ValidateScreen } from '../source/ui/validate/ValidateScreen.tsx';
import { renderScreen, settle, until } from './support/screen.tsx';

const at = '2026-01-01T00:00:00.000Z';
const TEXT = 'Ann sails to Dover. Then the war ends suddenly. Bob, who is never introduced, sells the boat. Ann returns home.';
const summaries: ScoredSummary[] = [{ id: 's0', book: 'voyage.epub', text: TEXT, node: null, version: null, source: 'test' }];
const spans = sentenceSpans(TEXT);
const ann = (id: number, sentence: number, source: 'model' | 'human', questions: string): Annotation => ({
	id: `a${id}`, summary: 's0', sentence, spans: [spans[sentence]!], confusing: true, questions, types: ['entity omission'], source,
	annotator: source === 'model' ? 'openai/gpt-4' : 'pat', imported: null, raw: null, failure: null, createdAt: at,
});
const annotations = [ann(0, 1, 'model', 'Which war?'), ann(1, 2, 'model', 'Who is Bob?'), ann(2, 2, 'human', 'Where did Bob come from?')];

const ESC = '\u001B';
const RIGHT = '\u001B[C';
const tick = () => settle(30);
/** Waits for a write that a key press started (the screen moves on before the file lands). */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
	const end = Date.now() + 30_000;
	let value = await read();
	while (!ok(value) && Date.now() < end) {
		await tick();
		value = await read();
	}
	return value;
}
/** The lines of the frame marked as highlighted (the gutter mark), joined. */
const marked = (frame: string) => frame.split('\n').filter((l) => l.includes('▌')).join(' ');

async function setUp(t: import('node:test').TestContext, mode: 'model' | 'blind') {
	const dir = await mkdtemp(path.join(tmpdir(), 'booook-validate-'));
	t.after(() => rm(dir, { recursive: true, force: true }));
	const created = await Session.createCollection(dir, { id: 'walk', title: 'voyage', sources: ['test'], summaries, annotations, judgments: [], runs: [] });
	await created.close();
	const session = await Session.open(dir, 'walk');
	t.after(() => session.close());
	const store = new ValidationStore(session, 'val', { mode, seed: 5 }, () => new Date(at));
	const app = renderScreen(<ValidateScreen store={store} title="voyage" />);
	t.after(() => app.unmount());
	const frame = () => app.lastFrame() ?? '';
	/** Waits until the frame shows `pattern` (in its highlighted lines when `where` is 'marked'). */
	const see = (pattern: RegExp, what = String(pattern), where: 'frame' | 'marked' = 'frame') =>
		until(frame, (f) => pattern.test(where === 'marked' ? marked(f) : f), what);
	await see(/voyage/u, 'the first frame');
	const read = async (): Promise<any> => (await Session.snapshot(dir, 'walk')).data;
	const onDisk = () => eventually(read, (d) => d.judgments.length === store.judgments.length && d.annotations.length === store.annotations.length);
	const press = async (...keys: string[]) => {
		for (const k of keys) {
			app.stdin.write(k);
			await tick();
		}
	};
	/** Types into a text field one key at a time, each after the last one shows (as a person would). */
	const type = async (text: string) => {
		for (let i = 1; i <= text.length; i++) {
			await press(text[i - 1]!);
			await until(frame, (f) => f.includes(text.slice(0, i)), `"${text.slice(0, i)}" typed`);
		}
	};
	return { store, app, press, type, onDisk, see };
}

test('verdicts are saved as they are given, move the walk on, and undo restores the previous state', async (t) => {
	const { store, press, onDisk, see } = await setUp(t, 'model');
	await see(/Which war\?[^]*model 0\/2|model 0\/2[^]*Which war\?/u, 'the first annotation and the progress');
	await press('a');
	await see(/Who is Bob\?/u, 'agree moves to the next annotation');
	assert.deepEqual((await onDisk()).judgments.map((j: { annotation: string; verdict: string; validator: string }) => [j.annotation, j.verdict, j.validator]), [['a0', 'agree', 'val']]);
	await press('p');
	await see(/which standards/u, 'the reasons');
	await press('2', '3', '\r');
	const partial = (await onDisk()).judgments[1];
	assert.deepEqual([partial.annotation, partial.verdict, partial.reasons], ['a1', 'partial', ['B. Answered in the summary', 'C. Not addressing issues that matter (refer to standards)']]);
	await see(/model 2\/2 · precision 100\.0% · strict 50\.0%/u);
	await press('u');
	assert.deepEqual((await onDisk()).judgments.map((j: { annotation: string }) => j.annotation), ['a0']);
	await see(/Who is Bob\?[^]*not judged yet/u, 'the undone annotation, unjudged');
	await press('d');
	await see(/precision 50\.0%/u);
	const p = walkProgress(store.items, store.judgments, 'val');
	assert.deepEqual([p.model.agree, p.model.partial, p.model.disagree], [1, 0, 1]);
});

test('the current annotation is highlighted in the summary, and a note is kept with the verdict', async (t) => {
	const { press, type, onDisk, see } = await setUp(t, 'model');
	await see(/Then the war ends suddenly\./u, 'the first highlight', 'marked');
	await press(RIGHT);
	await see(/Bob, who is never introduced/u, 'moving on moves the highlight', 'marked');
	await press('m');
	await see(/give a verdict first/u);
	await press('a');
	await see(/your verdict: agree/u, 'the verdict');
	await press('m');
	await see(/note \(enter saves/u, 'the note field');
	await type('odd');
	await press('\r');
	const saved = (await onDisk()).judgments;
	assert.equal(saved.at(-1).note, 'odd');
	assert.equal(saved.at(-1).annotation, 'a1');
});

test('a blind walk hides who wrote each annotation until every one is judged', async (t) => {
	const { press, see } = await setUp(t, 'blind');
	assert.doesNotMatch(await see(/judged 0\/3/u), /openai\/gpt-4|pat\)|· model|· human/);
	await press('a');
	await see(/judged 1\/3/u);
	await press('a');
	assert.doesNotMatch(await see(/judged 2\/3/u), /openai\/gpt-4|pat\)/);
	await press('d');
	await see(/model \d\/2[^]*human \d\/1|human \d\/1[^]*model \d\/2/u, 'sources appear once all are judged');
});

test('h adds a human annotation over chosen sentences; hostile text never reaches the frame', async (t) => {
	const { press, type, onDisk, app, see } = await setUp(t, 'model');
	// Sentences 2-3, less the first word: a span may be part of a sentence.
	await press('h');
	await see(/your annotation: sentence/u, 'the span picker');
	await press(']', '>', '\r');
	await see(/questions: /u, 'the questions field');
	await type('Why?');
	await press('\r');
	await see(/error types \(number toggles/u, 'the types');
	await press('3', '\r');
	const added = (await onDisk()).annotations.at(-1);
	assert.equal(added.source, 'human');
	assert.equal(added.annotator, 'val');
	assert.deepEqual(added.types, ['causal omission']);
	assert.equal(added.questions, 'Why?');
	assert.deepEqual(added.spans, [{ start: TEXT.indexOf('the war'), end: spans[2]!.end }]);
	assert.equal(TEXT.slice(added.spans[0].start, added.spans[0].end), 'the war ends suddenly. Bob, who is never introduced, sells the boat.');
	await press(ESC);
	assert.ok(!/\u001B\]/.test(app.lastFrame()!));
});

test('highlighting marks exactly the span, keeps words whole across lines, and cleans hostile text', async () => {
	const { highlightLines } = await import('../source/ui/styled-lines.ts');
	const text = 'Mr. Smith went home. He was \u001B]52;c;aGk=\u0007tired\u001B[2J. The end came quickly for everyone.';
	const start = text.indexOf('He was');
	const end = text.indexOf('. The end') + 1;
	const { lines, firstMarked } = highlightLines(text, [{ start, end }], 16);
	const flat = lines.map((l) => l.map((p) => p.text).join(''));
	assert.ok(flat.every((l) => l.length <= 16), flat.join('|'));
	assert.equal(flat.join(' ').replace(/\s+/g, ' '), 'Mr. Smith went home. He was tired. The end came quickly for everyone.');
	const markedText = lines.flatMap((l) => l.filter((p) => p.style !== null).map((p) => p.text)).join(' ').replace(/\s+/g, ' ').trim();
	assert.equal(markedText, 'He was tired.');
	assert.equal(firstMarked, flat.findIndex((l) => l.includes('He was')));
	assert.ok(!flat.join('').includes('\u001B') && !flat.join('').includes('\u0007'));
});

test('tab shows the results; a blind walk holds them back until every item is judged', async (t) => {
	const { press, see } = await setUp(t, 'blind');
	await press('\t');
	await see(/Results are shown when every item of the blind walk is judged/u);
	await press('x');
	await see(/judged 0\/3/u, 'the walk again');
	for (const [key, n] of [['a', 1], ['a', 2], ['d', 3]] as const) {
		await press(key);
		await see(new RegExp(`judged ${n}/3|model \\d/2`, 'u'), `${n} judged`);
	}
	await press('\t');
	const frame = await see(/precision, judged by val/u);
	assert.match(frame, /model +\d+\.\d% \[/);
	assert.match(frame, /human +\d+\.\d% \[/);
});

test('keys that arrive together ("ad" in one read) are each a verdict', async (t) => {
	const { store, press, onDisk } = await setUp(t, 'model');
	await press('ad');
	assert.deepEqual((await onDisk()).judgments.map((j: { verdict: string }) => j.verdict), ['agree', 'disagree']);
	assert.equal(store.judgments.length, 2);
});
