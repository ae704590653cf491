import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Book, Method } from '../../source/domain.ts';
import { listSessions } from '../../source/app/list-sessions.ts';
import { Session } from '../../source/store/session.ts';
import { liveNodes } from '../../source/summarize/graph.ts';
import { hierarchical } from '../../source/summarize/hier.ts';
import {
	ProviderError,
	type CallRequest,
	type CallResult,
	type Provider,
} from '../../source/llm/provider.ts';
import { initialView, progressOf } from '../../source/ui/state/view.ts';
import { FakeModel } from '../support/fake-model.ts';
import { randomBook, setUp } from '../support/run-harness.ts';
import { tempDir } from '../support/temp.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { statusWord } from '../../source/format/sessions.ts';
import { booook } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { tinyBookText } from '../support/study-books.ts';

/**
 * A run interrupted after `finished` nodes, saved as a session; with the calls planned the engine
 * reports (the count the headless progress line and the run screen show).
 */
async function interrupted(dir: string, method: Method, finished: number) {
	const text = randomBook(7, 80);
	const { run, engine } = await setUp(
		text,
		{ method, chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: true },
		new FakeModel({ seed: 7 }),
	);
	let seen = 0;
	let planned = 0;
	engine.on((e) => {
		if (e.type === 'run-started' || e.type === 'node-planned') planned = e.planned;
		if (e.type === 'node-finished' && ++seen === finished) engine.cancel();
	});
	assert.equal(await engine.start(), 'cancelled');
	const book: Book = {
		title: `${method} book`,
		sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
		source: 'book.txt',
		chars: text.length,
		tokens: 1,
	};
	const session = await Session.create(dir, { id: method, book, text, run });
	await session.close();
	return { run, calls: engine.totals.calls, planned, resumePlans: engine.plannedCalls() };
}

for (const method of ['inc', 'hier'] as const) {
	test(`an interrupted ${method} run lists its calls done against the calls the engine plans, as its progress line does`, async () => {
		const dir = tempDir('sessions-progress');
		const { run, calls, planned, resumePlans } = await interrupted(dir, method, 3);
		// The nodes planned so far fall short of the calls still to come: the count must not be theirs.
		assert.ok(
			liveNodes(run).length < resumePlans,
			`${liveNodes(run).length} nodes, ${resumePlans} calls planned`,
		);
		assert.equal(resumePlans, planned, 'the progress line and a resumed run plan the same calls');
		const [listed] = await listSessions(dir);
		assert.deepEqual(listed!.progress, { done: calls, total: resumePlans });
		assert.equal(listed!.status, 'cancelled');
	});
}

test('a finished hierarchical run is counted without the tokenizer (listing finished sessions loads none)', async () => {
	const text = randomBook(8, 80);
	const { run, engine, ctx } = await setUp(
		text,
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, clean: true },
		new FakeModel({ seed: 8 }),
	);
	assert.equal(await engine.start(), 'done');
	const counted = hierarchical.estimateCalls(run, {
		...ctx,
		tokens: () => {
			throw new Error('the tokenizer was asked');
		},
	});
	assert.equal(counted, engine.totals.calls);
});

/** A model that cannot be reached: each call's attempts fail (reported, as the SDKs' retries are), then the call. */
class Unreachable implements Provider {
	readonly name = 'openai' as const;
	readonly model = 'fake';
	readonly isLLM = true;
	async complete(request: CallRequest): Promise<CallResult> {
		const start = new Date();
		for (let i = 0; i < 5; i++)
			request.onAttemptFailed?.({
				reason: 'Connection error.',
				text: '',
				usage: { input: 0, output: 0, cached: 0 },
				start,
				end: start,
			});
		throw new ProviderError('openai: Connection error.', true);
	}
}

test('failed attempts are not calls done: a run that reached no model counts none, in its events, its view and the list', async () => {
	const dir = tempDir('sessions-progress');
	const text = randomBook(7, 80);
	const { run, engine, ctx } = await setUp(
		text,
		{ method: 'hier', chunkSize: 256, maxSummary: 200, contextWindow: 2048, concurrency: 5 },
		new Unreachable(),
	);
	const counted: number[] = [];
	engine.on((e) => {
		if (e.type === 'usage' || e.type === 'run-finished') counted.push(e.totals.calls);
	});
	assert.equal(await engine.start(), 'failed');
	assert.ok(
		run.nodes.some((n) => (n.failed ?? []).length >= 5),
		'the failed attempts are kept with their nodes',
	);
	assert.ok(counted.length > 5);
	assert.deepEqual(
		[...new Set(counted)],
		[0],
		'the progress line and the run screen read the events: no call done',
	);
	const view = initialView(run);
	assert.equal(progressOf(view).calls, 0);
	const book: Book = {
		title: 'failed book',
		sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
		source: 'book.txt',
		chars: text.length,
		tokens: 1,
	};
	const session = await Session.create(dir, { id: 'failed', book, text, run });
	await session.close();
	const [listed] = await listSessions(dir);
	assert.deepEqual(
		listed!.progress,
		{ done: 0, total: hierarchical.estimateCalls(run, ctx) },
		'nothing done, and the failures do not add to the calls planned',
	);
});

test(
	'a run stopped with Ctrl-C says "stopped", and `sessions` lists it with the same word, as the home screen and the header do',
	{ timeout: 120_000 },
	async (t) => {
		const api = await startFakeApi({ latencyMs: 100 });
		t.after(() => api.close());
		const dir = tempDir('stopped-word', t);
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(400));
		const sessions = join(dir, 'sessions');
		const env = { OPENAI_API_KEY: 'sk-test' };
		let sent = false;
		const run = await booook(
			[
				'run',
				book,
				'--headless',
				'--provider',
				'openai',
				'--base-url',
				api.openaiBaseUrl,
				'--chunk-size',
				'256',
			].concat(['--concurrency', '1', '--session', 'halted', '--sessions-dir', sessions]),
			{
				env,
				onStderr: (text, kill) => {
					if (!sent && /\[1\/\d+ calls\]/u.test(text)) {
						sent = true;
						kill('SIGINT');
					}
				},
			},
		);
		assert.equal(run.code, 130, run.stderr);
		assert.match(run.stderr, /^stopped; session saved\. Continue with: /mu);
		assert.doesNotMatch(run.stderr, /interrupted/u);
		const listed = await booook(['sessions', '--sessions-dir', sessions], { env });
		assert.equal(listed.code, 0, listed.stderr);
		assert.match(listed.stdout, /^halted .* stopped \d+\/\d+ /mu);
		assert.equal(statusWord('running'), 'stopped', 'a run killed before its end reads as one quit');
		assert.equal(statusWord('cancelled'), 'stopped');
	},
);
