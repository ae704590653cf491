import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeStatusSchema, runStatusSchema, type NodeStatus } from '../../source/domain.ts';
import { canMove, moved } from '../../source/engine/node-status.ts';
import { Engine } from '../../source/engine/engine.ts';
import { runSchema } from '../../source/store/schema.ts';
import { newNode } from '../../source/summarize/graph.ts';
import { plannerFor } from '../../source/summarize/run.ts';
import { FakeModel } from '../support/fake-model.ts';
import { randomBook, setUp } from '../support/run-harness.ts';

// The moves a node may make, written out here so a change to the engine's table is a change to
// this test too.
const LEGAL = new Set([
	'pending>running',
	'pending>done',
	'pending>superseded',
	'running>done',
	'running>failed',
	'running>pending',
	'running>stale',
	'running>superseded',
	'done>done',
	'done>stale',
	'done>superseded',
	'failed>pending',
	'failed>done',
	'failed>stale',
	'failed>superseded',
	'stale>running',
	'stale>done',
	'stale>stale',
	'stale>superseded',
]);

function nodeIn(status: NodeStatus) {
	const node = newNode('n0', {
		kind: 'summarize',
		level: 0,
		index: 0,
		inputs: ['c0'],
		budget: { promptTokens: 100, summaryTokens: 50, words: 30 },
	});
	node.status = status;
	return node;
}

test('every pair of node statuses is a legal move exactly when the table says so', () => {
	for (const from of nodeStatusSchema.options) {
		for (const to of nodeStatusSchema.options) {
			assert.equal(canMove(from, to), LEGAL.has(`${from}>${to}`), `${from} -> ${to}`);
		}
	}
});

test('a legal move gives the status to set; an illegal one throws and changes nothing', () => {
	assert.deepEqual(moved(nodeIn('pending'), 'running'), { status: 'running' });
	assert.deepEqual(moved(nodeIn('running'), 'done'), { status: 'done' });
	for (const [from, to] of [
		['superseded', 'pending'],
		['pending', 'stale'],
		['done', 'running'],
		['done', 'failed'],
		['failed', 'running'],
		['stale', 'pending'],
	] as const) {
		const n = nodeIn(from);
		assert.throws(() => moved(n, to), new RegExp(`n0 cannot go from ${from} to ${to}`, 'u'));
		assert.equal(n.status, from);
	}
});

test('a run is never saved as paused: a pause lives in the process, not in the session', () => {
	assert.deepEqual(runStatusSchema.options, ['planned', 'running', 'done', 'failed', 'cancelled']);
	assert.equal(runStatusSchema.safeParse('paused').success, false);
});

test('a run quit while paused is saved as cancelled, and a new start finishes it', async () => {
	const model = new FakeModel({ seed: 31 });
	const { run, engine, store, ctx } = await setUp(
		randomBook(31, 60),
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: false },
		model,
	);
	const first = new Promise<void>((resolve) => engine.on((e) => e.type === 'node-finished' && resolve()));
	const done = engine.start();
	await first;
	engine.pause();
	engine.cancel();
	assert.equal(await done, 'cancelled');
	assert.equal(run.status, 'cancelled');
	assert.equal(runSchema.safeParse(run).success, true);
	assert.ok(
		run.nodes.every((n) => n.status === 'done' || n.status === 'pending'),
		'nothing is left running',
	);
	const again = new Engine({ store, provider: model, planner: plannerFor('hier'), ctx, costOf: () => 0 });
	assert.equal(await again.start(), 'done');
	assert.equal(run.status, 'done');
});
