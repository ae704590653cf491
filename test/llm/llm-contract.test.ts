import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UserError } from '../../source/errors.ts';
import { AnthropicProvider, contentBlocks } from '../../source/llm/anthropic.ts';
import { createProvider, defaultModel, defaultProvider } from '../../source/llm/create.ts';
import { OpenAIProvider } from '../../source/llm/openai.ts';
import { ProviderError, type CallRequest, type Provider } from '../../source/llm/provider.ts';
import type { SdkProviderOptions } from '../../source/llm/sdk-client.ts';
import { countTokens, truncateToTokens } from '../../source/text/tokens.ts';
import { startFakeApi, type Api, type FakeApi, type RecordedRequest } from '../support/fake-api.ts';
import { recorder, request, withFake } from '../support/provider-kit.ts';

/**
 * What every SDK-backed provider promises (streaming, retries, the watchdog, cancelling, error
 * messages, the factory), checked for each through its real SDK against the local fake API. What
 * only one provider does (its wire format, its prompt cache) is in its own section below.
 */

const REPLY = 'The orchard was sold in spring. The new owners kept the old trees. Their letters explain why.';

interface Subject {
	api: Api;
	/** The environment variable of its key, named in messages. */
	keyVar: string;
	/** Keys the fake server quotes back on a 401; SECRET must never reach a message. */
	key: string;
	model: string;
	/** The finish/stop reason of a complete answer, and of one cut at max_tokens. */
	finished: string;
	truncated: string;
	baseUrl(fake: FakeApi): string;
	/** The key as the server received it. */
	sentKey(recorded: RecordedRequest): string;
	/** What only this provider's wire format shows of a plain request for `prompt`. */
	wire(recorded: RecordedRequest, prompt: string): void;
}

const SUBJECTS: Subject[] = [
	{
		api: 'openai',
		keyVar: 'OPENAI_API_KEY',
		key: 'sk-test-0123456789abcdefSECRET',
		model: 'gpt-4o-mini',
		finished: 'stop',
		truncated: 'length',
		baseUrl: (fake) => fake.openaiBaseUrl,
		sentKey: (recorded) => String(recorded.headers.authorization ?? ''),
		wire(recorded, prompt) {
			assert.equal(recorded.path, '/v1/chat/completions');
			assert.deepEqual(recorded.body!.stream_options, { include_usage: true });
			assert.deepEqual(recorded.body!.messages, [{ role: 'user', content: prompt }]);
			assert.equal(recorded.headers.authorization, `Bearer ${this.key}`);
		},
	},
	{
		api: 'anthropic',
		keyVar: 'ANTHROPIC_API_KEY',
		key: 'fake-anthropic-key-0123456789SECRET',
		model: 'claude-sonnet-4-6',
		finished: 'end_turn',
		truncated: 'max_tokens',
		baseUrl: (fake) => fake.anthropicBaseUrl,
		sentKey: (recorded) => `${recorded.headers.authorization ?? ''} ${recorded.headers['x-api-key'] ?? ''}`,
		wire(recorded) {
			assert.equal(recorded.path, '/v1/messages');
			assert.equal(recorded.body!.max_tokens, 200);
			// Claude 4.6 takes a temperature on the API version that still has it.
			assert.equal(recorded.headers['anthropic-version'], '2023-06-01');
		},
	},
];

function provider(subject: Subject, fake: FakeApi, opts: Partial<SdkProviderOptions> = {}): Provider {
	const options = {
		apiKey: subject.key,
		model: subject.model,
		baseURL: subject.baseUrl(fake),
		maxRetries: 2,
		streamRetryDelayMs: 0,
		...opts,
	};
	return subject.api === 'openai' ? new OpenAIProvider(options) : new AnthropicProvider(options);
}

const isAbort = (error: unknown) => error instanceof Error && error.name === 'AbortError';

for (const subject of SUBJECTS) {
	const { api } = subject;

	test(`${api}: a streamed call delivers text, ordered deltas, usage and the finish reason`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			const rec = recorder();
			const prompt = 'Summarize the orchard letters.';
			const result = await provider(subject, fake).complete(request(prompt, { onDelta: rec.onDelta }));
			assert.equal(result.text, REPLY);
			assert.equal(result.finishReason, subject.finished);
			assert.ok(rec.events.length > 3, 'the reply arrives in several deltas');
			assert.equal(rec.shown(), REPLY);
			assert.deepEqual(result.usage, { input: countTokens(prompt), output: countTokens(REPLY), cached: 0 });

			assert.equal(fake.requests.length, 1);
			const recorded = fake.requests[0]!;
			assert.equal(recorded.prompt, prompt);
			assert.equal(recorded.body!.model, subject.model);
			assert.equal(recorded.body!.stream, true);
			assert.equal(recorded.body!.temperature, 0.5);
			assert.ok(subject.sentKey(recorded).includes(subject.key), 'the key is sent to the API');
			subject.wire(recorded, prompt);
		});
	});

	for (const status of [429, 500]) {
		test(`${api}: a ${status} with retry-after is retried by the SDK and then succeeds`, async () => {
			await withFake(REPLY, {}, async (fake) => {
				fake.fail({ kind: 'status', status, retryAfter: 0.05 });
				const result = await provider(subject, fake).complete(request('Busy prompt.'));
				assert.equal(result.text, REPLY);
				assert.equal(fake.requests.length, 2);
				assert.equal(fake.requests[0]?.fault?.kind, 'status');
			});
		});
	}

	test(`${api}: rate limiting that outlasts the SDK retries is a retryable ProviderError`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			for (let i = 0; i < 3; i++) fake.fail({ kind: 'status', status: 429, retryAfter: 0.02 });
			await assert.rejects(
				provider(subject, fake, { maxRetries: 1 }).complete(request('Still limited.')),
				(error: unknown) => {
					assert.ok(error instanceof ProviderError);
					assert.equal(error.retryable, true);
					assert.equal(error.status, 429);
					return true;
				},
			);
			assert.equal(fake.requests.length, 2);
		});
	});

	test(`${api}: an unreachable server is a retryable ProviderError that names the URL`, async () => {
		const fake = await startFakeApi();
		const url = subject.baseUrl(fake);
		await fake.close();
		await assert.rejects(
			provider(subject, fake, { maxRetries: 0 }).complete(request('Anyone?')),
			(error: unknown) => {
				assert.ok(error instanceof ProviderError);
				assert.equal(error.retryable, true);
				assert.ok(error.message.includes(url), error.message);
				return true;
			},
		);
	});

	test(`${api}: a 400 is not retried and says, on one line, what the server said`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			fake.fail({ kind: 'status', status: 400 });
			await assert.rejects(provider(subject, fake).complete(request('Bad request.')), (error: unknown) => {
				assert.ok(error instanceof ProviderError);
				assert.equal(error.retryable, false);
				assert.equal(error.status, 400);
				assert.match(error.message, new RegExp(`^${api}: 400 `, 'u'));
				assert.match(error.message, /fake 400/u);
				assert.doesNotMatch(error.message, /\n/u);
				return true;
			});
			assert.equal(fake.requests.length, 1);
		});
	});

	test(`${api}: a 401 is not retried, names ${subject.keyVar} and never shows the key`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			fake.fail({ kind: 'status', status: 401 });
			await assert.rejects(provider(subject, fake).complete(request('Who am I?')), (error: unknown) => {
				assert.ok(error instanceof ProviderError);
				assert.equal(error.retryable, false);
				assert.match(error.message, /401/u);
				assert.ok(error.message.includes(subject.keyVar), error.message);
				assert.equal(error.message.includes(subject.key), false);
				assert.equal(error.message.includes('SECRET'), false);
				return true;
			});
			assert.equal(fake.requests.length, 1);
		});
	});

	for (const clean of [false, true]) {
		test(`${api}: a stream cut halfway (${clean ? 'response ended' : 'connection closed'}) is retried and the complete text returned`, async () => {
			await withFake(REPLY, {}, async (fake) => {
				fake.fail({ kind: 'cut', clean });
				const rec = recorder();
				const result = await provider(subject, fake, { onRetry: rec.onRetry }).complete(
					request('Cut me off.', { onDelta: rec.onDelta }),
				);
				assert.equal(result.text, REPLY);
				assert.equal(result.finishReason, subject.finished);
				assert.equal(fake.requests.length, 2);
				assert.equal(rec.retries(), 1);
				assert.ok(
					rec.events.findIndex((e) => 'retry' in e) > 0,
					'the broken attempt streamed something before the reset',
				);
				assert.equal(rec.shown(), REPLY);
			});
		});
	}

	test(`${api}: a stalled stream is aborted by the watchdog and retried`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			fake.fail({ kind: 'stall', ms: 5_000 });
			const rec = recorder();
			const result = await provider(subject, fake, { streamTimeoutMs: 200, onRetry: rec.onRetry }).complete(
				request('Stall please.', { onDelta: rec.onDelta }),
			);
			assert.equal(result.text, REPLY);
			assert.equal(fake.requests.length, 2);
			assert.equal(rec.retries(), 1);
			const retry = rec.events.find((e) => 'retry' in e);
			assert.ok(retry && 'retry' in retry);
			assert.match(retry.retry, /stalled/u);
			assert.equal(rec.shown(), REPLY);
		});
	});

	test(`${api}: a slow but steady stream is not mistaken for a stall`, async () => {
		// 17 pieces 100 ms apart outlast the 700 ms watchdog several times over, but no gap comes near it
		// (the margin keeps a loaded machine from turning this into a stall).
		await withFake(REPLY, { chunkDelayMs: 100 }, async (fake) => {
			const rec = recorder();
			const result = await provider(subject, fake, { streamTimeoutMs: 700, onRetry: rec.onRetry }).complete(
				request('Take your time.', { onDelta: rec.onDelta }),
			);
			assert.equal(result.text, REPLY);
			assert.equal(rec.retries(), 0);
			assert.equal(fake.requests.length, 1);
		});
	});

	test(`${api}: a stream that keeps breaking ends in a retryable ProviderError after streamRetries`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			for (let i = 0; i < 3; i++) fake.fail({ kind: 'cut' });
			await assert.rejects(
				provider(subject, fake, { streamRetries: 2 }).complete(request('Always cut.')),
				(error: unknown) => {
					assert.ok(error instanceof ProviderError);
					assert.equal(error.retryable, true);
					return true;
				},
			);
			assert.equal(fake.requests.length, 3);
		});
	});

	test(`${api}: repeated stalls end in a retryable ProviderError that says so`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			for (let i = 0; i < 2; i++) fake.fail({ kind: 'stall', ms: 5_000 });
			await assert.rejects(
				provider(subject, fake, { streamTimeoutMs: 150, streamRetries: 1 }).complete(request('Stall twice.')),
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

	test(`${api}: the onRetry callback is told which request is being retried`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			fake.fail({ kind: 'cut' });
			const seen: CallRequest[] = [];
			const req = request('Which one?');
			await provider(subject, fake, { onRetry: (_reason, r) => seen.push(r) }).complete(req);
			assert.deepEqual(seen, [req]);
			assert.equal(seen[0], req);
		});
	});

	test(`${api}: aborting mid-stream rejects with an AbortError, is not retried and sends no more deltas`, async () => {
		await withFake(REPLY, { chunkDelayMs: 100 }, async (fake) => {
			const controller = new AbortController();
			let deltas = 0;
			let afterAbort = 0;
			const retries: string[] = [];
			const call = provider(subject, fake, { onRetry: (r) => retries.push(r) }).complete(
				request('Slow stream.', {
					signal: controller.signal,
					onDelta: () => {
						if (controller.signal.aborted) afterAbort++;
						deltas++;
						if (deltas === 2) controller.abort();
					},
				}),
			);
			await assert.rejects(call, isAbort);
			// Once the server has seen the exchange end, nothing more of it can arrive.
			await fake.requests[0]?.ended;
			await new Promise((resolve) => setImmediate(resolve));
			assert.equal(afterAbort, 0);
			assert.deepEqual(retries, []);
			assert.equal(fake.requests.length, 1);
		});
	});

	test(`${api}: aborting while the SDK waits out a retry-after rejects without waiting for it`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			// The OpenAI SDK's backoff sleep ignores the signal; the provider must not wait it out.
			// (That timer still runs out in the background, so the wait is kept short.)
			fake.fail({ kind: 'status', status: 429, retryAfter: 1.5 });
			const controller = new AbortController();
			// Cancelled the moment the 429 is in: the SDK is then asleep before its retry.
			const call = provider(subject, fake).complete(
				request('Patience.', { signal: controller.signal, onAttemptFailed: () => controller.abort() }),
			);
			let timer: NodeJS.Timeout | undefined;
			const outcome = await Promise.race([
				call.then(
					() => 'resolved',
					(error: unknown) => (error instanceof Error ? error.name : 'odd'),
				),
				new Promise((resolve) => {
					timer = setTimeout(resolve, 1_000, 'still waiting');
				}),
			]);
			clearTimeout(timer);
			assert.equal(outcome, 'AbortError');
			assert.equal(fake.requests.length, 1);
		});
	});

	test(`${api}: an already aborted signal sends nothing`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			const controller = new AbortController();
			controller.abort();
			await assert.rejects(
				provider(subject, fake).complete(request('Never sent.', { signal: controller.signal })),
				isAbort,
			);
			assert.equal(fake.requests.length, 0);
		});
	});

	test(`${api}: max_tokens truncation gives finish reason ${subject.truncated}`, async () => {
		await withFake(REPLY, {}, async (fake) => {
			const result = await provider(subject, fake).complete(request('Long answer please.', { maxTokens: 6 }));
			assert.equal(result.finishReason, subject.truncated);
			assert.equal(result.text, truncateToTokens(REPLY, 6));
			assert.equal(result.usage.output, countTokens(result.text));
			assert.ok(result.usage.output <= 6);
		});
	});

	test(`${api}: createProvider reads ${subject.keyVar} and the base URL from env and refuses a missing or blank key`, async () => {
		const baseVar = subject.keyVar.replace(/_API_KEY$/u, '_BASE_URL');
		await withFake(REPLY, {}, async (fake) => {
			const p = createProvider({
				provider: api,
				model: defaultModel(api),
				env: { [subject.keyVar]: subject.key, [baseVar]: subject.baseUrl(fake) },
				streamRetryDelayMs: 0,
			});
			assert.equal(p.name, api);
			assert.equal(p.isLLM, true);
			assert.equal((await p.complete(request('Via the factory.'))).text, REPLY);
			assert.equal(fake.requests.length, 1);
			assert.equal(fake.requests[0]?.body!.model, defaultModel(api));
		});
		for (const env of [{}, { [subject.keyVar]: ' ' }]) {
			assert.throws(
				() => createProvider({ provider: api, model: subject.model, env }),
				(error: unknown) => {
					assert.ok(error instanceof UserError);
					assert.equal(error.exitCode, 2);
					assert.ok(error.message.includes(subject.keyVar), error.message);
					assert.doesNotMatch(error.message, /\n/u);
					return true;
				},
			);
		}
	});
}

// --- OpenAI only ---

const openai = SUBJECTS[0]!;

test('openai: reasoning models get no temperature (the API refuses one) and their least reasoning effort where they take one; other models get the temperature', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const models = [
			'gpt-4o-mini',
			'gpt-4.1',
			'gpt-5-mini',
			'gpt-5-2025-08-07',
			'gpt-5-chat-latest',
			'gpt-5.1',
			'gpt-5-pro',
			'o3',
			'o4-mini',
			'o1-mini',
		];
		for (const model of models) {
			const result = await provider(openai, fake, { model }).complete(
				request('Summarize the orchard letters.', { temperature: 0.5 }),
			);
			assert.equal(result.text, REPLY, model);
		}
		const sent = fake.requests.map((r) => [
			r.body!.model,
			r.body!.temperature ?? null,
			r.body!.reasoning_effort ?? null,
		]);
		assert.deepEqual(sent, [
			['gpt-4o-mini', 0.5, null],
			['gpt-4.1', 0.5, null],
			['gpt-5-mini', null, 'minimal'],
			['gpt-5-2025-08-07', null, 'minimal'],
			['gpt-5-chat-latest', 0.5, null],
			['gpt-5.1', 0.5, null],
			['gpt-5-pro', null, null],
			['o3', null, 'low'],
			['o4-mini', null, 'low'],
			['o1-mini', null, null],
		]);
	});
});

test('openai: the fake refuses a temperature for a reasoning model, as the API does, so the test above can fail', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const res = await fetch(`${fake.openaiBaseUrl}/chat/completions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
			body: JSON.stringify({
				model: 'gpt-5-mini',
				messages: [{ role: 'user', content: 'Hi.' }],
				temperature: 0.5,
				stream: true,
			}),
		});
		assert.equal(res.status, 400);
		assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unsupported_value');
	});
});

test('openai: a custom base URL gets max_tokens; api.openai.com gets max_completion_tokens', async () => {
	await withFake(REPLY, {}, async (fake) => {
		await provider(openai, fake).complete(request('Hello there.', { maxTokens: 77 }));
		assert.equal(fake.requests[0]?.body!.max_tokens, 77);
		assert.equal('max_completion_tokens' in fake.requests[0]!.body, false);

		// No base URL: the provider talks to api.openai.com; a fetch that reroutes it to the fake
		// shows what would have been sent there.
		const reroute: typeof fetch = (input, init) =>
			fetch(
				String(input instanceof Request ? input.url : input).replace(
					'https://api.openai.com/v1',
					fake.openaiBaseUrl,
				),
				init,
			);
		await provider(openai, fake, { baseURL: null, fetch: reroute }).complete(
			request('Hello there.', { maxTokens: 77 }),
		);
		assert.equal(fake.requests[1]?.body!.max_completion_tokens, 77);
		assert.equal('max_tokens' in fake.requests[1]!.body, false);
	});
});

test('openai: cached prompt tokens (a shared prefix of 1024 tokens or more) are reported as cached', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const shared = 'The same long instructions, repeated for every sentence. '.repeat(150);
		const p = provider(openai, fake);
		const first = await p.complete(request(`${shared}First question?`));
		const second = await p.complete(request(`${shared}Second question?`));
		assert.equal(first.usage.cached, 0);
		assert.ok(second.usage.cached >= 1024);
		assert.ok(second.usage.cached <= second.usage.input);
	});
});

// --- Anthropic only ---

const anthropic = SUBJECTS[1]!;

test('anthropic: the cacheable prefix is its own block with cache_control, and cache reads count as input', async () => {
	await withFake(REPLY, {}, async (fake) => {
		const prefix = 'Instructions and the summary under review, shared by every sentence call. '.repeat(20);
		const p = provider(anthropic, fake);
		const first = await p.complete(request(`${prefix}Sentence 1?`, { cacheablePrefix: prefix }));
		const second = await p.complete(request(`${prefix}Sentence 2?`, { cacheablePrefix: prefix }));

		const content = fake.requests[0]!.body!.messages![0]!.content;
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

test('anthropic: with the cache as the API documents it, requests sent together all write the prefix; one sent after a response began reads it', async () => {
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
		const p = provider(anthropic, fake);
		const together = await Promise.all(
			[1, 2, 3].map((i) => p.complete(request(`${prefix}Sentence ${i}?`, { cacheablePrefix: prefix }))),
		);
		assert.deepEqual(
			together.map((r) => r.usage.cached),
			[0, 0, 0],
		);
		assert.ok(fake.requests.every((r) => r.started !== null && r.arrived < r.started));
		const after = await p.complete(request(`${prefix}Sentence 4?`, { cacheablePrefix: prefix }));
		assert.equal(after.usage.cached, countTokens(prefix));
	});
});

test('anthropic: contentBlocks ignores a prefix that is not one and never sends an empty block', () => {
	assert.deepEqual(contentBlocks('Hello world', 'Goodbye'), [{ type: 'text', text: 'Hello world' }]);
	assert.deepEqual(contentBlocks('Hello world', ''), [{ type: 'text', text: 'Hello world' }]);
	assert.deepEqual(contentBlocks('Hello world', 'Hello world'), [
		{ type: 'text', text: 'Hello world', cache_control: { type: 'ephemeral' } },
	]);
});

test('anthropic: temperature is sent where the model takes it (0 for BooookScore) and left out where the API rejects it', async () => {
	await withFake(REPLY, {}, async (fake) => {
		for (const model of [
			'claude-sonnet-4-6',
			'claude-3-5-sonnet-20241022',
			'claude-opus-4-7',
			'claude-sonnet-5-5',
		]) {
			await provider(anthropic, fake, { model }).complete(request('Annotate.', { temperature: 0 }));
		}
		const sent = fake.requests.map((r) => [
			r.body!.model,
			r.body!.temperature ?? null,
			r.headers['anthropic-version'],
		]);
		assert.deepEqual(sent, [
			['claude-sonnet-4-6', 0, '2023-06-01'],
			['claude-3-5-sonnet-20241022', 0, '2023-06-01'],
			['claude-opus-4-7', null, '2026-10-21'],
			['claude-sonnet-5-5', null, '2026-10-21'],
		]);
	});
});

// --- Choosing a provider ---

test('defaultProvider prefers OpenAI, then Anthropic, then the extractive baseline', () => {
	assert.equal(defaultProvider({ OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b' }), 'openai');
	assert.equal(defaultProvider({ ANTHROPIC_API_KEY: 'b' }), 'anthropic');
	assert.equal(defaultProvider({ OPENAI_API_KEY: '' }), 'extractive');
	assert.equal(defaultModel('openai'), 'gpt-4o-mini');
	assert.equal(defaultModel('extractive'), 'textrank');
	const extractive = createProvider({ provider: 'extractive', model: defaultModel('extractive'), env: {} });
	assert.equal(extractive.isLLM, false);
});
