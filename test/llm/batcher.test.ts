import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnthropicBatchApi } from '../../source/llm/anthropic-batch.ts';
import {
	Batcher,
	GATHER_LIMIT,
	VENDOR_MAX_BATCH,
	customIdOf,
	requestHash,
	type BatchApi,
	type BatchRecords,
	type BatchChange,
	type BatchState,
} from '../../source/llm/batcher.ts';
import { batchLine } from '../../source/format/batch.ts';
import { createBatchApi } from '../../source/llm/create.ts';
import { OpenAIBatchApi } from '../../source/llm/openai-batch.ts';
import { isAbortError } from '../../source/llm/abort.ts';
import { ProviderError, type CallRequest } from '../../source/llm/provider.ts';
import { awaitedInBatches, BatchJournal } from '../../source/store/batch-journal.ts';
import { countTokens } from '../../source/text/tokens.ts';
import { defaultReply, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { tempDir } from '../support/temp.ts';

const request = (prompt: string, signal?: AbortSignal): CallRequest => ({
	prompt,
	maxTokens: 200,
	temperature: 0.5,
	task: { kind: 'summarize', texts: [prompt], words: 50 },
	...(signal ? { signal } : {}),
});

function apiOf(which: 'openai' | 'anthropic', fake: FakeApi): BatchApi {
	return which === 'openai'
		? new OpenAIBatchApi({
				apiKey: 'sk-test',
				model: 'gpt-4o-mini',
				baseURL: fake.openaiBaseUrl,
				maxRetries: 0,
			})
		: new AnthropicBatchApi({
				apiKey: 'sk-ant-test',
				model: 'claude-sonnet-4-5',
				baseURL: fake.anthropicBaseUrl,
				maxRetries: 0,
			});
}

async function setup(which: 'openai' | 'anthropic', t: { after(fn: () => unknown): void }) {
	const fake = await startFakeApi();
	const batcher = new Batcher({ api: apiOf(which, fake), gatherMs: 20, pollMs: 5 });
	const seen: { state: BatchState; change: BatchChange }[] = [];
	batcher.on((state, change) => seen.push({ state, change }));
	t.after(async () => {
		batcher.close();
		await fake.close();
	});
	const journal = await BatchJournal.open(tempDir('batcher'));
	return { fake, batcher, seen, journal, lane: batcher.lane({ session: 's1', cell: 'book/cell', journal }) };
}

for (const which of ['openai', 'anthropic'] as const) {
	test(`${which} batch: calls made together go out as one batch, each gets its own answer and usage, and the batch is recorded before it is polled`, async (t) => {
		const { fake, seen, journal, lane } = await setup(which, t);
		const prompts = [
			'Summarize the first part of the story.',
			'Summarize the second part of the story.',
			'Summarize the third part.',
		];
		const results = await Promise.all(
			prompts.map((p, i) => lane.complete({ owner: `n${i}`, version: 0, attempt: 0 }, request(p))),
		);
		assert.equal(fake.batches.length, 1);
		const [batch] = fake.batches;
		assert.deepEqual(
			batch!.items.map((i) => i.customId),
			prompts.map((_, i) => customIdOf('s1', { owner: `n${i}`, version: 0, attempt: 0 })),
		);
		results.forEach((r, i) => {
			assert.equal(r.batch, batch!.id);
			assert.equal(r.text, defaultReply(prompts[i]!));
			assert.equal(r.finishReason, which === 'openai' ? 'stop' : 'end_turn');
			assert.equal(r.usage.output, countTokens(r.text));
			assert.ok(r.usage.input > 0);
		});
		const body = batch!.items[0]!.body;
		if (which === 'openai') assert.equal(body.max_tokens, 200);
		else assert.deepEqual([body.max_tokens, body.temperature, body.stream], [200, 0.5, undefined]);
		// Recorded in the session's batches.jsonl, and the states went submitted → … → ended.
		const lines = readFileSync(journal.file, 'utf8')
			.split('\n')
			.filter((l) => l.trim() !== '');
		assert.equal(lines.length, 3);
		assert.ok(lines.every((l) => JSON.parse(l).batch === batch!.id));
		assert.equal(seen[0]!.change, 'submitted');
		assert.equal(seen[0]!.state.total, 3);
		assert.deepEqual(seen[0]!.state.cells, ['book/cell']);
		const ended = seen.at(-1)!;
		assert.equal(ended.change, 'ended');
		assert.deepEqual(
			[ended.state.succeeded, ended.state.errored, ended.state.done, ended.state.total],
			[3, 0, 3, 3],
		);
		assert.match(
			batchLine(ended.state, ended.change),
			new RegExp(`^batch ${batch!.id}: ended: 3 succeeded, 0 errored$`, 'u'),
		);
		// Anthropic counts every request as processing until the batch ends: nothing moves before.
		if (which === 'openai')
			assert.ok(
				seen.some((s) => s.change === 'progress' && s.state.done < 3),
				'progress seen before the end',
			);
		else
			assert.deepEqual(
				seen.map((s) => [s.change, s.state.status, s.state.done]),
				[
					['submitted', 'in_progress', 0],
					['ended', 'ended', 3],
				],
			);
	});

	test(`${which} batch: a request the batch answers with an error fails alone (and is not waited for again); an expired one goes out again in the next batch`, async (t) => {
		const { fake, journal, lane } = await setup(which, t);
		fake.batchFault = (customId, input) =>
			input.prompt.includes('bad')
				? 'errored'
				: input.prompt.includes('late') && fake.batches.length === 1
					? 'expired'
					: null;
		const [good, bad, late] = await Promise.allSettled([
			lane.complete({ owner: 'n0', version: 0, attempt: 0 }, request('a good prompt')),
			lane.complete({ owner: 'n1', version: 0, attempt: 0 }, request('a bad prompt')),
			lane.complete({ owner: 'n2', version: 0, attempt: 0 }, request('a late prompt')),
		]);
		assert.equal(good.status, 'fulfilled');
		assert.equal(bad.status, 'rejected');
		const error = (bad as PromiseRejectedResult).reason;
		assert.ok(error instanceof ProviderError, String(error));
		assert.match(
			error.message,
			new RegExp(`^${which} batch ${fake.batches[0]!.id}: .*fake error for n1-v0-a0-`, 'u'),
		);
		assert.equal(late.status, 'fulfilled');
		assert.equal((late as PromiseFulfilledResult<{ batch: string }>).value.batch, fake.batches[1]!.id);
		assert.deepEqual(
			fake.batches[1]!.items.map((i) => i.customId.split('-')[0]),
			['n2'],
		);
		// The error is settled in the journal: asking again goes out anew instead of waiting for the old batch.
		const reread = await BatchJournal.open(journal.file.replace(/\/batches\.jsonl$/u, ''));
		const badId = customIdOf('s1', { owner: 'n1', version: 0, attempt: 0 });
		assert.equal(
			reread.find(
				badId,
				JSON.parse(
					readFileSync(journal.file, 'utf8')
						.split('\n')
						.find((l) => l.includes(badId))!,
				).hash,
			),
			null,
		);
	});
}

for (const which of ['openai', 'anthropic'] as const) {
	test(`${which} batch: a request the batch answers with an error that passes (OpenAI request_timeout, Anthropic overloaded_error) goes out again and is answered from the next batch`, async (t) => {
		const { fake, lane } = await setup(which, t);
		fake.batchFault = (_customId, input) =>
			input.prompt.includes('slow') && fake.batches.length === 1 ? 'transient' : null;
		const [fine, slow] = await Promise.all([
			lane.complete({ owner: 'n0', version: 0, attempt: 0 }, request('a fine prompt')),
			lane.complete({ owner: 'n1', version: 0, attempt: 0 }, request('a slow prompt')),
		]);
		assert.deepEqual(
			fake.batches.map((b) => b.items.map((i) => i.customId.split('-')[0])),
			[['n0', 'n1'], ['n1']],
		);
		assert.equal(fine.batch, fake.batches[0]!.id);
		assert.deepEqual([slow.batch, slow.text], [fake.batches[1]!.id, defaultReply('a slow prompt')]);
	});
}

test('the requests of a batch given up on together are recorded in one synced write per session, not one each (a batch of 10,000 bad requests would take 10,000 fsyncs)', async (t) => {
	const { fake, batcher } = await setup('anthropic', t);
	fake.batchFault = () => 'errored';
	const dir = tempDir('batcher-give-up');
	const journal = await BatchJournal.open(dir);
	const writes: number[] = [];
	const counted: BatchRecords = {
		find: (customId, hash) => journal.find(customId, hash),
		append: (entries) => (writes.push(entries.length), journal.append(entries)),
	};
	const lane = batcher.lane({ session: 's1', cell: 'c', journal: counted });
	const keys = [0, 1, 2].map((i) => ({ owner: `n${i}`, version: 0, attempt: 0 }));
	const settled = await Promise.allSettled(
		keys.map((key, i) => lane.complete(key, request(`a bad prompt ${i}`))),
	);
	assert.deepEqual(
		settled.map((r) => r.status),
		['rejected', 'rejected', 'rejected'],
	);
	assert.deepEqual(writes, [3, 3], 'one write when submitted, one for the three given up on');
	const reread = await BatchJournal.open(dir);
	assert.deepEqual(
		keys.map((key, i) =>
			reread.find(customIdOf('s1', key), requestHash(batcher.api, request(`a bad prompt ${i}`))),
		),
		[null, null, null],
	);
});

test("an OpenAI batch refused because the account's queue of batches is full goes out again later; one refused for another reason, or too often, fails its calls", async (t) => {
	const fake = await startFakeApi();
	t.after(() => fake.close());
	const full = {
		code: 'token_limit_exceeded',
		message:
			'Enqueued token limit reached for gpt-4o-mini. Please try again once some in_progress batches have been completed.',
	};
	const run = async (refusals: { code: string; message: string }[], resubmits: number) => {
		fake.refuseBatches = [...refusals];
		const before = fake.batches.length;
		const batcher = new Batcher({ api: apiOf('openai', fake), gatherMs: 5, pollMs: 5, resubmits });
		const seen: { change: BatchChange; detail: string | undefined; line: string }[] = [];
		batcher.on((state, change, detail) =>
			seen.push({ change, detail, line: batchLine(state, change, detail) }),
		);
		const journal = await BatchJournal.open(tempDir('batcher-refused'));
		const lane = batcher.lane({ session: 's', cell: 'c', journal });
		const settled = await Promise.allSettled(
			['first', 'second'].map((w, i) =>
				lane.complete({ owner: `n${i}`, version: 0, attempt: 0 }, request(`Summarize the ${w} part.`)),
			),
		);
		batcher.close();
		return { settled, batches: fake.batches.slice(before), seen, journal };
	};

	// Refused once for a full queue: the same calls go out in a second batch and are answered from it.
	const again = await run([full], 2);
	assert.deepEqual(
		again.batches.map((b) => b.items.length),
		[2, 2],
	);
	assert.deepEqual(
		again.settled.map((r) => r.status),
		['fulfilled', 'fulfilled'],
	);
	assert.deepEqual(
		again.settled.map((r) => (r as PromiseFulfilledResult<{ batch: string; text: string }>).value.batch),
		[again.batches[1]!.id, again.batches[1]!.id],
	);
	assert.deepEqual(
		again.settled.map((r) => (r as PromiseFulfilledResult<{ text: string }>).value.text),
		['Summarize the first part.', 'Summarize the second part.'].map(defaultReply),
	);
	const failure = again.seen.find((s) => s.change === 'failed')!;
	assert.match(
		failure.detail ?? '',
		/Enqueued token limit reached.*; its calls go out again in a later batch$/u,
	);
	// Said once: "batch ID: failed: REASON", not "failed: failed: REASON".
	assert.match(
		failure.line,
		new RegExp(`^batch ${again.batches[0]!.id}: failed: Enqueued token limit reached`, 'u'),
	);
	// The journal sends a restarted run to the batch that answered, not to the refused one.
	const line = readFileSync(again.journal.file, 'utf8')
		.split('\n')
		.find((l) => l.includes('"n0-'))!;
	const entry = JSON.parse(line) as { customId: string; hash: string };
	assert.equal(
		(await BatchJournal.open(again.journal.file.replace(/\/batches\.jsonl$/u, ''))).find(
			entry.customId,
			entry.hash,
		),
		again.batches[1]!.id,
	);

	// Refused for a reason of the requests themselves: no second batch, the calls fail with it.
	const bad = await run(
		[{ code: 'invalid_json_line', message: 'This line is not parseable as valid JSON.' }],
		2,
	);
	assert.equal(bad.batches.length, 1);
	for (const r of bad.settled) {
		assert.equal(r.status, 'rejected');
		assert.match(String((r as PromiseRejectedResult).reason), /not parseable as valid JSON/u);
	}

	// A queue that stays full: one submission and `resubmits` more, then the calls fail, saying why.
	const stays = await run([full, full, full, full], 1);
	assert.equal(stays.batches.length, 2);
	for (const r of stays.settled) {
		assert.equal(r.status, 'rejected');
		assert.match(String((r as PromiseRejectedResult).reason), /Enqueued token limit reached/u);
	}
});

for (const which of ['openai', 'anthropic'] as const) {
	test(`${which} batch: a batch that could not be created for a reason that passes (a 503 after the SDK's retries) sends its calls out again after a poll's interval; a refusal of the request (400), or one that lasts, fails them`, async (t) => {
		const fake = await startFakeApi();
		t.after(() => fake.close());
		const create = which === 'openai' ? /\/v1\/batches$/u : /\/v1\/messages\/batches$/u;
		const run = async (answers: number[], resubmits: number) => {
			const statuses = [...answers];
			const failing: typeof fetch = async (input, init) => {
				const url = input instanceof Request ? input.url : String(input);
				const status = init?.method === 'POST' && create.test(url) ? statuses.shift() : undefined;
				if (status === undefined) return fetch(input, init);
				const error =
					which === 'openai'
						? { error: { message: 'down for a moment', type: 'server_error', param: null, code: null } }
						: {
								type: 'error',
								error: {
									type: status === 400 ? 'invalid_request_error' : 'overloaded_error',
									message: 'down for a moment',
								},
							};
				return new Response(JSON.stringify(error), {
					status,
					headers: { 'content-type': 'application/json' },
				});
			};
			const api =
				which === 'openai'
					? new OpenAIBatchApi({
							apiKey: 'sk-test',
							model: 'gpt-4o-mini',
							baseURL: fake.openaiBaseUrl,
							maxRetries: 0,
							fetch: failing,
						})
					: new AnthropicBatchApi({
							apiKey: 'sk-ant-test',
							model: 'claude-sonnet-4-5',
							baseURL: fake.anthropicBaseUrl,
							maxRetries: 0,
							fetch: failing,
						});
			const batcher = new Batcher({ api, gatherMs: 5, pollMs: 5, resubmits });
			const before = fake.batches.length;
			const lane = batcher.lane({
				session: 's',
				cell: 'c',
				journal: await BatchJournal.open(tempDir('batcher-create')),
			});
			const settled = await Promise.allSettled(
				['first', 'second'].map((w, i) =>
					lane.complete({ owner: `n${i}`, version: 0, attempt: 0 }, request(`Summarize the ${w} part.`)),
				),
			);
			batcher.close();
			return { settled, batches: fake.batches.slice(before), left: statuses.length };
		};

		const again = await run([503], 2);
		assert.deepEqual(
			again.batches.map((b) => b.items.length),
			[2],
		);
		assert.deepEqual(
			again.settled.map((r) => (r.status === 'fulfilled' ? r.value.batch : String(r.reason))),
			[again.batches[0]!.id, again.batches[0]!.id],
		);

		const refused = await run([400], 2);
		assert.equal(refused.batches.length, 0);
		for (const r of refused.settled)
			assert.match(String((r as PromiseRejectedResult).reason), /400.*down for a moment/u);

		// Down for longer than one submission and `resubmits` more: the calls fail, saying why.
		const lasting = await run([503, 503, 503], 1);
		assert.deepEqual([lasting.batches.length, lasting.left], [0, 1]);
		for (const r of lasting.settled) assert.match(String((r as PromiseRejectedResult).reason), /503/u);
	});
}

test('a batch recorded by a killed process is waited for again, not submitted twice; a cancelled call leaves its batch', async (t) => {
	const fake = await startFakeApi();
	t.after(() => fake.close());
	const dir = tempDir('batcher-restart');
	fake.holdBatches = true;
	const first = new Batcher({ api: apiOf('anthropic', fake), gatherMs: 10, pollMs: 5 });
	// Submitted means recorded: from then on a kill loses nothing.
	const submitted = new Promise<void>((resolve) =>
		first.on((_, change) => change === 'submitted' && resolve()),
	);
	const stop = new AbortController();
	const lane = first.lane({ session: 's1', cell: 'c', journal: await BatchJournal.open(dir) });
	const waiting = lane.complete(
		{ owner: 'n0', version: 0, attempt: 0 },
		request('a prompt to wait for', stop.signal),
	);
	await submitted;
	stop.abort();
	await assert.rejects(waiting, (error) => isAbortError(error));
	first.close();
	assert.equal(fake.batches.length, 1);

	// As a new process: the same call finds its batch in the session and waits for it.
	fake.holdBatches = false;
	const second = new Batcher({ api: apiOf('anthropic', fake), gatherMs: 10, pollMs: 5 });
	t.after(() => second.close());
	const changes: BatchChange[] = [];
	second.on((_, change) => changes.push(change));
	const again = second.lane({ session: 's1', cell: 'c', journal: await BatchJournal.open(dir) });
	const result = await again.complete(
		{ owner: 'n0', version: 0, attempt: 0 },
		request('a prompt to wait for'),
	);
	assert.equal(result.batch, fake.batches[0]!.id);
	assert.equal(result.text, defaultReply('a prompt to wait for'));
	assert.equal(fake.batches.length, 1, 'not submitted again');
	assert.equal(changes[0], 'attached');
	// A changed prompt under the same numbers is another call: it goes out anew.
	const changed = await again.complete({ owner: 'n0', version: 0, attempt: 0 }, request('another prompt'));
	assert.equal(fake.batches.length, 2);
	assert.equal(changed.batch, fake.batches[1]!.id);
});

for (const which of ['openai', 'anthropic'] as const) {
	test(`${which} batch: requests of a batch cancelled at the provider go out again; a recorded batch the provider no longer has (404) sends its calls out again at once`, async (t) => {
		const { fake, batcher, journal, lane } = await setup(which, t);
		fake.holdBatches = true;
		const submitted = new Promise<BatchState>((resolve) =>
			batcher.on((state, change) => change === 'submitted' && resolve(state)),
		);
		const answer = lane.complete({ owner: 'n0', version: 0, attempt: 0 }, request('cancel me'));
		// Cancelled as a person would in the vendor's console, once the batch is there.
		const cancelled = await submitted;
		const path =
			which === 'openai'
				? `/v1/batches/${cancelled.id}/cancel`
				: `/v1/messages/batches/${cancelled.id}/cancel`;
		assert.equal((await fetch(`${fake.url}${path}`, { method: 'POST' })).status, 200);
		fake.holdBatches = false;
		const result = await answer;
		assert.equal(fake.batches.length, 2);
		assert.equal(result.batch, fake.batches[1]!.id);
		assert.equal(result.text, defaultReply('cancel me'));

		// A batch id recorded in the session that the provider does not know (deleted, another account):
		// nothing will answer it, so the call goes out again at once rather than failing its cell.
		const key = { owner: 'n9', version: 0, attempt: 0 };
		const gone = request('a prompt whose batch is gone');
		const goneId = which === 'openai' ? 'batch_gone' : 'msgbatch_gone';
		const hash = requestHash(apiOf(which, fake), gone);
		await journal.append([
			{
				customId: customIdOf('s1', key),
				batch: goneId,
				hash,
				provider: which,
				model: 'm',
				at: new Date().toISOString(),
			},
		]);
		const failed: string[] = [];
		batcher.on(
			(state, change, detail) => change === 'failed' && failed.push(batchLine(state, change, detail)),
		);
		const retried = await lane.complete(key, gone);
		assert.equal(fake.batches.length, 3);
		assert.deepEqual(
			[retried.batch, retried.text],
			[fake.batches[2]!.id, defaultReply('a prompt whose batch is gone')],
		);
		assert.match(
			failed.join('\n'),
			new RegExp(
				`^batch ${goneId}: failed: not at the provider any more \\(404 Not Found\\); its calls go out again in a new batch$`,
				'u',
			),
		);
		// A run after a kill waits for the new batch, not the one that is gone.
		assert.equal(
			(await BatchJournal.open(journal.file.replace(/\/batches\.jsonl$/u, ''))).find(
				customIdOf('s1', key),
				hash,
			),
			fake.batches[2]!.id,
		);
	});
}

test('batches.jsonl: a line cut short by a kill is skipped and the next entry starts on a line of its own', async () => {
	const dir = tempDir('batch-journal');
	const journal = await BatchJournal.open(dir);
	const entry = (customId: string, batch: string) => ({
		customId,
		batch,
		hash: 'h',
		provider: 'openai',
		model: 'm',
		at: new Date().toISOString(),
	});
	await journal.append([entry('a', 'b1')]);
	appendFileSync(journal.file, '{"customId":"x","bat');
	const reopened = await BatchJournal.open(dir);
	assert.equal(reopened.find('a', 'h'), 'b1');
	assert.equal(reopened.find('x', 'h'), null);
	await reopened.append([entry('c', 'b2')]);
	const again = await BatchJournal.open(dir);
	assert.deepEqual(
		[again.find('a', 'h'), again.find('c', 'h'), again.find('c', 'other')],
		['b1', 'b2', null],
	);
	assert.equal(
		readFileSync(journal.file, 'utf8')
			.split('\n')
			.filter((l) => l === '').length,
		1,
		'no blank line but the last',
	);
});

test('a batch holds at most `maxSize` requests: more gathered calls go out in as many batches as it takes, at once', async (t) => {
	const fake = await startFakeApi();
	const batcher = new Batcher({ api: apiOf('openai', fake), gatherMs: 20, pollMs: 5, maxSize: 2 });
	t.after(async () => {
		batcher.close();
		await fake.close();
	});
	const lane = batcher.lane({
		session: 's',
		cell: 'c',
		journal: await BatchJournal.open(tempDir('batcher-size')),
	});
	const prompts = ['one', 'two', 'three', 'four', 'five'].map((w) => `Summarize part ${w}.`);
	const results = await Promise.all(
		prompts.map((p, i) => lane.complete({ owner: `n${i}`, version: 0, attempt: 0 }, request(p))),
	);
	// Sent at once, the batches may reach the server in any order.
	assert.deepEqual(fake.batches.map((b) => b.items.length).sort(), [1, 2, 2]);
	assert.deepEqual(
		results.map((r) => r.text),
		prompts.map(defaultReply),
	);
});

// The timeout is part of the test: a batch of 50,000 once took 15 s of a blocked event loop to record (about 1 s now).
test(
	'a `size` beyond what the vendor takes in one batch (OpenAI 50,000 requests) is capped at it: the calls go out in batches the vendor accepts, without blocking the process',
	{ timeout: 10_000 },
	async (t) => {
		const fake = await startFakeApi();
		fake.holdBatches = true;
		const batcher = new Batcher({
			api: apiOf('openai', fake),
			gatherMs: 50,
			pollMs: 60_000,
			maxSize: 60_000,
		});
		t.after(async () => {
			batcher.close();
			await fake.close();
		});
		// Every call has gone out, in however many batches.
		const submitted = new Promise<void>((resolve) => {
			let requests = 0;
			batcher.on(
				(state, change) =>
					change === 'submitted' && (requests += state.total) === VENDOR_MAX_BATCH.openai + 1 && resolve(),
			);
		});
		const lane = batcher.lane({
			session: 's',
			cell: 'c',
			journal: await BatchJournal.open(tempDir('batcher-vendor-size')),
		});
		const calls = Array.from({ length: VENDOR_MAX_BATCH.openai + 1 }, (_, i) =>
			lane.complete({ owner: `n${i}`, version: 0, attempt: 0 }, request(`p${i}`)).catch(() => {}),
		);
		await submitted;
		assert.equal(VENDOR_MAX_BATCH.openai, 50_000);
		assert.deepEqual(
			fake.batches.map((b) => b.items.length).sort((a, b) => b - a),
			[50_000, 1],
		);
		batcher.close();
		await Promise.all(calls);
	},
);

test('calls that keep coming a little apart still go out: a gathering ends GATHER_LIMIT gather times after its first call', async (t) => {
	const fake = await startFakeApi();
	const gatherMs = 100;
	const batcher = new Batcher({ api: apiOf('openai', fake), gatherMs, pollMs: 5 });
	t.after(async () => {
		batcher.close();
		await fake.close();
	});
	let submitted = 0;
	batcher.on((_state, change) => {
		if (change === 'submitted') submitted++;
	});
	const lane = batcher.lane({
		session: 's',
		cell: 'c',
		journal: await BatchJournal.open(tempDir('batcher-limit')),
	});
	// A call every few milliseconds, never a quiet `gatherMs`, until a batch has gone out. Without the
	// limit none would go out while they come; the bound only keeps a broken limit from hanging.
	const calls: Promise<unknown>[] = [];
	const started = Date.now();
	while (submitted === 0 && Date.now() - started < 20 * GATHER_LIMIT * gatherMs) {
		calls.push(
			lane.complete(
				{ owner: `n${calls.length}`, version: 0, attempt: 0 },
				request(`Summarize part ${calls.length}.`),
			),
		);
		await new Promise((resolve) => setTimeout(resolve, 2));
	}
	assert.equal(submitted, 1, 'a batch went out while calls kept coming');
	const sent = calls.length;
	await Promise.all(calls);
	const first = fake.batches[0]!.items.length;
	assert.ok(
		first < sent,
		`the first batch (${first} calls) went out before the last of the ${sent} calls came`,
	);
	assert.equal(
		fake.batches.reduce((n, b) => n + b.items.length, 0),
		sent,
		'the calls after it went out in a batch of their own',
	);
});

for (const [why, status] of [
	['still failing after every poll (the network is down)', 503],
	['refused (a key revoked while it runs)', 401],
] as const) {
	test(`polls of a batch ${why} fail its calls, but the batch stays theirs: the next run waits for it again instead of paying for the requests twice`, async (t) => {
		const fake = await startFakeApi();
		t.after(() => fake.close());
		const dir = tempDir('batcher-unreachable');
		fake.holdBatches = true;
		// The batch is created; every poll of it then fails, as the SDK sees it.
		const down: typeof fetch = async (input, init) => {
			const url = input instanceof Request ? input.url : String(input);
			if (init?.method === 'GET' && url.includes('/v1/messages/batches/')) {
				return new Response(
					JSON.stringify({
						type: 'error',
						error: { type: status === 401 ? 'authentication_error' : 'api_error', message: 'no' },
					}),
					{ status, headers: { 'content-type': 'application/json' } },
				);
			}
			return fetch(input, init);
		};
		const first = new Batcher({
			api: new AnthropicBatchApi({
				apiKey: 'sk-ant-test',
				model: 'claude-sonnet-4-5',
				baseURL: fake.anthropicBaseUrl,
				maxRetries: 0,
				fetch: down,
			}),
			gatherMs: 5,
			pollMs: 1,
		});
		const lines: string[] = [];
		first.on((state, change, detail) => lines.push(batchLine(state, change, detail)));
		const key = { owner: 'n0', version: 0, attempt: 0 };
		const lane = first.lane({ session: 's1', cell: 'c', journal: await BatchJournal.open(dir) });
		await assert.rejects(
			lane.complete(key, request('a prompt whose batch cannot be polled')),
			(error) => error instanceof ProviderError && error.status === status,
		);
		first.close();
		assert.equal(fake.batches.length, 1);
		// Said as over (a screen stops showing it as waited for), and that the next run waits for it.
		assert.match(
			lines.at(-1)!,
			new RegExp(
				`^batch ${fake.batches[0]!.id}: failed: .*it stays recorded: running the study again waits for it\\)$`,
				'u',
			),
		);

		// As the next run, once the provider can be reached: the batch, still running there, is waited for.
		fake.holdBatches = false;
		const second = new Batcher({ api: apiOf('anthropic', fake), gatherMs: 5, pollMs: 1 });
		t.after(() => second.close());
		const again = second.lane({ session: 's1', cell: 'c', journal: await BatchJournal.open(dir) });
		const result = await again.complete(key, request('a prompt whose batch cannot be polled'));
		assert.equal(fake.batches.length, 1, 'not submitted twice');
		assert.equal(result.batch, fake.batches[0]!.id);
	});
}

test('close() while a batch is being created: the calls in it reject as cancelled (none is left waiting), and the batch is recorded for the next run', async (t) => {
	const fake = await startFakeApi();
	t.after(() => fake.close());
	const dir = tempDir('batcher-close');
	fake.holdBatches = true;
	let creating: () => void = () => {};
	const created = new Promise<void>((resolve) => {
		creating = resolve;
	});
	let release: () => void = () => {};
	const released = new Promise<void>((resolve) => {
		release = resolve;
	});
	const held: typeof fetch = async (input, init) => {
		const url = input instanceof Request ? input.url : String(input);
		if (init?.method === 'POST' && url.endsWith('/v1/messages/batches')) {
			creating();
			await released;
		}
		return fetch(input, init);
	};
	const batcher = new Batcher({
		api: new AnthropicBatchApi({
			apiKey: 'sk-ant-test',
			model: 'claude-sonnet-4-5',
			baseURL: fake.anthropicBaseUrl,
			maxRetries: 0,
			fetch: held,
		}),
		gatherMs: 5,
		pollMs: 5,
	});
	const submitted = new Promise<void>((resolve) =>
		batcher.on((_, change) => change === 'submitted' && resolve()),
	);
	const journal = await BatchJournal.open(dir);
	const waiting = batcher
		.lane({ session: 's1', cell: 'c', journal })
		.complete({ owner: 'n0', version: 0, attempt: 0 }, request('closed while its batch is created'));
	const outcome = waiting.then(
		() => 'answered',
		(error: unknown) => (isAbortError(error) ? 'cancelled' : `failed: ${String(error)}`),
	);
	await created;
	batcher.close();
	release();
	await submitted;
	// Settled by the time its batch is known: nothing polls it any more.
	const settled = await Promise.race([
		outcome,
		new Promise<string>((resolve) => setImmediate(() => resolve('still waiting'))),
	]);
	assert.equal(settled, 'cancelled');
	assert.equal(
		journal.find(
			customIdOf('s1', { owner: 'n0', version: 0, attempt: 0 }),
			requestHash(batcher.api, request('closed while its batch is created')),
		),
		fake.batches[0]!.id,
	);
});

for (const which of ['openai', 'anthropic'] as const) {
	test(`${which} batch: close() stops a poll in flight (a provider that hangs must not keep the process alive once the study ended)`, async (t) => {
		const fake = await startFakeApi();
		t.after(() => fake.close());
		fake.holdBatches = true;
		const polls: AbortSignal[] = [];
		let polling: () => void = () => {};
		const polled = new Promise<void>((resolve) => {
			polling = resolve;
		});
		// Every poll hangs until its request is aborted, as a provider that accepts and never answers.
		const hung: typeof fetch = async (input, init) => {
			const url = input instanceof Request ? input.url : String(input);
			if (init?.method === 'GET' && /\/batches\/[^/]+$/u.test(url)) {
				const signal = init.signal!;
				polls.push(signal);
				polling();
				return await new Promise<Response>((_, reject) =>
					signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
				);
			}
			return fetch(input, init);
		};
		const api =
			which === 'openai'
				? new OpenAIBatchApi({
						apiKey: 'sk-test',
						model: 'gpt-4o-mini',
						baseURL: fake.openaiBaseUrl,
						maxRetries: 0,
						fetch: hung,
					})
				: new AnthropicBatchApi({
						apiKey: 'sk-ant-test',
						model: 'claude-sonnet-4-5',
						baseURL: fake.anthropicBaseUrl,
						maxRetries: 0,
						fetch: hung,
					});
		const batcher = new Batcher({ api, gatherMs: 5, pollMs: 1 });
		const stop = new AbortController();
		const lane = batcher.lane({
			session: 's1',
			cell: 'c',
			journal: await BatchJournal.open(tempDir('batcher-hung')),
		});
		const waiting = lane.complete(
			{ owner: 'n0', version: 0, attempt: 0 },
			request('a prompt whose batch hangs', stop.signal),
		);
		await polled;
		// Ctrl-C: the call is cancelled, then the study closes its batchers.
		stop.abort();
		await assert.rejects(waiting, (error) => isAbortError(error));
		batcher.close();
		assert.equal(polls.length, 1);
		assert.equal(polls[0]!.aborted, true, 'the poll in flight is aborted');
	});
}

for (const which of ['openai', 'anthropic'] as const) {
	test(`${which} batch API as a study makes it (createBatchApi): its polls and reads of results take the batcher's signal, so close() ends one in flight`, async (t) => {
		const fake = await startFakeApi();
		t.after(() => fake.close());
		const api = createBatchApi({
			provider: which,
			model: which === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-5',
			baseUrl: which === 'openai' ? fake.openaiBaseUrl : fake.anthropicBaseUrl,
			env: { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' },
		});
		const { id } = await api.submit([{ customId: 'n0', request: request('a prompt to poll') }]);
		fake.batchPolls = 0;
		const closed = AbortSignal.abort();
		const [polls, reads] = [fake.batches[0]!.polls, fake.batchResultReads];
		await assert.rejects(api.status(id, closed), /abort/iu);
		await assert.rejects(api.results(id, closed), /abort/iu);
		assert.deepEqual(
			[fake.batches[0]!.polls, fake.batchResultReads],
			[polls, reads],
			'nothing was asked of the provider',
		);
		// Not aborted, the same calls answer.
		assert.equal((await api.status(id)).ended, true);
		assert.equal((await api.results(id)).get('n0')?.ok, true);
	});
}

test(
	'an ended batch keeps no answers once they are handed out: a call that attaches to it later reads its results anew',
	{ timeout: 60_000 },
	async (t) => {
		const { fake, lane } = await setup('openai', t);
		const key = { owner: 'n0', version: 0, attempt: 0 };
		const first = await lane.complete(key, request('a prompt asked twice'));
		const reads = fake.batchResultReads;
		// The same call again (as after a kill that lost its answer before it was saved): recorded, so it waits for that batch.
		const again = await lane.complete(key, request('a prompt asked twice'));
		assert.equal(fake.batches.length, 1, 'not submitted twice');
		assert.deepEqual([again.batch, again.text], [first.batch, first.text]);
		assert.ok(fake.batchResultReads > reads, 'the answers were read again: the batcher had not kept them');
	},
);

test('an OpenAI batch asks a reasoning model as a streamed call does: no temperature, its least reasoning effort', async (t) => {
	const fake = await startFakeApi();
	const batcher = new Batcher({
		api: new OpenAIBatchApi({
			apiKey: 'sk-test',
			model: 'gpt-5-mini',
			baseURL: fake.openaiBaseUrl,
			maxRetries: 0,
		}),
		gatherMs: 5,
		pollMs: 5,
	});
	t.after(async () => {
		batcher.close();
		await fake.close();
	});
	const lane = batcher.lane({
		session: 's',
		cell: 'c',
		journal: await BatchJournal.open(tempDir('batcher-reasoning')),
	});
	await lane.complete({ owner: 'n0', version: 0, attempt: 0 }, request('Summarize the first part.'));
	const body = fake.batches[0]!.items[0]!.body;
	assert.deepEqual(
		[body.model, 'temperature' in body, body.reasoning_effort],
		['gpt-5-mini', false, 'minimal'],
	);
});

test('awaitedInBatches: a request is awaited while its latest entry is not given up on and no answer from its batch is in the call log', async () => {
	const dir = tempDir('batcher-awaited');
	const id = 'book-1';
	const path = join(dir, id);
	mkdirSync(path);
	const journal = await BatchJournal.open(path);
	const at = new Date(0).toISOString();
	const entry = (owner: string, batch: string, settled?: 'errored') => ({
		customId: customIdOf(id, { owner, version: 0, attempt: 0 }),
		batch,
		hash: 'h',
		provider: 'openai',
		model: 'm',
		at,
		...(settled ? { settled } : {}),
	});
	// n0 answered from b1; n1 given up on; n2 out in b1; n3 went out again in b2 after b1 expired it.
	await journal.append([
		entry('n0', 'b1'),
		entry('n1', 'b1'),
		entry('n2', 'b1'),
		entry('n3', 'b1'),
		entry('n1', 'b1', 'errored'),
		entry('n3', 'b2'),
	]);
	const call = {
		node: 'n0',
		version: 0,
		attempt: 0,
		provider: 'openai',
		model: 'm',
		prompt: 'p',
		response: 'r',
		finishReason: 'stop',
		params: { temperature: 0.5, maxTokens: 10, words: 5, template: 'hier-init' },
		usage: { input: 1, output: 1, cached: 0 },
		cost: 0,
		timings: { start: at, end: at, ms: 0 },
		batch: 'b1',
	};
	writeFileSync(join(path, 'calls.jsonl'), `${JSON.stringify(call)}\n`);
	const awaited = await awaitedInBatches(dir, id);
	assert.deepEqual(
		awaited.map((e) => [e.customId.split('-')[0], e.batch]),
		[
			['n2', 'b1'],
			['n3', 'b2'],
		],
	);
	assert.deepEqual(await awaitedInBatches(dir, 'no-such-session'), []);
});
