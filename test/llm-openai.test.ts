import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../source/errors.ts';
import { createProvider, defaultModel, defaultProvider } from '../source/llm/create.ts';
import { OpenAIProvider, type OpenAIProviderOptions } from '../source/llm/openai.ts';
import { ProviderError, type CallRequest } from '../source/llm/provider.ts';
import { countTokens, truncateToTokens } from '../source/text/tokens.ts';
import { startFakeApi, type FakeApi } from './support/fake-api.ts';
import { recorder, request, withFake } from './support/provider-kit.ts';

const KEY = 'sk-test-0123456789abcdefSECRET';
const REPLY = 'The lighthouse keeper kept a log. Every storm got its own page. Nobody read it until the end.';

function provider(fake: FakeApi, opts: Partial<OpenAIProviderOptions> = {}): OpenAIProvider {
	return new OpenAIProvider({
		apiKey: KEY,
		model: 'gpt-4o-mini',
		baseURL: fake.openaiBaseUrl,
		maxRetries: 2,
		streamRetryDelayMs: 0,
		...opts,
	});
}

test('a streamed completion delivers text, ordered deltas, usage and the finish reason', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const rec = recorder();
		const prompt = 'Summarize the keeper log.';
		const result = await provider(fake).complete(request(prompt, { onDelta: rec.onDelta }));
		assert.equal(result.text, REPLY);
		assert.equal(result.finishReason, 'stop');
		assert.ok(rec.events.length > 3, 'the reply arrives in several deltas');
		assert.equal(rec.shown(), REPLY);
		assert.deepEqual(result.usage, { input: countTokens(prompt), output: countTokens(REPLY), cached: 0 });

		assert.equal(fake.requests.length, 1);
		const body = fake.requests[0]?.body;
		assert.equal(body.model, 'gpt-4o-mini');
		assert.equal(body.stream, true);
		assert.deepEqual(body.stream_options, { include_usage: true });
		assert.deepEqual(body.messages, [{ role: 'user', content: prompt }]);
		assert.equal(body.temperature, 0.5);
		assert.equal(fake.requests[0]?.headers.authorization, `Bearer ${KEY}`);
	});
});

test('a custom base URL gets max_tokens; api.openai.com gets max_completion_tokens', async () => {
	await withFake(REPLY, {}, async (fake) => {
		await provider(fake).complete(request('Hello there.', { maxTokens: 77 }));
		assert.equal(fake.requests[0]?.body.max_tokens, 77);
		assert.equal('max_completion_tokens' in fake.requests[0]?.body, false);

		// No base URL: the provider talks to api.openai.com; a fetch that reroutes it to the fake
		// shows what would have been sent there.
		const reroute: typeof fetch = (input, init) =>
			fetch(String(input instanceof Request ? input.url : input).replace('https://api.openai.com/v1', fake.openaiBaseUrl), init);
		await provider(fake, { baseURL: null, fetch: reroute }).complete(request('Hello there.', { maxTokens: 77 }));
		assert.equal(fake.requests[1]?.body.max_completion_tokens, 77);
		assert.equal('max_tokens' in fake.requests[1]?.body, false);
	});
});

test('a 429 with retry-after is retried by the SDK and then succeeds', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'status', status: 429, retryAfter: 0.05 });
		const result = await provider(fake).complete(request('Rate limited prompt.'));
		assert.equal(result.text, REPLY);
		assert.equal(fake.requests.length, 2);
		assert.equal(fake.requests[0]?.fault?.kind, 'status');
	});
});

test('a 500 is retried by the SDK and then succeeds', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'status', status: 500, retryAfter: 0.05 });
		const result = await provider(fake).complete(request('Server error prompt.'));
		assert.equal(result.text, REPLY);
		assert.equal(fake.requests.length, 2);
	});
});

test('rate limiting that outlasts the SDK retries is a retryable ProviderError', async () => {
	await withFake(REPLY, {}, async (fake) => {
		for (let i = 0; i < 3; i++) fake.fail({ kind: 'status', status: 429, retryAfter: 0.02 });
		await assert.rejects(provider(fake, { maxRetries: 1 }).complete(request('Still limited.')), (error: unknown) => {
			assert.ok(error instanceof ProviderError);
			assert.equal(error.retryable, true);
			assert.equal(error.status, 429);
			return true;
		});
		assert.equal(fake.requests.length, 2);
	});
});

test('an unreachable server is a retryable ProviderError that names the URL', async () => {
	const fake = await startFakeApi();
	const url = fake.openaiBaseUrl;
	await fake.close();
	await assert.rejects(provider(fake, { baseURL: url, maxRetries: 0 }).complete(request('Anyone?')), (error: unknown) => {
		assert.ok(error instanceof ProviderError);
		assert.equal(error.retryable, true);
		assert.ok(error.message.includes(url), error.message);
		return true;
	});
});

test('a 400 is not retried and says what the server said', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'status', status: 400 });
		await assert.rejects(provider(fake).complete(request('Bad request.')), (error: unknown) => {
			assert.ok(error instanceof ProviderError);
			assert.equal(error.retryable, false);
			assert.equal(error.status, 400);
			assert.match(error.message, /^openai: 400 /u);
			assert.match(error.message, /fake 400/u);
			assert.doesNotMatch(error.message, /\n/u);
			return true;
		});
		assert.equal(fake.requests.length, 1);
	});
});

test('a 401 is not retried, names OPENAI_API_KEY and never shows the key', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'status', status: 401 });
		await assert.rejects(provider(fake).complete(request('Who am I?')), (error: unknown) => {
			assert.ok(error instanceof ProviderError);
			assert.equal(error.retryable, false);
			assert.match(error.message, /401/u);
			assert.match(error.message, /OPENAI_API_KEY/u);
			assert.equal(error.message.includes(KEY), false);
			assert.equal(error.message.includes('SECRET'), false);
			return true;
		});
		assert.equal(fake.requests.length, 1);
	});
});

for (const clean of [false, true]) {
	test(`a stream cut halfway (${clean ? 'response ended' : 'connection closed'}) is retried and the complete text returned`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			fake.fail({ kind: 'cut', clean });
			const rec = recorder();
			const result = await provider(fake, { onRetry: rec.onRetry }).complete(
				request('Cut me off.', { onDelta: rec.onDelta }),
			);
			assert.equal(result.text, REPLY);
			assert.equal(result.finishReason, 'stop');
			assert.equal(fake.requests.length, 2);
			assert.equal(rec.retries(), 1);
			const firstDeltas = rec.events.findIndex((e) => 'retry' in e);
			assert.ok(firstDeltas > 0, 'the broken attempt streamed something before the reset');
			assert.equal(rec.shown(), REPLY);
		});
	});
}

test('a stalled stream is aborted by the watchdog and retried', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'stall', ms: 5_000 });
		const rec = recorder();
		const result = await provider(fake, { streamTimeoutMs: 200, onRetry: rec.onRetry }).complete(
			request('Stall please.', { onDelta: rec.onDelta }),
		);
		assert.equal(result.text, REPLY);
		assert.equal(fake.requests.length, 2);
		const retry = rec.events.find((e) => 'retry' in e);
		assert.ok(retry && 'retry' in retry);
		assert.match(retry.retry, /stalled/u);
		assert.equal(rec.shown(), REPLY);
	});
});

test('a stream that keeps breaking ends in a retryable ProviderError after streamRetries', async () => {
	await withFake(REPLY, {}, async (fake) => {
		for (let i = 0; i < 3; i++) fake.fail({ kind: 'cut' });
		await assert.rejects(provider(fake, { streamRetries: 2 }).complete(request('Always cut.')), (error: unknown) => {
			assert.ok(error instanceof ProviderError);
			assert.equal(error.retryable, true);
			return true;
		});
		assert.equal(fake.requests.length, 3);
	});
});

test('the onRetry callback is told which request is being retried', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'cut' });
		const seen: CallRequest[] = [];
		const req = request('Which one?');
		await provider(fake, { onRetry: (_reason, r) => seen.push(r) }).complete(req);
		assert.deepEqual(seen, [req]);
		assert.equal(seen[0], req);
	});
});

test('aborting mid-stream rejects with an AbortError and sends no more deltas', async () => {
	await withFake(REPLY, { chunkDelayMs: 100 }, async (fake) => {
		const controller = new AbortController();
		const deltas: string[] = [];
		let afterAbort = 0;
		const call = provider(fake).complete(
			request('Slow stream.', {
				signal: controller.signal,
				onDelta: (t) => {
					if (controller.signal.aborted) afterAbort++;
					deltas.push(t);
					if (deltas.length === 2) controller.abort();
				},
			}),
		);
		await assert.rejects(call, (error: unknown) => error instanceof Error && error.name === 'AbortError');
		await new Promise((resolve) => setTimeout(resolve, 250));
		assert.equal(afterAbort, 0);
		assert.equal(fake.requests.length, 1);
	});
});

test('aborting while the SDK waits out a retry-after rejects without waiting for it', async () => {
	await withFake(REPLY, {}, async (fake) => {
		// The OpenAI SDK's backoff sleep ignores the signal; the provider must not wait it out.
		// (The SDK's timer still runs out in the background, so the wait is kept short.)
		fake.fail({ kind: 'status', status: 429, retryAfter: 1.5 });
		const controller = new AbortController();
		const call = provider(fake).complete(request('Patience.', { signal: controller.signal }));
		setTimeout(() => controller.abort(), 50);
		const outcome = await Promise.race([
			call.then(
				() => 'resolved',
				(error: unknown) => (error instanceof Error ? error.name : 'odd'),
			),
			new Promise((resolve) => setTimeout(resolve, 1_000, 'still waiting')),
		]);
		assert.equal(outcome, 'AbortError');
		assert.equal(fake.requests.length, 1);
	});
});

test('an already aborted signal sends nothing', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const controller = new AbortController();
		controller.abort();
		await assert.rejects(
			provider(fake).complete(request('Never sent.', { signal: controller.signal })),
			(error: unknown) => error instanceof Error && error.name === 'AbortError',
		);
		assert.equal(fake.requests.length, 0);
	});
});

test('max_tokens truncation gives finish reason length', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const result = await provider(fake).complete(request('Long answer please.', { maxTokens: 6 }));
		assert.equal(result.finishReason, 'length');
		assert.equal(result.text, truncateToTokens(REPLY, 6));
		assert.equal(result.usage.output, countTokens(result.text));
		assert.ok(result.usage.output <= 6);
	});
});

test('cached prompt tokens are reported as cached', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const shared = 'The same long instructions, repeated for every sentence. '.repeat(150);
		const p = provider(fake);
		const first = await p.complete(request(`${shared}First question?`));
		const second = await p.complete(request(`${shared}Second question?`));
		assert.equal(first.usage.cached, 0);
		assert.ok(second.usage.cached >= 1024);
		assert.ok(second.usage.cached <= second.usage.input);
	});
});

test('createProvider reads the key and base URL from env and refuses a missing key', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const p = createProvider({
			provider: 'openai',
			model: 'gpt-4o-mini',
			env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.openaiBaseUrl },
			streamRetryDelayMs: 0,
		});
		assert.equal(p.name, 'openai');
		assert.equal(p.isLLM, true);
		const result = await p.complete(request('Via the factory.'));
		assert.equal(result.text, REPLY);
		assert.equal(fake.requests.length, 1);
	});
	assert.throws(
		() => createProvider({ provider: 'openai', model: 'gpt-4o-mini', env: {} }),
		(error: unknown) => {
			assert.ok(error instanceof UserError);
			assert.equal(error.exitCode, 2);
			assert.match(error.message, /OPENAI_API_KEY/u);
			assert.doesNotMatch(error.message, /\n/u);
			return true;
		},
	);
});

test('defaultProvider prefers OpenAI, then Anthropic, then the extractive baseline', () => {
	assert.equal(defaultProvider({ OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b' }), 'openai');
	assert.equal(defaultProvider({ ANTHROPIC_API_KEY: 'b' }), 'anthropic');
	assert.equal(defaultProvider({ OPENAI_API_KEY: '' }), 'extractive');
	assert.equal(defaultModel('openai'), 'gpt-4o-mini');
	assert.equal(defaultModel('extractive'), 'textrank');
	const extractive = createProvider({ provider: 'extractive', model: defaultModel('extractive'), env: {} });
	assert.equal(extractive.isLLM, false);
});
