import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { BATCH_INPUTS } from '../../source/llm/embeddings.ts';
import { Session, type BookSessionData } from '../../source/store/session.ts';
import { booook } from '../support/cli.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { claimQuestion, faithfulnessReply } from '../support/faithfulness-reply.ts';
import { tempDir } from '../support/temp.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/**
 * `--embeddings` end to end through the CLI, against the fake API's embeddings (a hashed bag of
 * stems: these tests check the plumbing, not what a real model's vectors are worth).
 */
const dir = tempDir('embeddings-cli');
const KEY = { OPENAI_API_KEY: 'test-key' };
/** The judge of `faithfulness`, on the fake API. */
const JUDGE = ['--provider', 'openai', '--model', 'gpt-4o-mini'];
let passages = 0;

before(async () => {
	await extractiveRun(FRANKENSTEIN, dir, 'frank');
	const { data, text } = await Session.snapshot(dir, 'frank');
	passages = new PassageIndex(text, (data as BookSessionData).run.chunks).passages.length;
});

const embeddingRequests = (api: FakeApi) => api.requests.filter((r) => r.path === '/v1/embeddings');

test('evidence --embeddings: the book is embedded once, each passage shown with its similarity, and the spending said', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const args = ['evidence', 'frank', '--sentence', '2', '--json', '--sessions-dir', dir];
	const first = await booook([...args, '--embeddings', '--base-url', api.openaiBaseUrl], { env: KEY });
	assert.equal(first.code, 0, first.stderr);
	const batches = Math.ceil(passages / BATCH_INPUTS);
	assert.equal(embeddingRequests(api).length, batches + 1, 'the passages in batches, then the sentence');
	assert.ok(embeddingRequests(api).every((r) => r.body?.model === 'text-embedding-3-small'));
	const json = JSON.parse(first.stdout);
	assert.equal(json.embeddings.model, 'text-embedding-3-small');
	assert.equal(json.embeddings.requests, batches + 1);
	assert.ok(json.embeddings.tokens > 0 && json.embeddings.cost > 0 && json.embeddings.cost < 0.01);
	assert.equal(json.embeddings.cachedPassages, false);
	const [sentence] = json.evidence;
	assert.ok(sentence.denseSupport >= 0 && sentence.denseSupport <= 1);
	assert.ok(sentence.passages.length > 0);
	for (const p of sentence.passages) assert.ok(p.similarity > -1 && p.similarity <= 1);
	assert.match(
		first.stderr,
		/^embeddings: text-embedding-3-small, [\d,]+ tokens in \d+ requests, \$0\.\d{4}$/mu,
	);

	// Again: only the sentence is embedded; the passages are read from the session's folder.
	const again = await booook([...args, '--embeddings', '--base-url', api.openaiBaseUrl], { env: KEY });
	assert.equal(again.code, 0, again.stderr);
	assert.equal(embeddingRequests(api).length, batches + 2);
	assert.equal(JSON.parse(again.stdout).embeddings.cachedPassages, true);
	assert.match(again.stderr, /1 request, .*read from the session's cache/u);
	assert.deepEqual(JSON.parse(again.stdout).evidence, json.evidence);

	// Without the flag: BM25 alone, offline, as before.
	const offline = await booook(args, { env: KEY });
	assert.equal(offline.code, 0, offline.stderr);
	const plain = JSON.parse(offline.stdout);
	assert.equal(plain.embeddings, undefined);
	assert.ok(plain.evidence[0].passages.every((p: object) => !('similarity' in p)));
	assert.equal(embeddingRequests(api).length, batches + 2);

	const text = await booook(
		[
			'evidence',
			'frank',
			'--sentence',
			'2',
			'--sessions-dir',
			dir,
			'--embeddings',
			'--base-url',
			api.openaiBaseUrl,
		],
		{
			env: KEY,
		},
	);
	assert.equal(text.code, 0, text.stderr);
	assert.match(text.stdout, /support \d\.\d\d.*; by embeddings \d\.\d\d/u);
	assert.match(text.stdout, /score \d+\.\d\d, similarity -?\d\.\d{3}/u);
});

test('coverage --embeddings reranks every sentence of the final summary, embedding the book no more than once', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const covered = await booook(
		['coverage', 'frank', '--json', '--sessions-dir', dir, '--embeddings', '--base-url', api.openaiBaseUrl],
		{
			env: KEY,
		},
	);
	assert.equal(covered.code, 0, covered.stderr);
	const sentences = JSON.parse(covered.stdout).sentences;
	assert.ok(sentences > 0);
	// A local server on another port than the first test's is the same server: the book's passages
	// are read back, and only the sentences are embedded.
	const requests = embeddingRequests(api).length;
	assert.equal(requests, Math.ceil(sentences / BATCH_INPUTS));
	assert.match(covered.stderr, /read from the session's cache$/mu);
	const again = await booook(
		['coverage', 'frank', '--sessions-dir', dir, '--embeddings', '--base-url', api.openaiBaseUrl],
		{
			env: KEY,
		},
	);
	assert.equal(again.code, 0, again.stderr);
	assert.equal(embeddingRequests(api).length, 2 * requests);
});

test('faithfulness --embeddings embeds each claim and judges it with reranked passages', async (t) => {
	const judged: string[] = [];
	const api = await startFakeApi({
		respond: ({ prompt }) => {
			if (claimQuestion(prompt)) judged.push(prompt);
			return faithfulnessReply(prompt) ?? 'not a faithfulness prompt';
		},
	});
	t.after(() => api.close());
	const r = await booook(
		[
			'faithfulness',
			'frank',
			...JUDGE,
			'--base-url',
			api.openaiBaseUrl,
			'--embeddings',
			'--top',
			'2',
			'--sessions-dir',
			dir,
		],
		{ env: KEY },
	);
	assert.equal(r.code, 0, r.stderr);
	assert.ok(judged.length > 0);
	// The book read back (the tests before embedded it on this machine's server), then each claim as it is judged.
	const claims = new Set(judged.map((p) => claimQuestion(p)!.claim)).size;
	const requests = embeddingRequests(api).length;
	assert.ok(requests >= claims && requests <= judged.length, `${requests} requests`);
	assert.match(r.stderr, /^embeddings: text-embedding-3-small, .*read from the session's cache$/mu);
});

test('a damaged embeddings cache is said in one line, and the book embedded again and kept', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const kept = join(dir, 'frank', 'embeddings');
	const [vectors] = readdirSync(kept).filter((f) => f.endsWith('.f32'));
	truncateSync(join(kept, vectors!), 1000);
	const args = [
		'evidence',
		'frank',
		'--sentence',
		'1',
		'--sessions-dir',
		dir,
		'--embeddings',
		'--base-url',
		api.openaiBaseUrl,
	];
	const r = await booook(args, { env: KEY });
	assert.equal(r.code, 0, r.stderr);
	const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
	assert.deepEqual(warnings, [
		`warning: the book's embeddings kept in the session were not used: ${join('embeddings', vectors!.replace(/\.f32$/u, '.json'))} does not match its vectors file (cut short or changed); the book was embedded again and kept anew`,
	]);
	assert.equal(embeddingRequests(api).length, Math.ceil(passages / BATCH_INPUTS) + 1);
	const again = await booook(args, { env: KEY });
	assert.doesNotMatch(again.stderr, /warning/u);
	assert.match(again.stderr, /1 request, .*read from the session's cache/u);
});

test('--embeddings is refused in one line: no key, an unknown model, Anthropic, or --base-url alone', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const cases: [string[], Record<string, string>, RegExp][] = [
		[['evidence', 'frank', '--embeddings'], {}, /^booook: OPENAI_API_KEY is not set: export it to rank by/u],
		[
			['evidence', 'frank', '--embeddings', 'text-embedding-9', '--base-url', api.openaiBaseUrl],
			KEY,
			/^booook: openai embeddings: 404 Not Found — check the model name \(text-embedding-9\)/u,
		],
		[
			['coverage', 'frank', '--base-url', api.openaiBaseUrl],
			KEY,
			/^booook: --base-url names the server of --embeddings/u,
		],
		[
			['faithfulness', 'frank', '--provider', 'anthropic', '--embeddings'],
			{ ...KEY, ANTHROPIC_API_KEY: 'k' },
			/^booook: --embeddings: Anthropic has no embeddings endpoint/u,
		],
	];
	for (const [args, env, message] of cases) {
		const r = await booook([...args, '--sessions-dir', dir], { env });
		assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
		assert.match(r.stderr, message);
		assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
	}
});
