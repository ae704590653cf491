import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { annotatingReply, startFakeApi, type FakeApi, type FakeLimits } from '../support/fake-api.ts';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { tinyBookText } from '../support/study-books.ts';
import { summaryReply } from '../support/summary-reply.ts';

/**
 * A run, its scoring and a study, through the real CLI, against a fake API that enforces a
 * tokens-a-minute limit: each asks for a little more than a minute allows, so a call must wait
 * for the budget, and each finishes without a failure.
 */

const respond = (input: Parameters<typeof summaryReply>[0]) =>
	/\[Your sentence/u.test(input.prompt) ? annotatingReply(input) : summaryReply(input);

async function withFake(
	limits: FakeLimits | undefined,
	body: (fake: FakeApi) => Promise<void>,
): Promise<void> {
	const fake = await startFakeApi({ respond, ...(limits ? { limits } : {}) });
	try {
		await body(fake);
	} finally {
		await fake.close();
	}
}

/** Tokens (prompt plus output limit) the requests let in cost, as the fake counted them. */
async function charged(fake: FakeApi): Promise<number> {
	const stats = (await (await fetch(`${fake.url}/stats`)).json()) as { charged?: { tokens?: number } };
	return stats.charged?.tokens ?? Number.NaN;
}

const events = (stdout: string) =>
	stdout
		.trim()
		.split('\n')
		.map(
			(line) =>
				JSON.parse(line) as {
					type: string;
					wait?: { why: string; resumesAt: number; endsAt?: number } | null;
					status?: string;
					error?: string | null;
				},
		);

test(
	'a run under a tokens-a-minute limit below what it asks for finishes, waiting for the limit and saying so',
	{ timeout: 120_000 },
	async () => {
		const dir = tempDir('rate-run');
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(120));
		const run = (fake: FakeApi, key: string) =>
			booook(
				[
					'run',
					book,
					'--provider',
					'openai',
					'--base-url',
					fake.openaiBaseUrl,
					'--chunk-size',
					'512',
					'--context-window',
					'2048',
					'--max-summary',
					'200',
					'--sessions-dir',
					join(dir, key),
					'--json',
				],
				{ env: { OPENAI_API_KEY: key } },
			);
		// What the run asks for, measured once without a limit that bites.
		let asked = 0;
		await withFake({ tpm: 10_000_000 }, async (fake) => {
			const r = await run(fake, 'sk-measure');
			assert.equal(r.code, 0, r.stderr);
			asked = await charged(fake);
		});
		assert.ok(asked > 1000, `the run asked for ${asked} tokens`);
		// A limit below that: the last calls wait some seconds for the budget to refill, however slowly the machine makes them.
		await withFake({ tpm: Math.round(asked * 0.85) }, async (fake) => {
			const r = await run(fake, 'sk-limited');
			assert.equal(r.code, 0, r.stderr);
			const seen = events(r.stdout);
			assert.ok(
				seen.some((e) => e.type === 'rate-limit' && e.wait?.why === 'tokens'),
				'a rate-limit event said the run waited for the tokens budget',
			);
			assert.equal(seen.at(-1)?.type, 'run-finished');
			assert.equal(seen.at(-1)?.status, 'done');
			const [session] = readdirSync(join(dir, 'sk-limited'));
			const failed = readFileSync(join(dir, 'sk-limited', session!, 'calls.jsonl'), 'utf8')
				.split('\n')
				.filter((l) => /"error":"HTTP 429/u.test(l));
			assert.equal(failed.length, fake.rateLimited, 'every 429 is in calls.jsonl');
		});
	},
);

test(
	'scoring under a limit below what it asks for finishes, and says while it waits',
	{ timeout: 120_000 },
	async (t) => {
		const dir = tempDir('rate-score');
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(120));
		const first = join(dir, 'first');
		const score = (fake: FakeApi, sessions: string, id: string, key: string) =>
			booook(['score', id, '--sessions-dir', sessions, '--base-url', fake.openaiBaseUrl], {
				env: { OPENAI_API_KEY: key },
			});
		let asked = 0;
		let id = '';
		await withFake({ tpm: 10_000_000 }, async (fake) => {
			const r = await booook(
				[
					'run',
					book,
					'--provider',
					'openai',
					'--base-url',
					fake.openaiBaseUrl,
					'--chunk-size',
					'512',
					'--context-window',
					'2048',
					'--max-summary',
					'200',
					'--sessions-dir',
					first,
					'--headless',
				],
				{ env: { OPENAI_API_KEY: 'sk-run' } },
			);
			assert.equal(r.code, 0, r.stderr);
			[id] = readdirSync(first) as [string];
			cpSync(first, join(dir, 'second'), { recursive: true });
			const before = await charged(fake);
			const scored = await score(fake, first, id, 'sk-measure');
			assert.equal(scored.code, 0, scored.stderr);
			asked = (await charged(fake)) - before;
		});
		await withFake({ tpm: Math.round(asked * 0.85) }, async (fake) => {
			const r = await score(fake, join(dir, 'second'), id, 'sk-limited');
			assert.equal(r.code, 0, r.stderr);
			assert.match(
				r.stderr,
				/waiting for the rate limit: resumes in \d+s \([\d,]+ of [\d,]+ tokens a minute used\)/u,
			);
			assert.match(r.stdout, /BooookScore/u);
			// Refused attempts are asked again, but the total is the calls to answer, whatever the 429s.
			const totals = new Set([...r.stderr.matchAll(/\[\d+\/(\d+) calls/gu)].map((m) => m[1]));
			assert.equal(totals.size, 1, r.stderr);
			t.diagnostic(`${fake.rateLimited} answers of 429`);
		});
	},
);

test('a study whose cells share one limit finishes every cell', { timeout: 120_000 }, async () => {
	const dir = tempDir('rate-study');
	const paths = [1, 2].map((seed) => {
		const path = join(dir, `book${seed}.txt`);
		writeFileSync(path, tinyBookText(60, seed));
		return path;
	});
	const file = join(dir, 'study.json');
	const study = (fake: FakeApi, key: string, tpm?: number) => {
		writeFileSync(
			file,
			JSON.stringify({
				name: 'limits',
				books: paths,
				methods: ['hier', 'inc'],
				providers: [{ provider: 'openai', baseUrl: fake.openaiBaseUrl, ...(tpm ? { tpm } : {}) }],
				chunkSizes: [512],
				contextWindows: [2048],
				maxSummary: 200,
			}),
		);
		return booook(['study', file, '--sessions-dir', join(dir, `s-${key}`)], { env: { OPENAI_API_KEY: key } });
	};
	let asked = 0;
	await withFake({ tpm: 10_000_000 }, async (fake) => {
		const r = await study(fake, 'sk-measure');
		assert.equal(r.code, 0, r.stderr);
		asked = await charged(fake);
	});
	const limit = Math.round(asked * 0.85);
	await withFake({ tpm: limit }, async (fake) => {
		// The file states the limit too, so the cells are paced from their first call.
		const r = await study(fake, 'sk-limited', limit);
		assert.equal(r.code, 0, r.stderr);
		assert.match(r.stderr, /limits: 4\/4 cells done/u);
		assert.match(r.stderr, /waiting for the rate limit: resumes in \d+s/u);
		assert.ok(fake.rateLimited <= 1, `${fake.rateLimited} answers of 429`);
	});
});

/** A run of a small book by gpt-4o-mini on `fake`, in its own folder of `dir`: headless, or with its events as JSON. */
function limitedRun(
	fake: FakeApi,
	dir: string,
	key: string,
	mode: '--headless' | '--json',
	...flags: string[]
) {
	const book = join(dir, 'book.txt');
	writeFileSync(book, tinyBookText(60));
	return booook(
		[
			'run',
			book,
			...['--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', fake.openaiBaseUrl],
			...['--chunk-size', '512', '--context-window', '2048', '--max-summary', '200'],
			...['--sessions-dir', join(dir, key), mode, ...flags],
		],
		{ env: { OPENAI_API_KEY: key } },
	);
}

/** Ms from the fake's first request to now. */
const sinceFirst = (fake: FakeApi) => Date.now() - (fake.requests[0]?.receivedAt ?? Number.NaN);

/** The run failed (exit 1) for the rate limit, with no warning of Node's on stderr. */
function assertStoppedByLimits(
	r: { code: number | null; stdout: string; stderr: string },
	waited: string,
): void {
	assert.equal(r.code, 1, r.stderr);
	const failure = r.stderr || (events(r.stdout).at(-1)?.error ?? '');
	assert.match(failure, new RegExp(`openai: rate limited for ${waited} with no call answered`, 'u'));
	assert.doesNotMatch(r.stderr, /Warning/u);
}

test(
	'against a server refusing every call with retry-after 0 (or none), a run asks a few times and stops at --rate-limit-wait, not past it',
	{ timeout: 120_000 },
	async () => {
		const dir = tempDir('rate-refused');
		// 0.14 minutes: 8.4 s. Pauses of 1, 2 and 4 s fit in it; the next (8 s) would end past it.
		const bound = 8400;
		const refusals: Record<string, string>[] = [{ 'retry-after': '0' }, {}];
		await Promise.all(
			refusals.map((headers, i) =>
				withFake(undefined, async (fake) => {
					fake.refusing = headers;
					const key = `sk-refused-${i}`;
					const r = await limitedRun(fake, dir, key, '--headless', '--rate-limit-wait', '0.14');
					const took = sinceFirst(fake);
					assertStoppedByLimits(r, '8 s');
					assert.match(
						r.stderr,
						/^run failed: .*\nFix the cause, then continue with: .* resume \S+ --sessions-dir \S+\n$/mu,
					);
					// A wait of 0 taken as it stands: hundreds of requests a second.
					assert.ok(fake.requests.length <= 20, `${fake.requests.length} requests`);
					// The bound plus one call, and a loaded machine's slack: not the pause after it too.
					assert.ok(took < bound + 3000, `stopped ${took} ms after the first request`);
					const [session] = readdirSync(join(dir, key));
					const logged = readFileSync(join(dir, key, session!, 'calls.jsonl'), 'utf8')
						.trim()
						.split('\n');
					assert.equal(logged.length, fake.requests.length, 'each refused attempt is a line of calls.jsonl');
				}),
			),
		);
	},
);

test(
	'a retry-after of years (in seconds, or a date in 2099) is shown as longer than the wait allowed, and the run stops at --rate-limit-wait',
	{ timeout: 120_000 },
	async () => {
		const dir = tempDir('rate-years');
		const refusals: Record<string, string>[] = [
			{ 'retry-after': '99999999999' },
			{ 'retry-after': 'Thu, 01 Jan 2099 00:00:00 GMT' },
		];
		await Promise.all(
			refusals.map((headers, i) =>
				withFake(undefined, async (fake) => {
					fake.refusing = headers;
					const r = await limitedRun(fake, dir, `sk-years-${i}`, '--json', '--rate-limit-wait', '0.05');
					const took = sinceFirst(fake);
					assertStoppedByLimits(r, '3 s');
					assert.ok(took < 3000 + 3000, `stopped ${took} ms after the first request`);
					const waits = events(r.stdout).filter((e) => e.type === 'rate-limit' && e.wait);
					assert.ok(waits.length > 0, 'the wait was shown');
					for (const { wait } of waits) assert.ok(wait!.endsAt! < wait!.resumesAt, JSON.stringify(wait));
				}),
			),
		);
	},
);

test('--tpm below one call fails a run at once, and `plan` refuses it, each naming the call and the limit', async () => {
	const dir = tempDir('rate-tpm');
	await withFake(undefined, async (fake) => {
		const r = await limitedRun(fake, dir, 'sk-tpm', '--headless', '--tpm', '1');
		assert.equal(r.code, 1, r.stderr);
		assert.match(
			r.stderr,
			/^run failed: .*: openai: one call asks for [\d,]+ tokens \(its prompt plus its output limit\), more than --tpm allows in a whole minute \(1\), so no wait lets it through; raise --tpm/mu,
		);
		assert.equal(fake.requests.length, 0, 'no call went');
	});
	const planned = await booook(
		['plan', join(dir, 'book.txt'), '--provider', 'openai', '--chunk-size', '512', '--tpm', '1'],
		{ env: {} },
	);
	assert.equal(planned.code, 2, planned.stderr);
	assert.equal(planned.stdout, '');
	assert.match(
		planned.stderr,
		/^booook: one call asks for [\d,]+ tokens \(its prompt plus its output limit\), more than --tpm allows in a whole minute \(1\), so no wait lets it through: raise --tpm to the account's limit, or use a smaller --chunk-size or --max-summary\n$/u,
	);
});
