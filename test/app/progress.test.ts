import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runProgress, studyProgress, type ProgressStep } from '../../source/app/progress.ts';
import type { EngineEvent } from '../../source/engine/events.ts';
import type { CellState, StudyEvent } from '../../source/engine/study-runner.ts';

const usage = (calls: number) =>
	({
		type: 'usage',
		node: 'n1',
		totals: { calls, input: 100 * calls, output: 10 * calls, cost: 0 },
	}) as unknown as EngineEvent;

test("a headless run's progress: the start said, the line drawn as calls are made and never backwards, a done run's last line its calls", () => {
	let now = 1_000;
	const progress = runProgress({
		now: () => now,
		columns: () => null,
		priced: true,
		name: (n) => `chunk ${n}`,
	});
	const started = progress({
		type: 'run-started',
		session: 's1',
		method: 'hier',
		provider: 'openai',
		model: 'gpt-4o-mini',
		isLLM: true,
		planned: 10,
		levels: [],
		done: 0,
	});
	assert.deepEqual(started, [{ say: 'openai gpt-4o-mini, hierarchical merging, session s1' }]);
	now += 2_000;
	const drawn = progress(usage(3));
	assert.equal(drawn.length, 1);
	assert.match((drawn[0] as { draw: string }).draw, /^\[3\/10 calls\] 300 tokens in/u);
	// An earlier call's smaller totals arriving late move nothing.
	assert.deepEqual(progress(usage(2)), []);
	assert.deepEqual(progress({ type: 'retry', node: 'n4', attempt: 2, reason: 'timeout' } as EngineEvent), [
		{ say: 'chunk n4: retrying (timeout)' },
	]);
	const finished: ProgressStep[] = progress({
		type: 'run-finished',
		status: 'done',
		root: 'n9',
		error: null,
		totals: { calls: 4 },
	} as unknown as EngineEvent);
	assert.equal(finished.length, 2);
	assert.match((finished[0] as { draw: string }).draw, /^\[4\/4 calls\]/u);
	assert.deepEqual(finished[1], { end: true });
});

test("a study's headless lines: a cell's change said with its place, a rate-limit wait said at most twice a minute", () => {
	let now = 0;
	const lines = studyProgress(3, () => now);
	const cell = { key: 'book-hier', session: 'sess-1' } as CellState;
	assert.deepEqual(lines({ type: 'cell-started', index: 1, cell, resumed: true }), [
		'[2/3] book-hier: resumed (session sess-1)',
	]);
	assert.deepEqual(lines({ type: 'cell-progress', index: 1, cell }), []);
	const waiting = {
		type: 'rate-limit',
		wait: { resumesAt: now + 12_000, why: 'tokens', used: 148_200, limit: 150_000 },
		refusals: 0,
		answered: 1,
		asked: 1,
		used: 1,
		limits: { tokens: 150_000 },
	} as StudyEvent;
	now = 40_000;
	assert.equal(lines(waiting).length, 1);
	now += 10_000;
	assert.deepEqual(lines(waiting), []);
	now += 30_000;
	assert.equal(lines(waiting).length, 1);
});
