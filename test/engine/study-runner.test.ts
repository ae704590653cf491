import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cellWork } from '../../source/app/study.ts';
import { studyLines } from '../../source/commands/study.ts';
import type { PlannedCell } from '../../source/app/study-plan.ts';
import {
	activityOf,
	StudyRunner,
	type CellStatus,
	type CellWork,
	type StudyEvent,
} from '../../source/engine/study-runner.ts';
import { Session } from '../../source/store/session.ts';
import { BatchPool } from '../../source/engine/batch-pool.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { loggedCalls } from '../support/logged-calls.ts';
import { tinyStudy } from '../support/study-books.ts';

function runnerOf(
	plan: Awaited<ReturnType<typeof tinyStudy>>['plan'],
	sessions: string,
	work: CellWork<PlannedCell> = cellWork(null, { env: {} }),
) {
	return new StudyRunner({
		name: plan.spec.name,
		cells: plan.cells,
		concurrency: plan.concurrency,
		sessionsDir: sessions,
		work,
	});
}

test('the study runner: each cell goes queued → running → done, its calls and activity moving with its engine; a second run skips every cell', async () => {
	const { plan, sessions } = await tinyStudy('states', ['ann', 'bob'], {
		methods: ['hier', 'inc'],
		chunkSizes: [512],
		concurrency: 2,
	});
	const runner = runnerOf(plan, sessions);
	assert.equal(runner.state.status, 'idle');
	assert.deepEqual(
		runner.state.cells.map((c) => c.status),
		['queued', 'queued', 'queued', 'queued'],
	);
	assert.deepEqual(
		runner.state.cells.map((c) => c.expected),
		plan.cells.map((c) => c.calls),
		"before a run, the plan's estimate",
	);
	const statuses = new Map<string, CellStatus[]>();
	const calls = new Map<string, number[]>();
	const activities = new Set<string>();
	const events: StudyEvent['type'][] = [];
	runner.on((event) => {
		events.push(event.type);
		if (!('cell' in event)) return;
		const { cell } = event;
		const seen = statuses.get(cell.key) ?? [];
		if (seen.at(-1) !== cell.status) seen.push(cell.status);
		statuses.set(cell.key, seen);
		calls.set(cell.key, [...(calls.get(cell.key) ?? []), cell.calls]);
		if (cell.activity) activities.add(cell.activity.replace(/\d+/gu, 'N'));
	});
	assert.equal(await runner.start(), 'done');
	assert.equal(events[0], 'study-started');
	assert.equal(events.at(-1), 'study-finished');
	for (const cell of plan.cells) {
		assert.deepEqual(statuses.get(cell.key), ['running', 'done'], cell.key);
		const seen = calls.get(cell.key)!;
		assert.ok(
			seen.every((n, i) => i === 0 || n >= seen[i - 1]!),
			`${cell.key}: calls only go up`,
		);
		assert.ok(new Set(seen).size > 2, `${cell.key}: progress was reported call by call, not only at the end`);
	}
	// Both methods' activities, in their own terms.
	assert.ok(activities.has('level N, N/N chunks'), [...activities].join('; '));
	assert.ok(activities.has('step N/N'), [...activities].join('; '));
	const { state } = runner;
	assert.equal(state.status, 'done');
	assert.ok(state.startedAt !== null && state.endedAt !== null && state.endedAt >= state.startedAt);
	for (const cell of state.cells) {
		const { data } = await Session.snapshot(sessions, cell.session);
		assert.equal(data.kind === 'book' && data.run.status, 'done');
		assert.ok(cell.words !== null && cell.words > 0);
		assert.equal(cell.expected, cell.calls, 'a cell done expects no more calls');
		assert.equal(cell.activity, null);
	}
	assert.equal(state.totals.done, 4);
	assert.equal(state.totals.calls, loggedCalls(sessions).length);

	let engines = 0;
	const work = cellWork(null, { env: {} });
	const again = runnerOf(plan, sessions, { engine: (...args) => (engines++, work.engine(...args)) });
	const lines: string[] = [];
	again.on(
		studyLines(
			{ write: (text: string) => lines.push(text) } as unknown as NodeJS.WritableStream,
			plan.cells.length,
		),
	);
	assert.equal(await again.start(), 'done');
	assert.equal(engines, 0, 'no engine for a cell done');
	assert.deepEqual(
		again.state.cells.map((c) => c.status),
		['skipped', 'skipped', 'skipped', 'skipped'],
	);
	assert.deepEqual(
		again.state.cells.map((c) => c.calls),
		state.cells.map((c) => c.calls),
	);
	// Cells are checked two at a time, so their lines may come in either order within a pair.
	assert.deepEqual(
		lines.join('').split('\n').filter(Boolean).sort(),
		plan.cells.map((c, i) => `[${i + 1}/4] ${c.key}: done already, skipped`).sort(),
	);
});

test('the study runner: a cancel mid-study stops the cell running and starts no other; the next run resumes it and makes no call twice', async () => {
	const { plan, sessions } = await tinyStudy('cancel', ['ann', 'bob', 'cid'], {
		methods: ['hier'],
		chunkSizes: [512],
		concurrency: 1,
	});
	const runner = runnerOf(plan, sessions);
	const first = plan.cells[0]!.key;
	runner.on((event) => {
		if (event.type === 'cell-progress' && event.cell.key === first && event.cell.calls >= 3) runner.cancel();
	});
	assert.equal(await runner.start(), 'cancelled');
	assert.deepEqual(
		runner.state.cells.map((c) => c.status),
		['cancelled', 'cancelled', 'cancelled'],
	);
	assert.equal(runner.state.status, 'cancelled');
	const { data } = await Session.snapshot(sessions, plan.cells[0]!.sessionId);
	assert.equal(data.kind === 'book' && data.run.status, 'cancelled');
	assert.ok(!existsSync(join(sessions, plan.cells[1]!.sessionId)), 'a cell not started has no session');
	const before = loggedCalls(sessions);
	assert.ok(
		before.length >= 3 && before.length < plan.cells[0]!.calls,
		`${before.length} calls before the cancel`,
	);

	const resumed = runnerOf(plan, sessions);
	const started: { key: string; resumed: boolean }[] = [];
	resumed.on((event) => {
		if (event.type === 'cell-started') started.push({ key: event.cell.key, resumed: event.resumed });
	});
	assert.equal(await resumed.start(), 'done');
	assert.deepEqual(
		started,
		plan.cells.map((c, i) => ({ key: c.key, resumed: i === 0 })),
	);
	const after = loggedCalls(sessions);
	assert.equal(new Set(after).size, after.length, 'no call logged twice');
	assert.ok(before.every((c) => after.includes(c)));
	assert.equal(
		resumed.state.cells[0]!.calls,
		after.filter((c) => c.startsWith(plan.cells[0]!.sessionId)).length,
		'the resumed cell counts its calls from before the cancel too',
	);
});

test('the study runner: a cell that cannot start fails alone, with its error in its state; the others run', async () => {
	const { plan, sessions } = await tinyStudy('broken', ['ann', 'bob'], {
		methods: ['hier'],
		chunkSizes: [512],
		concurrency: 1,
	});
	const work = cellWork(null, { env: {} });
	const runner = runnerOf(plan, sessions, {
		engine: (cell, ...rest) =>
			cell.book.key === 'ann' ? Promise.reject(new Error('no such model')) : work.engine(cell, ...rest),
	});
	assert.equal(await runner.start(), 'failed');
	const [ann, bob] = runner.state.cells;
	assert.equal(ann!.status, 'failed');
	assert.equal(ann!.error, 'no such model');
	assert.equal(bob!.status, 'done');
	assert.equal(runner.state.totals.failed, 1);
});

test("a run's activity: the lowest hierarchical level not finished, or the step of an incremental run", async () => {
	const { plan } = await tinyStudy('activity', ['ann'], { methods: ['hier'], chunkSizes: [512] });
	const { newRun } = await import('../../source/summarize/run.ts');
	const run = newRun(plan.cells[0]!.config, plan.cells[0]!.chunks);
	assert.equal(activityOf(run), null, 'nothing planned yet');
	const node = (level: number, index: number, status: 'done' | 'pending') =>
		({
			id: `n${level * 100 + index}`,
			kind: level === 0 ? 'summarize' : 'merge',
			level,
			index,
			inputs: [],
			context: null,
			budget: { summaryTokens: 1, inputTokens: 1 },
			status,
			versions: [],
			active: null,
			pending: [],
			meta: {},
		}) as unknown as (typeof run.nodes)[number];
	run.nodes = [node(0, 0, 'done'), node(0, 1, 'done'), node(0, 2, 'pending')];
	assert.equal(
		activityOf(run),
		'level 1, 2/3 chunks',
		'levels count from 1: level 1 holds the chunk summaries',
	);
	run.nodes = [node(0, 0, 'done'), node(0, 1, 'done'), node(1, 0, 'done'), node(1, 1, 'pending')];
	assert.equal(activityOf(run), 'level 2, 1/2 merges');
});

test(
	'the study runner with batches: every cell is open at once, each shows the batch it waits on while it runs, and none once its batches ended',
	{ timeout: 120_000 },
	async (t) => {
		const api = await startFakeApi();
		t.after(() => api.close());
		const { plan, sessions } = await tinyStudy('batched', ['ann', 'bob', 'cid'], {
			methods: ['hier'],
			chunkSizes: [512],
			concurrency: 1,
			providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl }],
		});
		const env = { OPENAI_API_KEY: 'sk-test' };
		const batches = new BatchPool({ poll: 0.02, gather: 0.05, env });
		const runner = new StudyRunner({
			name: plan.spec.name,
			cells: plan.cells,
			concurrency: plan.concurrency,
			sessionsDir: sessions,
			work: cellWork(null, { env }, batches),
			batches,
		});
		// Held: no batch ends. With concurrency 1 only one cell would ever be open, and the others never
		// show a batch; so every cell showing one, with every chunk of every cell submitted, is the point.
		api.holdBatches = true;
		const chunks = plan.cells.reduce((n, c) => n + c.chunks.length, 0);
		const shown = new Promise<string[]>((resolve) => {
			const off = runner.on(() => {
				const texts = runner.state.cells.map((c) => c.batch);
				if (texts.every((b) => b !== null) && runner.state.batches?.requests === chunks) {
					off();
					resolve(texts as string[]);
				}
			});
		});
		const done = runner.start();
		const texts = await shown;
		// The cells' calls usually meet in one batch; on a slow machine a cell may start after the gather window closed.
		const submitted = api.batches;
		assert.equal(
			submitted.reduce((n, b) => n + b.items.length, 0),
			chunks,
			'every chunk of every cell, each once',
		);
		assert.equal(runner.state.batches?.waiting, submitted.length);
		const ids = submitted.map((b) => b.id).join('|');
		for (const text of texts)
			assert.match(text, new RegExp(`^batch (${ids}) (validating|in progress) \\d+/\\d+$`, 'u'));
		api.holdBatches = false;
		assert.equal(await done, 'done');
		assert.deepEqual(
			runner.state.cells.map((c) => [c.status, c.batch]),
			plan.cells.map(() => ['done', null]),
		);
		assert.equal(runner.state.batches?.waiting, 0);
	},
);
