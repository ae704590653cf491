import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Chunk } from '../../source/domain.ts';
import { UserError } from '../../source/errors.ts';
import type { Hit } from '../../source/evidence/rank.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { cosine, denseSupport, fuse, fusedRank, type DenseVectors } from '../../source/evidence/rerank.ts';
import { embeddingsFor } from '../../source/app/dense-evidence.ts';
import { createEmbedder, DEFAULT_EMBEDDING_MODEL } from '../../source/llm/embeddings.ts';
import { passageVectors } from '../../source/store/embeddings-cache.ts';
import { fakeEmbedding, startFakeApi } from '../support/fake-api.ts';
import { tempDir } from '../support/temp.ts';

const embeddingRequests = (api: { requests: { path: string }[] }) =>
	api.requests.filter((r) => r.path === '/v1/embeddings').length;

test('the embedder sends texts over the batch limit in as many requests as it takes, and keeps their order', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const embedder = createEmbedder({
		baseUrl: api.openaiBaseUrl,
		env: { OPENAI_API_KEY: 'k' },
		batchInputs: 2,
	});
	const texts = [
		'Victor fled the laboratory.',
		'The creature read books.',
		'Elizabeth died.',
		'Ice.',
		'Geneva',
	];
	const made = await embedder.embed(texts);
	assert.equal(embeddingRequests(api), 3, '5 texts at 2 a request');
	assert.equal(made.requests, 3);
	assert.equal(made.vectors.length, 5);
	texts.forEach((text, k) => assert.deepEqual([...made.vectors[k]!], [...fakeEmbedding(text)]));
	assert.ok(made.tokens > 0, 'the server counts the tokens');
	assert.equal(embedder.model, DEFAULT_EMBEDDING_MODEL);
	assert.equal(api.requests[0]!.headers.authorization, 'Bearer k');
});

test('the embedder keeps a request under 100,000 tokens and cuts an input to the 8,191 a model reads', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const embedder = createEmbedder({ baseUrl: api.openaiBaseUrl, env: { OPENAI_API_KEY: 'k' } });
	// Each text is cut to 8,191 tokens: twelve fit in one request, the thirteenth starts another.
	const long = 'river mill '.repeat(9000);
	const made = await embedder.embed(Array.from({ length: 13 }, () => long));
	assert.equal(made.vectors.length, 13);
	const sizes = api.requests.map((r) => (r.body?.input as string[]).length);
	assert.deepEqual(sizes, [12, 1]);
	assert.ok(made.tokens <= 13 * 8191, `${made.tokens} tokens`);
});

test('an unknown embedding model is refused in one line that names it and the fix, without the key', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const embedder = createEmbedder({
		model: 'text-embedding-9',
		baseUrl: api.openaiBaseUrl,
		env: { OPENAI_API_KEY: 'sk-secret-key-123456' },
	});
	await assert.rejects(embedder.embed(['a sentence']), (error: unknown) => {
		assert.ok(error instanceof UserError);
		assert.match(error.message, /404 Not Found — check the model name \(text-embedding-9\)/u);
		assert.doesNotMatch(error.message, /\n|sk-secret/u);
		assert.equal(error.exitCode, 2);
		return true;
	});
});

test('without OPENAI_API_KEY, or with Anthropic as the provider, the embedder is refused in one line before any call', () => {
	assert.throws(
		() => createEmbedder({ env: {} }),
		(error: unknown) =>
			error instanceof UserError &&
			/^OPENAI_API_KEY is not set: export it to rank by text-embedding-3-small's embeddings/u.test(
				error.message,
			) &&
			!error.message.includes('\n'),
	);
	assert.throws(
		() => createEmbedder({ provider: 'anthropic', env: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' } }),
		/Anthropic has no embeddings endpoint/u,
	);
});

test('the passages of a book are embedded once per model and server: a second call reads them back, a changed book embeds again', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const dir = tempDir('embed-cache', t);
	const embedder = createEmbedder({ baseUrl: api.openaiBaseUrl, env: { OPENAI_API_KEY: 'k' } });
	const book = 'Victor made a creature. It fled. He was ill for months.\nElizabeth waited at Geneva.';
	const passages = [
		{ start: 0, end: 55 },
		{ start: 56, end: book.length },
	];
	const first = await passageVectors(dir, book, passages, embedder);
	assert.equal(first.cached, false);
	assert.equal(embeddingRequests(api), 1);
	const files = readdirSync(join(dir, 'embeddings')).sort();
	assert.equal(files.length, 2);
	assert.match(files[0]!, new RegExp(`^${DEFAULT_EMBEDDING_MODEL}@[0-9a-f]{8}\\.f32$`, 'u'));
	assert.equal(files[1], files[0]!.replace(/\.f32$/u, '.json'));
	const second = await passageVectors(dir, book, passages, embedder);
	assert.equal(second.cached, true);
	assert.equal(second.tokens, 0);
	assert.equal(embeddingRequests(api), 1, 'no request the second time');
	assert.deepEqual(
		second.vectors.map((v) => [...v]),
		first.vectors.map((v) => [...v]),
	);

	const changed = book.replace('Geneva', 'Paris!');
	const third = await passageVectors(dir, changed, passages, embedder);
	assert.equal(third.cached, false);
	assert.equal(embeddingRequests(api), 2, 'a changed book is embedded again');
	assert.deepEqual([...third.vectors[1]!], [...fakeEmbedding(changed.slice(56))]);
	// Other passages of the same book are other vectors.
	await passageVectors(dir, changed, [{ start: 0, end: changed.length }], embedder);
	assert.equal(embeddingRequests(api), 3);
	// A vectors file that no longer matches its index is not trusted, and the reason is given.
	writeFileSync(join(dir, 'embeddings', files[0]!), new Uint8Array(8 * 256));
	const fourth = await passageVectors(dir, changed, [{ start: 0, end: changed.length }], embedder);
	assert.equal(fourth.cached, false);
	assert.equal(embeddingRequests(api), 4);
	assert.equal(
		fourth.discarded,
		`${join('embeddings', files[1]!)} does not match its vectors file (cut short or changed)`,
	);
	const whole = [{ start: 0, end: changed.length }];
	assert.equal((await passageVectors(dir, changed, whole, embedder)).discarded, null, 'kept anew');
	writeFileSync(join(dir, 'embeddings', files[1]!), '{"model":');
	const torn = await passageVectors(dir, changed, whole, embedder);
	assert.deepEqual(
		[torn.cached, torn.discarded],
		[false, `${join('embeddings', files[1]!)} is unreadable (cut short or changed)`],
	);

	// A local server restarted on another port is the same server: nothing is embedded again.
	const restarted = await startFakeApi();
	t.after(() => restarted.close());
	assert.notEqual(restarted.openaiBaseUrl, api.openaiBaseUrl);
	const local = createEmbedder({ baseUrl: restarted.openaiBaseUrl, env: { OPENAI_API_KEY: 'k' } });
	const back = await passageVectors(dir, changed, whole, local);
	assert.deepEqual([back.cached, embeddingRequests(restarted)], [true, 0]);

	// The same model on another host is another model: its own vectors, and the first server's kept.
	const on = (server: string) => ({ model: embedder.model, server, embed: embedder.embed });
	const one = on('https://one.example/v1');
	const two = on('https://two.example:8443/v1');
	assert.equal((await passageVectors(dir, changed, whole, one)).cached, false);
	assert.equal((await passageVectors(dir, changed, whole, two)).cached, false);
	assert.equal(readdirSync(join(dir, 'embeddings')).length, 6);
	assert.equal((await passageVectors(dir, changed, whole, one)).cached, true, 'back to the first host');
	assert.equal((await passageVectors(dir, changed, whole, two)).cached, true, 'and to the second');
	assert.equal((await passageVectors(dir, changed, whole, embedder)).cached, true, 'and to the local one');
});

test("vectors kept from another model served under the same name on this machine are refused in one line when the queries' differ", async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const dir = tempDir('embed-dims', t);
	const env = { OPENAI_API_KEY: 'k' };
	const book = 'Victor made a creature. It fled.';
	const embeddings = embeddingsFor({ model: DEFAULT_EMBEDDING_MODEL, baseUrl: api.openaiBaseUrl, env });
	const index = new PassageIndex(book, [{ index: 0, start: 0, end: book.length, tokens: 8 }]);
	// What an 8-dimensional model of that name left, as if the server had served it before.
	const small = Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0]);
	await passageVectors(dir, book, index.passages, {
		...embeddings.embedder,
		embed: (texts) => Promise.resolve({ vectors: texts.map(() => small), tokens: 1, requests: 1 }),
	});
	const dense = await embeddings.load(dir, book, index);
	assert.equal(dense.spend().cachedPassages, true);
	await assert.rejects(
		dense.add(['Who fled?']),
		(e: unknown) =>
			e instanceof UserError &&
			/now answers 256-dimensional vectors, but the book's kept in .* are 8-dimensional .*; remove that folder/u.test(
				e.message,
			),
	);
});

/** A hit of BM25 at `index`, with `score`. */
const hit = (index: number, score: number, verbatim = false): Hit => ({
	index,
	chunk: 0,
	start: index * 10,
	end: index * 10 + 9,
	score,
	verbatim,
});

/** A unit vector at `angle` in the plane: cosines between them are the cosines of the angles between. */
const at = (angle: number) => Float32Array.from([Math.cos(angle), Math.sin(angle)]);

test('the rerank moves up a passage the embeddings rank first, and keeps a word-for-word passage first', () => {
	const lexical = [hit(0, 9), hit(1, 8), hit(2, 7), hit(3, 6)];
	// The query is at angle 0; passage 2 is nearest to it, passage 0 farthest.
	const passages = [at(1.4), at(0.9), at(0.05), at(1.2)];
	// Fused, 1/(60 + r) each: passage 2 has 1/63 + 1/61, passage 1 1/62 + 1/62, passage 0 1/61 + 1/64.
	assert.deepEqual(
		fuse(lexical, at(0), passages).map((h) => h.index),
		[2, 1, 0, 3],
	);
	const reranked = fuse(lexical, at(0), passages);
	assert.ok(Math.abs(reranked.find((h) => h.index === 2)!.similarity - Math.cos(0.05)) < 1e-6);
	// When the dense model ranks one first by far and BM25 ranks it second, it is first.
	const second = fuse([hit(0, 9), hit(1, 8), hit(2, 7)], at(0), [at(1.5), at(0), at(1.4)]);
	assert.equal(second[0]!.index, 1);
	// A passage holding the query word for word stays first whatever the embeddings say.
	const copied = fuse([hit(0, 9, true), hit(1, 8), hit(2, 7)], at(0), [at(1.5), at(1), at(0)]);
	assert.equal(copied[0]!.index, 0);
	assert.equal(copied[1]!.index, 2);
});

test('without a query vector the rerank is BM25 exactly; with one it reorders the same candidates', () => {
	const book =
		'Victor built the creature in his laboratory at Ingolstadt. It woke at night.\n' +
		'The creature fled into the forest and learned to speak. It watched a family.\n' +
		'Elizabeth was murdered on the wedding night at Evian. Victor wept.\n' +
		'Victor chased the creature across the ice of the north. He died on a ship.\n';
	const chunks: Chunk[] = [{ index: 0, start: 0, end: book.length, tokens: 1 }];
	const index = new PassageIndex(book, chunks, 2);
	const query = 'Victor and the creature';
	const none: DenseVectors = { passages: index.passages.map(() => at(0)), query: () => undefined };
	assert.deepEqual(fusedRank(index, none)(query, 3), index.rank(query, 3));
	const plain = index.rank(query, 10).map((h) => h.index);
	// Embeddings that put BM25's last passage nearest the query.
	const last = plain.at(-1)!;
	const dense: DenseVectors = {
		passages: index.passages.map((p) => at(p.index === last ? 0 : 1.5)),
		query: () => at(0),
	};
	const reranked = fusedRank(index, dense)(query, 10).map((h) => h.index);
	assert.deepEqual([...reranked].sort(), [...plain].sort(), 'the same candidates');
	assert.ok(reranked.indexOf(last) < plain.indexOf(last), `${plain} -> ${reranked}`);
});

test("the dense support is the best passage's cosine above the book's mean, scaled to [0, 1]", () => {
	const passages = [at(0), at(Math.PI / 2), at(Math.PI / 2), at(Math.PI / 2)];
	// Mean cosine of the query (angle 0) with the book: (1 + 0 + 0 + 0) / 4.
	const dense: DenseVectors = { passages, query: (text) => (text === 'q' ? at(0) : undefined) };
	assert.equal(denseSupport(dense, 'q', [{ index: 0 }]), 1, 'the same text');
	assert.equal(denseSupport(dense, 'q', [{ index: 1 }]), 0, 'no closer than the book on average');
	const half: DenseVectors = { passages: [...passages, at(Math.PI / 3)], query: () => at(0) };
	const mean = (1 + 0 + 0 + 0 + 0.5) / 5;
	assert.ok(Math.abs(denseSupport(half, 'q', [{ index: 4 }])! - (0.5 - mean) / (1 - mean)) < 1e-6);
	assert.equal(denseSupport(dense, 'other', [{ index: 0 }]), null, 'a query not embedded');
	assert.equal(cosine(Float32Array.from([0, 0]), at(0)), 0);
});
