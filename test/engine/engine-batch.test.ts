import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Usage } from '../../source/domain.ts';
import { Engine } from '../../source/engine/engine.ts';
import type { BatchedResult, BatchKey, BatchLane } from '../../source/llm/batcher.ts';
import type { CallRequest } from '../../source/llm/provider.ts';
import { plannerFor } from '../../source/summarize/run.ts';
import { totalsOf } from '../../source/summarize/totals.ts';
import { FakeModel } from '../support/fake-model.ts';
import { randomBook, setUp } from '../support/run-harness.ts';

/** A batch lane that holds every call until `release`, then answers them all with `model`, as batch `b1`. */
function heldLane(model: FakeModel) {
	const held: { key: BatchKey; request: CallRequest; resolve: (r: BatchedResult) => void }[] = [];
	let arrived = () => {};
	const lane: BatchLane = {
		complete: (key, request) =>
			new Promise<BatchedResult>((resolve) => {
				held.push({ key, request, resolve });
				arrived();
			}),
	};
	return {
		lane,
		held,
		/** Resolves once `n` calls are held. */
		waitFor: (n: number) =>
			new Promise<void>((resolve) => {
				arrived = () => held.length >= n && resolve();
				arrived();
			}),
		release: async () => {
			for (const call of held.splice(0))
				call.resolve({ ...(await model.complete({ ...call.request, signal: undefined })), batch: 'b1' });
		},
	};
}

const price = (usage: Usage) => (usage.input + usage.output) / 1e6;

test(
	'with a batch lane a hierarchical run sends every chunk summary at once whatever the concurrency, streams the merges, and bills the batched calls at half price',
	{ timeout: 60_000 },
	async () => {
		const book = randomBook(7, 120);
		const model = new FakeModel({ seed: 7 });
		const { run, store, ctx, config } = await setUp(
			book,
			{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, concurrency: 1, clean: false },
			model,
		);
		const batch = heldLane(new FakeModel({ seed: 7 }));
		const engine = new Engine({
			store,
			provider: model,
			planner: plannerFor(config.method),
			ctx,
			costOf: price,
			batch: batch.lane,
		});
		const done = engine.start();
		const chunks = run.chunks.length;
		assert.ok(chunks > 3);
		// Every level-0 call is out before any is answered: none waits for the one place.
		await batch.waitFor(chunks);
		assert.deepEqual(
			batch.held.map((h) => h.key.owner),
			run.nodes.filter((n) => n.level === 0).map((n) => n.id),
		);
		assert.equal(model.requests.length, 0, 'nothing streamed yet');
		await batch.release();
		assert.equal(await done, 'done');
		const level = new Map(run.nodes.map((n) => [n.id, n.level]));
		assert.ok(model.requests.length > 0);
		for (const call of store.log) {
			const batched = level.get(call.node as `n${number}`) === 0;
			assert.equal(call.batch, batched ? 'b1' : undefined, call.node);
			assert.equal(call.cost, price(call.usage) * (batched ? 0.5 : 1), call.node);
		}
		assert.equal(store.log.filter((c) => c.batch).length, chunks);
		assert.equal(
			engine.totals.cost,
			store.log.reduce((s, c) => s + c.cost, 0),
		);
	},
);

test(
	'with a batch lane every step of an incremental run goes in the batch',
	{ timeout: 60_000 },
	async () => {
		const book = randomBook(8, 60);
		const model = new FakeModel({ seed: 8 });
		const { run, store, ctx, config } = await setUp(
			book,
			{ method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, concurrency: 4, clean: true },
			model,
		);
		const answers = new FakeModel({ seed: 8 });
		const lane: BatchLane = {
			complete: async (_key, request) => ({ ...(await answers.complete(request)), batch: 'b2' }),
		};
		const engine = new Engine({
			store,
			provider: model,
			planner: plannerFor(config.method),
			ctx,
			costOf: price,
			batch: lane,
		});
		assert.equal(await engine.start(), 'done');
		const kinds = new Map(run.nodes.map((n) => [n.id, n.kind]));
		const streamed = store.log
			.filter((c) => c.batch === undefined)
			.map((c) => kinds.get(c.node as `n${number}`));
		assert.deepEqual(streamed, ['clean'], 'only the clean step streams');
		assert.ok(store.log.filter((c) => c.batch === 'b2').length >= run.chunks.length);
	},
);

test(
	"what the prompt cache saved on batched calls is counted the same live and read back from the session (the batch discount is not the cache's)",
	{ timeout: 60_000 },
	async () => {
		const book = randomBook(9, 60);
		const model = new FakeModel({ seed: 9 });
		const { run, store, ctx, config } = await setUp(
			book,
			{ method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, concurrency: 2, clean: true },
			model,
		);
		const answers = new FakeModel({ seed: 9 });
		// Half of every batched prompt read from the cache, at a tenth of the input price.
		const lane: BatchLane = {
			complete: async (_key, request) => {
				const answer = await answers.complete(request);
				return {
					...answer,
					usage: { ...answer.usage, cached: Math.floor(answer.usage.input / 2) },
					batch: 'b3',
				};
			},
		};
		const cachedPrice = (usage: Usage) =>
			(usage.input - usage.cached + usage.cached / 10 + usage.output) / 1e6;
		const engine = new Engine({
			store,
			provider: model,
			planner: plannerFor(config.method),
			ctx,
			costOf: cachedPrice,
			batch: lane,
		});
		assert.equal(await engine.start(), 'done');
		const batched = store.log.filter((c) => c.batch === 'b3');
		assert.ok(batched.length > 0 && batched.every((c) => c.usage.cached > 0));
		// Live: full price without the cache, at the batch price, less what each call cost.
		const expected = batched.reduce((s, c) => s + (cachedPrice({ ...c.usage, cached: 0 }) * 0.5 - c.cost), 0);
		assert.ok(Math.abs(engine.totals.saved - expected) < 1e-12, `${engine.totals.saved} ≠ ${expected}`);
		// A resumed run starts from the totals read back from the session: the same figure.
		const reread = totalsOf(run, cachedPrice);
		assert.ok(
			Math.abs(reread.saved - engine.totals.saved) < 1e-12,
			`read back ${reread.saved}, counted live ${engine.totals.saved}`,
		);
		assert.ok(Math.abs(reread.cost - engine.totals.cost) < 1e-12);
		assert.ok(
			run.nodes.flatMap((n) => n.versions.flatMap((v) => v.attempts)).some((a) => a.batch === 'b3'),
			'attempts keep their batch',
		);
	},
);
