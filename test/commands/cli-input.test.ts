import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { exportCommand } from '../../source/commands/export.ts';
import { planCommand } from '../../source/commands/plan.ts';
import { resumeCommand } from '../../source/commands/resume.ts';
import { runCommand } from '../../source/commands/run.ts';
import { loadBook } from '../../source/app/run.ts';
import { scoreCommand } from '../../source/commands/score.ts';
import type { ConfigInput } from '../../source/config.ts';
import type { EngineEvent } from '../../source/engine/events.ts';
import { createProvider } from '../../source/llm/create.ts';
import { ProviderError } from '../../source/llm/provider.ts';
import { newRun } from '../../source/summarize/run.ts';
import { Session } from '../../source/store/session.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { request } from '../support/provider-kit.ts';
import { randomBook, setUp } from '../support/run-harness.ts';
import { usageError } from '../support/assertions.ts';
import { tempDir } from '../support/temp.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

function scratch(t: { after: (fn: () => void) => void }) {
	const dir = tempDir('input', t);
	const book = join(dir, 'small.txt');
	writeFileSync(book, readFileSync(BOOK, 'utf8').slice(0, 20_000));
	return { dir, book, sessions: join(dir, 'sessions') };
}

/** A command's output thrown away; its command lines named as booook on the PATH names them. */
const quiet = () => ({ stdout: new PassThrough(), stderr: new PassThrough(), program: 'booook' });

const openai = (baseUrl: string | null, extra: Partial<ConfigInput> = {}): ConfigInput => ({
	provider: 'openai',
	model: 'gpt-4o-mini',
	baseUrl,
	chunkSize: 1024,
	...extra,
});
const KEY_ENV = { OPENAI_API_KEY: 'sk-test-key', ANTHROPIC_API_KEY: 'sk-test-key' };

test('--base-url that is not an http(s) URL, or holds a password, is refused before a session exists or a call is made', async (t) => {
	const { book, sessions } = scratch(t);
	const fake = await startFakeApi();
	t.after(() => fake.close());
	const host = fake.openaiBaseUrl.replace('http://', '');
	const cases: [string, RegExp, string?][] = [
		['not a url', /--base-url "not a url" is not a URL; give the server's address/],
		[`ftp://${host}`, /--base-url ftp:\/\/.*give an http:\/\/ or https:\/\/ address/],
		[
			`http://user:hunter2pw@${host}`,
			/--base-url http:\/\/127\.0\.0\.1:\d+\/v1: leave the user name and password out of the URL .* give the key in OPENAI_API_KEY/,
			'hunter2pw',
		],
		['http://user:hunter2pw@', /is not a URL/, 'hunter2pw'],
	];
	for (const [url, pattern, secret] of cases) {
		await assert.rejects(
			runCommand(book, { config: openai(url), sessionsDir: sessions, json: true, env: KEY_ENV, ...quiet() }),
			usageError(pattern, secret),
			url,
		);
		await assert.rejects(
			planCommand(book, { config: openai(url), json: true, ...quiet() }),
			usageError(pattern, secret),
			url,
		);
	}
	assert.equal(existsSync(sessions), false, 'no session was created');
	assert.equal(fake.requests.length, 0, 'no call was made');
});

test('a base URL from OPENAI_BASE_URL / ANTHROPIC_BASE_URL is checked the same way, naming the variable', () => {
	assert.throws(
		() =>
			createProvider({
				provider: 'openai',
				model: 'm',
				env: { ...KEY_ENV, OPENAI_BASE_URL: 'http://me:s3cretpw@localhost:8000/v1' },
			}),
		usageError(/^OPENAI_BASE_URL http:\/\/localhost:8000\/v1: .*OPENAI_API_KEY/, 's3cretpw'),
	);
	assert.throws(
		() =>
			createProvider({
				provider: 'anthropic',
				model: 'm',
				env: { ...KEY_ENV, ANTHROPIC_BASE_URL: 'localhost:8000' },
			}),
		usageError(/^ANTHROPIC_BASE_URL localhost:8000: .*http:\/\/ or https:\/\//),
	);
	assert.equal(
		createProvider({
			provider: 'openai',
			model: 'm',
			env: { ...KEY_ENV, OPENAI_BASE_URL: 'https://example.org/v1' },
		}).name,
		'openai',
	);
});

test('resume --base-url with a password is refused and leaves session.json as it was; score --base-url is checked even when nothing needs a call', async (t) => {
	const { dir, book, sessions } = scratch(t);
	// A session that has not run yet: resuming it would run it (and save the address).
	const loaded = await loadBook(book, { provider: 'extractive', model: 'textrank', chunkSize: 1024 });
	const created = await Session.create(sessions, {
		id: 's1',
		book: loaded.book,
		text: loaded.loaded.text,
		run: newRun(loaded.config, loaded.chunks),
	});
	await created.close();
	const before = readFileSync(join(sessions, 's1', 'session.json'), 'utf8');
	await assert.rejects(
		resumeCommand(sessions, 's1', { baseUrl: 'http://u:t0psecret@localhost/v1', json: true, ...quiet() }),
		usageError(/leave the user name and password out/, 't0psecret'),
	);
	assert.equal(readFileSync(join(sessions, 's1', 'session.json'), 'utf8'), before);

	const summaries = join(dir, 'summaries.json');
	writeFileSync(summaries, JSON.stringify({ 'a.txt': 'One sentence. Two sentences.' }));
	await assert.rejects(
		scoreCommand({
			summaries,
			baseUrl: 'not a url',
			json: true,
			sessionsDir: sessions,
			env: KEY_ENV,
			...quiet(),
		}),
		usageError(/--base-url "not a url" is not a URL/),
	);
});

for (const api of ['openai', 'anthropic'] as const) {
	test(`${api}: a base URL that answers with a web page fails at once, saying it is not an API`, async (t) => {
		const fake = await startFakeApi();
		t.after(() => fake.close());
		const retries: string[] = [];
		const provider = createProvider({
			provider: api,
			model: 'm',
			baseUrl: api === 'openai' ? fake.openaiBaseUrl : fake.anthropicBaseUrl,
			env: KEY_ENV,
			streamRetryDelayMs: 0,
		});
		provider.onRetry!((reason) => retries.push(reason));
		fake.fail({ kind: 'page' });
		await assert.rejects(provider.complete(request('Summarize this.')), (error: unknown) => {
			assert.ok(error instanceof ProviderError, String(error));
			assert.equal(error.retryable, false);
			assert.match(
				error.message,
				new RegExp(
					`^${api}: http://127\\.0\\.0\\.1:\\d+(/v1)? answered with a web page \\(HTML\\), not an API; check --base-url \\(or ${api.toUpperCase()}_BASE_URL\\)$`,
					'u',
				),
			);
			return true;
		});
		assert.equal(fake.requests.length, 1, 'no retry');
		assert.deepEqual(retries, []);
	});
}

test("a server's address given the other vendor's way: anthropic's with /v1 is the same server, openai's without it names /v1 in its 404", async (t) => {
	const fake = await startFakeApi();
	t.after(() => fake.close());
	for (const baseUrl of [`${fake.url}/v1`, `${fake.url}/v1/`, fake.url]) {
		const provider = createProvider({ provider: 'anthropic', model: 'm', baseUrl, env: KEY_ENV });
		const done = await provider.complete(request('Summarize this.'));
		assert.ok(done.text.length > 0, baseUrl);
	}
	assert.deepEqual([...new Set(fake.requests.map((r) => r.path))], ['/v1/messages']);
	const openaiBare = createProvider({ provider: 'openai', model: 'm', baseUrl: fake.url, env: KEY_ENV });
	await assert.rejects(openaiBare.complete(request('Summarize this.')), (error: unknown) => {
		assert.ok(error instanceof ProviderError, String(error));
		assert.match(
			error.message,
			new RegExp(
				`^openai: 404 Not Found — check the model name \\(m\\) and the base URL \\(${fake.url}/?: most end in /v1, e\\.g\\. ${fake.url}/v1\\)`,
				'u',
			),
		);
		return true;
	});
});

test('a retried stream is reported once as a stream, not "stream stream"', async (t) => {
	const fake = await startFakeApi();
	t.after(() => fake.close());
	const provider = createProvider({
		provider: 'openai',
		model: 'gpt-4o-mini',
		baseUrl: fake.openaiBaseUrl,
		env: KEY_ENV,
		streamRetryDelayMs: 0,
	});
	fake.fail({ kind: 'cut' });
	const harness = await setUp(
		randomBook(3, 6),
		{ method: 'inc', chunkSize: 2048, maxSummary: 100, contextWindow: 4096, concurrency: 1, clean: false },
		provider,
	);
	const retries: string[] = [];
	harness.engine.on((e: EngineEvent) => {
		if (e.type === 'retry') retries.push(e.reason);
	});
	assert.equal(await harness.engine.start(), 'done', harness.run.error ?? '');
	assert.ok(retries.length >= 1, 'the cut stream was retried');
	for (const reason of retries) {
		assert.match(reason, /^stream /u);
		assert.doesNotMatch(reason, /stream stream/u);
	}
});

test('--prompts naming a file, not a folder, is refused before anything is created', async (t) => {
	const { book, sessions } = scratch(t);
	const extractive: ConfigInput = {
		provider: 'extractive',
		model: 'textrank',
		chunkSize: 1024,
		prompts: book,
	};
	const pattern = /^--prompts .*small\.txt: is a file, not a folder; give the folder/;
	await assert.rejects(
		planCommand(book, { config: extractive, json: true, ...quiet() }),
		usageError(pattern),
	);
	await assert.rejects(
		runCommand(book, { config: extractive, sessionsDir: sessions, json: true, ...quiet() }),
		usageError(pattern),
	);
	assert.equal(existsSync(sessions), false);
});

test('export --force without --out is refused', async (t) => {
	const { book, sessions } = scratch(t);
	assert.equal(
		await runCommand(book, {
			config: { provider: 'extractive', model: 'textrank', chunkSize: 1024 },
			session: 's1',
			sessionsDir: sessions,
			json: true,
			...quiet(),
		}),
		0,
	);
	const out = quiet();
	let printed = '';
	out.stdout.on('data', (d) => (printed += d));
	await assert.rejects(
		exportCommand(sessions, 's1', { format: 'booookscore', intermediate: false, force: true, ...out }),
		usageError(/^--force only replaces the file named by --out; give --out FILE/),
	);
	assert.equal(printed, '');
});

test('export --out into a folder that does not exist is refused, naming the folder', async (t) => {
	const { book, sessions } = scratch(t);
	assert.equal(
		await runCommand(book, {
			config: { provider: 'extractive', model: 'textrank', chunkSize: 1024 },
			session: 's1',
			sessionsDir: sessions,
			json: true,
			...quiet(),
		}),
		0,
	);
	const folder = join(sessions, 'no', 'such');
	const out = join(folder, 'f.json');
	await assert.rejects(
		exportCommand(sessions, 's1', { format: 'booookscore', intermediate: false, out, ...quiet() }),
		usageError(
			new RegExp(
				`^${out.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}: the folder ${folder.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')} does not exist; create it or choose another --out$`,
				'u',
			),
		),
	);
	assert.equal(existsSync(join(sessions, 'no')), false);
});

test('export refuses an option its format does not read instead of dropping it', async (t) => {
	const { book, sessions } = scratch(t);
	assert.equal(
		await runCommand(book, {
			config: { provider: 'extractive', model: 'textrank', chunkSize: 1024 },
			session: 's1',
			sessionsDir: sessions,
			json: true,
			...quiet(),
		}),
		0,
	);
	const out = quiet();
	let printed = '';
	out.stdout.on('data', (d) => (printed += d));
	for (const format of ['validation', 'csv']) {
		await assert.rejects(
			exportCommand(sessions, 's1', { format, intermediate: true, ...out }),
			usageError(
				new RegExp(`^--intermediate exports summaries, not verdicts; leave it out of --format ${format}`),
			),
		);
	}
	await assert.rejects(
		exportCommand(sessions, 's1', { format: 'booookscore', intermediate: false, validator: 'alice', ...out }),
		usageError(/^--validator chooses whose verdicts/),
	);
	assert.equal(printed, '');
});
