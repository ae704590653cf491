import { test } from 'node:test';
import { PassThrough } from 'node:stream';
import { headlessReporter, progressReporter } from '../../source/commands/progress.ts';
import assert from 'node:assert/strict';
import { readLimits, retryAfterMs } from '../../source/llm/rate-headers.ts';
import {
	limitedSeconds,
	MIN_PAUSE_MS,
	RateLimiter,
	RateLimitRefusal,
	type Ask,
	type RateLimitState,
} from '../../source/llm/rate-limit.ts';
import { limitedEtaSeconds, rateWaitText } from '../../source/format/progress.ts';
import { scoreStatus } from '../../source/ui/state/score-view.ts';

const headers = (entries: Record<string, string>) => new Headers(entries);

test('readLimits: OpenAI requests and tokens, Anthropic requests, input and output on their own (its combined tokens only without them)', () => {
	assert.deepEqual(
		readLimits(
			headers({
				'x-ratelimit-limit-requests': '500',
				'x-ratelimit-remaining-requests': '499',
				'x-ratelimit-limit-tokens': '30000',
				'x-ratelimit-remaining-tokens': '27000',
				'x-ratelimit-reset-tokens': '6s',
			}),
		),
		{ requests: { limit: 500, remaining: 499 }, tokens: { limit: 30000, remaining: 27000 } },
	);
	const anthropic = {
		'anthropic-ratelimit-requests-limit': '50',
		'anthropic-ratelimit-requests-remaining': '49',
		'anthropic-ratelimit-input-tokens-limit': '30000',
		'anthropic-ratelimit-input-tokens-remaining': '28000',
		'anthropic-ratelimit-output-tokens-limit': '8000',
		'anthropic-ratelimit-output-tokens-remaining': '7000',
		'anthropic-ratelimit-tokens-limit': '8000',
		'anthropic-ratelimit-tokens-remaining': '7000',
	};
	assert.deepEqual(readLimits(headers(anthropic)), {
		requests: { limit: 50, remaining: 49 },
		input: { limit: 30000, remaining: 28000 },
		output: { limit: 8000, remaining: 7000 },
	});
	assert.deepEqual(
		readLimits(
			headers({ 'anthropic-ratelimit-tokens-limit': '60000', 'anthropic-ratelimit-tokens-remaining': '100' }),
		),
		{ tokens: { limit: 60000, remaining: 100 } },
	);
	assert.deepEqual(
		readLimits(headers({ 'x-ratelimit-limit-tokens': 'lots', 'x-ratelimit-remaining-tokens': '1' })),
		{},
	);
});

test('retryAfterMs: retry-after-ms first, else retry-after in seconds or as a date, else nothing', () => {
	assert.equal(retryAfterMs(headers({ 'retry-after-ms': '1500', 'retry-after': '2' })), 1500);
	assert.equal(retryAfterMs(headers({ 'retry-after': '3' })), 3000);
	const now = Date.parse('2026-11-25T12:00:00Z');
	assert.equal(retryAfterMs(headers({ 'retry-after': 'Wed, 25 Nov 2026 12:00:10 GMT' }), now), 10_000);
	assert.equal(retryAfterMs(headers({})), null);
});

test('retryAfterMs: a wait of 0 or less, or a date passed, names no wait; a huge one is kept as it is', () => {
	const now = Date.parse('2026-11-25T12:00:00Z');
	const none: Record<string, string>[] = [
		{ 'retry-after': '0' },
		{ 'retry-after': '-30' },
		{ 'retry-after-ms': '-5000', 'retry-after': '-5' },
		{ 'retry-after-ms': '0' },
		{ 'retry-after': 'Wed, 25 Nov 2026 11:00:00 GMT' },
		{ 'retry-after': 'soon' },
	];
	for (const said of none) assert.equal(retryAfterMs(headers(said), now), null, JSON.stringify(said));
	assert.equal(retryAfterMs(headers({ 'retry-after-ms': '0', 'retry-after': '2' }), now), 2000);
	assert.equal(retryAfterMs(headers({ 'retry-after': '99999999999' }), now), 99_999_999_999_000);
	assert.equal(
		retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2099 00:00:00 GMT' }), now),
		Date.parse('2099-01-01T00:00:00Z') - now,
	);
});

/** The wait a call asked for now is shown with (it is then cancelled, so nothing stays pending). */
function waitOf(limiter: RateLimiter, ask: Ask = { input: 10, output: 10 }) {
	const cancel = new AbortController();
	const held = limiter.acquire(ask, { signal: cancel.signal }).catch(() => null);
	const wait = limiter.snapshot().wait;
	cancel.abort();
	return { wait, held };
}

test('a 429 that names no wait, or 0, or less, pauses 1 s, doubled by each refusal after it; no pause is shorter than 1 s', async () => {
	let now = 1_000_000;
	const limiter = new RateLimiter({ now: () => now });
	const refuse = async (retryAfter: number | null) => {
		limiter.refused(await limiter.acquire({ input: 10, output: 10 }), retryAfter);
		const { wait, held } = waitOf(limiter);
		assert.equal(await held, null);
		return wait!.resumesAt - now;
	};
	assert.equal(await refuse(0), 1000);
	now += 1000;
	assert.equal(await refuse(-30_000), 2000);
	now += 2000;
	assert.equal(await refuse(null), 4000);
	now += 4000;
	// A wait named, however short, is the floor at least; it does not double the pause after no wait.
	assert.equal(await refuse(1), MIN_PAUSE_MS);
	assert.equal(limiter.snapshot().refusals, 4);
});

test("a call held past its bound gives up then, whatever the server's wait; no timer is set beyond what Node keeps", async () => {
	const warnings: string[] = [];
	const onWarning = (warning: Error) => warnings.push(warning.name);
	process.on('warning', onWarning);
	try {
		const limiter = new RateLimiter();
		const states: RateLimitState[] = [];
		limiter.subscribe((s) => states.push(s));
		// "retry-after: 99999999999": three thousand years.
		limiter.refused(await limiter.acquire({ input: 10, output: 10 }), 99_999_999_999_000);
		const started = Date.now();
		const error = await limiter
			.acquire({ input: 10, output: 10 }, { bound: { since: started, ms: 1000 } })
			.catch((e: unknown) => e);
		const waited = Date.now() - started;
		assert.ok(error instanceof RateLimitRefusal && !error.tooLarge, String(error));
		assert.match(error.message, /^rate limited for 1 s with no call answered: .*--rate-limit-wait$/u);
		assert.ok(waited >= 950, `gave up after ${waited} ms, before its bound`);
		const wait = states.find((s) => s.wait)!.wait!;
		assert.ok(wait.endsAt! - started <= 1000, 'the wait shown ends at the bound');
		assert.match(
			rateWaitText({ ...states.find((s) => s.wait)!, wait }, started)!,
			/^waiting for the rate limit: longer than --rate-limit-wait allows, stops in 1s$/u,
		);
		assert.equal(states.at(-1)?.wait, null, 'nothing waits once it gave up');
		// Warnings are emitted on the next tick.
		await new Promise(setImmediate);
		assert.deepEqual(warnings, []);
	} finally {
		process.off('warning', onWarning);
	}
});

test('a call larger than a whole minute of a limit fails at once, stated or learned, naming its size and the limit', async () => {
	const stated = new RateLimiter({ stated: { tpm: 100 } });
	const error = await stated.acquire({ input: 90, output: 50 }).catch((e: unknown) => e);
	assert.ok(error instanceof RateLimitRefusal && error.tooLarge, String(error));
	assert.equal(
		error.message,
		"one call asks for 140 tokens (its prompt plus its output limit), more than --tpm allows in a whole minute (100), so no wait lets it through: raise --tpm to the account's limit, or use a smaller --chunk-size or --max-summary",
	);
	const learned = new RateLimiter();
	const a = await learned.acquire({ input: 10, output: 10 });
	learned.observe(a, { output: { limit: 1000, remaining: 1000 } }, 200);
	learned.settle(a, { input: 10, output: 5 });
	await assert.rejects(
		learned.acquire({ input: 10, output: 4000 }),
		/^RateLimitRefusal: one call asks for 4,000 output tokens \(its output limit\), more than the account's limit allows in a whole minute \(1,000\)/u,
	);
	// One that fits still goes.
	learned.release(await learned.acquire({ input: 10, output: 900 }));
});

test('a call that does not fit the tokens left waits until the budget has refilled enough for it, and says why while it waits', async () => {
	// 6,000 tokens a minute: 100 a second.
	const limiter = new RateLimiter({ stated: { tpm: 6000 } });
	const states: RateLimitState[] = [];
	limiter.subscribe((s) => states.push(s));
	const first = await limiter.acquire({ input: 5000, output: 900 });
	const started = Date.now();
	// 100 tokens are left; this call asks for 150, so it waits for 50 more: half a second.
	const second = await limiter.acquire({ input: 100, output: 50 });
	const waited = Date.now() - started;
	assert.ok(waited >= 450, `let through after ${waited} ms, before the budget had room`);
	const wait = states.find((s) => s.wait)?.wait;
	assert.equal(wait?.why, 'tokens');
	assert.equal(wait?.limit, 6000);
	assert.ok(wait!.used >= 5890 && wait!.used <= 6000, `${wait?.used} of the limit said to be spent`);
	assert.match(
		rateWaitText(
			states.find((s) => s.wait)!,
			wait!.resumesAt - 2000,
		)!,
		/^waiting for the rate limit: resumes in 2s \(5,9\d\d of 6,000 tokens a minute used\)$/u,
	);
	assert.equal(states.at(-1)?.wait, null, 'the wait is over once the call went');
	limiter.settle(first, { input: 5000, output: 300 });
	limiter.settle(second, { input: 100, output: 20 });
	assert.deepEqual(
		{ answered: limiter.snapshot().answered, asked: limiter.snapshot().asked, used: limiter.snapshot().used },
		{ answered: 2, asked: 6050, used: 5420 },
	);
});

test('waiting calls go first come first served: a small call does not pass a large one held before it', async () => {
	const limiter = new RateLimiter({ stated: { tpm: 60_000 } });
	await limiter.acquire({ input: 59_000, output: 0 });
	const order: string[] = [];
	const big = limiter.acquire({ input: 1500, output: 0 }).then(() => order.push('big'));
	const small = limiter.acquire({ input: 10, output: 0 }).then(() => order.push('small'));
	await Promise.all([big, small]);
	assert.deepEqual(order, ['big', 'small']);
});

test("a response's headers set the budget: what the server had left, less what was sent after the call it answers", async () => {
	const limiter = new RateLimiter();
	const a = await limiter.acquire({ input: 1000, output: 500 });
	const b = await limiter.acquire({ input: 1000, output: 500 });
	// The server had 2,000 of 10,000 left after counting a; b it had not seen: 500 are left for the next call.
	limiter.observe(a, { tokens: { limit: 10_000, remaining: 2000 } }, 200, Date.now() + 60);
	assert.deepEqual(limiter.limits, { tokens: 10_000 });
	const started = Date.now();
	const c = await limiter.acquire({ input: 600, output: 0 });
	// 100 tokens short at 10,000 a minute: 0.6 s.
	assert.ok(Date.now() - started >= 550, 'the next call waited for the tokens the server did not have');
	for (const t of [a, b, c]) limiter.release(t);
});

test('a limit that drops mid-run is followed: the next headers shrink the budget and later calls wait for the new one', async () => {
	const limiter = new RateLimiter();
	const a = await limiter.acquire({ input: 100, output: 100 });
	limiter.observe(a, { tokens: { limit: 100_000, remaining: 99_800 } }, 200);
	const b = await limiter.acquire({ input: 100, output: 100 });
	limiter.observe(b, { tokens: { limit: 6000, remaining: 0 } }, 200);
	assert.deepEqual(limiter.limits, { tokens: 6000 });
	const states: RateLimitState[] = [];
	limiter.subscribe((s) => states.push(s));
	const c = limiter.acquire({ input: 50, output: 0 });
	await c;
	assert.equal(states.find((s) => s.wait)?.wait?.limit, 6000);
});

test('stated limits pace from the first call; the server stating its own replaces them', async () => {
	const limiter = new RateLimiter({ stated: { tpm: 1000, rpm: 100 } });
	assert.deepEqual(limiter.limits, { tokens: 1000, requests: 100 });
	const a = await limiter.acquire({ input: 10, output: 10 });
	limiter.observe(a, { tokens: { limit: 500_000, remaining: 499_000 } }, 200);
	assert.deepEqual(limiter.limits, { tokens: 500_000 });
});

test('a 429 from a server that states no limits halves the calls let through at once; they grow back with answers', async () => {
	const limiter = new RateLimiter();
	const tickets = await Promise.all(
		Array.from({ length: 8 }, () => limiter.acquire({ input: 10, output: 10 })),
	);
	limiter.observe(tickets[0]!, {}, 429);
	limiter.refused(tickets[0]!, 0);
	// 8 were in flight: 4 may be now, and 7 still are.
	let through = false;
	const next = limiter.acquire({ input: 10, output: 10 }).then((t) => ((through = true), t));
	for (const t of tickets.slice(1, 4)) limiter.release(t);
	await new Promise(setImmediate);
	assert.equal(through, false, 'four in flight is as many as the window allows');
	limiter.release(tickets[4]!);
	const ticket = await next;
	assert.equal(limiter.snapshot().refusals, 1);
	for (const t of [...tickets.slice(5), ticket]) limiter.release(t);
});

test("a 429's retry-after holds every call, not only the one refused", async () => {
	const limiter = new RateLimiter();
	const a = await limiter.acquire({ input: 10, output: 10 });
	limiter.refused(a, 400);
	const started = Date.now();
	limiter.release(await limiter.acquire({ input: 10, output: 10 }));
	assert.ok(Date.now() - started >= 350, 'the server asked for 400 ms');
});

test("Anthropic's output budget gets back what a call did not use of its output limit", async () => {
	const limiter = new RateLimiter({ refundsOutput: true });
	const a = await limiter.acquire({ input: 100, output: 4000 });
	limiter.observe(a, { output: { limit: 8000, remaining: 4000 } }, 200);
	limiter.settle(a, { input: 100, output: 200 });
	// 3,800 came back: a call asking for 7,500 fits at once (nearly: the refill does the rest in a moment).
	const started = Date.now();
	const b = await limiter.acquire({ input: 100, output: 7700 });
	assert.ok(Date.now() - started < 3000, 'the unused output limit came back');
	limiter.release(b);
});

test('limitedSeconds: the tokens or requests beyond the first minute, at the rate of the limit', () => {
	assert.equal(limitedSeconds(10, 50_000, { tpm: 60_000 }), 0);
	assert.equal(limitedSeconds(10, 150_000, { tpm: 60_000 }), 90);
	assert.equal(limitedSeconds(1000, 10, { rpm: 500 }), 60);
	assert.equal(
		limitedEtaSeconds(10, { wait: null, answered: 10, asked: 50_000, limits: { tokens: 100_000 } }),
		30,
	);
	assert.equal(limitedEtaSeconds(10, null), null);
});

test("the BooookScore status line ends with the rate limit's wait while it holds calls back, and drops it after", () => {
	const figures = { refusals: 0, answered: 3, asked: 15_000, used: 14_000, limits: { input: 30_000 } };
	const ctx = { seconds: 4, now: 1_000_000, continueWith: 'booook score s' };
	const line = '3/40 calls · 15,000 tokens in (12,000 cached) · 90 out · $0.0010 (cache saved $0.0030) · 4s';
	const waiting = scoreStatus(
		line,
		{
			type: 'rate-limit',
			...figures,
			wait: { resumesAt: 1_009_000, why: 'input', used: 29_500, limit: 30_000 },
		},
		ctx,
	);
	assert.equal(
		waiting,
		`${line} · waiting for the rate limit: resumes in 9s (29,500 of 30,000 input tokens a minute used)`,
	);
	assert.equal(scoreStatus(waiting, { type: 'rate-limit', ...figures, wait: null }, ctx), line);
});

test("the rate limit's wait says which figure is used, and fits a narrow header by dropping words, never the time", () => {
	const figures = {
		answered: 3,
		asked: 15_000,
		limits: { tokens: 60_000 },
		wait: { resumesAt: 1_003_000, why: 'tokens' as const, used: 60_000, limit: 60_000 },
	};
	assert.equal(
		rateWaitText(figures, 1_000_000),
		'waiting for the rate limit: resumes in 3s (60,000 of 60,000 tokens a minute used)',
	);
	for (const width of [70, 40, 10]) {
		const text = rateWaitText(figures, 1_000_000, width)!;
		assert.match(text, /resumes in 3s/u, `${width}: ${text}`);
		assert.ok(text.length <= Math.max(width, 'rate limit: resumes in 3s'.length), `${width}: ${text}`);
	}
});

test('headers that say less is left than this process used: the wait says another process on this key uses the limit, and how much', async () => {
	const now = 1_000_000;
	const limiter = new RateLimiter({ now: () => now });
	const a = await limiter.acquire({ input: 1000, output: 0 });
	// The server counted this process's call and nothing else: no one else is using the limit.
	limiter.observe(a, { tokens: { limit: 10_000, remaining: 9000 } }, 200);
	limiter.settle(a, { input: 1000, output: 0 });
	const alone = waitOf(limiter, { input: 9500, output: 0 });
	assert.equal(await alone.held, null);
	assert.equal(alone.wait?.why, 'tokens');
	assert.equal(alone.wait?.shared, undefined, 'this process alone used what the server counted');
	assert.doesNotMatch(rateWaitText({ ...limiter.snapshot(), wait: alone.wait }, now)!, /another process/u);

	const b = await limiter.acquire({ input: 1000, output: 0 });
	// This process used 2,000 of the minute; the server has 2,000 left of 10,000: 6,000 were not ours.
	limiter.observe(b, { tokens: { limit: 10_000, remaining: 2000 } }, 200);
	limiter.settle(b, { input: 1000, output: 0 });
	const { wait, held } = waitOf(limiter, { input: 5000, output: 0 });
	assert.equal(await held, null);
	assert.equal(wait?.why, 'tokens');
	const others = wait?.shared?.others ?? 0;
	assert.ok(Math.abs(others - 6000) < 100, `${others} said to be another's`);
	const text = rateWaitText({ ...limiter.snapshot(), wait }, now)!;
	assert.match(
		text,
		/^waiting for the rate limit: resumes in \d+s \(8,0\d\d of 10,000 tokens a minute used, [56],\d{3} of them by another process on this key\)$/u,
	);
	for (const width of [80, 60]) {
		const fitted = rateWaitText({ ...limiter.snapshot(), wait }, now, width)!;
		assert.ok(fitted.length <= width, fitted);
		assert.match(fitted, /another process/u, `${width}: ${fitted}`);
		assert.match(fitted, /resumes in \d+s/u, `${width}: ${fitted}`);
	}
});

test('a 429 while this process is well under the limit the server stated: the pause says another process uses it; a 429 at its own limit does not', async () => {
	const now = 1_000_000;
	const under = new RateLimiter({ now: () => now });
	const a = await under.acquire({ input: 100, output: 100 });
	under.observe(a, { tokens: { limit: 10_000, remaining: 9800 } }, 200);
	under.settle(a, { input: 100, output: 50 });
	under.refused(await under.acquire({ input: 100, output: 100 }), 5000);
	const shared = waitOf(under);
	assert.equal(await shared.held, null);
	assert.equal(shared.wait?.why, 'retry-after');
	assert.deepEqual(shared.wait?.shared, {});
	assert.equal(
		rateWaitText({ ...under.snapshot(), wait: shared.wait }, now),
		'waiting for the rate limit, which another process on this key is using too: the server asked to wait, resumes in 5s',
	);

	const full = new RateLimiter({ now: () => now });
	const b = await full.acquire({ input: 9000, output: 0 });
	full.observe(b, { tokens: { limit: 10_000, remaining: 1000 } }, 200);
	full.settle(b, { input: 9000, output: 0 });
	full.refused(await full.acquire({ input: 900, output: 0 }), 5000);
	const own = waitOf(full);
	assert.equal(await own.held, null);
	assert.equal(own.wait?.why, 'retry-after');
	assert.equal(own.wait?.shared, undefined, "this process's own calls explain the refusal");
	assert.equal(
		rateWaitText({ ...full.snapshot(), wait: own.wait }, now),
		'waiting for the rate limit: the server asked to wait, resumes in 5s',
	);
});

test("score's and a run's progress lines, while another process holds the limit, keep the counts and say so within 80 columns", () => {
	const wait = {
		resumesAt: 1_012_000,
		why: 'tokens' as const,
		used: 59_000,
		limit: 60_000,
		shared: { others: 52_000 },
	};
	const figures = { refusals: 2, answered: 0, asked: 0, used: 0, limits: { tokens: 60_000 } };
	for (const columns of [80, null]) {
		const lines = (report: (event: never) => void, stream: PassThrough & { written: string }) => {
			report({ type: 'rate-limit', ...figures, wait } as never);
			const drawn = stream.written.split('\r\u001b[2K').join('\n').split('\n').filter(Boolean);
			return drawn.at(-1)!;
		};
		const stream = () => {
			const s = Object.assign(new PassThrough(), { written: '' }, columns ? { isTTY: true, columns } : {});
			s.on('data', (d) => (s.written += d));
			return s;
		};
		const scoring = stream();
		const score = progressReporter(scoring, () => 1_000_000);
		score({
			type: 'annotate-started',
			session: 's',
			annotator: 'openai/gpt-4o-mini',
			summaries: [],
			units: 55,
			sentences: 55,
			recovered: 0,
		});
		const scored = lines(score as never, scoring);
		const running = stream();
		const run = headlessReporter({
			json: false,
			stdout: new PassThrough(),
			stderr: running,
			now: () => 1_000_000,
		});
		run({
			type: 'run-started',
			session: 's',
			method: 'hier',
			provider: 'openai',
			model: 'm',
			isLLM: true,
			planned: 48,
			levels: [],
			done: 0,
		});
		const ran = lines(run as never, running);
		for (const [line, counts] of [
			[
				scored,
				columns ? /^\[0\/55 calls\] / : /^\[0\/55 calls, 2 refused \(429\)\] 0\/55 sentences, ETA \?; /u,
			],
			[ran, /^\[0\/48 calls\] /u],
		] as const) {
			assert.match(line, counts, line);
			assert.match(
				line,
				columns ? /another process/u : /52,000 of them by another process on this key/u,
				line,
			);
			assert.match(line, /resumes in 12s/u, line);
			if (columns) assert.ok(line.length < columns, `${line.length}: ${line}`);
		}
	}
});
