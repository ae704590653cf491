import { test } from 'node:test';
import assert from 'node:assert/strict';
import PQueue from 'p-queue';
import { Engine } from '../../source/engine/engine.ts';
import type { EngineEvent } from '../../source/engine/events.ts';
import { plannerFor } from '../../source/summarize/run.ts';
import { activeVersion } from '../../source/summarize/graph.ts';
import { FakeModel } from '../support/fake-model.ts';
import { randomBook, setUp } from '../support/run-harness.ts';
import { settle, waitFor } from '../support/wait.ts';

test('level 0 runs up to --concurrency calls at once, and results land in book order whatever finishes first', async () => {
	const book = randomBook(21, 120);
	const model = new FakeModel({ seed: 21 });
	let inFlight = 0;
	let most = 0;
	const finishOrder: number[] = [];
	const complete = model.complete.bind(model);
	model.complete = async (request) => {
		inFlight++;
		most = Math.max(most, inFlight);
		// Each call answers faster than the one before, so calls finish out of book order.
		const order = model.requests.length;
		await settle(Math.max(1, 40 - 4 * (order % 10)));
		try {
			return await complete(request);
		} finally {
			inFlight--;
		}
	};
	const { run, engine } = await setUp(
		book,
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, concurrency: 3, clean: false },
		model,
	);
	engine.on((e) => {
		if (e.type === 'node-finished' && e.level === 0) finishOrder.push(e.index);
	});
	assert.equal(await engine.start(), 'done');
	assert.equal(most, 3);
	assert.notDeepEqual(
		finishOrder,
		[...finishOrder].sort((a, b) => a - b),
		'calls finished out of order',
	);
	const level0 = run.nodes.filter((n) => n.level === 0);
	assert.deepEqual(
		level0.map((n) => n.index),
		level0.map((_, i) => i),
	);
	assert.deepEqual(
		level0.map((n) => n.inputs[0]),
		run.chunks.map((c) => `c${c.index}`),
	);
});

test('pause lets calls in flight finish and starts none; step admits exactly one; resume runs to the end', async () => {
	const book = randomBook(22, 60);
	const model = new FakeModel({ seed: 22, latencyMs: 20 });
	let inFlight = 0;
	const complete = model.complete.bind(model);
	model.complete = async (request) => {
		inFlight++;
		try {
			return await complete(request);
		} finally {
			inFlight--;
		}
	};
	const idle = () => waitFor('no call in flight', () => inFlight === 0);
	// Held: no call in flight, and the next node taken up and waiting at the gate. A call let
	// through would be in flight at once (the engine starts the next as soon as a place frees).
	const held = () =>
		waitFor(
			'no call in flight and a node held at the gate',
			() => inFlight === 0 && run.nodes.some((n) => n.status === 'running'),
		);
	const { run, engine } = await setUp(
		book,
		{ method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		model,
	);
	const events: EngineEvent[] = [];
	engine.on((e) => events.push(e));
	const done = engine.start();
	await waitFor('two calls made', () => model.requests.length >= 2);
	engine.pause();
	await held(); // the call in flight finishes, the next waits
	const paused = model.requests.length;
	assert.ok(paused < run.chunks.length, 'the run is held, not done');
	engine.step();
	await waitFor('the step to make a call', () => model.requests.length !== paused);
	await idle();
	assert.equal(model.requests.length, paused + 1, 'a step makes exactly one call');
	await held();
	assert.equal(model.requests.length, paused + 1, 'and then holds again');
	engine.resume();
	assert.equal(await done, 'done');
	assert.ok(events.some((e) => e.type === 'run-paused'));
	assert.equal(
		run.nodes.length,
		run.chunks.length + run.nodes.filter((n) => n.kind === 'compress').length * 2,
	);
});

test('cancel aborts calls in flight, keeps finished work, and a new start continues without repeating it', async () => {
	const book = randomBook(23, 80);
	const model = new FakeModel({ seed: 23, latencyMs: 15 });
	const { run, engine, store, ctx } = await setUp(
		book,
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, concurrency: 2, clean: false },
		model,
	);
	const done = engine.start();
	await waitFor('a node done', () => run.nodes.some((n) => n.status === 'done'));
	engine.cancel();
	assert.equal(await done, 'cancelled');
	assert.equal(run.status, 'cancelled');
	const finished = run.nodes.filter((n) => n.status === 'done').map((n) => n.id);
	assert.ok(finished.length > 0 && finished.length < run.chunks.length);
	assert.ok(
		run.nodes.every((n) => n.status === 'done' || n.status === 'pending'),
		'nothing is left running',
	);
	const logged = store.log.length;

	const { Engine } = await import('../../source/engine/engine.ts');
	const { plannerFor } = await import('../../source/summarize/run.ts');
	const again = new Engine({ store, provider: model, planner: plannerFor('hier'), ctx, costOf: () => 0 });
	assert.equal(await again.start(), 'done');
	const calledFor = store.log.slice(logged).map((c) => c.node);
	for (const id of finished) assert.ok(!calledFor.includes(id), `${id} was not called again`);
	assert.equal(again.totals.calls, store.log.length, 'usage totals continue from the saved run');
});

test('markStale marks everything that reads a node, and the next start makes new versions of exactly those', async () => {
	const book = randomBook(24, 100);
	const model = new FakeModel({ seed: 24 });
	const { run, engine } = await setUp(
		book,
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		model,
	);
	assert.equal(await engine.start(), 'done');
	const target = run.nodes.find((n) => n.level === 0 && n.index === 2)!;
	target.versions.push({
		...activeVersion(target)!,
		text: 'An edited summary of the third chunk.',
		origin: 'edit',
		attempts: [],
	});
	target.active = target.versions.length - 1;
	const stale = await engine.markStale(target.id);
	const parent = run.nodes.find((n) => n.inputs.includes(target.id))!;
	assert.ok(stale.includes(parent.id));
	assert.ok(!stale.includes(target.id));
	assert.ok(
		run.nodes.filter((n) => n.level === 0 && n.id !== target.id).every((n) => !stale.includes(n.id)),
		'siblings are untouched',
	);
	assert.equal(run.root, null);
	const versionsBefore = new Map(run.nodes.map((n) => [n.id, n.versions.length]));
	assert.equal(await engine.start(), 'done');
	for (const n of run.nodes) {
		const added = n.versions.length - versionsBefore.get(n.id)!;
		assert.equal(added, stale.includes(n.id) ? 1 : 0, `${n.id}`);
	}
	assert.ok(model.requests.some((r) => r.prompt.includes('An edited summary of the third chunk.')));
});

test('a save the disk refuses stops the run at once: calls in flight are cancelled, not waited for', async () => {
	const book = randomBook(25, 60);
	const model = new FakeModel({ seed: 25 });
	const complete = model.complete.bind(model);
	let calls = 0;
	let answered = false;
	// The first call answers; every other call would run until cancelled.
	model.complete = async (request) => {
		if (calls++ === 0) {
			const result = await complete(request);
			answered = true;
			return result;
		}
		// As a real client does, a signal aborted before the request is sent rejects at once.
		await new Promise((_, reject) => {
			const aborted = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
			if (request.signal?.aborted) aborted();
			else request.signal?.addEventListener('abort', aborted, { once: true });
		});
		throw new Error('unreachable');
	};
	const { store, engine } = await setUp(
		book,
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, concurrency: 4, clean: false },
		model,
	);
	const full = Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC' });
	// The writes of the plan go through; the first write after an answer fails.
	const updateNode = store.updateNode.bind(store);
	store.updateNode = async (id, patch) => {
		if (!answered) return updateNode(id, patch);
		throw full;
	};
	await assert.rejects(engine.start(), (error) => error === full);
	assert.ok(calls > 1, 'other calls were in flight when the save failed');
});

test('engines given one shared call queue keep to its limit together, and a run that finds every place taken waits for one', async () => {
	const shared = new PQueue({ concurrency: 2 });
	let inFlight = 0;
	let most = 0;
	const runs = await Promise.all(
		[31, 32, 33].map(async (seed, i) => {
			const model = new FakeModel({ seed, latencyMs: 5 });
			const complete = model.complete.bind(model);
			model.complete = async (request) => {
				most = Math.max(most, ++inFlight);
				try {
					return await complete(request);
				} finally {
					inFlight--;
				}
			};
			// Each run would take 4 places of its own; the inc run has one call at a time.
			const { store, ctx } = await setUp(
				randomBook(seed, 60),
				{
					method: i === 2 ? 'inc' : 'hier',
					chunkSize: 256,
					maxSummary: 200,
					contextWindow: 2048,
					concurrency: 4,
					clean: false,
				},
				model,
			);
			return {
				store,
				engine: new Engine({
					store,
					provider: model,
					planner: plannerFor(ctx.config.method),
					ctx,
					costOf: () => 0,
					queue: shared,
				}),
			};
		}),
	);
	const statuses = await Promise.all(runs.map(({ engine }) => engine.start()));
	for (const { engine } of runs) engine.dispose();
	assert.deepEqual(statuses, ['done', 'done', 'done']);
	assert.ok(runs.every(({ store }) => store.data.run.root !== null));
	assert.equal(most, 2, 'never more than the shared limit in flight, across the three runs');
	assert.equal(shared.listenerCount('next'), 0, 'disposed engines no longer listen to the shared queue');
});
