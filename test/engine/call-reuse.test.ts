import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Usage } from '../../source/domain.ts';
import { CallRunner, type CallJob, type Made } from '../../source/engine/call-runner.ts';
import type { BatchLane } from '../../source/llm/batcher.ts';
import type { CallRequest, CallResult, Provider } from '../../source/llm/provider.ts';
import type { CallRecord } from '../../source/store/schema.ts';

/**
 * Answers logged but held by no node (a journal lost, so nodes are planned again, maybe under
 * other ids) are taken by a call asking exactly the same, instead of being bought again.
 */

const PARAMS = { temperature: 0.5, maxTokens: 50, words: 30, template: 'hier-init' };
const costOf = (u: Usage) => u.input * 1e-6 + u.output * 4e-6;

/** A provider that answers at once and counts what it was asked. */
function counting(): { provider: Provider; asked: string[] } {
	const asked: string[] = [];
	const provider: Provider = {
		name: 'openai',
		model: 'gpt-4o-mini',
		isLLM: true,
		complete: async (request: CallRequest): Promise<CallResult> => {
			asked.push(request.prompt);
			return {
				text: `bought: ${request.prompt}`,
				finishReason: 'stop',
				usage: { input: 10, output: 5, cached: 0 },
			};
		},
	};
	return { provider, asked };
}

let clock = 0;
function logged(node: string, prompt: string, extra: Partial<CallRecord> = {}): CallRecord {
	const at = new Date(Date.UTC(2024, 4, 1, 10, 0, 0, clock++)).toISOString();
	return {
		node,
		version: 0,
		attempt: 0,
		provider: 'openai',
		model: 'gpt-4o-mini',
		prompt,
		response: `logged ${node}: ${prompt}`,
		finishReason: 'stop',
		params: PARAMS,
		usage: { input: 100, output: 20, cached: 0 },
		cost: 0.25,
		timings: { start: at, end: at, ms: 0 },
		...extra,
	};
}

function memoryLog(initial: CallRecord[]) {
	const log = [...initial];
	return { log, appendCall: async (r: CallRecord) => void log.push(r), calls: async () => [...log] };
}

/** A node's call under a numbering the log never saw; resolves what was committed. */
function ask(
	runner: CallRunner,
	owner: string,
	prompt: string,
	extra: Partial<CallJob<Made>> = {},
): Promise<Made | null> {
	return runner.call<Made>({
		owner,
		version: 3,
		attempt: 0,
		signal: new AbortController().signal,
		build: () => ({ prompt, task: { kind: 'summarize', texts: [prompt], words: 30 }, params: PARAMS }),
		onUsage: () => {},
		commit: async (made) => made,
		...extra,
	});
}

test('a call asking what a logged answer no one holds answered takes it, whatever its node and numbers; each answer once', async () => {
	const records = [logged('n1', 'P'), logged('n7', 'P'), logged('n2', 'Q')];
	const { provider, asked } = counting();
	const log = memoryLog(records);
	const runner = new CallRunner({ provider, log, costOf, concurrency: 2 });
	await runner.recover([], []);

	const first = await ask(runner, 'n40', 'P');
	const second = await ask(runner, 'n41', 'P');
	const third = await ask(runner, 'n42', 'P');
	const q = await ask(runner, 'n43', 'Q');
	assert.deepEqual(asked, ['P'], 'two logged answers to P, three calls: only the third is bought');
	assert.equal(first?.result.text, 'logged n1: P', 'taken in the order they were logged');
	assert.deepEqual(
		first?.timings,
		records[0]!.timings,
		'with the timings it was logged with (so the session then holds it)',
	);
	assert.equal(second?.result.text, 'logged n7: P');
	assert.equal(third?.result.text, 'bought: P');
	assert.equal(q?.result.text, 'logged n2: Q');
	assert.equal(log.log.length, records.length + 1, 'a reused answer is not logged again; the bought one is');
	assert.equal(runner.totals.calls, 4, 'each reused answer is billed into this run once');
	assert.ok(Math.abs(runner.totals.cost - (0.75 + costOf({ input: 10, output: 5, cached: 0 }))) < 1e-12);
});

test('only an exact match with a valid answer is reused: not one the session holds, a failed one, another model or other parameters', async () => {
	const held = logged('n1', 'held');
	const records = [
		held,
		logged('n2', 'failed', { error: 'stream stalled', response: 'half', finishReason: '' }),
		logged('n3', 'other model', { model: 'gpt-4o' }),
		logged('n4', 'other provider', { provider: 'anthropic' }),
		logged('n5', 'other params', { params: { ...PARAMS, maxTokens: 51 } }),
	];
	const { provider, asked } = counting();
	const runner = new CallRunner({ provider, log: memoryLog(records), costOf, concurrency: 2 });
	await runner.recover([], [{ text: held.response, timings: held.timings }]);
	for (const prompt of ['held', 'failed', 'other model', 'other provider', 'other params'])
		await ask(runner, 'n9', prompt);
	assert.deepEqual(asked, ['held', 'failed', 'other model', 'other provider', 'other params']);
});

test('without the held answers (as scoring recovers) nothing is kept spare', async () => {
	const { provider, asked } = counting();
	const runner = new CallRunner({ provider, log: memoryLog([logged('n1', 'P')]), costOf, concurrency: 1 });
	await runner.recover([]);
	await ask(runner, 'n2', 'P');
	assert.deepEqual(asked, ['P']);
});

test('an answer taken back by its own numbers is not spare as well', async () => {
	const record = logged('n1', 'P');
	const { provider, asked } = counting();
	const runner = new CallRunner({ provider, log: memoryLog([record]), costOf, concurrency: 1 });
	const taken: string[] = [];
	await runner.recover(
		[
			{
				id: 'n1',
				next: () => (taken.length ? null : { version: 0, attempt: 0 }),
				matches: () => true,
				take: (call) => void taken.push(call.response),
			},
		],
		[],
	);
	assert.deepEqual(taken, [record.response]);
	await ask(runner, 'n2', 'P');
	assert.deepEqual(asked, ['P'], 'the answer went to n1, so n2 buys its own');
});

test('a batched call takes a spare answer too, at the price it was billed, without going to the batch', async () => {
	const record = logged('n1', 'P', { batch: 'batch_1', cost: 0.125 });
	const { provider } = counting();
	const sent: string[] = [];
	const batch: BatchLane = {
		complete: async (_key, request) => {
			sent.push(request.prompt);
			return {
				text: 'batched',
				finishReason: 'stop',
				usage: { input: 1, output: 1, cached: 0 },
				batch: 'batch_2',
			};
		},
	};
	const runner = new CallRunner({ provider, log: memoryLog([record]), costOf, concurrency: 1, batch });
	await runner.recover([], []);
	const made = await ask(runner, 'n5', 'P', { batched: true });
	assert.deepEqual(sent, []);
	assert.equal(made?.result.text, record.response);
	assert.equal(made?.batch, 'batch_1');
	assert.equal(made?.cost, 0.125);
	assert.equal(runner.totals.cost, 0.125);
});
