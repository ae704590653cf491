import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepare } from '../../source/app/run.ts';
import { makeConfig } from '../../source/config.ts';
import { AnthropicProvider } from '../../source/llm/anthropic.ts';
import { OpenAIProvider } from '../../source/llm/openai.ts';
import { ProviderError, type FailedAttempt, type Provider } from '../../source/llm/provider.ts';
import type { SdkProviderOptions } from '../../source/llm/sdk-client.ts';
import { callDeadlineMs, outputCap } from '../../source/llm/stream-watchdog.ts';
import { countTokens } from '../../source/text/tokens.ts';
import type { Api, FakeApi } from '../support/fake-api.ts';
import { recorder, request, withFake } from '../support/provider-kit.ts';

/**
 * Every call is bounded in time and in output, whatever keeps its connection alive, and every
 * attempt that gives no result is reported (retry reason, failed-attempt record), through the
 * real OpenAI and Anthropic SDKs against the fake API.
 */

const REPLY = 'The ferry ran twice a day. In winter it ran once. The island kept its own clocks.';
// Before these bounds, a stream that never ends hung the call: fail instead of hanging the suite.
const HANG = { timeout: 30_000 };

function provider(api: Api, fake: FakeApi, opts: Partial<SdkProviderOptions> = {}): Provider {
	const common = { maxRetries: 2, streamRetryDelayMs: 0, ...opts };
	return api === 'openai'
		? new OpenAIProvider({
				apiKey: 'sk-test-bounds-0123456789',
				model: 'gpt-4o-mini',
				baseURL: fake.openaiBaseUrl,
				...common,
			})
		: new AnthropicProvider({
				apiKey: 'test-bounds-0123456789',
				model: 'claude-sonnet-4-6',
				baseURL: fake.anthropicBaseUrl,
				...common,
			});
}

const DEADLINE = /stream not finished 1\.5 s after it started \(the call deadline\)/u;
const CAP = new RegExp(`stream sent more than ${outputCap(200)} tokens for an output limit of 200`, 'u');

// What keeps a stream alive forever, and what ends it: the watchdog (1 s) is fed every 10 ms, so
// only the deadline (1.5 s) or, for text, the output cap can end it.
const FOREVER = [
	{
		send: 'keepalive',
		what: 'keep-alive comments (pings for Anthropic)',
		ends: DEADLINE,
		opts: { callTimeoutMs: 1500 },
	},
	{ send: 'empty', what: 'empty deltas', ends: DEADLINE, opts: { callTimeoutMs: 1500 } },
	// No deadline to speak of: the output cap alone must end it.
	{ send: 'text', what: 'text that ignores max_tokens', ends: CAP, opts: { callTimeoutMs: 600_000 } },
] as const;

for (const api of ['openai', 'anthropic'] as const) {
	for (const { send, what, ends, opts } of FOREVER) {
		test(
			`${api}: a stream of ${what} is cut off, reported, and retried within the same limits`,
			HANG,
			async () => {
				await withFake(REPLY, {}, async (fake) => {
					fake.fail({ kind: 'forever', send, everyMs: send === 'text' ? 2 : 10 });
					const rec = recorder();
					const failed: FailedAttempt[] = [];
					const result = await provider(api, fake, {
						streamTimeoutMs: 1000,
						onRetry: rec.onRetry,
						...opts,
					}).complete(
						request('Tell me about the ferry.', {
							onDelta: rec.onDelta,
							onAttemptFailed: (f) => failed.push(f),
						}),
					);
					assert.equal(result.text, REPLY);
					assert.equal(rec.shown(), REPLY);
					assert.equal(fake.requests.length, 2);
					assert.equal(rec.retries(), 1);
					const retry = rec.events.find((e) => 'retry' in e);
					assert.ok(retry && 'retry' in retry && ends.test(retry.retry), JSON.stringify(retry));

					assert.equal(failed.length, 1);
					const [cut] = failed;
					assert.match(cut!.reason, ends);
					assert.ok(cut!.end.getTime() >= cut!.start.getTime());
					assert.ok(cut!.usage.input > 0, 'the prompt of a stream that started is billed');
					if (send === 'text') {
						assert.match(cut!.text, /^(and the story went on and on, )+$/u);
						// Counted on the whole text, which merges a little across deltas: over the limit, near the cap.
						assert.equal(cut!.usage.output, countTokens(cut!.text));
						assert.ok(cut!.usage.output > 1.5 * 200, `${cut!.usage.output} output tokens recorded`);
					} else {
						assert.equal(cut!.text, '');
					}
				});
			},
		);

		// Empty deltas are ended as keep-alives are.
		if (send === 'empty') continue;
		test(
			`${api}: ${what} on every attempt end in a retryable ProviderError after the stream retries`,
			HANG,
			async () => {
				await withFake(REPLY, {}, async (fake) => {
					for (let i = 0; i < 2; i++) fake.fail({ kind: 'forever', send, everyMs: send === 'text' ? 2 : 10 });
					const failed: FailedAttempt[] = [];
					await assert.rejects(
						provider(api, fake, { streamTimeoutMs: 1000, streamRetries: 1, ...opts }).complete(
							request('Again.', { onAttemptFailed: (f) => failed.push(f) }),
						),
						(error: unknown) => {
							assert.ok(error instanceof ProviderError);
							assert.equal(error.retryable, true);
							assert.match(
								error.message,
								new RegExp(`^${api}: no complete stream in 2 attempts, last: ${ends.source}`, 'u'),
							);
							return true;
						},
					);
					assert.equal(fake.requests.length, 2);
					assert.deepEqual(
						failed.map((f) => ends.test(f.reason)),
						[true, true],
					);
				});
			},
		);
	}

	test(
		`${api}: an answer sent past its output limit all at once (a server that ignores max_tokens) is cut at the cap on every attempt, and the call fails`,
		HANG,
		async () => {
			await withFake(REPLY, {}, async (fake) => {
				fake.ignoreMaxTokens = true;
				const failed: FailedAttempt[] = [];
				const cap = new RegExp(
					`stream sent more than ${outputCap(60)} tokens for an output limit of 60`,
					'u',
				);
				// Nothing but the output cap can end it: no stall, and no deadline to speak of. A short
				// answer is all in before the cut, and Node's fetch then neither ends its body nor fails it.
				const error = await provider(api, fake, {
					streamTimeoutMs: 600_000,
					callTimeoutMs: 600_000,
					streamRetries: 1,
				})
					.complete(
						request('Tell me about the ferry.', { maxTokens: 60, onAttemptFailed: (f) => failed.push(f) }),
					)
					.catch((e: unknown) => e);
				assert.ok(error instanceof ProviderError, String(error));
				assert.match(
					error.message,
					new RegExp(`^${api}: no complete stream in 2 attempts, last: ${cap.source}`, 'u'),
				);
				assert.equal(fake.requests.length, 2);
				assert.deepEqual(
					failed.map((f) => cap.test(f.reason)),
					[true, true],
				);
			});
		},
	);

	test(`${api}: an answer within its output limit is not cut, however its stream splits it`, async () => {
		// 190 emoji, 192 tokens as a whole; sent one with its space at a time, three tokens each if
		// counted piece by piece: 570, past the output cap of a limit of 200 (464).
		const reply = '😀 '.repeat(190).trimEnd();
		assert.ok(countTokens(reply) <= 200);
		await withFake(reply, {}, async (fake) => {
			const failed: FailedAttempt[] = [];
			const result = await provider(api, fake).complete(
				request('Smile.', { maxTokens: 200, onAttemptFailed: (f) => failed.push(f) }),
			);
			assert.equal(result.text, reply);
			assert.deepEqual(failed, []);
		});
	});

	test(
		`${api}: without a call timeout the deadline is the stream timeout plus a quarter second per output token`,
		HANG,
		async () => {
			assert.equal(callDeadlineMs(900, 60_000), 285_000);
			assert.equal(callDeadlineMs(900, 60_000, 30_000), 30_000);
			await withFake(REPLY, {}, async (fake) => {
				fake.fail({ kind: 'forever', send: 'keepalive' });
				const failed: FailedAttempt[] = [];
				// 2 output tokens: 1000 ms + 2 × 250 ms.
				const result = await provider(api, fake, { streamTimeoutMs: 1000 }).complete(
					request('Short.', { maxTokens: 2, onAttemptFailed: (f) => failed.push(f) }),
				);
				assert.ok(result.text.length > 0);
				assert.equal(failed.length, 1);
				assert.match(failed[0]!.reason, /stream not finished 1\.5 s after it started/u);
			});
		},
	);

	test(`${api}: error responses the SDK retries are reported as retries and as failed attempts`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			fake.fail({ kind: 'status', status: 429, retryAfter: 0.02 });
			fake.fail({ kind: 'status', status: 500, retryAfter: 0.02 });
			const rec = recorder();
			const failed: FailedAttempt[] = [];
			const result = await provider(api, fake, { onRetry: rec.onRetry }).complete(
				request('Busy?', { onDelta: rec.onDelta, onAttemptFailed: (f) => failed.push(f) }),
			);
			assert.equal(result.text, REPLY);
			assert.equal(fake.requests.length, 3);
			assert.deepEqual(
				rec.events.filter((e) => 'retry' in e),
				[
					{ retry: 'HTTP 429 Too Many Requests; the SDK retries (1 of 2)' },
					{ retry: 'HTTP 500 Internal Server Error; the SDK retries (2 of 2)' },
				],
			);
			assert.deepEqual(
				failed.map((f) => [f.reason, f.text, f.usage]),
				[
					['HTTP 429 Too Many Requests', '', { input: 0, output: 0, cached: 0 }],
					['HTTP 500 Internal Server Error', '', { input: 0, output: 0, cached: 0 }],
				],
			);
		});
	});

	test(`${api}: the last error response, which the SDK does not retry, is a failed attempt but no retry`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			for (let i = 0; i < 2; i++) fake.fail({ kind: 'status', status: 503, retryAfter: 0.02 });
			const rec = recorder();
			const failed: FailedAttempt[] = [];
			await assert.rejects(
				provider(api, fake, { maxRetries: 1, onRetry: rec.onRetry }).complete(
					request('Down?', { onAttemptFailed: (f) => failed.push(f) }),
				),
				ProviderError,
			);
			assert.equal(rec.retries(), 1);
			assert.deepEqual(
				failed.map((f) => f.reason),
				['HTTP 503 Service Unavailable', 'HTTP 503 Service Unavailable'],
			);
		});
	});

	test(`${api}: a stream cut halfway is a failed attempt with the text it sent and its usage`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			fake.fail({ kind: 'cut' });
			const failed: FailedAttempt[] = [];
			const prompt = 'Cut it.';
			const result = await provider(api, fake).complete(
				request(prompt, { onAttemptFailed: (f) => failed.push(f) }),
			);
			assert.equal(result.text, REPLY);
			assert.equal(failed.length, 1);
			const [cut] = failed;
			assert.match(cut!.reason, /^stream /u);
			assert.ok(cut!.text.length > 0 && REPLY.startsWith(cut!.text), cut!.text);
			assert.equal(cut!.usage.input, countTokens(prompt));
			assert.equal(cut!.usage.output, countTokens(cut!.text));
		});
	});
}

test('--call-timeout reaches the provider of a run, and is kept in its configuration', HANG, async () => {
	await withFake(REPLY, {}, async (fake) => {
		const config = makeConfig({
			provider: 'openai',
			model: 'gpt-4o-mini',
			baseUrl: fake.openaiBaseUrl,
			callTimeout: 1,
		});
		assert.equal(config.callTimeout, 1);
		assert.equal(
			'callTimeout' in makeConfig({ provider: 'openai', model: 'gpt-4o-mini' }),
			false,
			'unset: derived per call',
		);
		const { provider } = await prepare(config, 'A book.', {
			env: { OPENAI_API_KEY: 'sk-test-bounds-0123456789', BOOOOK_PRICES: '' },
		});
		fake.fail({ kind: 'forever', send: 'keepalive' });
		const failed: FailedAttempt[] = [];
		const result = await provider.complete(
			request('Go.', { maxTokens: 4000, onAttemptFailed: (f) => failed.push(f) }),
		);
		assert.ok(result.text.length > 0);
		assert.deepEqual(
			failed.map((f) => f.reason),
			['stream not finished 1 s after it started (the call deadline)'],
		);
	});
});
