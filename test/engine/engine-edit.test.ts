import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, NodeRef, Run } from '../../source/domain.ts';
import type { Engine } from '../../source/engine/engine.ts';
import type { EngineEvent } from '../../source/engine/events.ts';
import type { CallRequest } from '../../source/llm/provider.ts';
import { runSchema } from '../../source/store/schema.ts';
import { activeVersion, callsMade, getNode, isLive } from '../../source/summarize/graph.ts';
import type { PlanContext } from '../../source/summarize/planner.ts';
import { plannerFor } from '../../source/summarize/run.ts';
import { FakeModel, prng } from '../support/fake-model.ts';
import type { MemoryStore } from '../support/memory-store.ts';
import { randomBook, setUp } from '../support/run-harness.ts';
import { settle, waitFor } from '../support/wait.ts';

// Words that appear in no random book and no fake answer: an edit puts one in, and the marker
// model carries every one it reads into what it writes, so an edit's effect can be followed up.
const MARKS = ['Zanzibar', 'Quixote', 'Valparaiso'];
const HIER = { method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false } as const;
const INC = { method: 'inc', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false } as const;

function markerModel(seed: number): FakeModel {
	const model = new FakeModel({ seed });
	const complete = model.complete.bind(model);
	model.complete = async (request) => {
		const result = await complete(request);
		const carried = MARKS.filter((m) => request.prompt.includes(m));
		if (carried.length === 0 || result.text === '') return result;
		const words = result.text.split(' ');
		return { ...result, text: [...carried, ...words.slice(carried.length)].join(' ') };
	};
	return model;
}

/** The node's text with its first word replaced by `mark`: about as long, so plans keep their shape. */
function marked(node: Node, mark: string): string {
	return activeVersion(node)!.text.replace(/^\S+/u, mark);
}

/** Every node that reads `id`, following inputs and contexts, computed here from the graph alone. */
function readersOf(run: Run, id: NodeRef): Set<NodeRef> {
	const found = new Set<NodeRef>();
	let grew = true;
	while (grew) {
		grew = false;
		for (const n of run.nodes) {
			if (!isLive(n) || found.has(n.id)) continue;
			const reads = [...n.inputs, ...(n.context ? [n.context] : [])];
			if (reads.some((r) => r === id || found.has(r))) {
				found.add(n.id);
				grew = true;
			}
		}
	}
	return found;
}

const live = (run: Run) => run.nodes.filter(isLive);
const finalText = (run: Run) => activeVersion(getNode(run, run.root!))!.text;

/** The live tree is a complete hierarchical plan: each level covers the one below once, in order. */
function assertValidTree(run: Run): void {
	const nodes = live(run).filter((n) => n.kind !== 'clean');
	assert.ok(
		live(run).every((n) => n.status === 'done'),
		'every live node is done',
	);
	const levels = new Map<number, Node[]>();
	for (const n of nodes) levels.set(n.level, [...(levels.get(n.level) ?? []), n]);
	for (const list of levels.values()) list.sort((a, b) => a.index - b.index);
	assert.deepEqual(
		levels.get(0)!.map((n) => n.inputs[0]),
		run.chunks.map((c) => `c${c.index}`),
	);
	let top = 0;
	for (let level = 1; levels.has(level); level++) {
		const here = levels.get(level)!;
		const below = levels.get(level - 1)!;
		assert.deepEqual(
			here.flatMap((n) => n.inputs),
			below.map((n) => n.id),
			`level ${level} covers the level below once, in order`,
		);
		here.forEach((n, k) =>
			assert.equal(
				n.context,
				k === 0 ? null : here[k - 1]!.id,
				`level ${level}: context is the previous merge`,
			),
		);
		assert.deepEqual(
			here.map((n) => n.index),
			here.map((_, k) => k),
		);
		assert.ok(here.length < below.length, `level ${level} shrinks`);
		top = level;
	}
	assert.equal(levels.get(top)!.length, 1);
	const clean = live(run).find((n) => n.kind === 'clean');
	assert.equal(run.root, clean ? clean.id : levels.get(top)![0]!.id);
	if (clean) assert.deepEqual(clean.inputs, [levels.get(top)![0]!.id]);
}

/** The live chain is a complete incremental plan: each step reads a settled node of the step before. */
function assertValidChain(run: Run): void {
	const chain = live(run).filter((n) => n.kind !== 'clean');
	assert.ok(
		live(run).every((n) => n.status === 'done'),
		'every live node is done',
	);
	const steps = chain.map((n) => Number(n.meta.step));
	assert.deepEqual(
		steps,
		[...steps].sort((a, b) => a - b),
		'the chain runs through the steps in order',
	);
	assert.deepEqual(
		[...new Set(steps)],
		run.chunks.map((c) => c.index),
		'every chunk is read once',
	);
	for (const n of chain) {
		if (n.kind === 'summarize') continue;
		const read = getNode(run, n.kind === 'compress' ? n.inputs[0]! : n.inputs[1]!);
		assert.ok(isLive(read), `${n.id} reads a live node`);
		if (n.kind === 'update' && read.kind !== 'compress')
			assert.equal(Number(read.meta.step), Number(n.meta.step) - 1, `${n.id} reads the step before`);
	}
}

/**
 * No node is done with a version made from inputs other than the current ones (the prompts say),
 * except a version a person chose (`chosen`: node and version), which stands as chosen.
 */
function assertMadeFromCurrentInputs(
	run: Run,
	store: MemoryStore,
	ctx: PlanContext,
	chosen = new Map<NodeRef, number>(),
): void {
	const planner = plannerFor(run.config.method);
	const last = new Map<string, string>();
	// A dropped attempt and the one made again after the change share their numbers; the later counts.
	for (const c of store.log) last.set(`${c.node}#${c.version}#${c.attempt}`, c.prompt);
	for (const node of live(run)) {
		const version = activeVersion(node);
		if (node.status !== 'done' || version?.origin !== 'model' || chosen.get(node.id) === node.active)
			continue;
		version.attempts.forEach((_, k) => {
			assert.equal(
				last.get(`${node.id}#${node.active}#${k}`),
				planner.call(run, node, ctx, k).prompt,
				`${node.id} version ${node.active} was made from its current inputs`,
			);
		});
	}
}

function assertRoundTrips(run: Run): void {
	const stored = JSON.parse(JSON.stringify(run));
	assert.deepEqual(runSchema.parse(stored), stored);
}

function record(engine: Engine): EngineEvent[] {
	const events: EngineEvent[] = [];
	engine.on((e) => events.push(e));
	return events;
}

test('hier: an edit mid-tree stales exactly its ancestors; the next start makes one new version of each and the edit reaches the final summary', async () => {
	const { run, engine, store, ctx } = await setUp(randomBook(24, 100), HIER, markerModel(24));
	assert.equal(await engine.start(), 'done');
	const oldFinal = finalText(run);
	// A summary read by the last merge of level 1: a same-length edit there cannot regroup anything.
	const lastMerge = live(run)
		.filter((n) => n.level === 1)
		.at(-1)!;
	const target = getNode(run, lastMerge.inputs[1]!);
	const oldTexts = new Map(run.nodes.map((n) => [n.id, activeVersion(n)!.text]));
	const versionsBefore = new Map(run.nodes.map((n) => [n.id, n.versions.length]));
	const events = record(engine);
	const writes = store.writes;

	const stale = await engine.edit(target.id, marked(target, MARKS[0]!));

	// Written apart, a kill between them left the readers done from the old text for good.
	assert.equal(store.writes - writes, 1, 'the edit and the stale marks of its readers are one write');
	assert.deepEqual(new Set(stale), readersOf(run, target.id));
	assert.ok(stale.length >= 2 && stale.includes(lastMerge.id));
	assert.equal(target.status, 'done');
	const edit = activeVersion(target)!;
	assert.equal(target.active, target.versions.length - 1);
	assert.equal(edit.origin, 'edit');
	assert.equal(edit.params, null);
	assert.equal(edit.model, null);
	assert.equal(edit.timings, null);
	assert.deepEqual(edit.attempts, []);
	assert.deepEqual(edit.usage, { input: 0, output: 0, cached: 0 });
	assert.ok(!Number.isNaN(Date.parse(edit.createdAt)));
	assert.deepEqual(
		events.find((e) => e.type === 'node-edited'),
		{ type: 'node-edited', node: target.id, version: target.active },
	);
	assert.deepEqual(new Set(events.flatMap((e) => (e.type === 'node-stale' ? e.nodes : []))), new Set(stale));
	assert.equal(run.root, null);
	for (const id of stale) assert.equal(getNode(run, id).status, 'stale');
	assertRoundTrips(run);

	assert.equal(await engine.start(), 'done', run.error ?? '');
	assert.ok(run.nodes.every(isLive), 'nothing was regrouped');
	for (const n of run.nodes) {
		const added = n.versions.length - versionsBefore.get(n.id)!;
		assert.equal(added, n.id === target.id ? 1 : stale.includes(n.id) ? 1 : 0, `${n.id} versions`);
		assert.equal(n.versions[0]!.text, oldTexts.get(n.id), `${n.id} keeps its first version`);
	}
	assert.ok(!oldFinal.includes(MARKS[0]!));
	assert.notEqual(finalText(run), oldFinal);
	assert.ok(finalText(run).includes(MARKS[0]!), 'the edit travelled up to the final summary');
	assertValidTree(run);
	assertMadeFromCurrentInputs(run, store, ctx);
	assertRoundTrips(run);
});

test('hier: an edit that changes how a level is packed supersedes the regrouped merges and plans new ones', async () => {
	const { run, engine, store, ctx } = await setUp(randomBook(24, 100), HIER, markerModel(24));
	assert.equal(await engine.start(), 'done');
	const before = new Map(run.nodes.map((n) => [n.id, n.versions.length]));
	const oldIds = new Set(run.nodes.map((n) => n.id));
	const maxOld = Math.max(...run.nodes.map((n) => Number(n.id.slice(1))));
	const target = live(run).find((n) => n.level === 0 && n.index === 2)!;
	const events = record(engine);

	// Far shorter than the other summaries: the first merge of level 1 now has room for one more.
	await engine.edit(target.id, `${MARKS[1]} sailed home.`);

	const superseded = run.nodes.filter((n) => n.status === 'superseded');
	assert.ok(superseded.length > 0, 'some merges were regrouped');
	assert.ok(superseded.every((n) => n.level > 0));
	assert.deepEqual(
		new Set(events.flatMap((e) => (e.type === 'node-superseded' ? e.nodes : []))),
		new Set(superseded.map((n) => n.id)),
	);
	const planned = events.flatMap((e) => (e.type === 'node-planned' ? e.nodes.map((n) => n.id) : []));
	assert.ok(planned.length > 0, 'replacements are planned at once');
	for (const id of planned) assert.ok(!oldIds.has(id) && Number(id.slice(1)) > maxOld, `${id} is a fresh id`);
	// What was superseded no longer counts: not in the calls made, not in the final summary.
	const liveCalls = live(run).reduce(
		(s, n) => s + n.versions.reduce((t, v) => t + v.attempts.length, 0) + n.pending.length,
		0,
	);
	assert.equal(callsMade(run), liveCalls);
	assert.ok(engine.plannedCalls() >= engine.totals.calls);
	await assert.rejects(engine.edit(superseded[0]!.id, 'Anything.'), /replaced by a re-plan/);

	const logged = store.log.length;
	assert.equal(await engine.start(), 'done', run.error ?? '');
	assertValidTree(run);
	for (const n of superseded) {
		assert.equal(n.status, 'superseded');
		assert.equal(n.versions.length, before.get(n.id), `${n.id} keeps its versions and gets no new one`);
		assert.ok(n.versions.length > 0);
	}
	assert.ok(
		store.log.slice(logged).every((c) => !superseded.some((n) => n.id === c.node)),
		'no call is made for a superseded node',
	);
	assert.ok(!superseded.some((n) => n.id === run.root));
	assert.ok(finalText(run).includes(MARKS[1]!));
	assertMadeFromCurrentInputs(run, store, ctx);
	assertRoundTrips(run);
});

test('inc: an edit of step k stales or re-plans every later node; the next start completes the chain from the edit', async () => {
	const { run, engine, store, ctx } = await setUp(
		randomBook(31, 70),
		{ ...INC, clean: true },
		markerModel(31),
	);
	assert.equal(await engine.start(), 'done', run.error ?? '');
	const k = 2;
	const next = run.nodes.find((n) => n.meta.step === k + 1 && n.kind === 'update')!;
	const target = getNode(run, next.inputs[1]!);
	const position = run.nodes.indexOf(target);
	const earlier = run.nodes.slice(0, position).map((n) => [n.id, n.versions.length] as const);

	const stale = await engine.edit(target.id, marked(target, MARKS[2]!));

	const after = run.nodes.slice(position + 1);
	assert.ok(after.length > 0);
	for (const n of after)
		assert.ok(
			n.status === 'stale' || n.status === 'superseded',
			`${n.id} (step ${n.meta.step}) is ${n.status}`,
		);
	assert.ok(stale.includes(next.id));
	for (const [id, versions] of earlier) {
		assert.equal(getNode(run, id).status, 'done');
		assert.equal(getNode(run, id).versions.length, versions);
	}
	assert.equal(await engine.start(), 'done', run.error ?? '');
	assertValidChain(run);
	assert.equal(getNode(run, run.root!).kind, 'clean');
	assert.ok(finalText(run).includes(MARKS[2]!), 'the edit is carried to the end of the chain');
	assertMadeFromCurrentInputs(run, store, ctx);
	assertRoundTrips(run);
});

test('inc: editing an over-long update that compressions stood in for makes it the step result; what followed is superseded', async () => {
	const book = randomBook(13, 200);
	const model = markerModel(13);
	const { run, engine, store, ctx } = await setUp(
		book,
		{ method: 'inc', chunkSize: 512, maxSummary: 300, contextWindow: 4096, clean: false },
		model,
	);
	// The first update of step 3 comes out too long once, as in plan.test.ts.
	const complete = model.complete.bind(model);
	let spoiled = false;
	model.complete = async (request: CallRequest) => {
		if (
			!spoiled &&
			request.task.kind === 'update' &&
			request.prompt.includes(book.slice(run.chunks[3]!.start, run.chunks[3]!.start + 40))
		) {
			spoiled = true;
			return complete({ ...request, task: { ...request.task, words: request.maxTokens * 2 } });
		}
		return complete(request);
	};
	assert.equal(await engine.start(), 'done', run.error ?? '');
	const step3 = run.nodes.filter((n) => n.meta.step === 3);
	assert.deepEqual(
		step3.map((n) => n.kind),
		['update', 'compress', 'update'],
	);
	const [first, compress, redo] = step3 as [Node, Node, Node];
	assert.ok(activeVersion(first)!.overBudget);

	// The person cuts the over-long update down by hand: an edit is taken as it is.
	await engine.edit(first.id, marked(redo, MARKS[0]!));

	assert.equal(compress.status, 'superseded');
	assert.equal(redo.status, 'superseded');
	const step4 = live(run).filter((n) => n.meta.step === 4);
	assert.equal(step4.length, 1);
	assert.deepEqual(step4[0]!.inputs, ['c4', first.id], 'step 4 now reads the edited update');
	assert.equal(step4[0]!.status, 'pending');
	assert.equal(await engine.start(), 'done', run.error ?? '');
	assertValidChain(run);
	assert.ok(finalText(run).includes(MARKS[0]!));
	assertMadeFromCurrentInputs(run, store, ctx);
	assertRoundTrips(run);
});

test('rerun makes a new version of one node from the same prompt, and its readers are made again', async () => {
	const { run, engine, store, ctx } = await setUp(
		randomBook(24, 100),
		{ ...HIER, clean: true },
		markerModel(24),
	);
	assert.equal(await engine.start(), 'done');
	const node = live(run).find((n) => n.level === 1 && n.index === 0)!;
	const first = store.log.find((c) => c.node === node.id)!;
	const versions = node.versions.length;

	const stale = await engine.rerun(node.id);

	assert.equal(stale[0], node.id, 'the node itself is stale first');
	assert.deepEqual(new Set(stale.slice(1)), readersOf(run, node.id));
	assert.ok(stale.includes(live(run).find((n) => n.kind === 'clean')!.id));
	assert.equal(node.versions.length, versions, 'its versions are kept');
	assert.equal(await engine.start(), 'done', run.error ?? '');
	assert.equal(node.versions.length, versions + 1);
	assert.equal(node.active, versions);
	const again = store.log.find((c) => c.node === node.id && c.version === versions)!;
	assert.equal(again.prompt, first.prompt, 'the new version is made from the same inputs');
	assertValidTree(run);
	assertMadeFromCurrentInputs(run, store, ctx);
	assertRoundTrips(run);
});

test('setActive switches the version later nodes read and stales them; switching to the active one is a no-op', async () => {
	const { run, engine, store, ctx } = await setUp(randomBook(24, 100), HIER, markerModel(24));
	assert.equal(await engine.start(), 'done');
	const lastMerge = live(run)
		.filter((n) => n.level === 1)
		.at(-1)!;
	const target = getNode(run, lastMerge.inputs[1]!);
	const original = activeVersion(target)!.text;
	await engine.edit(target.id, marked(target, MARKS[0]!));
	assert.equal(await engine.start(), 'done');
	assert.ok(finalText(run).includes(MARKS[0]!));
	const events = record(engine);

	const stale = await engine.setActive(target.id, 0);

	assert.equal(target.active, 0);
	assert.equal(target.status, 'done');
	assert.deepEqual(new Set(stale), readersOf(run, target.id));
	assert.deepEqual(events[0], { type: 'node-active', node: target.id, version: 0 });
	assert.deepEqual(await engine.setActive(target.id, 0), [], 'already active');
	await assert.rejects(engine.setActive(target.id, target.versions.length), /no version/);
	assert.equal(await engine.start(), 'done');
	const reader = live(run).find((n) => n.inputs.includes(target.id))!;
	const prompt = store.log.filter((c) => c.node === reader.id).at(-1)!.prompt;
	assert.ok(
		prompt.includes(original) && !prompt.includes(MARKS[0]!),
		'the reader was made from version 0 again',
	);
	assert.ok(!finalText(run).includes(MARKS[0]!));
	assertMadeFromCurrentInputs(run, store, ctx);
	assertRoundTrips(run);
});

test('edits are refused for an empty text, an unknown node, a node being made, and a node that may still be re-planned', async () => {
	const { run, engine } = await setUp(randomBook(24, 100), HIER, markerModel(24));
	assert.equal(await engine.start(), 'done');
	const leaf = live(run).find((n) => n.level === 0)!;
	await assert.rejects(engine.edit(leaf.id, '  \n '), /cannot be empty/);
	await assert.rejects(engine.edit('n999', 'Text.'), /no node n999/);
	await assert.rejects(engine.rerun('n999'), /no node n999/);
	assert.equal(leaf.versions.length, 1, 'a refused edit adds nothing');

	// After an edit low in the tree, the top waits for its plan check until the run reaches it.
	const lastMerge = live(run)
		.filter((n) => n.level === 1)
		.at(-1)!;
	const low = getNode(run, lastMerge.inputs[1]!);
	await engine.edit(low.id, marked(low, MARKS[0]!));
	const top = getNode(
		run,
		run.nodes.filter((n) => isLive(n)).reduce((a, b) => (b.level > a.level ? b : a)).id,
	);
	await assert.rejects(engine.edit(top.id, 'A new top.'), /re-planned/);

	// Paused before any call: the stale merge is taken up and held at the gate, "being made".
	const done = engine.start();
	engine.pause();
	await waitFor('the last merge held at the gate', () => lastMerge.status === 'running');
	await assert.rejects(engine.edit(lastMerge.id, 'Text.'), /being made/);
	await assert.rejects(engine.rerun(lastMerge.id), /being made/);
	await assert.rejects(engine.setActive(lastMerge.id, 0), /being made/);
	engine.resume();
	assert.equal(await done, 'done');
	assert.ok(finalText(run).includes(MARKS[0]!));
});

test('an edit while paused requeues a reader held at the gate: it is made once, from the new input', async () => {
	const { run, engine, store, ctx } = await setUp(
		randomBook(24, 100),
		{ ...HIER, concurrency: 2 },
		markerModel(24),
	);
	assert.equal(await engine.start(), 'done');
	const lastMerge = live(run)
		.filter((n) => n.level === 1)
		.at(-1)!;
	const [a, b] = [getNode(run, lastMerge.inputs[1]!), getNode(run, lastMerge.inputs[2]!)];
	await engine.edit(a.id, marked(a, MARKS[0]!));
	const versions = lastMerge.versions.length;

	const done = engine.start();
	engine.pause();
	await waitFor('the last merge held at the gate', () => lastMerge.status === 'running');
	const calls = store.log.length;
	const stale = await engine.edit(b.id, marked(b, MARKS[1]!));
	assert.ok(stale.includes(lastMerge.id), 'the held reader went stale');
	engine.resume();
	assert.equal(await done, 'done', run.error ?? '');

	assert.equal(lastMerge.versions.length, versions + 1, 'one new version: the held call never started');
	const made = store.log.slice(calls).filter((c) => c.node === lastMerge.id);
	assert.ok(
		made.length > 0 && made.every((c) => c.prompt.includes(MARKS[0]!) && c.prompt.includes(MARKS[1]!)),
	);
	assertMadeFromCurrentInputs(run, store, ctx);
	assertValidTree(run);
	assert.ok(finalText(run).includes(MARKS[0]!) && finalText(run).includes(MARKS[1]!));
	assertRoundTrips(run);
});

test('an edit while paused drops what a reader in flight makes from the old input, also for an engine that resumes the session later', async () => {
	const { run, engine, store, ctx } = await setUp(
		randomBook(24, 100),
		{ ...HIER, concurrency: 2 },
		markerModel(24),
	);
	assert.equal(await engine.start(), 'done');
	const lastMerge = live(run)
		.filter((n) => n.level === 1)
		.at(-1)!;
	const [a, b] = [getNode(run, lastMerge.inputs[1]!), getNode(run, lastMerge.inputs[2]!)];
	await engine.edit(a.id, marked(a, MARKS[0]!));

	// The reader's call is held in the "provider" until released, and lands whatever the signal says.
	const model = markerModel(99);
	let release: () => void = () => {};
	let held = false;
	const complete = model.complete.bind(model);
	model.complete = async (request: CallRequest) => {
		if (
			request.prompt.includes(MARKS[0]!) &&
			!request.prompt.includes(MARKS[1]!) &&
			request.task.kind === 'merge' &&
			!held
		) {
			held = true;
			await new Promise<void>((r) => (release = r));
			return complete({ ...request, signal: undefined });
		}
		return complete(request);
	};
	const { Engine } = await import('../../source/engine/engine.ts');
	const second = new Engine({ store, provider: model, planner: plannerFor('hier'), ctx, costOf: () => 0 });
	const events = record(second);
	const done = second.start();
	await waitFor("the reader's call held in the provider", () => held);
	second.pause();
	const stale = await second.edit(b.id, marked(b, MARKS[1]!));
	assert.ok(stale.includes(lastMerge.id));
	release();
	// The old call lands while paused: it is logged (it was made), but nothing keeps its text.
	const isOld = (c: { node: string; prompt: string }) =>
		c.node === lastMerge.id && c.prompt.includes(MARKS[0]!) && !c.prompt.includes(MARKS[1]!);
	await waitFor('the old call in the log', () => store.log.some(isOld));
	await settle(20);
	assert.ok(
		!events.some((e) => e.type === 'node-finished' && e.node === lastMerge.id),
		'the old result never finished the node',
	);
	assert.deepEqual(lastMerge.pending, []);
	// Stop here and resume with a new engine, as after quitting: the dropped call is in the log
	// with the numbers the node's next call will have, and must not be taken back from it.
	second.cancel();
	assert.equal(await done, 'cancelled');
	const third = new Engine({
		store,
		provider: markerModel(7),
		planner: plannerFor('hier'),
		ctx,
		costOf: () => 0,
	});
	assert.equal(await third.start(), 'done', run.error ?? '');

	const landed = store.log.find(isOld)!;
	assert.ok(
		!lastMerge.versions.some((v) => v.text === landed.response),
		'no version was kept from the old input',
	);
	assert.ok(activeVersion(lastMerge)!.text.includes(MARKS[1]!));
	assertMadeFromCurrentInputs(run, store, ctx);
	assertValidTree(run);
	assertRoundTrips(run);
});

test('start() after a finished run with nothing stale finishes at once without calls', async () => {
	const model = markerModel(24);
	const { run, engine } = await setUp(randomBook(24, 60), HIER, model);
	assert.equal(await engine.start(), 'done');
	const calls = model.requests.length;
	const root = run.root;
	assert.equal(await engine.start(), 'done');
	assert.equal(model.requests.length, calls);
	assert.equal(run.root, root);
});

for (const method of ['hier', 'inc'] as const) {
	test(`${method}: after random edits, re-runs and version switches the run completes into a valid plan made from current inputs`, async () => {
		const random = prng(method === 'hier' ? 41 : 43);
		for (let trial = 0; trial < 4; trial++) {
			const config = {
				method,
				chunkSize: 256,
				maxSummary: 200,
				contextWindow: 2048,
				clean: random() < 0.5,
				concurrency: 1 + Math.floor(random() * 3),
			};
			const { run, engine, store, ctx } = await setUp(
				randomBook(50 + trial, 50 + Math.floor(random() * 60)),
				config,
				markerModel(trial),
			);
			const label = `trial ${trial} (${run.chunks.length} chunks, clean ${config.clean})`;
			assert.equal(await engine.start(), 'done', `${label}: ${run.error}`);
			const chosen = new Map<NodeRef, number>();
			for (let round = 0; round < 3; round++) {
				for (let change = 0; change < 2; change++) {
					const candidates = live(run).filter((n) => n.status === 'done' && !n.meta.replan);
					if (candidates.length === 0) break;
					const node = candidates[Math.floor(random() * candidates.length)]!;
					const choice = random();
					if (choice < 0.5) {
						// Between a fifth and twice as long as the text it replaces.
						const words = activeVersion(node)!.text.split(' ');
						const length = Math.max(2, Math.round(words.length * (0.2 + 1.8 * random())));
						const text = Array.from({ length }, (_, i) =>
							i === 0 ? MARKS[round]! : words[i % words.length]!.replace(/[.?!]$/u, ''),
						).join(' ');
						await engine.edit(node.id, `${text}.`);
					} else if (choice < 0.8 || node.versions.length < 2) await engine.rerun(node.id);
					else {
						const version = Math.floor(random() * node.versions.length);
						await engine.setActive(node.id, version);
						chosen.set(node.id, version);
					}
				}
				assert.equal(await engine.start(), 'done', `${label}, round ${round}: ${run.error}`);
				if (method === 'hier') assertValidTree(run);
				else assertValidChain(run);
				assertMadeFromCurrentInputs(run, store, ctx, chosen);
				assert.equal(engine.totals.calls, store.log.length, `${label}: every call is counted once`);
				assert.ok(engine.plannedCalls() >= engine.totals.calls);
			}
			assertRoundTrips(run);
		}
	});
}

for (const clean of [false, true]) {
	for (const method of ['hier', 'inc'] as const) {
		test(`${method}${clean ? ' with clean' : ''}: an edit of the final summary keeps it final, with the edited text`, async () => {
			const model = markerModel(61);
			const config = { ...(method === 'hier' ? HIER : INC), clean };
			const { run, engine } = await setUp(randomBook(61, 60), config, model);
			assert.equal(await engine.start(), 'done', run.error ?? '');
			const root = run.root!;
			const text = marked(getNode(run, root), MARKS[2]!);

			assert.deepEqual(await engine.edit(root, text), []);

			assert.equal(run.root, root);
			assert.equal(finalText(run), text);
			assert.equal(activeVersion(getNode(run, root))!.origin, 'edit');
			const calls = model.requests.length;
			assert.equal(await engine.start(), 'done');
			assert.equal(model.requests.length, calls, 'nothing is made again');
			assert.equal(run.root, root);
			assert.equal(finalText(run), text);
		});
	}
}

test('an edit below the final summary still clears it until the run makes it again', async () => {
	const { run, engine } = await setUp(randomBook(62, 60), HIER, markerModel(62));
	assert.equal(await engine.start(), 'done', run.error ?? '');
	const first = live(run).find((n) => n.level === 0)!;
	await engine.edit(first.id, marked(first, MARKS[0]!));
	assert.equal(run.root, null);
	assert.equal(await engine.start(), 'done', run.error ?? '');
	assert.ok(finalText(run).includes(MARKS[0]!));
});
