import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Node, Run } from '../../source/domain.ts';
import type { CallRequest, CallResult, Provider } from '../../source/llm/provider.ts';
import { isDone, isLive } from '../../source/summarize/graph.ts';
import { hierarchical } from '../../source/summarize/hier.ts';
import type { Planner } from '../../source/summarize/planner.ts';
import { countTokens } from '../../source/text/tokens.ts';
import { prng } from '../support/fake-model.ts';
import { randomBook, setUp } from '../support/run-harness.ts';
import { waitFor } from '../support/wait.ts';

/**
 * A model whose answer depends on the prompt alone (so two runs that send the same prompts get the
 * same answers, whatever the order), and whose calls finish in an order the test picks at random.
 */
class ShuffledModel implements Provider {
	readonly name = 'openai' as const;
	readonly model = 'fake';
	readonly isLLM = true;
	readonly waiting: (() => void)[] = [];
	constructor(private readonly order: () => number) {}

	async complete(request: CallRequest): Promise<CallResult> {
		await new Promise<void>((resolve) => this.waiting.push(resolve));
		const random = prng(createHash('sha256').update(request.prompt).digest().readUInt32LE(0));
		// Lengths vary from a third of the asked words to all of them, so merges take varying counts.
		const words = Math.max(3, Math.round(request.task.words * (0.33 + 0.67 * random())));
		const text =
			Array.from({ length: words }, (_, i) => `w${Math.floor(random() * 50)}${i % 9 === 8 ? '.' : ''}`).join(
				' ',
			) + '.';
		return {
			text,
			finishReason: 'stop',
			usage: { input: countTokens(request.prompt), output: countTokens(text), cached: 0 },
		};
	}

	/** Finishes one waiting call, picked at random; false when none waits. */
	finishOne(): boolean {
		if (this.waiting.length === 0) return false;
		this.waiting.splice(Math.floor(this.order() * this.waiting.length), 1)[0]!();
		return true;
	}
}

/** Hierarchical merging that plans a level only once every level below it is done: the order the authors' code runs in. */
const levelByLevel: Planner = {
	...hierarchical,
	reconcile(run, ctx) {
		const update = hierarchical.reconcile(run, ctx);
		update.add = update.add.filter(
			(n) =>
				n.kind !== 'merge' ||
				run.nodes.every((m) => !isLive(m) || m.kind === 'clean' || m.level >= n.level || isDone(m)),
		);
		return update;
	},
};

async function runWith(planner: Planner, seed: number) {
	const model = new ShuffledModel(prng(seed));
	const book = randomBook(7, 700);
	const { run, store, engine } = await setUp(
		book,
		{ method: 'hier', chunkSize: 300, contextWindow: 1500, maxSummary: 200, concurrency: 6, clean: true },
		model,
	);
	(engine as unknown as { opts: { planner: Planner } }).opts.planner = planner;
	// Merges that start while summaries of the level below are still being made.
	let overlapped = 0;
	engine.on((event) => {
		if (event.type !== 'node-started' || event.kind !== 'merge') return;
		if (run.nodes.some((n) => isLive(n) && n.level < event.level && !isDone(n))) overlapped++;
	});
	const finished = engine.start();
	let status: string | null = null;
	void finished.then((s) => {
		status = s;
	});
	// Calls finish one at a time, in random order, whenever the engine has some waiting.
	while (status === null) {
		await new Promise((resolve) => setImmediate(resolve));
		model.finishOne();
	}
	assert.equal(status, 'done', run.error ?? '');
	return { run, calls: store.log, overlapped };
}

/** Each live node by its place in the plan, with what it read and the prompts it was sent. */
function planOf(run: Run, calls: { node: string; prompt: string }[]) {
	const key = (n: Node) => `${n.kind} L${n.level} #${n.index}`;
	const byId = new Map(run.nodes.map((n) => [n.id, n]));
	const name = (ref: string) => (byId.has(ref as Node['id']) ? key(byId.get(ref as Node['id'])!) : ref);
	const plan = new Map<string, unknown>();
	for (const n of run.nodes.filter(isLive)) {
		plan.set(key(n), {
			inputs: n.inputs.map(name),
			context: n.context === null ? null : name(n.context),
			budget: n.budget,
			prompts: calls.filter((c) => c.node === n.id).map((c) => c.prompt),
		});
	}
	return plan;
}

test('hierarchical merges start as soon as their inputs are done, with exactly the prompts of a level-by-level run', async () => {
	const reference = await runWith(levelByLevel, 1);
	assert.equal(reference.overlapped, 0, 'the reference waits for each level');
	const reference2 = planOf(reference.run, reference.calls);
	const levels = Math.max(...reference.run.nodes.map((n) => n.level));
	assert.ok(levels >= 3, `the book makes ${levels} levels above the chunks`);
	let overlapped = 0;
	for (const seed of [2, 3, 4]) {
		const pipelined = await runWith(hierarchical, seed);
		overlapped += pipelined.overlapped;
		assert.deepEqual(
			planOf(pipelined.run, pipelined.calls),
			reference2,
			`seed ${seed}: same nodes, inputs, contexts, budgets and prompts`,
		);
	}
	assert.ok(overlapped > 0, 'some merges ran while the level below was still being made');
});

test('the calls a run expects are the same whether counted before anything is planned or once level 0 is', async () => {
	const model = new ShuffledModel(prng(5));
	const { run, engine } = await setUp(
		randomBook(7, 700),
		{ method: 'hier', chunkSize: 300, contextWindow: 1500, maxSummary: 200, concurrency: 6, clean: true },
		model,
	);
	const planned: number[] = [];
	engine.on((event) => {
		if (event.type === 'run-started' || event.type === 'node-planned') planned.push(event.planned);
	});
	const finished = engine.start();
	// Both come before any call can answer: no call is let finish until then.
	await waitFor('the run started and level 0 planned', () => planned.length >= 2);
	engine.cancel();
	while (model.finishOne());
	await finished;
	// run-started comes before level 0 exists; node-planned right after it is planned.
	assert.ok(run.chunks.length > 20);
	assert.equal(planned[0], planned[1], `planned ${planned.join(', ')}`);
	assert.ok(planned[0]! > run.chunks.length, 'level 0 and the merges above it');
});
