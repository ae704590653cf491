import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from '../../source/text/tokens.ts';
import { type Api, type FakeApi, type FakeApiOptions, startFakeApi } from '../support/fake-api.ts';
import { openaiDuration } from '../support/fake-limits.ts';

const REPLY = 'A short reply.';
const PROMPT = 'Tell me about the book.';

async function withFake(opts: FakeApiOptions, run: (fake: FakeApi) => Promise<void>): Promise<void> {
	const fake = await startFakeApi({ respond: () => REPLY, ...opts });
	try {
		await run(fake);
	} finally {
		await fake.close();
	}
}

/** One streamed call, its body read to the end so the exchange is over. */
async function call(
	fake: FakeApi,
	api: Api,
	{ maxTokens = 100, model = 'm', prompt = PROMPT, key = 'key-1' } = {},
) {
	const openai = api === 'openai';
	const res = await fetch(`${fake.url}${openai ? '/v1/chat/completions' : '/v1/messages'}`, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			...(openai ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }),
		},
		body: JSON.stringify({
			model,
			stream: true,
			max_tokens: maxTokens,
			messages: [{ role: 'user', content: prompt }],
		}),
	});
	const text = await res.text();
	const body = res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null;
	return {
		status: res.status,
		headers: res.headers,
		body,
		num: (name: string) => Number(res.headers.get(name)),
	};
}

const COST = countTokens(PROMPT) + 100;

test('over the tpm bucket: a 429 as OpenAI sends it, with retry-after worked out from the bucket', async () => {
	await withFake({ limits: { rpm: 60, tpm: Math.floor(COST * 1.5) } }, async (fake) => {
		const first = await call(fake, 'openai');
		assert.equal(first.status, 200);
		assert.equal(first.num('x-ratelimit-remaining-tokens'), Math.floor(COST * 1.5) - COST);
		const refused = await call(fake, 'openai');
		assert.equal(refused.status, 429);
		assert.equal(refused.body.error.code, 'rate_limit_exceeded');
		assert.equal(refused.body.error.type, 'tokens');
		assert.match(
			refused.body.error.message,
			new RegExp(
				`^Rate limit reached for m in organization org-fake on tokens per min \\(TPM\\): Limit ${Math.floor(COST * 1.5)}, Used \\d+, Requested ${COST}\\. Please try again in \\S+\\. Visit https://platform.openai.com/account/rate-limits to learn more\\.$`,
			),
		);
		// The wait is what the bucket lacks, at limit/60000 tokens per ms; nothing was debited.
		const remaining = refused.num('x-ratelimit-remaining-tokens');
		const perMs = Math.floor(COST * 1.5) / 60000;
		assert.ok(remaining >= Math.floor(COST * 1.5) - COST);
		const ms = refused.num('retry-after-ms');
		assert.ok(
			ms <= Math.ceil((COST - remaining) / perMs) && ms >= Math.floor((COST - remaining - 1) / perMs),
			`retry-after-ms ${ms}`,
		);
		assert.equal(refused.num('retry-after'), Math.ceil(ms / 1000));
		assert.equal(refused.num('x-ratelimit-limit-requests'), 60);
		assert.match(refused.headers.get('x-ratelimit-reset-tokens')!, /^(\d+m)?\d+(\.\d+)?s$/u);
		assert.equal(fake.rateLimited, 1);
		assert.deepEqual(
			fake.requests.map((r) => r.status),
			[200, 429],
		);
		assert.equal(
			((await (await fetch(`${fake.url}/stats`)).json()) as { rateLimited: number }).rateLimited,
			1,
		);
		// Another key has buckets of its own.
		assert.equal((await call(fake, 'openai', { key: 'key-2' })).status, 200);
	});
});

test('over the tpm bucket: a 429 as Anthropic sends it, retry-after in whole seconds, at least 1', async () => {
	await withFake({ limits: { tpm: Math.floor(COST * 1.5), itpm: 600 } }, async (fake) => {
		assert.equal((await call(fake, 'anthropic')).status, 200);
		const refused = await call(fake, 'anthropic');
		assert.equal(refused.status, 429);
		assert.equal(refused.body.type, 'error');
		assert.equal(refused.body.error.type, 'rate_limit_error');
		assert.match(
			refused.body.error.message,
			new RegExp(
				`^This request would exceed the rate limit for your organization of ${Math.floor(COST * 1.5)} tokens per minute\\.`,
			),
		);
		assert.ok(refused.num('retry-after') >= 1);
		assert.equal(refused.headers.get('retry-after-ms'), null);
		assert.equal(refused.num('anthropic-ratelimit-tokens-limit'), Math.floor(COST * 1.5));
		assert.equal(refused.num('anthropic-ratelimit-input-tokens-remaining'), 600 - countTokens(PROMPT));
		assert.ok(Date.parse(refused.headers.get('anthropic-ratelimit-tokens-reset')!) > Date.now() - 1000);
		assert.equal(refused.headers.get('anthropic-ratelimit-requests-limit'), null);
	});
});

test('headers on success: remaining drops by the cost of each request, less what refilled meanwhile', async () => {
	// 6000 a minute: 0.1 token a ms, so the refill between two calls is a few tokens.
	await withFake({ limits: { rpm: 60, tpm: 6000 } }, async (fake) => {
		const began = performance.now();
		const first = await call(fake, 'openai');
		const second = await call(fake, 'openai');
		const elapsed = performance.now() - began;
		assert.equal(first.num('x-ratelimit-remaining-tokens'), 6000 - COST);
		const refilled = second.num('x-ratelimit-remaining-tokens') - (6000 - 2 * COST);
		assert.ok(refilled >= 0 && refilled <= elapsed / 10 + 1, `refilled ${refilled} in ${elapsed} ms`);
		assert.deepEqual(
			[first.num('x-ratelimit-remaining-requests'), second.num('x-ratelimit-remaining-requests')],
			[59, 58],
		);
		assert.equal(first.headers.get('x-ratelimit-reset-tokens'), openaiDuration((COST * 60000) / 6000));
		assert.equal(first.headers.get('retry-after'), null);
	});
});

test('a limit lowered mid-run: the bucket shrinks to it at once; a request larger than it can never pass', async () => {
	for (const api of ['openai', 'anthropic'] as const) {
		await withFake({ limits: { tpm: 100000 } }, async (fake) => {
			assert.equal((await call(fake, api)).status, 200);
			fake.limits = { tpm: Math.floor(COST * 1.5) };
			assert.equal((await call(fake, api)).status, 200);
			assert.equal((await call(fake, api)).status, 429);
			fake.limits = { tpm: COST - 1 };
			const never = await call(fake, api);
			if (api === 'openai') {
				assert.equal(never.status, 429);
				assert.equal(never.body.error.code, 'rate_limit_exceeded');
				assert.ok(
					never.body.error.message.startsWith(
						`Request too large for m in organization org-fake on tokens per min (TPM): Limit ${COST - 1}, Requested ${COST}. The input or output tokens must be reduced in order to run successfully.`,
					),
				);
				assert.equal(never.headers.get('retry-after'), null);
			} else {
				assert.equal(never.status, 400);
				assert.equal(never.body.error.type, 'invalid_request_error');
				assert.match(never.body.error.message, /exceed the rate limit/u);
			}
			fake.limits = null;
			assert.equal((await call(fake, api, { maxTokens: 100000 })).status, 200);
		});
	}
});

test('Anthropic otpm: max_tokens is held at arrival, the part not written given back when the answer ends', async () => {
	await withFake({ limits: { otpm: 6000 } }, async (fake) => {
		const first = await call(fake, 'anthropic', { maxTokens: 1000 });
		assert.equal(first.num('anthropic-ratelimit-output-tokens-remaining'), 5000);
		await fake.requests[0]!.ended;
		const second = await call(fake, 'anthropic', { maxTokens: 1000 });
		// Without the refund it would be 4000 and a little.
		const remaining = second.num('anthropic-ratelimit-output-tokens-remaining');
		assert.ok(remaining >= 5000 - countTokens(REPLY) && remaining <= 5000, `remaining ${remaining}`);
	});
});

test('Anthropic itpm leaves out the prompt tokens read from the cache', async () => {
	await withFake({ limits: { itpm: 60000 }, cacheOnResponse: true }, async (fake) => {
		const cached = 'The whole book, marked for caching. '.repeat(20);
		const send = async () => {
			const res = await fetch(`${fake.url}/v1/messages`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
				body: JSON.stringify({
					model: 'm',
					stream: true,
					max_tokens: 10,
					messages: [
						{
							role: 'user',
							content: [
								{ type: 'text', text: cached, cache_control: { type: 'ephemeral' } },
								{ type: 'text', text: 'Go on.' },
							],
						},
					],
				}),
			});
			await res.text();
			return Number(res.headers.get('anthropic-ratelimit-input-tokens-remaining'));
		};
		const whole = countTokens(`${cached}Go on.`);
		assert.equal(await send(), 60000 - whole);
		const second = await send();
		assert.ok(second >= 60000 - 2 * whole + countTokens(cached), `remaining ${second}`);
	});
});

test('quota, unknown models and the context window, in both wire formats', async () => {
	await withFake({}, async (fake) => {
		fake.quota = 1;
		assert.equal((await call(fake, 'openai')).status, 200);
		assert.ok(fake.quota <= 0);
		const broke = await call(fake, 'openai');
		assert.equal(broke.status, 429);
		assert.deepEqual(broke.body.error, {
			message:
				'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
			type: 'insufficient_quota',
			param: null,
			code: 'insufficient_quota',
		});
		assert.deepEqual((await call(fake, 'anthropic')).body, {
			type: 'error',
			error: {
				type: 'invalid_request_error',
				message:
					'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
			},
		});
		assert.equal(fake.rateLimited, 0);
		fake.quota = null;

		fake.models = ['m'];
		const missing = await call(fake, 'openai', { model: 'gpt-9' });
		assert.equal(missing.status, 404);
		assert.deepEqual(missing.body.error, {
			message: 'The model `gpt-9` does not exist or you do not have access to it.',
			type: 'invalid_request_error',
			param: null,
			code: 'model_not_found',
		});
		const missingA = await call(fake, 'anthropic', { model: 'claude-9' });
		assert.equal(missingA.status, 404);
		assert.deepEqual(missingA.body, {
			type: 'error',
			error: { type: 'not_found_error', message: 'model: claude-9' },
		});

		fake.contextWindow = 3;
		const long = await call(fake, 'openai');
		assert.equal(long.status, 400);
		assert.equal(long.body.error.code, 'context_length_exceeded');
		assert.equal(
			long.body.error.message,
			`This model's maximum context length is 3 tokens. However, your messages resulted in ${countTokens(PROMPT)} tokens. Please reduce the length of the messages.`,
		);
		const longA = await call(fake, 'anthropic');
		assert.equal(longA.status, 400);
		assert.deepEqual(longA.body.error, {
			type: 'invalid_request_error',
			message: `prompt is too long: ${countTokens(PROMPT)} tokens > 3 maximum`,
		});
	});
});

test('headers: false sends no rate-limit headers and no retry-after, on success or on a 429', async () => {
	await withFake({ limits: { rpm: 1, tpm: 100000, headers: false } }, async (fake) => {
		for (const api of ['openai', 'anthropic'] as const) {
			const ok = await call(fake, api, { key: api });
			const refused = await call(fake, api, { key: api });
			assert.deepEqual([ok.status, refused.status], [200, 429]);
			for (const { headers } of [ok, refused]) {
				assert.deepEqual(
					[...headers.keys()].filter((name) => /ratelimit|retry-after/u.test(name)),
					[],
				);
			}
		}
	});
});
