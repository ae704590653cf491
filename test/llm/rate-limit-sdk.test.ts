import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProvider } from '../../source/llm/create.ts';
import { ProviderError, type FailedAttempt, type Provider } from '../../source/llm/provider.ts';
import { startFakeApi, type Api, type FakeApi, type FakeApiOptions } from '../support/fake-api.ts';
import { ABSURD_RETRY_AFTER } from '../support/fake-limits.ts';
import { request } from '../support/provider-kit.ts';
import { countTokens } from '../../source/text/tokens.ts';
import type { RateWait } from '../../source/llm/rate-limit.ts';
import { rateWaitText } from '../../source/format/progress.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The real SDKs against a fake API that enforces an account's limits the way OpenAI and Anthropic
 * do (test/support/fake-limits.ts): a call is paced, waits out every 429 that means "slow down",
 * and fails at once, in one line with its fix, on what no wait can cure.
 */

const MODEL = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-6' } as const;
// Every test its own key, so no two share a limiter (one per key and model in a process).
let keys = 0;

async function withLimitedFake(opts: FakeApiOptions, body: (fake: FakeApi) => Promise<void>): Promise<void> {
	const fake = await startFakeApi({ respond: () => 'A short answer of a few words.', ...opts });
	try {
		await body(fake);
	} finally {
		await fake.close();
	}
}

function providerFor(
	api: Api,
	fake: FakeApi,
	extra: Partial<Parameters<typeof createProvider>[0]> = {},
): Provider {
	const key = `sk-limits-${++keys}`;
	return createProvider({
		provider: api,
		model: MODEL[api],
		baseUrl: api === 'openai' ? fake.openaiBaseUrl : fake.anthropicBaseUrl,
		env: { OPENAI_API_KEY: key, ANTHROPIC_API_KEY: key },
		...extra,
	});
}

const prompt = (i: number) => `Call ${i}: ${'summarize this sentence of the book. '.repeat(12)}`;

/** `n` calls at once (numbered from `from`), each asking for about 90 prompt tokens and a 100-token output limit. */
async function calls(provider: Provider, n: number, failed: FailedAttempt[] = [], from = 0) {
	return await Promise.all(
		Array.from({ length: n }, (_, i) =>
			provider.complete(
				request(prompt(from + i), { maxTokens: 100, onAttemptFailed: (f) => failed.push(f) }),
			),
		),
	);
}

/** How many calls from `from` on ask for more than `tokens` (as the fake counts them), by under one call. */
function callsBeyond(tokens: number, from: number): number {
	let asked = 0;
	let n = 0;
	while (asked <= tokens + 60) asked += countTokens(prompt(from + n++)) + 100;
	return n;
}

for (const api of ['openai', 'anthropic'] as const) {
	test(`${api}: calls asking for more than a minute's tokens all finish, paced by the headers, every 429 logged as a failed attempt`, async () => {
		await withLimitedFake({ limits: { tpm: 3000 } }, async (fake) => {
			const provider = providerFor(api, fake);
			const failed: FailedAttempt[] = [];
			const waits: string[] = [];
			provider.limiter!.subscribe((state) => state.wait && waits.push(state.wait.why));
			// The first answer tells the limits (calls before it go unpaced, as many as the concurrency).
			await calls(provider, 1);
			// Then calls that ask for a little more than what is left of the minute's 3,000 tokens.
			const n = callsBeyond(3000 - countTokens(prompt(0)) - 100, 1);
			const answers = await calls(provider, n, failed, 1);
			assert.equal(answers.length, n);
			assert.ok(waits.includes('tokens'), 'the last call waited for the tokens budget');
			assert.ok(answers.every((a) => a.text.length > 0));
			assert.equal(
				failed.filter((f) => /429/u.test(f.reason)).length,
				fake.rateLimited,
				'each 429 was reported as a failed attempt',
			);
			// Rare, not none: this fake shares the test's event loop, so on a loaded machine a call may
			// reach it later than a real server would, after the budget said it had room.
			assert.ok(fake.rateLimited <= 3, `${fake.rateLimited} answers of 429 for ${n + 1} calls`);
			assert.deepEqual(provider.limiter?.limits, { tokens: 3000 });
		});
	});

	test(`${api}: a server that sends no rate-limit headers, nor a retry-after, still gets every call through`, async () => {
		await withLimitedFake({}, async (fake) => {
			const provider = providerFor(api, fake);
			// Three bare 429s (no limits stated, no retry-after), as an OpenAI-compatible server sends them.
			for (let i = 0; i < 3; i++) fake.fail({ kind: 'status', status: 429 });
			const failed: FailedAttempt[] = [];
			const answers = await calls(provider, 12, failed);
			assert.equal(answers.length, 12);
			assert.equal(failed.length, 3, 'each 429 was reported as a failed attempt');
			assert.ok(failed.every((f) => /429/u.test(f.reason)));
			assert.equal(provider.limiter?.snapshot().refusals, 3);
			assert.deepEqual(provider.limiter?.limits, {}, 'no limit was read from a server that states none');
		});
	});

	test(`${api}: another client on the same key spends the minute's tokens: the call held back says another process is using the limit`, async () => {
		await withLimitedFake({ limits: { tpm: 60_000 } }, async (fake) => {
			const provider = providerFor(api, fake);
			const key = `sk-limits-${keys}`;
			// The other process: the same key and model, straight to the server, until it refuses.
			const spend = async (maxTokens: number) => {
				const path = api === 'openai' ? '/v1/chat/completions' : '/v1/messages';
				const response = await fetch(`${fake.url}${path}`, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						authorization: `Bearer ${key}`,
						'anthropic-version': '2023-06-01',
					},
					body: JSON.stringify({
						model: MODEL[api],
						stream: true,
						max_tokens: maxTokens,
						messages: [{ role: 'user', content: 'Say a few words.' }],
					}),
				});
				await response.text();
				return response.status;
			};
			for (const size of [10_000, 1000, 100]) while ((await spend(size)) === 200);
			const waits: RateWait[] = [];
			provider.limiter!.subscribe((state) => state.wait && waits.push(state.wait));
			const cancel = new AbortController();
			// A call asking for a third of the minute: the server has about nothing left, though this process spent nothing.
			const call = provider
				.complete(request(prompt(0), { maxTokens: 20_000, signal: cancel.signal }))
				.catch((e: unknown) => e);
			const shared = await waitFor('a wait that names the other process', () => waits.find((w) => w.shared), {
				detail: () => JSON.stringify(waits),
			});
			cancel.abort();
			await call;
			const text = rateWaitText({ ...provider.limiter!.snapshot(), wait: shared }, Date.now());
			assert.match(text ?? '', /another process on this key/u);
		});
	});

	test(`${api}: a limit that drops mid-run is followed`, async () => {
		await withLimitedFake({ limits: { tpm: 100_000 } }, async (fake) => {
			const provider = providerFor(api, fake);
			await calls(provider, 5);
			fake.limits = { tpm: 3000 };
			const answers = await calls(provider, 15);
			assert.equal(answers.length, 15);
			assert.deepEqual(provider.limiter?.limits, { tokens: 3000 });
		});
	});

	test(`${api}: an account out of credit fails the call at once, in one line that says what to do`, async () => {
		await withLimitedFake({}, async (fake) => {
			fake.quota = 0;
			const error = await providerFor(api, fake)
				.complete(request('Hello there.'))
				.catch((e: unknown) => e);
			assert.ok(error instanceof ProviderError);
			assert.equal(error.retryable, false);
			assert.match(error.message, /out of credit or over its spending limit.*add credit/u);
			assert.doesNotMatch(error.message, /\n/u);
			assert.equal(fake.requests.length, 1, 'no retry spent on it');
		});
	});

	test(`${api}: an unknown model and a prompt longer than the model's window fail at once with their fix`, async () => {
		await withLimitedFake({}, async (fake) => {
			fake.models = ['some-other-model'];
			const unknown = await providerFor(api, fake)
				.complete(request('Hello there.'))
				.catch((e: unknown) => e);
			assert.ok(unknown instanceof ProviderError && !unknown.retryable);
			assert.match(unknown.message, /404 Not Found — check the model name/u);
			fake.models = null;
			fake.contextWindow = 5;
			const long = await providerFor(api, fake)
				.complete(request('A prompt of many more tokens than five.'))
				.catch((e: unknown) => e);
			assert.ok(long instanceof ProviderError && !long.retryable);
			assert.match(long.message, /longer than .* can read.*--context-window/u);
			assert.equal(fake.requests.length, 2);
		});
	});

	test(`${api}: a call larger than the whole minute's limit fails at once instead of waiting for ever`, async () => {
		await withLimitedFake({ limits: { tpm: 150 } }, async (fake) => {
			const provider = providerFor(api, fake);
			const error = await calls(provider, 1).catch((e: unknown) => e);
			assert.ok(error instanceof ProviderError && !error.retryable, String(error));
			assert.match(error.message, /(more tokens than the account's whole per-minute limit|rate limit)/u);
		});
	});

	test(`${api}: rate limits that let no call through for the wait allowed end the call with the way on`, async () => {
		await withLimitedFake({ limits: { rpm: 1, headers: false } }, async (fake) => {
			// Refused at once, then after 1 s; the pause after that (2 s) would outlast the wait allowed.
			const provider = providerFor(api, fake, { rateLimitWaitMs: 2500 });
			await calls(provider, 1);
			const failed: FailedAttempt[] = [];
			const error = await calls(provider, 1, failed).catch((e: unknown) => e);
			assert.ok(error instanceof ProviderError, String(error));
			assert.match(error.message, /rate limited for 3 s with no call answered .*--rate-limit-wait$/u);
			assert.equal(failed.length, 2, 'it was asked again, and not once the next pause went past the bound');
		});
	});

	test(`${api}: a server that refuses every call with an absurd retry-after (0, less, years, a date in 2099) is asked a few times, and the call ends at the wait allowed`, async () => {
		const warnings: string[] = [];
		const onWarning = (warning: Error) => warnings.push(warning.name);
		process.on('warning', onWarning);
		try {
			const bound = 2000;
			await Promise.all(
				ABSURD_RETRY_AFTER.map((headers) =>
					withLimitedFake({}, async (fake) => {
						fake.refusing = headers;
						const provider = providerFor(api, fake, { rateLimitWaitMs: bound });
						const started = Date.now();
						const error = await calls(provider, 1).catch((e: unknown) => e);
						const took = Date.now() - started;
						const said = JSON.stringify(headers);
						assert.ok(error instanceof ProviderError, `${said}: ${String(error)}`);
						assert.match(error.message, /rate limited for 2 s with no call answered/u, said);
						// Without a floor on the pause, a wait of 0 is asked again hundreds of times a second.
						assert.ok(fake.requests.length <= 3, `${said}: asked ${fake.requests.length} times`);
						// The bound, plus one call and the slack of a loaded machine.
						assert.ok(took < bound + 3000, `${said}: ended after ${took} ms`);
					}),
				),
			);
			await new Promise(setImmediate);
			assert.deepEqual(warnings, [], 'no timer beyond what Node keeps');
		} finally {
			process.off('warning', onWarning);
		}
	});

	test(`${api}: --tpm below one call's size fails the call at once, naming its size and the limit, with no request sent`, async () => {
		await withLimitedFake({}, async (fake) => {
			const provider = providerFor(api, fake, { limits: { tpm: 1 } });
			const error = await calls(provider, 1).catch((e: unknown) => e);
			assert.ok(error instanceof ProviderError && !error.retryable, String(error));
			assert.match(
				error.message,
				new RegExp(
					`^${api}: one call asks for [\\d,]+ tokens \\(its prompt plus its output limit\\), more than --tpm allows in a whole minute \\(1\\), so no wait lets it through; raise --tpm`,
					'u',
				),
			);
			assert.doesNotMatch(error.message, /\n/u);
			assert.equal(fake.requests.length, 0);
		});
	});
}

test('anthropic: input and output tokens are paced each on its own, and the unused output limit comes back', async () => {
	await withLimitedFake({ limits: { itpm: 100_000, otpm: 1000 } }, async (fake) => {
		const provider = providerFor('anthropic', fake);
		// 20 calls with an output limit of 100: 2,000 asked of a 1,000 output budget, though each
		// uses a few tokens, which come back.
		const answers = await calls(provider, 20);
		assert.equal(answers.length, 20);
		assert.deepEqual(provider.limiter?.limits, { input: 100_000, output: 1000 });
		assert.ok(fake.rateLimited <= 3, `${fake.rateLimited} answers of 429`);
	});
});

test('anthropic: a prompt prefix read from the cache is not counted against the input limit, as Anthropic does not count it', async () => {
	await withLimitedFake({ limits: { itpm: 3000 } }, async (fake) => {
		const provider = providerFor('anthropic', fake);
		const waits: string[] = [];
		provider.limiter!.subscribe((state) => state.wait && waits.push(state.wait.why));
		// BooookScore's shape: a long shared prefix (instructions and summary), then one sentence.
		const prefix = `${'Read the summary and say which sentences confuse you. '.repeat(250)}\n\n`;
		const ask = (i: number) =>
			provider.complete(
				request(`${prefix}Sentence ${i}: the captain crosses the river.`, {
					cacheablePrefix: prefix,
					maxTokens: 100,
				}),
			);
		await ask(0);
		// Ten more of about 2,500 tokens each, 25,000 in all: counted whole they would wait minutes.
		for (let i = 1; i <= 10; i++) await ask(i);
		assert.deepEqual(waits, [], 'no call waited for the input budget');
		assert.equal(fake.rateLimited, 0);
	});
});
