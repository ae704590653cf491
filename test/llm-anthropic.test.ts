import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../source/errors.ts';
import { AnthropicProvider, contentBlocks, type AnthropicProviderOptions } from '../source/llm/anthropic.ts';
import { createProvider, defaultModel } from '../source/llm/create.ts';
import { ProviderError } from '../source/llm/provider.ts';
import { countTokens, truncateToTokens } from '../source/text/tokens.ts';
import type { FakeApi } from './support/fake-api.ts';
import { recorder, request, withFake } from './support/provider-kit.ts';

const KEY = 'fake-anthropic-key-0123456789SECRET';
const REPLY = 'The orchard was sold in spring. The new owners kept the old trees. Their letters explain why.';

function provider(fake: FakeApi, opts: Partial<AnthropicProviderOptions> = {}): AnthropicProvider {
	return new AnthropicProvider({
		apiKey: KEY,
		model: 'claude-sonnet-4-6',
		baseURL: fake.anthropicBaseUrl,
		maxRetries: 2,
		streamRetryDelayMs: 0,
		...opts,
	});
}

test('a streamed message delivers text, ordered deltas, usage and the stop reason', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const rec = recorder();
		const prompt = 'Summarize the orchard letters.';
		const result = await provider(fake).complete(request(prompt, { onDelta: rec.onDelta }));
		assert.equal(result.text, REPLY);
		assert.equal(result.finishReason, 'end_turn');
		assert.ok(rec.events.length > 3, 'the reply arrives in several deltas');
		assert.equal(rec.shown(), REPLY);
		assert.deepEqual(result.usage, { input: countTokens(prompt), output: countTokens(REPLY), cached: 0 });

		assert.equal(fake.requests.length, 1);
		const recorded = fake.requests[0];
		assert.equal(recorded?.path, '/v1/messages');
		assert.equal(recorded?.prompt, prompt);
		assert.equal(recorded?.body.stream, true);
		assert.equal(recorded?.body.max_tokens, 200);
		assert.equal(recorded?.body.model, 'claude-sonnet-4-6');
		// Claude 4.6 takes a temperature on the API version that still has it.
		assert.equal(recorded?.body.temperature, 0.5);
		assert.equal(recorded?.headers['anthropic-version'], '2023-06-01');
		const auth = `${recorded?.headers.authorization ?? ''} ${recorded?.headers['x-api-key'] ?? ''}`;
		assert.ok(auth.includes(KEY), 'the key is sent to the API');
	});
});

test('the cacheable prefix is its own block with cache_control, and cache reads count as input', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const prefix = 'Instructions and the summary under review, shared by every sentence call. '.repeat(20);
		const p = provider(fake);
		const first = await p.complete(request(`${prefix}Sentence 1?`, { cacheablePrefix: prefix }));
		const second = await p.complete(request(`${prefix}Sentence 2?`, { cacheablePrefix: prefix }));

		const content = fake.requests[0]?.body.messages[0].content;
		assert.deepEqual(content, [
			{ type: 'text', text: prefix, cache_control: { type: 'ephemeral' } },
			{ type: 'text', text: 'Sentence 1?' },
		]);
		assert.equal(fake.requests[0]?.prompt, `${prefix}Sentence 1?`);

		// First call writes the cache, the second reads it; either way input is the whole prompt.
		assert.equal(first.usage.cached, 0);
		assert.equal(first.usage.input, countTokens(`${prefix}Sentence 1?`));
		assert.equal(second.usage.cached, countTokens(prefix));
		assert.equal(second.usage.input, countTokens(`${prefix}Sentence 2?`));
	});
});

test('with the cache as the API documents it, requests sent together all write the prefix; one sent after a response began reads it', async () => {
	// Nothing is answered until all three have arrived: sent together, as a client's first calls are.
	let arrived: (() => void)[] | null = [];
	const respond = async () => {
		if (arrived) {
			await new Promise<void>((resolve) => {
				arrived!.push(resolve);
				if (arrived!.length < 3) return;
				for (const answer of arrived!) answer();
				arrived = null;
			});
		}
		return REPLY;
	};
	await withFake(REPLY, { cacheOnResponse: true, respond }, async (fake) => {
		const prefix = 'Instructions and the summary under review, shared by every sentence call. '.repeat(20);
		const p = provider(fake);
		const together = await Promise.all([1, 2, 3].map((i) => p.complete(request(`${prefix}Sentence ${i}?`, { cacheablePrefix: prefix }))));
		assert.deepEqual(together.map((r) => r.usage.cached), [0, 0, 0]);
		assert.ok(fake.requests.every((r) => r.started !== null && r.arrived < r.started));
		const after = await p.complete(request(`${prefix}Sentence 4?`, { cacheablePrefix: prefix }));
		assert.equal(after.usage.cached, countTokens(prefix));
	});
});

test('contentBlocks ignores a prefix that is not one and never sends an empty block', () => {
	assert.deepEqual(contentBlocks('Hello world', 'Goodbye'), [{ type: 'text', text: 'Hello world' }]);
	assert.deepEqual(contentBlocks('Hello world', ''), [{ type: 'text', text: 'Hello world' }]);
	assert.deepEqual(contentBlocks('Hello world', 'Hello world'), [
		{ type: 'text', text: 'Hello world', cache_control: { type: 'ephemeral' } },
	]);
});

test('a 429 with retry-after is retried by the SDK and then succeeds', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'status', status: 429, retryAfter: 0.05 });
		const result = await provider(fake).complete(request('Rate limited prompt.'));
		assert.equal(result.text, REPLY);
		assert.equal(fake.requests.length, 2);
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

test('a 400 is not retried', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'status', status: 400 });
		await assert.rejects(provider(fake).complete(request('Bad request.')), (error: unknown) => {
			assert.ok(error instanceof ProviderError);
			assert.equal(error.retryable, false);
			assert.equal(error.status, 400);
			assert.match(error.message, /^anthropic: 400 /u);
			return true;
		});
		assert.equal(fake.requests.length, 1);
	});
});

test('a 401 is not retried, names ANTHROPIC_API_KEY and never shows the key', async () => {
	await withFake(REPLY, {}, async (fake) => {
		fake.fail({ kind: 'status', status: 401 });
		await assert.rejects(provider(fake).complete(request('Who am I?')), (error: unknown) => {
			assert.ok(error instanceof ProviderError);
			assert.equal(error.retryable, false);
			assert.match(error.message, /ANTHROPIC_API_KEY/u);
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
			assert.equal(result.finishReason, 'end_turn');
			assert.equal(fake.requests.length, 2);
			assert.equal(rec.retries(), 1);
			assert.ok(rec.events.findIndex((e) => 'retry' in e) > 0, 'the broken attempt streamed something first');
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
		assert.equal(rec.retries(), 1);
		assert.equal(rec.shown(), REPLY);
	});
});

test('a slow but steady stream is not mistaken for a stall', async () => {
	// 17 pieces 100 ms apart outlast the 700 ms watchdog several times over, but no gap comes near it
	// (the margin keeps a loaded machine from turning this into a stall).
	await withFake(REPLY, { chunkDelayMs: 100 }, async (fake) => {
		const rec = recorder();
		const result = await provider(fake, { streamTimeoutMs: 700, onRetry: rec.onRetry }).complete(
			request('Take your time.', { onDelta: rec.onDelta }),
		);
		assert.equal(result.text, REPLY);
		assert.equal(rec.retries(), 0);
		assert.equal(fake.requests.length, 1);
	});
});

test('repeated stalls end in a retryable ProviderError after streamRetries', async () => {
	await withFake(REPLY, {}, async (fake) => {
		for (let i = 0; i < 2; i++) fake.fail({ kind: 'stall', ms: 5_000 });
		await assert.rejects(
			provider(fake, { streamTimeoutMs: 150, streamRetries: 1 }).complete(request('Stall twice.')),
			(error: unknown) => {
				assert.ok(error instanceof ProviderError);
				assert.equal(error.retryable, true);
				assert.match(error.message, /stalled/u);
				return true;
			},
		);
		assert.equal(fake.requests.length, 2);
	});
});

test('aborting mid-stream rejects with an AbortError and is not retried', async () => {
	await withFake(REPLY, { chunkDelayMs: 100 }, async (fake) => {
		const controller = new AbortController();
		let deltas = 0;
		const retries: string[] = [];
		const call = provider(fake, { onRetry: (r) => retries.push(r) }).complete(
			request('Slow stream.', {
				signal: controller.signal,
				onDelta: () => {
					deltas++;
					if (deltas === 2) controller.abort();
				},
			}),
		);
		await assert.rejects(call, (error: unknown) => error instanceof Error && error.name === 'AbortError');
		assert.deepEqual(retries, []);
		assert.equal(fake.requests.length, 1);
	});
});

test('aborting during a long retry-after rejects at once', async () => {
	await withFake(REPLY, {}, async (fake) => {
		// A 60 s wait would outlast the test runner; only an immediate rejection passes.
		fake.fail({ kind: 'status', status: 429, retryAfter: 60 });
		const controller = new AbortController();
		const call = provider(fake).complete(request('Patience.', { signal: controller.signal }));
		setTimeout(() => controller.abort(), 50);
		await assert.rejects(call, (error: unknown) => error instanceof Error && error.name === 'AbortError');
		assert.equal(fake.requests.length, 1);
	});
});

test('max_tokens truncation gives stop reason max_tokens', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const result = await provider(fake).complete(request('Long answer please.', { maxTokens: 6 }));
		assert.equal(result.finishReason, 'max_tokens');
		assert.equal(result.text, truncateToTokens(REPLY, 6));
		assert.equal(result.usage.output, countTokens(result.text));
	});
});

test('createProvider reads ANTHROPIC_BASE_URL and refuses a missing ANTHROPIC_API_KEY', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const p = createProvider({
			provider: 'anthropic',
			model: defaultModel('anthropic'),
			env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.anthropicBaseUrl },
		});
		assert.equal(p.name, 'anthropic');
		assert.equal((await p.complete(request('Via the factory.'))).text, REPLY);
		assert.equal(fake.requests[0]?.body.model, defaultModel('anthropic'));
	});
	assert.throws(
		() => createProvider({ provider: 'anthropic', model: 'claude-sonnet-4-6', env: { ANTHROPIC_API_KEY: ' ' } }),
		(error: unknown) => error instanceof UserError && error.exitCode === 2 && /ANTHROPIC_API_KEY/u.test(error.message),
	);
});

test('temperature is sent where the model takes it (0 for BooookScore) and left out where the API rejects it', async () => {
	await withFake(REPLY, {}, async (fake) => {
		await provider(fake, { model: 'claude-sonnet-4-6' }).complete(request('Annotate.', { temperature: 0 }));
		await provider(fake, { model: 'claude-3-5-sonnet-20241022' }).complete(request('Annotate.', { temperature: 0 }));
		await provider(fake, { model: 'claude-opus-4-7' }).complete(request('Annotate.', { temperature: 0 }));
		await provider(fake, { model: 'claude-sonnet-5-5' }).complete(request('Annotate.', { temperature: 0 }));
		const sent = fake.requests.map((r) => [r.body.model, r.body.temperature ?? null, r.headers['anthropic-version']]);
		assert.deepEqual(sent, [
			['claude-sonnet-4-6', 0, '2023-06-01'],
			['claude-3-5-sonnet-20241022', 0, '2023-06-01'],
			['claude-opus-4-7', null, '2026-10-21'],
			['claude-sonnet-5-5', null, '2026-10-21'],
		]);
	});
});
