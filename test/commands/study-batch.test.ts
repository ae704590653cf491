import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_PRICES, callCost } from '../../source/llm/prices.ts';
import { Session } from '../../source/store/session.ts';
import type { CallRecord } from '../../source/store/schema.ts';
import { booook } from '../support/cli.ts';
import { annotatingReply, startFakeApi } from '../support/fake-api.ts';
import { tempDir } from '../support/temp.ts';
import { BOOKS_DIR as BOOKS } from '../support/repo-data.ts';

const TITLES = ['frankenstein', 'pride-and-prejudice', 'war-and-peace'];

function studyFile(value: unknown): string {
	const file = join(tempDir('study-batch-file'), 'study.json');
	writeFileSync(file, JSON.stringify(value));
	return file;
}

function sessionIds(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true })
		.filter((e) => e.isDirectory() && !e.name.startsWith('.'))
		.map((e) => e.name);
}

/** Every call record of every session under `dir`. */
function loggedCalls(dir: string): (CallRecord & { session: string })[] {
	return sessionIds(dir).flatMap((id) => {
		const log = join(dir, id, 'calls.jsonl');
		if (!existsSync(log)) return [];
		return readFileSync(log, 'utf8')
			.split('\n')
			.filter((line) => line.trim() !== '')
			.map((line) => ({ ...(JSON.parse(line) as CallRecord), session: id }));
	});
}

async function sessionsDone(dir: string): Promise<number> {
	const done = await Promise.all(
		sessionIds(dir).map(async (id) => {
			const { data } = await Session.snapshot(dir, id);
			return data.kind === 'book' && data.run.status === 'done' && data.run.root !== null;
		}),
	);
	return done.filter(Boolean).length;
}

const lines = (text: string, pattern: RegExp) => text.split('\n').filter((l) => pattern.test(l));

test('a batched study of the three example books × hier and inc × two chunk sizes: killed (SIGKILL) while its batches are in progress, run again it waits for the same batches, submits no request twice, bills half price and prints the table', async (t) => {
	const api = await startFakeApi({ respond: annotatingReply });
	t.after(() => api.close());
	const spec = {
		name: 'batched',
		books: TITLES.map((title) => join(BOOKS, `${title}.txt`)),
		methods: ['hier', 'inc'],
		providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl }],
		chunkSizes: [32768, 65536],
		contextWindows: [131072],
		score: true,
		batch: { poll: 0.02, gather: 0.1 },
	};
	const file = studyFile(spec);
	const sessions = join(tempDir('study-batch'), 'sessions');
	const env = { OPENAI_API_KEY: 'sk-test' };

	const planned = await booook(['study', file, '--plan', '--json', '--sessions-dir', sessions], { env });
	assert.equal(planned.code, 0, planned.stderr);
	const cells = (JSON.parse(planned.stdout) as { cells: { method: string; chunks: number }[] }).cells;
	assert.equal(cells.length, 12);
	// What the first batches hold: every chunk summary of the hierarchical cells, the first step of the incremental ones.
	const firstRound = cells.reduce((n, c) => n + (c.method === 'hier' ? c.chunks : 1), 0);

	// No batch ends until every first-round request was submitted and recorded; then the process dies.
	api.holdBatches = true;
	const submitted = () => api.batches.reduce((n, b) => n + b.items.length, 0);
	const killed = await booook(['study', file, '--sessions-dir', sessions], {
		env,
		onStderr: (text, kill) => {
			if (
				submitted() === firstRound &&
				api.batches.every((b) => text.includes(`batch ${b.id}: submitted, `)) &&
				api.batches.every((b) => b.polls > 0)
			)
				kill();
		},
	});
	assert.equal(killed.signal, 'SIGKILL', killed.stderr);
	assert.equal(await sessionsDone(sessions), 0);
	assert.equal(loggedCalls(sessions).length, 0, 'no batch had ended');
	assert.match(
		killed.stderr,
		/^batch batch_\d+: submitted, \d+ requests? from \d+ cells? \(openai\/gpt-4o-mini\)$/mu,
	);
	assert.match(killed.stderr, /^batch batch_\d+: in progress \d+\/\d+$/mu);
	const before = api.batches.length;
	// Each session recorded the batches its requests went out in.
	const recorded = sessionIds(sessions).flatMap((id) =>
		readFileSync(join(sessions, id, 'batches.jsonl'), 'utf8')
			.split('\n')
			.filter((l) => l.trim() !== ''),
	);
	assert.equal(recorded.length, firstRound);

	api.holdBatches = false;
	const resumed = await booook(['study', file, '--sessions-dir', sessions], { env });
	// Polling lines would bury the one that says why it failed.
	assert.equal(
		resumed.code,
		0,
		resumed.stderr
			.split('\n')
			.filter((l) => !/: in progress \d/u.test(l))
			.slice(-40)
			.join('\n'),
	);
	assert.equal(await sessionsDone(sessions), 12);
	assert.equal(
		lines(resumed.stderr, /: submitted by an earlier run, waiting for it again/u).length,
		before,
		resumed.stderr,
	);
	const ids = api.batches.flatMap((b) => b.items.map((i) => i.customId));
	assert.equal(new Set(ids).size, ids.length, 'no request submitted twice');
	assert.equal(
		lines(resumed.stderr, /: scored with openai\/gpt-4o-mini: BooookScore /u).length,
		12,
		resumed.stderr,
	);

	// Batched calls cost half the listed price; the streamed ones (hierarchical merges) the whole.
	const calls = loggedCalls(sessions);
	const batched = calls.filter((c) => c.batch !== undefined);
	const streamed = calls.filter((c) => c.batch === undefined);
	assert.ok(
		batched.length >= firstRound && streamed.length > 0,
		`${batched.length} batched, ${streamed.length} streamed`,
	);
	for (const call of calls) {
		const full = callCost(BUILTIN_PRICES, call.model, call.usage, 'openai').cost;
		// A failed attempt (on a loaded machine, a stream the watchdog gave up on) is billed what it used, maybe nothing.
		assert.ok(full > 0 || call.error !== undefined, `${call.node}: an answered call with no usage`);
		assert.ok(
			Math.abs(call.cost - (call.batch === undefined ? full : full / 2)) < 1e-12,
			`${call.node}: ${call.cost} vs ${full}`,
		);
	}
	// Which calls went where: hierarchical merges and the clean step streamed; chunk summaries, incremental steps and annotations batched.
	const kinds = new Map<string, string>();
	for (const id of sessionIds(sessions)) {
		const { data } = await Session.snapshot(sessions, id);
		if (data.kind === 'book')
			for (const node of data.run.nodes)
				kinds.set(`${id} ${node.id}`, `${data.run.config.method} ${node.kind} ${node.level}`);
	}
	assert.deepEqual(
		[...new Set(streamed.map((c) => kinds.get(`${c.session} ${c.node}`)?.replace(/ \d+$/u, '')))].sort(),
		['hier clean', 'hier merge', 'inc clean'],
	);
	assert.ok(
		batched.every((c) => {
			const kind = kinds.get(`${c.session} ${c.node}`);
			return kind === undefined || kind === 'hier summarize 0' || kind.startsWith('inc ');
		}),
	);
	assert.ok(
		batched.some((c) => !kinds.has(`${c.session} ${c.node}`)),
		'annotation calls batched',
	);
	assert.ok(
		batched.every((c) =>
			api.batches.some(
				(b) => b.id === c.batch && b.items.some((i) => i.body.messages![0]!.content === c.prompt),
			),
		),
	);
	const keys = calls.map((c) => `${c.session} ${c.node} ${c.version} ${c.attempt}`);
	assert.equal(new Set(keys).size, keys.length, 'no call logged twice');

	// Four configurations, each done and scored on all three books.
	// The results table: the rows with books done (the error-type table under it has the same first columns).
	const rows = lines(resumed.stdout, /^(hier|inc) +openai gpt-4o-mini .* 3\/3 /u);
	assert.equal(rows.length, 4, resumed.stdout);
	for (const row of rows) assert.match(row, / 3\/3 .* \d+\.\d$/u, resumed.stdout);
});

test('"batch" with the extractive baseline, or not true/false/{ poll, gather }, is one line and exit 2, nothing written', async () => {
	const sessions = join(tempDir('study-batch-bad'), 'sessions');
	const base = {
		name: 'b',
		books: [join(BOOKS, 'frankenstein.txt')],
		methods: ['hier'],
		chunkSizes: [65536],
		contextWindows: [131072],
	};
	for (const [spec, pattern] of [
		[
			{ ...base, providers: [{ provider: 'openai' }, { provider: 'extractive' }], batch: true },
			/^booook: study .*: "batch" sends model calls through the openai or anthropic batch API, and the extractive baseline makes none: remove it from providers, or drop "batch"$/u,
		],
		[
			{ ...base, providers: [{ provider: 'openai' }], batch: 'yes' },
			/batch: .*use "batch": true, or with the seconds/u,
		],
		[
			{ ...base, providers: [{ provider: 'openai' }], batch: { poll: 0 } },
			/batch\.poll: .*use "batch": true/u,
		],
	] as const) {
		const result = await booook(['study', studyFile(spec), '--sessions-dir', sessions], {
			env: { OPENAI_API_KEY: 'sk-test' },
		});
		assert.equal(result.code, 2, result.stderr);
		assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
		assert.match(result.stderr.trim(), pattern);
		assert.ok(!existsSync(sessions), 'nothing written');
	}
});

test("--plan prices a batched study's batched calls at half: less than the same study streamed, more than half of it (hierarchical merges stream)", async () => {
	const sessions = join(tempDir('study-batch-plan'), 'sessions');
	const base = {
		name: 'p',
		books: [join(BOOKS, 'frankenstein.txt')],
		methods: ['hier', 'inc'],
		providers: [{ provider: 'openai', model: 'gpt-4o-mini' }],
		chunkSizes: [8192],
		contextWindows: [131072],
	};
	const costs = async (spec: object) => {
		const result = await booook(['study', studyFile(spec), '--plan', '--json', '--sessions-dir', sessions]);
		assert.equal(result.code, 0, result.stderr);
		return (JSON.parse(result.stdout) as { cells: { method: string; cost: number }[] }).cells.map(
			(c) => [c.method, c.cost] as const,
		);
	};
	const streamed = new Map(await costs(base));
	const batched = new Map(await costs({ ...base, batch: true }));
	for (const method of ['hier', 'inc']) {
		const full = streamed.get(method)!;
		const half = batched.get(method)!;
		assert.ok(full > 0 && half < full && half > full / 2, `${method}: ${half} of ${full}`);
	}
	// An incremental run batches every step but the clean one; a hierarchical run its level 0 only.
	assert.ok(batched.get('inc')! / streamed.get('inc')! < batched.get('hier')! / streamed.get('hier')!);
});

test('a batched request the batch answers with an error fails its cell (exit 1, the batch and reason named); running the study again asks it anew and finishes', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const spec = {
		name: 'errs',
		books: [join(BOOKS, 'frankenstein.txt')],
		methods: ['hier'],
		providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl }],
		chunkSizes: [32768],
		contextWindows: [131072],
		batch: { poll: 0.02, gather: 0.1 },
	};
	const file = studyFile(spec);
	const sessions = join(tempDir('study-batch-errs'), 'sessions');
	const env = { OPENAI_API_KEY: 'sk-test' };
	let victim: string | null = null;
	api.batchFault = (customId) => {
		victim ??= customId;
		return customId === victim ? 'errored' : null;
	};
	const failed = await booook(['study', file, '--sessions-dir', sessions], { env });
	assert.equal(failed.code, 1, failed.stderr);
	assert.match(
		failed.stderr,
		/: failed: node n\d+ \(summary, level 1 #\d+, chunk \d+ of \d+\): openai batch batch_1: HTTP 400: fake error for /u,
	);
	assert.match(failed.stderr, /^batch batch_1: ended: \d+ succeeded, 1 errored$/mu);
	assert.equal(await sessionsDone(sessions), 0);

	api.batchFault = null;
	const again = await booook(['study', file, '--sessions-dir', sessions], { env });
	assert.equal(again.code, 0, again.stderr);
	assert.equal(await sessionsDone(sessions), 1);
	const ids = api.batches.flatMap((b) => b.items.map((i) => i.customId));
	assert.deepEqual(ids.filter((id) => id === victim).length, 2, 'the failed request asked again');
	assert.equal(new Set(ids).size, ids.length - 1, 'every other request once');
	assert.doesNotMatch(again.stderr, /waiting for it again/u, 'the errored request is not waited for');
});

test('resuming a cell whose requests a killed study left in provider batches is refused (they would be paid twice) unless --abandon-batches; nothing is changed by the refusal', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	const file = studyFile({
		name: 'left',
		books: [join(BOOKS, 'frankenstein.txt')],
		methods: ['hier'],
		providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl }],
		chunkSizes: [8192],
		contextWindows: [32768],
		batch: { poll: 0.02, gather: 0.05 },
	});
	const sessions = join(tempDir('study-batch-left'), 'sessions');
	const env = { OPENAI_API_KEY: 'sk-test' };
	api.holdBatches = true;
	const killed = await booook(['study', file, '--sessions-dir', sessions], {
		env,
		onStderr: (text, kill) => {
			if (
				api.batches.length > 0 &&
				api.batches.every((b) => text.includes(`batch ${b.id}: submitted, `) && b.polls > 0)
			)
				kill();
		},
	});
	assert.equal(killed.signal, 'SIGKILL', killed.stderr);
	const [id] = sessionIds(sessions);
	const waiting = api.batches[0]!.items.length;
	const files = () =>
		readdirSync(join(sessions, id!)).map((f) => [f, readFileSync(join(sessions, id!, f), 'utf8')]);
	const before = files();

	const refused = await booook(['resume', id!, '--sessions-dir', sessions], { env });
	assert.equal(refused.code, 2, refused.stderr);
	assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
	assert.match(
		refused.stderr,
		new RegExp(
			`session ${id} has ${waiting} requests still out in provider batch ${api.batches[0]!.id}; run its study again to wait for them, or add --abandon-batches`,
			'u',
		),
	);
	assert.deepEqual(
		files().filter(([f]) => f !== 'lock'),
		before.filter(([f]) => f !== 'lock'),
		'the refusal changed nothing',
	);
	assert.equal(api.requests.filter((r) => r.path === '/v1/chat/completions').length, 0, 'no call was made');

	const abandoned = await booook(['resume', id!, '--sessions-dir', sessions, '--abandon-batches'], { env });
	assert.equal(abandoned.code, 0, abandoned.stderr);
	assert.equal(await sessionsDone(sessions), 1);
	assert.ok(
		api.requests.filter((r) => r.path === '/v1/chat/completions').length >= waiting,
		'the batched requests were made again, streamed',
	);
});
