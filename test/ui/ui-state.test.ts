import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noConfusingText } from '../../source/ui/state/score-view.ts';
import { sessionColumns } from '../../source/format/sessions.ts';
import { layoutTable } from '../../source/format/table.ts';
import type { SessionSummary } from '../../source/app/list-sessions.ts';
import { makeConfig } from '../../source/config.ts';
import type { EngineEvent } from '../../source/engine/events.ts';
import { newRun } from '../../source/summarize/run.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { editKey, editorOf, rowsOf, textOf } from '../../source/ui/state/editor.ts';
import { sentenceDiff } from '../../source/ui/state/diff.ts';
import {
	formInput,
	formKey,
	formOf,
	type FormDefaults,
	type NewRunInput,
} from '../../source/ui/screens/home/form.ts';
import { init, runKey, selectedNode } from '../../source/ui/screens/run/model.ts';
import { ViewFeed } from '../../source/ui/state/view-feed.ts';
import {
	chunksRead,
	etaSeconds,
	initialView,
	LIVE_LIMIT,
	phaseOf,
	progressOf,
	reduce,
	type ViewState,
} from '../../source/ui/state/view.ts';
import { activeVersion, liveNodes } from '../../source/summarize/graph.ts';
import { FakeModel } from '../support/fake-model.ts';
import { randomBook, setUp } from '../support/run-harness.ts';
import { textWidth, windowOf, wrap } from '../../source/format/text.ts';
import { formatInt } from '../../source/format/count.ts';
import { prng } from '../support/prng.ts';
import { say } from '../../source/program.ts';

const chunks = Array.from({ length: 4 }, (_, i) => ({
	index: i,
	start: i * 10,
	end: i * 10 + 10,
	tokens: 5,
}));
const emptyView = (method: 'hier' | 'inc' = 'hier', stepping = false) =>
	initialView(
		newRun(
			makeConfig({
				provider: 'openai',
				model: 'm',
				method,
				chunkSize: 256,
				maxSummary: 200,
				contextWindow: 2048,
			}),
			chunks,
		),
		{ stepping },
	);
const totals = (calls: number) => ({
	input: 100 * calls,
	output: 10 * calls,
	cached: 0,
	cost: 0.01 * calls,
	calls,
	saved: 0,
});
const fold = (state: ViewState, events: EngineEvent[], now = 0) =>
	events.reduce((s, e, i) => reduce(s, e, { now: now + i }), state);

const planned: EngineEvent = {
	type: 'node-planned',
	planned: 5,
	levels: [],
	nodes: [0, 1, 2, 3].map((i) => ({
		id: `n${i}` as const,
		kind: 'summarize' as const,
		level: 0,
		index: i,
		inputs: [`c${i}` as const],
	})),
};

test('events fold into statuses, streaming text, totals and the run state', () => {
	let s = fold(emptyView(), [
		{
			type: 'run-started',
			session: 's',
			method: 'hier',
			provider: 'openai',
			model: 'm',
			isLLM: true,
			planned: 5,
			levels: [],
			done: 0,
		},
		planned,
	]);
	assert.equal(phaseOf(s), 'running');
	assert.deepEqual(s.order, ['n0', 'n1', 'n2', 'n3']);
	assert.ok(s.order.every((id) => s.nodes[id]!.status === 'pending'));
	s = fold(s, [
		{ type: 'node-started', node: 'n0', kind: 'summarize', level: 0, index: 0, attempt: 0 },
		{ type: 'delta', node: 'n0', attempt: 0, text: 'Anna walked. ' },
		{ type: 'delta', node: 'n0', attempt: 0, text: 'She saw a ship.' },
	]);
	assert.equal(s.nodes.n0!.status, 'running');
	assert.equal(s.live.n0!.text, 'Anna walked. She saw a ship.');
	s = fold(s, [{ type: 'retry', node: 'n0', attempt: 1, reason: 'too long' }]);
	assert.equal(s.live.n0, undefined, 'what streamed for a retried attempt is void');
	assert.match(s.log.at(-1)!.text, /retrying/u);
	s = fold(s, [
		{ type: 'node-started', node: 'n0', kind: 'summarize', level: 0, index: 0, attempt: 1 },
		{
			type: 'usage',
			node: 'n0',
			usage: { input: 100, output: 10, cached: 0 },
			cost: 0.01,
			saved: 0,
			totals: totals(2),
		},
		{
			type: 'node-finished',
			node: 'n0',
			kind: 'summarize',
			level: 0,
			index: 0,
			words: 7,
			tokens: 9,
			attempts: 2,
			overBudget: false,
		},
	]);
	assert.equal(s.nodes.n0!.status, 'done');
	assert.equal(s.nodes.n0!.words, 7);
	assert.equal(s.live.n0, undefined);
	assert.equal(s.totals.calls, 2);
	assert.equal(chunksRead(s), 1);
	s = fold(s, [{ type: 'run-paused' }]);
	assert.equal(phaseOf(s), 'paused');
	s = fold(s, [{ type: 'run-resumed', stepping: true }]);
	assert.equal(phaseOf(s), 'stepping');
	s = fold(s, [
		{ type: 'node-failed', node: 'n1', error: 'boom' },
		{ type: 'run-finished', status: 'failed', root: null, error: 'n1: boom', totals: totals(2) },
	]);
	assert.equal(phaseOf(s), 'failed');
	assert.equal(s.nodes.n1!.status, 'failed');
	assert.equal(s.finals.length, 0);
	s = fold(s, [
		{
			type: 'run-started',
			session: 's',
			method: 'hier',
			provider: 'openai',
			model: 'm',
			isLLM: true,
			planned: 5,
			levels: [],
			done: 2,
		},
		{ type: 'run-finished', status: 'done', root: 'n3', error: null, totals: totals(5) },
	]);
	assert.equal(phaseOf(s), 'done');
	assert.deepEqual(
		s.finals.map((f) => f.root),
		['n3'],
	);
});

test('streaming text per node stays bounded however long the stream, and counts every character', () => {
	let s = fold(emptyView(), [
		planned,
		{ type: 'node-started', node: 'n2', kind: 'summarize', level: 0, index: 2, attempt: 0 },
	]);
	const piece = 'word '.repeat(20);
	for (let i = 0; i < 2000; i++)
		s = reduce(s, { type: 'delta', node: 'n2', attempt: 0, text: piece }, { now: i });
	assert.ok(s.live.n2!.text.length <= LIVE_LIMIT);
	assert.equal(s.live.n2!.chars, 2000 * piece.length);
	assert.ok(s.live.n2!.text.endsWith(piece), 'the tail is kept');
});

test('stepping from the start shows as stepping; ETA comes from the pace of calls made in this start', () => {
	let s = fold(
		emptyView('hier', true),
		[
			{
				type: 'run-started',
				session: 's',
				method: 'hier',
				provider: 'openai',
				model: 'm',
				isLLM: true,
				planned: 10,
				levels: [],
				done: 4,
			},
		],
		1000,
	);
	assert.equal(phaseOf(s), 'stepping');
	assert.equal(etaSeconds(s, 5000), null, 'no pace yet');
	s = reduce(
		s,
		{ type: 'node-started', node: 'n0', kind: 'summarize', level: 0, index: 0, attempt: 0 },
		{ now: 1000 },
	);
	s = reduce(
		s,
		{
			type: 'usage',
			node: 'n0',
			usage: { input: 1, output: 1, cached: 0 },
			cost: 0,
			saved: 0,
			totals: totals(6),
		},
		{ now: 5000 },
	);
	// 2 calls in the 4 s of calling since the start: 4 calls left take 8 s, however long the next s waits.
	assert.equal(etaSeconds(s, 5000), 8);
	assert.equal(etaSeconds(s, 50_000), 8);
});

test('the view feed publishes at most its frame rate, folds every event, and holds still while frozen', async () => {
	let clock = 0;
	const store = new ViewFeed(
		fold(emptyView(), [
			planned,
			{ type: 'node-started', node: 'n0', kind: 'summarize', level: 0, index: 0, attempt: 0 },
		]),
		{ fps: 10, now: () => clock },
	);
	let renders = 0;
	store.subscribe(() => renders++);
	for (let i = 0; i < 1000; i++) {
		clock = i; // 1000 deltas in one second of fake time
		store.dispatch({ type: 'delta', node: 'n0', attempt: 0, text: 'x' });
	}
	store.flush();
	assert.ok(renders <= 12, `${renders} publishes for 1000 deltas at 10 fps`);
	assert.equal(store.getSnapshot().live.n0!.chars, 1000, 'no delta lost');
	store.freeze(true);
	const before = renders;
	store.dispatch({ type: 'delta', node: 'n0', attempt: 0, text: 'y' });
	store.flush();
	assert.equal(renders, before);
	store.freeze(false);
	assert.equal(store.getSnapshot().live.n0!.chars, 1001);
	store.dispose();
});

test('the sentence diff marks what a step added and dropped, and keeps both texts whole', () => {
	const random = prng(7);
	const pool = [
		'Anna left Paris.',
		'The ship sank.',
		'He wrote a letter.',
		'Snow fell on the mill.',
		'Her brother came home.',
		'They spoke of war.',
		'The old man died.',
		'A storm broke.',
	];
	const pick = () => pool.filter(() => random() < 0.5);
	for (let round = 0; round < 50; round++) {
		const a = pick();
		const b = pick();
		const parts = sentenceDiff(a.join(' '), b.join(' '));
		assert.deepEqual(
			parts.filter((p) => p.kind !== 'dropped').map((p) => p.text),
			splitSentences(b.join(' ')),
		);
		assert.deepEqual(
			parts.filter((p) => p.kind !== 'added').map((p) => p.text),
			splitSentences(a.join(' ')),
		);
		// Both are in the pool's order, so every common sentence can be kept.
		assert.equal(
			parts.filter((p) => p.kind === 'kept').length,
			a.filter((s) => b.includes(s)).length,
			'no common sentence is marked as changed',
		);
	}
	const parts = sentenceDiff('Anna left Paris. The ship sank.', 'Anna left Paris. A storm broke.');
	assert.deepEqual(
		parts.map((p) => [p.kind, p.text]),
		[
			['kept', 'Anna left Paris.'],
			['dropped', 'The ship sank.'],
			['added', 'A storm broke.'],
		],
	);
});

test('keys: space pauses or resumes by the run state, versions make an effect, the incremental timeline moves back and follows again', () => {
	let view = fold(emptyView('inc'), [
		{
			type: 'run-started',
			session: 's',
			method: 'inc',
			provider: 'openai',
			model: 'm',
			isLLM: true,
			planned: 5,
			levels: [],
			done: 0,
		},
		{
			type: 'node-planned',
			planned: 4,
			levels: [],
			nodes: [0, 1, 2].map((i) => ({
				id: `n${i}` as const,
				kind: (i === 0 ? 'summarize' : 'update') as 'summarize' | 'update',
				level: 0,
				index: i,
				inputs: [`c${i}` as const],
			})),
		},
		...[0, 1, 2].map((i): EngineEvent => ({
			type: 'node-finished',
			node: `n${i}`,
			kind: 'update',
			level: 0,
			index: i,
			words: 5,
			tokens: 6,
			attempts: 1,
			overBudget: false,
		})),
	]);
	let ui = init();
	assert.deepEqual(runKey(ui, 'pause', view).effects, [{ kind: 'pause' }]);
	view = reduce(view, { type: 'run-paused' }, { now: 0 });
	assert.deepEqual(runKey(ui, 'pause', view).effects, [{ kind: 'resume' }]);
	// Stepping (--step, or s): space runs on instead of pausing.
	const stepping = reduce(view, { type: 'run-resumed', stepping: true }, { now: 0 });
	assert.deepEqual(runKey(ui, 'pause', stepping).effects, [{ kind: 'resume' }]);
	assert.equal(selectedNode(ui, view)!.id, 'n2', 'following shows the newest step');
	ui = runKey(ui, 'left', view).state;
	assert.equal(selectedNode(ui, view)!.id, 'n1');
	assert.equal(ui.follow, false);
	ui = runKey(ui, 'left', view).state;
	ui = runKey(ui, 'left', view).state;
	assert.equal(selectedNode(ui, view)!.id, 'n0', 'the timeline stops at the first step');
	ui = runKey(ui, 'right', view).state;
	ui = runKey(ui, 'right', view).state;
	assert.equal(ui.follow, true, 'reaching the newest step follows the run again');
	ui = runKey(ui, 'versions', view).state;
	assert.equal(ui.overlay, 'versions');
	const open = runKey(ui, 'open', view);
	assert.deepEqual(open.effects, [], 'the active version is already active');
	assert.equal(runKey(init(), 'help', view).state.overlay, 'help');
	assert.deepEqual(runKey(init(), 'quit', view).effects, [{ kind: 'quit' }]);
	assert.deepEqual(runKey(init(), 'edit', view).effects, [{ kind: 'edit', node: 'n2' }]);
	const notRun = runKey(init(), 'edit', fold(emptyView(), [planned]));
	assert.deepEqual(notRun.effects, [], 'a node without a version cannot be edited');
	assert.match(say(notRun.state.message ?? '', 'booook'), /nothing to edit/iu);
});

test('the editor inserts, joins and splits lines, and moves by the rows a reader sees', () => {
	let e = editorOf('abcdefghij');
	assert.deepEqual([e.line, e.col], [0, 10]);
	e = editKey(e, { kind: 'up' }, 5); // rows of 4: abcd efgh ij
	assert.equal(e.col, 6);
	e = editKey(e, { kind: 'insert', text: 'X' }, 5);
	assert.equal(textOf(e), 'abcdefXghij');
	e = editKey(e, { kind: 'newline' }, 5);
	assert.deepEqual(textOf(e).split('\n'), ['abcdefX', 'ghij']);
	e = editKey(e, { kind: 'erase' }, 5);
	assert.equal(textOf(e), 'abcdefXghij');
	e = editKey(e, { kind: 'insert', text: 'one\r\ntwo' }, 5);
	assert.equal(textOf(e), 'abcdefXone\ntwoghij');
	assert.ok(rowsOf(e, 5).every((r) => r.text.length <= 4));
	assert.ok(e.dirty);
});

test('wrapping keeps every word, never passes the width, and windows clamp', () => {
	const random = prng(3);
	for (let round = 0; round < 100; round++) {
		const words = Array.from(
			{ length: 1 + Math.floor(random() * 40) },
			() => 'x'.repeat(1 + Math.floor(random() * 15)) + (random() < 0.1 ? '日本' : ''),
		);
		const width = 5 + Math.floor(random() * 30);
		const lines = wrap(words.join(' '), width);
		assert.ok(
			lines.every((l) => textWidth(l) <= width),
			`width ${width}`,
		);
		assert.equal(lines.join('').replace(/\s/gu, ''), words.join(''));
	}
	assert.deepEqual(windowOf([1, 2, 3, 4, 5], 2, null).lines, [4, 5]);
	assert.deepEqual(windowOf([1, 2, 3, 4, 5], 2, 99).lines, [4, 5]);
	assert.deepEqual(windowOf([1, 2, 3, 4, 5], 2, 1).lines, [2, 3]);
});

test('a text is wrapped once per width: frames drawn while a run streams reuse the lines of what did not change', () => {
	// The inputs pane of a merge is a dozen summaries; wrapping them again at every frame took
	// longer than a frame and starved the keyboard while a re-run streamed.
	const text = Array.from({ length: 400 }, (_, i) => `word${i % 37}`).join(' ');
	const first = wrap(text, 60);
	assert.equal(wrap(`${text}`, 60), first, 'the same text and width give the lines already made');
	assert.notEqual(wrap(text, 61), first, 'another width is wrapped anew');
	assert.ok(wrap(text, 61).every((l) => textWidth(l) <= 61));
	assert.ok(Object.isFrozen(first), 'the kept lines cannot be changed by a caller');
	for (let i = 0; i < 1000; i++) wrap(`filler ${i}`, 60);
	assert.deepEqual(wrap(text, 60), first, 'a cache bounded in size still wraps an evicted text the same');
});

test('the new-run form: choices cycle, the model and the server follow the provider until typed', () => {
	const defaults: FormDefaults = {
		method: 'hier',
		provider: 'openai',
		models: { openai: 'gpt', anthropic: 'claude', extractive: 'textrank' },
		baseUrls: { openai: 'http://o/v1', anthropic: '', extractive: '' },
		chunkSize: 2048,
	};
	let f = formOf(defaults);
	f = formKey(f, { type: 'book.txt' }, defaults);
	f = formKey(f, { action: 'down' }, defaults);
	f = formKey(f, { action: 'right' }, defaults);
	assert.equal(f.method, 'inc');
	f = formKey(f, { action: 'down' }, defaults);
	assert.equal(f.baseUrl, 'http://o/v1');
	f = formKey(f, { action: 'right' }, defaults);
	assert.deepEqual([f.provider, f.model, f.baseUrl], ['anthropic', 'claude', '']);
	f = formKey(f, { action: 'down' }, defaults);
	f = formKey(f, { backspace: true }, defaults);
	f = formKey(f, { action: 'down' }, defaults);
	f = formKey(f, { type: 'http://a' }, defaults);
	f = formKey(formKey(f, { action: 'up' }, defaults), { action: 'up' }, defaults);
	f = formKey(f, { action: 'right' }, defaults);
	f = formKey(f, { action: 'right' }, defaults);
	assert.deepEqual([f.provider, f.model, f.baseUrl], ['openai', 'claud', 'http://a'], 'what is typed stays');
	f = formKey(
		formKey(formKey(f, { action: 'down' }, defaults), { action: 'down' }, defaults),
		{ type: '1a2' },
		defaults,
	);
	assert.equal(f.focus, 'baseUrl');
	f = formKey(formKey(f, { action: 'down' }, defaults), { type: '1a2' }, defaults);
	assert.equal(f.chunkSize, '204812');
});

test('formatInt groups thousands with commas, rounds, and keeps a sign', () => {
	assert.deepEqual([0, 999, 1000, 12_345, 1_234_567, 1_000_000_000, -1234, 12.6].map(formatInt), [
		'0',
		'999',
		'1,000',
		'12,345',
		'1,234,567',
		'1,000,000,000',
		'-1,234',
		'13',
	]);
});

test('after an edit of a finished run, the header counts the stale nodes as calls planned but not made', async () => {
	const { run, engine } = await setUp(
		randomBook(5, 40),
		{ method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: true },
		new FakeModel({ seed: 5 }),
	);
	let view = initialView(run);
	engine.on((event) => (view = reduce(view, event, { now: 0, run })));
	assert.equal(await engine.start(), 'done');
	const made = view.totals.calls;
	assert.deepEqual(progressOf(view), { calls: made, planned: made, ratio: 1 }, 'a finished run reads N/N');
	const first = liveNodes(run)[0]!;
	const stale = await engine.edit(first.id, `${activeVersion(first)!.text} Edited.`);
	assert.ok(stale.length > 1, 'the edit leaves nodes to make again');
	const { calls, planned, ratio } = progressOf(view);
	assert.equal(calls, made, 'an edit makes no call');
	assert.equal(planned, made + stale.length, 'each stale node is a call still to make');
	assert.equal(planned, engine.plannedCalls(), 'the header counts as the engine plans');
	assert.ok(ratio < 1);
	assert.equal(phaseOf(view), 'idle');
});

test('the score screen says no sentence confuses only when every sentence has a readable answer', () => {
	assert.equal(
		noConfusingText(['clear', 'pending']),
		'Confusing sentences appear here as their answers arrive.',
	);
	assert.equal(noConfusingText(['clear', 'clear']), 'No sentence confuses the annotator.');
	assert.equal(
		noConfusingText(['clear', 'failed', 'failed']),
		'No sentence confuses the annotator, but 2 had no readable answer: scoring again asks again.',
	);
	assert.equal(
		noConfusingText(['failed', 'failed']),
		'No sentence has a readable answer, so there is no score: scoring again asks again.',
	);
});

test("the sessions table leaves the model column out before a narrow terminal would cut the score at the row's end", () => {
	const session: SessionSummary = {
		id: 'pride-and-prejudice-20261123-2207-k3x9',
		kind: 'book',
		title: 'Pride and Prejudice',
		method: 'inc',
		provider: 'openai',
		model: 'gpt-4o-mini-2024-07-18',
		status: 'done',
		progress: { done: 48, total: 48 },
		createdAt: '2026-11-23T22:07:00.000Z',
		updatedAt: '2026-11-23T22:30:00.000Z',
		openedAt: '2026-11-23T22:07:00.000Z',
		booookscore: 67.5,
	};
	for (const width of [60, 67, 80, 120]) {
		const table = layoutTable(sessionColumns([session]), width);
		for (const line of [table.header, ...table.rows])
			assert.ok(textWidth(line) <= width, `${width}: ${line}`);
		assert.match(table.rows[0]!, /67\.5/u, `${width}: ${table.rows[0]}`);
	}
	// Wide enough, the model is shown.
	assert.match(layoutTable(sessionColumns([session]), 120).rows[0]!, /gpt-4o-mini/u);
});

test('no session id is ever cut, at 80 columns or fewer: the other columns give way', () => {
	const cell = (id: string): SessionSummary => ({
		id,
		kind: 'book',
		title: 'Frankenstein; Or, The Modern Prometheus',
		method: 'hier',
		provider: 'openai',
		model: 'gpt-4o-mini-2024-07-18',
		status: 'running',
		progress: { done: 27, total: 54 },
		createdAt: '2026-11-23T22:07:00.000Z',
		updatedAt: '2026-11-23T22:30:00.000Z',
		openedAt: '2026-11-23T22:07:00.000Z',
	});
	// A study's four cells differ only at their end; a run's id is book, date, time and a random part.
	const sessions = [
		...['c2048-w8192', 'c4096-w8192', 'c2048-w16384', 'c4096-w16384'].map((c) =>
			cell(`frankenstein-hier-gpt-4o-mini-${c}`),
		),
		cell('frankenstein-20261128-170406-ca36'),
	];
	for (const [width, gap] of [
		[80, 2],
		[78, 1],
		[60, 2],
	] as const) {
		const table = layoutTable(sessionColumns(sessions), width, gap);
		sessions.forEach((s, i) => {
			const row = table.rows[i]!;
			assert.ok(row.startsWith(`${s.id} `), `${width}: ${row}`);
			assert.ok(textWidth(row) <= width, `${width}: ${row}`);
		});
	}
	// With a run's id alone, at 80 the book still shows, cut, and the progress reads whole.
	const at80 = layoutTable(sessionColumns(sessions.slice(-1)), 80).rows[0]!;
	assert.match(at80, /Franken/u);
	assert.match(at80, /stopped 27\/54/u);
});

test("the new-run form refuses a chunk size below the smallest and a bad base URL in its own words, not a flag's", () => {
	const defaults: FormDefaults = {
		method: 'hier',
		provider: 'extractive',
		models: { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-6', extractive: 'textrank' },
		baseUrls: { openai: 'http://env/v1', anthropic: '', extractive: '' },
		chunkSize: 2048,
	};
	const form = { ...formOf(defaults), book: 'book.txt' };
	for (const chunkSize of ['10', '0', '2048.5', 'many'])
		assert.deepEqual(
			formInput({ ...form, chunkSize }, defaults),
			{ error: 'The chunk size is a whole number of tokens, at least 64.' },
			chunkSize,
		);
	assert.deepEqual(formInput({ ...form, chunkSize: '64' }, defaults), {
		book: 'book.txt',
		method: 'hier',
		provider: 'extractive',
		model: 'textrank',
		baseUrl: null,
		chunkSize: 64,
	});
	const openai = { ...form, provider: 'openai' as const, model: 'm' };
	assert.deepEqual(formInput({ ...openai, baseUrl: 'localhost:8000' }, defaults), {
		error:
			'The base URL localhost:8000: booook talks to a server over HTTP; give an http:// or https:// address, e.g. http://localhost:8000/v1',
	});
	const server = (baseUrl: string) => (formInput({ ...openai, baseUrl }, defaults) as NewRunInput).baseUrl;
	assert.equal(server(' http://llm:8000/v1 '), 'http://llm:8000/v1');
	assert.equal(server('http://env/v1'), null, "the environment's server is left to the environment");
	assert.equal(server(''), null);
});

test('an attempt that failed is billed into the totals but is no call of its node', () => {
	let s = fold(emptyView(), [
		planned,
		{ type: 'node-started', node: 'n0', kind: 'summarize', level: 0, index: 0, attempt: 0 },
	]);
	const none = { input: 0, output: 0, cached: 0 };
	s = fold(s, [
		{
			type: 'usage',
			node: 'n0',
			usage: none,
			cost: 0,
			saved: 0,
			totals: totals(0),
			failed: 'Connection error.',
		},
	]);
	assert.equal(s.nodes.n0!.calls, 0);
	s = fold(s, [
		{
			type: 'usage',
			node: 'n0',
			usage: { input: 100, output: 10, cached: 0 },
			cost: 0.01,
			saved: 0,
			totals: totals(1),
		},
	]);
	assert.equal(s.nodes.n0!.calls, 1);
	assert.equal(progressOf(s).calls, 1);
});
