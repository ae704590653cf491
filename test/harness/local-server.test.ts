import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { tinyBookText } from '../support/study-books.ts';
import { tempDir } from '../support/temp.ts';

// A server of one's own (vLLM, llama.cpp, Ollama) speaks OpenAI's API and usually takes no key:
// `--base-url` alone must reach it, not fall back to the offline baseline or ask for a key.

test(
	'--base-url with no key set runs against that server as openai, sending no key of the user',
	{ timeout: 120_000 },
	async (t) => {
		const api = await startFakeApi();
		t.after(() => api.close());
		const dir = tempDir('local-server');
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(300));
		const sessions = join(dir, 'sessions');

		const plan = await booook(['plan', book, '--base-url', api.openaiBaseUrl]);
		assert.equal(plan.code, 0, plan.stderr);
		assert.match(plan.stdout, /with openai\/gpt-4o-mini|openai/u);
		assert.doesNotMatch(plan.stdout, /extractive/u);

		const run = await booook([
			'run',
			book,
			'--headless',
			'--base-url',
			api.openaiBaseUrl,
			'--model',
			'llama3',
			'--chunk-size',
			'256',
			'--sessions-dir',
			sessions,
		]);
		assert.equal(run.code, 0, run.stderr);
		assert.ok(run.stdout.trim().length > 0, 'a final summary on stdout');
		const calls = api.requests.filter((r) => r.path.endsWith('/chat/completions'));
		assert.ok(calls.length > 0, 'the server was called');
		assert.ok(calls.every((r) => r.body!.model === 'llama3'));
		const [id] = readdirSync(sessions).filter((f) => !f.startsWith('.'));
		const config = JSON.parse(readFileSync(join(sessions, id!, 'session.json'), 'utf8')).run.config;
		assert.equal(config.provider, 'openai');
		assert.equal(config.baseUrl, api.openaiBaseUrl);
	},
);

test("the vendor's own API still needs the key, named in one line", async () => {
	const dir = tempDir('local-server-key');
	const book = join(dir, 'book.txt');
	writeFileSync(book, tinyBookText(50));
	const run = await booook([
		'run',
		book,
		'--headless',
		'--provider',
		'openai',
		'--base-url',
		'https://api.openai.com/v1',
		'--sessions-dir',
		join(dir, 's'),
	]);
	assert.equal(run.code, 2, run.stderr);
	assert.match(run.stderr, /OPENAI_API_KEY is not set/u);
	assert.equal(run.stderr.trim().split('\n').length, 1);
});

test(
	'anthropic takes its server with or without /v1 (OpenAI-style addresses end in it): --base-url and ANTHROPIC_BASE_URL',
	{ timeout: 120_000 },
	async (t) => {
		const api = await startFakeApi();
		t.after(() => api.close());
		const dir = tempDir('local-server-anthropic', t);
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(60));
		const sessions = join(dir, 'sessions');
		const common = [
			'--headless',
			'--provider',
			'anthropic',
			'--chunk-size',
			'256',
			'--sessions-dir',
			sessions,
		];
		const flag = await booook(['run', book, ...common, '--base-url', `${api.url}/v1`]);
		assert.equal(flag.code, 0, flag.stderr);
		const env = { ANTHROPIC_BASE_URL: `${api.url}/v1/` };
		const variable = await booook(['run', book, ...common], { env });
		assert.equal(variable.code, 0, variable.stderr);
		const calls = api.requests.filter((r) => r.path.includes('messages'));
		assert.ok(calls.length >= 2, 'the server was called');
		assert.deepEqual([...new Set(calls.map((r) => r.path))], ['/v1/messages']);
	},
);
