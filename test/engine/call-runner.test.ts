import { test } from 'node:test';
import assert from 'node:assert/strict';
import PQueue from 'p-queue';
import type { Usage } from '../../source/domain.ts';
import { CallRunner, type CallJob, type Recoverable } from '../../source/engine/call-runner.ts';
import { Gate } from '../../source/engine/gate.ts';
import { isAbortError } from '../../source/llm/abort.ts';
import {
	ProviderError,
	type CallRequest,
	type CallResult,
	type Provider,
	type RetryListener,
} from '../../source/llm/provider.ts';
import type { CallRecord } from '../../source/store/schema.ts';
import { waitFor } from '../support/wait.ts';

/** A provider whose calls the test answers by hand: each call waits until told to stream, finish or fail. */
function scripted(opts: { isLLM?: boolean } = {}) {
	const calls: {
		request: CallRequest;
		delta(text: string): void;
		finish(usage?: Usage): void;
		fail(error: Error): void;
	}[] = [];
	let inFlight = 0;
	let most = 0;
	const provider: Provider = {
		name: 'anthropic',
		model: 'claude-test',
		isLLM: opts.isLLM ?? true,
		complete(request) {
			inFlight += 1;
			most = Math.max(most, inFlight);
			return new Promise<CallResult>((resolve, reject) => {
				let text = '';
				const end = () => {
					inFlight -= 1;
					request.signal?.removeEventListener('abort', onAbort);
				};
				const onAbort = () => {
					end();
					reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
				};
				request.signal?.addEventListener('abort', onAbort, { once: true });
				calls.push({
					request,
					delta(piece) {
						text += piece;
						request.onDelta?.(piece);
					},
					finish(usage = { input: 100, output: 10, cached: 0 }) {
						end();
						resolve({ text: text || 'done', finishReason: 'stop', usage });
					},
					fail(error) {
						end();
						reject(error);
					},
				});
			});
		},
	};
	return { provider, calls, most: () => most, inFlight: () => inFlight };
}

function memoryLog(initial: CallRecord[] = []) {
	const log = [...initial];
	return { log, appendCall: async (r: CallRecord) => void log.push(r), calls: async () => [...log] };
}

/** Lets every callback and promise the runner has queued run (the fake provider answers nothing by itself). */
const drained = () => new Promise<void>((resolve) => setImmediate(resolve));

const costOf = (u: Usage) => (u.input - u.cached) * 1e-6 + u.cached * 1e-7 + u.output * 4e-6;

function job(name: string, extra: Partial<CallJob<string>> = {}): CallJob<string> {
	return {
		owner: name,
		version: 0,
		attempt: 0,
		signal: new AbortController().signal,
		build: () => ({
			prompt: `${extra.cacheablePrefix ?? ''}${name}?`,
			task: { kind: 'annotate', texts: [name], words: 0 },
			params: { temperature: 0, maxTokens: 50, words: 0, template: 't' },
		}),
		onUsage: () => {},
		commit: async ({ result }) => result.text,
		...extra,
	};
}

const prefixOf = (r: CallRequest) => r.cacheablePrefix ?? '';

test('the first call of a cacheable prefix goes alone; the rest go together once its response has begun; other prefixes are not held', async () => {
	const fake = scripted();
	const runner = new CallRunner({ provider: fake.provider, log: memoryLog(), costOf, concurrency: 4 });
	const made = [0, 1, 2, 3, 4, 5].map((i) => runner.call(job(`p${i}`, { cacheablePrefix: 'SUMMARY P\n' })));
	await waitFor('the first call', () => fake.calls.length === 1);
	await drained();
	assert.equal(fake.calls.length, 1, 'no second call of a summary starts before the first answers');
	assert.equal(runner.idlePlaces, 3, 'the calls waiting for the cache hold no place');
	// Another summary's first call is not held by this one.
	const other = runner.call(job('q0', { cacheablePrefix: 'SUMMARY Q\n' }));
	await waitFor("the other summary's first call", () => fake.calls.length === 2);
	assert.equal(prefixOf(fake.calls[1]!.request), 'SUMMARY Q\n');

	fake.calls[0]!.delta('Questions: ');
	await waitFor('the rest of the summary, as places allow', () => fake.calls.length === 4);
	assert.deepEqual(
		fake.calls.map((c) => prefixOf(c.request)),
		['SUMMARY P\n', 'SUMMARY Q\n', 'SUMMARY P\n', 'SUMMARY P\n'],
	);
	assert.equal(fake.inFlight(), 4, 'they run concurrently, up to the limit');
	// Answered in the order they started, each answer lets the next waiting call in.
	for (let i = 0; i < 7; i++) {
		await waitFor(`call ${i + 1}`, () => fake.calls.length > i);
		fake.calls[i]!.finish();
	}
	assert.deepEqual(
		await Promise.all([...made, other]),
		Array(7)
			.fill('Questions: ')
			.map((t, i) => (i === 0 ? t : 'done')),
	);
	assert.equal(fake.most(), 4);
});

test('runners given one shared queue keep to its limit together, each with its own larger concurrency; a detached runner hears of no freed place', async () => {
	const fake = scripted({ isLLM: false });
	const shared = new PQueue({ concurrency: 3 });
	const freed = [0, 0];
	const runners = [0, 1].map(
		(r) =>
			new CallRunner({
				provider: fake.provider,
				log: memoryLog(),
				costOf,
				concurrency: 8,
				queue: shared,
				onPlaceFree: () => (freed[r]! += 1),
			}),
	);
	const made = runners.flatMap((runner, r) => [0, 1, 2, 3].map((i) => runner.call(job(`r${r}-${i}`))));
	await waitFor('the first three calls', () => fake.calls.length === 3);
	await drained();
	assert.equal(fake.calls.length, 3, 'eight calls of two runners, three places: three go');
	assert.deepEqual(
		runners.map((r) => r.idlePlaces),
		[0, 0],
		'both see the shared places taken',
	);
	runners[1]!.detach();
	for (let i = 0; i < 8; i++) {
		await waitFor(`call ${i + 1}`, () => fake.calls.length > i);
		assert.ok(fake.inFlight() <= 3);
		fake.calls[i]!.finish();
	}
	assert.equal((await Promise.all(made)).length, 8);
	assert.equal(fake.most(), 3, 'never more than the shared limit in flight');
	assert.ok(freed[0]! >= 8, 'the attached runner hears of every freed place');
	assert.equal(freed[1], 0, 'the detached one of none');
});

test('a first call that ends without a response hands the warm-up to the next call of its prefix', async () => {
	const fake = scripted();
	const runner = new CallRunner({ provider: fake.provider, log: memoryLog(), costOf, concurrency: 4 });
	const made = [0, 1, 2].map((i) => runner.call(job(`p${i}`, { cacheablePrefix: 'P' })));
	await waitFor('the first call', () => fake.calls.length === 1);
	fake.calls[0]!.fail(new ProviderError('anthropic: 529 overloaded', true, 529));
	await assert.rejects(made[0]!, /overloaded/);
	await waitFor('the next call', () => fake.calls.length === 2);
	await drained();
	assert.equal(fake.calls.length, 2, 'which goes alone too');
	fake.calls[1]!.finish();
	await waitFor('the last call, once the cache is written', () => fake.calls.length === 3);
	fake.calls[2]!.finish();
	assert.deepEqual(await Promise.all(made.slice(1)), ['done', 'done']);
	// A provider without a prompt cache holds nothing.
	const offline = scripted({ isLLM: false });
	const plain = new CallRunner({ provider: offline.provider, log: memoryLog(), costOf, concurrency: 4 });
	const all = [0, 1, 2].map((i) => plain.call(job(`x${i}`, { cacheablePrefix: 'P' })));
	await waitFor('every call at once', () => offline.calls.length === 3);
	for (const c of offline.calls) c.finish();
	await Promise.all(all);
});

test('a place is held by the call, not by the writes after it; a call waiting for a place can be cancelled; behind a gate a call holds its place until let through', async () => {
	const fake = scripted();
	const log = memoryLog();
	const runner = new CallRunner({ provider: fake.provider, log, costOf, concurrency: 1 });
	let letCommitEnd = () => {};
	const committing = new Promise<void>((resolve) => (letCommitEnd = resolve));
	let loggedAtCommit = -1;
	const first = runner.call(
		job('a', {
			commit: async ({ result }) => {
				loggedAtCommit = log.log.length;
				await committing;
				return result.text;
			},
		}),
	);
	const stop = new AbortController();
	const cancelled = runner.call(job('c', { signal: stop.signal }));
	const second = runner.call(job('b'));
	await waitFor('the first call', () => fake.calls.length === 1);
	assert.equal(runner.idlePlaces, 0);
	stop.abort();
	await assert.rejects(cancelled, (e) => isAbortError(e));
	fake.calls[0]!.finish();
	await waitFor('the next call, while the first one is still writing', () => fake.calls.length === 2);
	assert.equal(loggedAtCommit, 1, 'the call was logged before its owner wrote the session');
	assert.equal(fake.calls[1]!.request.prompt, 'b?');
	letCommitEnd();
	fake.calls[1]!.finish();
	assert.deepEqual(await Promise.all([first, second]), ['done', 'done']);

	// Stepping: a call takes its place, then waits at the gate for a step.
	const gate = new Gate('stepping');
	const stepped = scripted();
	const held = new CallRunner({ provider: stepped.provider, log: memoryLog(), costOf, concurrency: 2, gate });
	const calls = [held.call(job('s0')), held.call(job('s1'))];
	await drained();
	assert.equal(stepped.calls.length, 0);
	assert.equal(held.idlePlaces, 0);
	gate.step();
	await waitFor('one step, one call', () => stepped.calls.length === 1);
	await drained();
	assert.equal(stepped.calls.length, 1);
	gate.resume();
	await waitFor('the rest', () => stepped.calls.length === 2);
	for (const c of stepped.calls) c.finish();
	await Promise.all(calls);
});

test('failed attempts and answers are logged and billed alike, failed ones first; stream retries reach their own call', async () => {
	const fake = scripted();
	const log = memoryLog();
	const previous = { input: 5, output: 5, cached: 0, cost: 1, calls: 2, saved: 0 };
	const runner = new CallRunner({ provider: fake.provider, log, costOf, concurrency: 2, totals: previous });
	const usages: { failed?: string; calls: number; cost: number; saved: number }[] = [];
	const retries: string[] = [];
	let usagesAtCommit = -1;
	const made = runner.call(
		job('n3', {
			version: 1,
			attempt: 2,
			onUsage: (b) => usages.push({ failed: b.failed, calls: b.totals.calls, cost: b.cost, saved: b.saved }),
			onStreamRetry: (reason) => retries.push(reason),
			commit: async ({ result }) => {
				usagesAtCommit = usages.length;
				return result.text;
			},
		}),
	);
	await waitFor('the call', () => fake.calls.length === 1);
	const { request } = fake.calls[0]!;
	const start = new Date('2024-05-01T10:00:00.000Z');
	request.onAttemptFailed?.({
		reason: 'HTTP 429 Too Many Requests',
		text: '',
		usage: { input: 0, output: 0, cached: 0 },
		start,
		end: new Date(start.getTime() + 5),
	});
	runner.streamRetried('HTTP 429 Too Many Requests; the SDK retries (1 of 4)', request);
	runner.streamRetried('not this one', {});
	request.onAttemptFailed?.({
		reason: 'stream broke (socket hang up)',
		text: 'Quest',
		usage: { input: 1000, output: 2, cached: 800 },
		start,
		end: new Date(start.getTime() + 9),
	});
	fake.calls[0]!.delta('Questions: none');
	fake.calls[0]!.finish({ input: 1000, output: 10, cached: 800 });
	assert.equal(await made, 'Questions: none');

	assert.deepEqual(retries, ['HTTP 429 Too Many Requests; the SDK retries (1 of 4)']);
	assert.deepEqual(
		log.log.map((r) => r.error ?? 'answer'),
		['HTTP 429 Too Many Requests', 'stream broke (socket hang up)', 'answer'],
	);
	const [, broken, answer] = log.log;
	assert.deepEqual(Object.keys(broken!), [...Object.keys(answer!), 'error'], 'one record shape');
	assert.deepEqual(
		{ ...broken, error: undefined },
		{
			...answer,
			response: 'Quest',
			finishReason: '',
			usage: broken!.usage,
			cost: broken!.cost,
			timings: broken!.timings,
			error: undefined,
		},
	);
	assert.ok(
		log.log.every(
			(r) =>
				r.node === 'n3' &&
				r.version === 1 &&
				r.attempt === 2 &&
				r.prompt === 'n3?' &&
				r.provider === 'anthropic' &&
				r.model === 'claude-test',
		),
	);
	assert.equal(broken!.timings.ms, 9);
	assert.equal(broken!.cost, costOf(broken!.usage));
	// Reported as they end; the answer's usage after its owner has committed it. Failed attempts
	// are billed but are no calls done.
	assert.deepEqual(
		usages.map((u) => [u.failed ?? 'answer', u.calls]),
		[
			['HTTP 429 Too Many Requests', 2],
			['stream broke (socket hang up)', 2],
			['answer', 3],
		],
	);
	assert.equal(usagesAtCommit, 2);
	assert.ok(
		usages[1]!.saved > 0 &&
			Math.abs(usages[1]!.saved - (costOf({ input: 1000, output: 2, cached: 0 }) - usages[1]!.cost)) < 1e-12,
		'what the cache saved',
	);
	const t = runner.totals;
	assert.equal(t.calls, 3);
	assert.equal(t.input, 5 + 2000);
	assert.equal(t.cached, 1600);
	assert.ok(Math.abs(t.cost - (1 + log.log.reduce((s, r) => s + r.cost, 0))) < 1e-12);
	assert.ok(Math.abs(t.saved - (usages[1]!.saved + usages[2]!.saved)) < 1e-12);
});

function logged(
	node: string,
	version: number,
	attempt: number,
	prompt: string,
	extra: Partial<CallRecord> = {},
): CallRecord {
	const at = `2024-05-01T10:00:0${attempt}.000Z`;
	return {
		node,
		version,
		attempt,
		provider: 'anthropic',
		model: 'claude-test',
		prompt,
		response: `answer to ${prompt}`,
		finishReason: 'stop',
		params: { temperature: 0, maxTokens: 50, words: 0, template: 't' },
		usage: { input: 10, output: 1, cached: 0 },
		cost: 0.5,
		timings: { start: at, end: at, ms: 0 },
		...extra,
	};
}

test('recovery: each owner takes back, in order, the logged calls numbered as its next one that its own rule accepts, and the failed attempts it lacks', async () => {
	const records = [
		// Made from an input that changed since: same numbers, another prompt.
		logged('a', 1, 0, 'old a0'),
		logged('a', 1, 1, 'a1'),
		logged('a', 1, 0, 'a0'),
		logged('a', 0, 0, 'a0 of the version before'),
		logged('a', 1, 2, 'a2', { error: 'stream stalled', response: 'half', finishReason: '' }),
		logged('a', 1, 3, 'a3'),
		logged('b', 0, 0, 'b0'),
		logged('gone', 0, 0, 'x'),
		logged('c', 0, 0, 'c0', { error: 'HTTP 500', response: '', finishReason: '' }),
	];
	const fake = scripted();
	const runner = new CallRunner({ provider: fake.provider, log: memoryLog(records), costOf, concurrency: 1 });
	const taken: Record<string, string[]> = { a: [], b: [], c: [] };
	const failedKept = new Set<string>(['c:HTTP 500']);
	const owner = (id: string, version: number, done = false): Recoverable => ({
		id,
		next: () => (done ? null : { version, attempt: taken[id]!.length }),
		matches: (call) => call.prompt === `${id}${call.attempt}`,
		take: (call) => void taken[id]!.push(call.response),
		takeFailed: (call) => {
			const key = `${id}:${call.error}`;
			if (failedKept.has(key)) return false;
			failedKept.add(key);
			return true;
		},
	});
	const recovered = await runner.recover([owner('a', 1), owner('b', 0, true), owner('c', 0)]);
	assert.equal(recovered, 2);
	assert.deepEqual(
		taken,
		{ a: ['answer to a0', 'answer to a1'], b: [], c: [] },
		'a3 waits for a2, which has no answer; b is done; c has its failed attempt already',
	);
	assert.ok(failedKept.has('a:stream stalled'));
	assert.equal(runner.totals.calls, 2, 'two answers: calls done');
	assert.equal(runner.totals.cost, 1.5, 'the two answers and the failed attempt billed');
	// The same log read again by owners that now hold what it gave takes and bills nothing twice.
	const again = new CallRunner({ provider: fake.provider, log: memoryLog(records), costOf, concurrency: 1 });
	assert.equal(await again.recover([owner('a', 1), owner('b', 0, true), owner('c', 0)]), 0);
	assert.deepEqual(taken.a, ['answer to a0', 'answer to a1']);
	assert.equal(again.totals.calls, 0);
});

test("a runner hears its provider's retries through onRetry, for the call retried, until it is detached", async () => {
	const fake = scripted();
	const listeners = new Set<RetryListener>();
	const provider: Provider = {
		...fake.provider,
		onRetry: (listener) => {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
	};
	const runner = new CallRunner({ provider, log: memoryLog(), costOf, concurrency: 1 });
	assert.equal(listeners.size, 1, 'subscribed when made');
	const retries: string[] = [];
	const made = runner.call(job('n1', { onStreamRetry: (reason) => retries.push(reason) }));
	await waitFor('the call', () => fake.calls.length === 1);
	for (const listener of listeners) {
		listener('stream broke (socket hang up); retry 1 of 2', fake.calls[0]!.request);
		listener('another call', { ...fake.calls[0]!.request });
	}
	fake.calls[0]!.delta('Questions: none');
	fake.calls[0]!.finish();
	assert.equal(await made, 'Questions: none');
	assert.deepEqual(retries, ['stream broke (socket hang up); retry 1 of 2']);
	runner.detach();
	assert.equal(listeners.size, 0, 'unsubscribed when detached');
});
