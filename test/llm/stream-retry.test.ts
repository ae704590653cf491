import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProviderError, type FailedAttempt } from '../../source/llm/provider.ts';
import { guardStream, type GuardOptions } from '../../source/llm/stream-retry.ts';
import { BrokenStream } from '../../source/llm/stream-watchdog.ts';

/** The retry loop alone, with attempts that fail on cue: no server, no SDK. */

function options(extra: Partial<GuardOptions> = {}): GuardOptions {
	return {
		label: 'test',
		streamTimeoutMs: 10_000,
		callTimeoutMs: null,
		streamRetries: 3,
		retryDelayMs: 0,
		sdkRetries: 0,
		...extra,
	};
}

test('a broken stream is started again, each retry told why, each broken attempt reported', async () => {
	const retries: string[] = [];
	const failed: FailedAttempt[] = [];
	let calls = 0;
	const result = await guardStream(
		options({ onRetry: (r) => retries.push(r) }),
		{ maxTokens: 10, onAttemptFailed: (f) => failed.push(f) },
		async () => {
			calls++;
			if (calls < 3)
				throw new BrokenStream(`broke ${calls}`, { text: 'half', usage: { input: 3, output: 1, cached: 0 } });
			return 'whole';
		},
	);
	assert.equal(result, 'whole');
	assert.equal(calls, 3);
	assert.deepEqual(retries, ['broke 1; retry 1 of 3', 'broke 2; retry 2 of 3']);
	assert.deepEqual(
		failed.map((f) => [f.reason, f.text, f.usage]),
		[
			['broke 1', 'half', { input: 3, output: 1, cached: 0 }],
			['broke 2', 'half', { input: 3, output: 1, cached: 0 }],
		],
	);
});

test('after the last retry the call is a retryable ProviderError naming the last reason', async () => {
	let calls = 0;
	const call = guardStream(options({ streamRetries: 1 }), { maxTokens: 10 }, async () => {
		calls++;
		throw new BrokenStream(`broke ${calls}`);
	});
	await assert.rejects(call, (error: unknown) => {
		assert.ok(error instanceof ProviderError);
		assert.equal(error.retryable, true);
		assert.equal(error.message, 'test: no complete stream in 2 attempts, last: broke 2');
		return true;
	});
	assert.equal(calls, 2);
});

test('any other error is final and passed on unchanged, even a TypeError', async () => {
	for (const thrown of [
		new ProviderError('test: 400 Bad Request', false, 400),
		new TypeError('not a network error'),
	]) {
		let calls = 0;
		const failed: FailedAttempt[] = [];
		await assert.rejects(
			guardStream(options(), { maxTokens: 10, onAttemptFailed: (f) => failed.push(f) }, async () => {
				calls++;
				throw thrown;
			}),
			(error: unknown) => error === thrown,
		);
		assert.equal(calls, 1);
		assert.deepEqual(failed, []);
	}
});

test('a cancel during the pause before a retry rejects at once with an AbortError, not a retry', async () => {
	const controller = new AbortController();
	let calls = 0;
	// The pause would outlast the test runner: only an immediate rejection passes.
	const call = guardStream(
		options({ retryDelayMs: 600_000, onRetry: () => controller.abort() }),
		{ maxTokens: 10, signal: controller.signal },
		async () => {
			calls++;
			throw new BrokenStream('broke');
		},
	);
	await assert.rejects(
		call,
		(error: unknown) =>
			error instanceof Error && error.name === 'AbortError' && error.message === 'test: call cancelled',
	);
	assert.equal(calls, 1);
});

test('an already cancelled call makes no attempt', async () => {
	const controller = new AbortController();
	controller.abort();
	let calls = 0;
	await assert.rejects(
		guardStream(options(), { maxTokens: 10, signal: controller.signal }, async () => {
			calls++;
			return 'never';
		}),
		(error: unknown) => error instanceof Error && error.name === 'AbortError',
	);
	assert.equal(calls, 0);
});
