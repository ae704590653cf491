import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { AnthropicBatchApi } from '../../source/llm/anthropic-batch.ts';
import {
	Batcher,
	BatchResults,
	customIdOf,
	type BatchApi,
	type BatchedResult,
} from '../../source/llm/batcher.ts';
import { batchLine } from '../../source/format/batch.ts';
import { OpenAIBatchApi } from '../../source/llm/openai-batch.ts';
import { LineSplitter } from '../../source/llm/sdk-batch.ts';
import type { CallRequest } from '../../source/llm/provider.ts';
import { BatchJournal } from '../../source/store/batch-journal.ts';
import { defaultReply, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { tempDir } from '../support/temp.ts';

/** Issue 24, items 2, 4 (a batch's results file) and 6: what a provider's batch results and polls may not do to a study. */

type Which = 'openai' | 'anthropic';

const request = (prompt: string): CallRequest => ({
	prompt,
	maxTokens: 200,
	temperature: 0.5,
	task: { kind: 'summarize', texts: [prompt], words: 50 },
});
const key = (i: number) => ({ owner: `n${i}`, version: 0, attempt: 0 });
const idOf = (i: number) => customIdOf('s1', key(i));
const prompt = (i: number) => `Summarize part ${i} of the story.`;

function apiOf(
	which: Which,
	fake: FakeApi,
	extra: { fetch?: typeof fetch; maxLineBytes?: number } = {},
): BatchApi {
	return which === 'openai'
		? new OpenAIBatchApi({
				apiKey: 'sk-test',
				model: 'gpt-4o-mini',
				baseURL: fake.openaiBaseUrl,
				maxRetries: 0,
				...extra,
			})
		: new AnthropicBatchApi({
				apiKey: 'sk-ant-test',
				model: 'claude-sonnet-4-5',
				baseURL: fake.anthropicBaseUrl,
				maxRetries: 0,
				...extra,
			});
}

async function setup(
	which: Which,
	t: { after(fn: () => unknown): void },
	extra: { fetch?: typeof fetch; maxLineBytes?: number } = {},
) {
	const fake = await startFakeApi();
	const batcher = new Batcher({ api: apiOf(which, fake, extra), gatherMs: 20, pollMs: 2 });
	const lines: string[] = [];
	batcher.on((state, change, detail) => lines.push(batchLine(state, change, detail)));
	t.after(async () => {
		batcher.close();
		await fake.close();
	});
	const journal = await BatchJournal.open(tempDir('batch-hardening'));
	const lane = batcher.lane({ session: 's1', cell: 'c', journal });
	/** Asks `count` calls together, each settled (answered or failed). */
	const ask = (count: number) =>
		Promise.allSettled(Array.from({ length: count }, (_, i) => lane.complete(key(i), request(prompt(i)))));
	return { fake, batcher, lines, journal, ask };
}

const answered = (r: PromiseSettledResult<BatchedResult>) =>
	r.status === 'fulfilled' ? r.value : assert.fail(`rejected: ${String(r.reason)}`);
const settledEntries = (journal: BatchJournal) =>
	readFileSync(journal.file, 'utf8')
		.split('\n')
		.filter((l) => l.includes('"settled"'));

for (const which of ['openai', 'anthropic'] as const) {
	test(`${which} batch: a malformed line in the results loses only the request on it: the answers that parsed are kept, and only the request with no valid answer goes out again`, async (t) => {
		const { fake, lines, journal, ask } = await setup(which, t);
		// In the first batch's results, n1's line is cut in half and a line of no JSON at all comes before it.
		fake.editBatchResults = (results, batch) =>
			batch !== fake.batches[0]
				? results
				: results.flatMap((l) => (l.includes(idOf(1)) ? ['{not json', l.slice(0, l.length / 2)] : [l]));
		const settled = await ask(4);
		const results = settled.map(answered);
		assert.deepEqual(
			results.map((r) => r.text),
			[0, 1, 2, 3].map((i) => defaultReply(prompt(i))),
		);
		assert.equal(fake.batches.length, 2);
		assert.deepEqual(
			fake.batches[1]!.items.map((i) => i.customId),
			[idOf(1)],
			'only the request whose line was unreadable was sent again',
		);
		assert.deepEqual(
			results.map((r) => r.batch),
			[0, 1, 0, 0].map((b) => fake.batches[b]!.id),
		);
		assert.deepEqual(settledEntries(journal), [], 'no request was given up on');
		const ended = lines.find((l) => l.startsWith(`batch ${fake.batches[0]!.id}: ended`));
		assert.equal(
			ended,
			`batch ${fake.batches[0]!.id}: ended: 3 succeeded, 1 errored; 2 lines of its results could not be read and were skipped`,
		);
	});

	test(`${which} batch: results for requests never sent are ignored (the counts stay true), and a later error line for a request does not undo its answer`, async (t) => {
		const { fake, lines, ask } = await setup(which, t);
		fake.batchFault = (customId) => (customId === idOf(2) ? 'errored' : null);
		// n0's answer is repeated under 5 ids never sent, and n2's error line is repeated for n0 after
		// n0's answer (OpenAI: in the error file, read after the output file).
		fake.editBatchResults = (results) => {
			const answer = results.find((l) => l.includes(idOf(0)));
			const error = results.find((l) => l.includes(idOf(2)));
			const ghosts = answer
				? [1, 2, 3, 4, 5].map((g) => answer.replaceAll(idOf(0), `ghost${g}-v0-a0-0000000000000000`))
				: [];
			return [...results, ...ghosts, ...(error ? [error.replaceAll(idOf(2), idOf(0))] : [])];
		};
		const [n0, n1, n2] = await ask(3);
		assert.deepEqual(
			[answered(n0!).batch, answered(n0!).text],
			[fake.batches[0]!.id, defaultReply(prompt(0))],
			'n0 keeps its answer',
		);
		assert.equal(answered(n1!).text, defaultReply(prompt(1)));
		assert.equal(n2!.status, 'rejected');
		assert.equal(fake.batches.length, 1, 'nothing was bought again');
		assert.ok(
			lines.includes(`batch ${fake.batches[0]!.id}: ended: 2 succeeded, 1 errored`),
			lines.join('\n'),
		);
	});

	test(`${which} batch: a results line longer than the API reads is skipped as unreadable, and only its request goes out again`, async (t) => {
		const { fake, lines, ask } = await setup(which, t, { maxLineBytes: 4096 });
		// n1's answer, padded to 64 KB: well beyond the 4 KB this API is made to read in one line.
		const pad = (l: string) => `${l.slice(0, -1)},"padding":"${'x'.repeat(65_536)}"}`;
		fake.editBatchResults = (results, batch) =>
			batch !== fake.batches[0] ? results : results.map((l) => (l.includes(idOf(1)) ? pad(l) : l));
		const results = (await ask(3)).map(answered);
		assert.deepEqual(
			results.map((r) => r.text),
			[0, 1, 2].map((i) => defaultReply(prompt(i))),
		);
		assert.deepEqual(
			results.map((r) => r.batch),
			[0, 1, 0].map((b) => fake.batches[b]!.id),
		);
		assert.deepEqual(
			fake.batches[1]!.items.map((i) => i.customId),
			[idOf(1)],
		);
		assert.ok(
			lines.includes(
				`batch ${fake.batches[0]!.id}: ended: 2 succeeded, 1 errored; 1 line of its results could not be read and was skipped`,
			),
			lines.join('\n'),
		);
	});

	// The case: 400 MB of padding in a results file took 1.39 GB to read, as the file was read whole.
	test(
		`${which} batch: a results file is read as a stream, in bounded memory: 256 MB of padding before the answers grows the process by less than 64 MB`,
		{ timeout: 60_000 },
		async (t) => {
			const PADDING = 256 * 2 ** 20;
			const CHUNK = 2 ** 20;
			const chunk = new Uint8Array(CHUNK).fill(0x20);
			let most = 0;
			let base = 0;
			let peak = 0;
			// The results as the fake serves them, after one line of 256 MB of spaces, sent 1 MB at a time
			// as it is read (the same chunk each time: the stream itself allocates nothing).
			const padded: typeof fetch = async (input, init) => {
				const url = input instanceof Request ? input.url : String(input);
				const response = await fetch(input, init);
				if (!/\/files\/file-out-[^/]+\/content$|\/results$/u.test(url)) return response;
				const tail = new Uint8Array(await response.arrayBuffer());
				let sent = 0;
				const body = new ReadableStream<Uint8Array>(
					{
						pull(controller) {
							const rss = process.memoryUsage.rss();
							if (sent === 0) [base, peak] = [rss, process.resourceUsage().maxRSS * 1024];
							most = Math.max(most, rss - base);
							if (sent < PADDING) controller.enqueue(chunk);
							else if (sent === PADDING) controller.enqueue(Uint8Array.of(0x0a, ...tail));
							else controller.close();
							sent += sent < PADDING ? CHUNK : 1;
						},
					},
					{ highWaterMark: 0 },
				);
				return new Response(body, {
					status: 200,
					headers: { 'content-type': response.headers.get('content-type') ?? 'application/octet-stream' },
				});
			};
			const { fake, ask } = await setup(which, t, { fetch: padded });
			const results = (await ask(3)).map(answered);
			assert.deepEqual(
				results.map((r) => r.text),
				[0, 1, 2].map((i) => defaultReply(prompt(i))),
			);
			assert.equal(fake.batches.length, 1, 'the answers after the padding were kept');
			// Sampled as it reads, and the peak since (a body read whole is joined only once it has all come).
			const grew = Math.max(most, process.resourceUsage().maxRSS * 1024 - peak);
			assert.ok(
				grew < 64 * 2 ** 20,
				`reading 256 MB of results grew the process by ${Math.round(grew / 2 ** 20)} MB`,
			);
		},
	);

	test(`${which} batch: a download of the results that breaks off is read again at the next poll, not taken as the batch failing`, async (t) => {
		let cut = 1;
		// The first download of the results sends half of them, then the connection drops.
		const breaking: typeof fetch = async (input, init) => {
			const url = input instanceof Request ? input.url : String(input);
			const response = await fetch(input, init);
			if (!/\/files\/file-out-[^/]+\/content$|\/results$/u.test(url) || cut-- <= 0) return response;
			const bytes = new Uint8Array(await response.arrayBuffer());
			const body = new ReadableStream<Uint8Array>({
				start(controller) {
					controller.enqueue(bytes.subarray(0, bytes.length >> 1));
					controller.error(new TypeError('terminated'));
				},
			});
			return new Response(body, { status: 200, headers: { 'content-type': 'application/octet-stream' } });
		};
		const { fake, journal, ask } = await setup(which, t, { fetch: breaking });
		const results = (await ask(3)).map(answered);
		assert.equal(cut, -1, 'the results were downloaded twice');
		assert.deepEqual(
			results.map((r) => [r.batch, r.text]),
			[0, 1, 2].map((i) => [fake.batches[0]!.id, defaultReply(prompt(i))]),
		);
		assert.equal(fake.batches.length, 1, 'nothing was bought again');
		assert.deepEqual(settledEntries(journal), []);
	});

	test(`${which} batch API: each poll and read of results has a signal of its own, so the long-lived one it is given gathers no listener`, async (t) => {
		const fake = await startFakeApi();
		t.after(() => fake.close());
		const api = apiOf(which, fake);
		const { id } = await api.submit([{ customId: 'n0', request: request('a prompt polled many times') }]);
		const studyLong = new AbortController();
		for (let i = 0; i < 15; i++) await api.status(id, studyLong.signal);
		assert.equal((await api.status(id, studyLong.signal)).ended, true);
		for (let i = 0; i < 3; i++) assert.equal((await api.results(id, studyLong.signal)).get('n0')?.ok, true);
		assert.equal(getEventListeners(studyLong.signal, 'abort').length, 0);
		// Still linked: aborting the long-lived signal ends a call.
		studyLong.abort();
		await assert.rejects(api.status(id, studyLong.signal), /abort/iu);
	});
}

test("a batch polled many times raises no MaxListenersExceededWarning, and its batcher's signal holds no listener once the batch ended", async (t) => {
	const { fake, batcher, ask } = await setup('openai', t);
	fake.batchPolls = 30;
	const warnings: Error[] = [];
	const onWarning = (warning: Error) => warnings.push(warning);
	process.on('warning', onWarning);
	t.after(() => process.off('warning', onWarning));
	const [result] = await ask(1);
	answered(result!);
	assert.ok(fake.batches[0]!.polls > 30);
	// Warnings are emitted on a later tick.
	await new Promise((resolve) => setImmediate(resolve));
	assert.deepEqual(
		warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
		[],
	);
	assert.equal(getEventListeners(batcher['polls'].signal, 'abort').length, 0);
});

test("BatchResults: a request keeps its answer whatever lines come after it; a file of made-up ids fills it no further than twice the batch's requests and a margin", () => {
	const ok = (text: string) => ({
		ok: true as const,
		result: { text, finishReason: 'stop', usage: { input: 1, output: 1, cached: 0 } },
	});
	const error = { ok: false as const, reason: 'invalid_request_error: no', retry: false };
	const results = new BatchResults(10);
	results.add('a', ok('first'));
	results.add('a', error);
	results.add('a', ok('again'));
	results.add('b', error);
	results.add('b', ok('late'));
	assert.deepEqual([results.get('a'), results.get('b')], [ok('first'), ok('late')]);
	for (let i = 0; i < 100_000; i++) results.add(`ghost${i}`, ok('made up'));
	assert.equal(results.size, 2 * 10 + 1000);
	const unknown = new BatchResults(undefined);
	for (let i = 0; i < 5000; i++) unknown.add(`id${i}`, ok('x'));
	assert.equal(unknown.size, 5000, 'with no count of requests, every id is kept');
});

test('LineSplitter: lines across chunks and a UTF-8 character cut between them come out whole; a line over the bound comes out as null, and the next one whole', () => {
	const bytes = Buffer.from('{"a":"é"}\nxxxxxxxxxxxxxxxxxxxxxxxx\n{"b":2}\n{"c":3}', 'utf8');
	const split = new LineSplitter(16);
	const lines: (string | null)[] = [];
	// One byte at a time: 'é' is two bytes, so it is cut between chunks.
	for (let i = 0; i < bytes.length; i++) lines.push(...split.push(bytes.subarray(i, i + 1)));
	lines.push(split.end() as string | null);
	assert.deepEqual(lines, ['{"a":"é"}', null, '{"b":2}', '{"c":3}']);
	assert.equal(split.end(), undefined);
});
