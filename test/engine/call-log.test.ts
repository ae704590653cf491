import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { makeConfig } from '../../source/config.ts';
import type { Annotation, ScoredSummary, Usage } from '../../source/domain.ts';
import { Annotator, type AnnotatorEvent } from '../../source/engine/annotator.ts';
import { Engine } from '../../source/engine/engine.ts';
import { totalsOf } from '../../source/summarize/totals.ts';
import type { EngineEvent } from '../../source/engine/events.ts';
import { createProvider } from '../../source/llm/create.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import type { CallRecord } from '../../source/store/schema.ts';
import { newRun, plannerFor } from '../../source/summarize/run.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { countTokens } from '../../source/text/tokens.ts';
import { annotatingReply, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { MemoryStore } from '../support/memory-store.ts';
import { summaryReply } from '../support/summary-reply.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/**
 * Every attempt a call makes is in calls.jsonl and in the cost: the ones the SDK retries after an
 * error response, and dropped streams with the text and usage they had, as well as the answers.
 */

const BOOK = readFileSync(FRANKENSTEIN, 'utf8').slice(0, 9_000);
// A price per token that makes every token show in the cost.
const costOf = (usage: Usage) => (usage.input + usage.output) / 1000;
// Read through a function: after a `delete`, the checker takes the field for gone for good.
const failedOf = (node: { failed?: unknown[] }) => node.failed;
const sum = (records: { cost: number }[]) => records.reduce((s, r) => s + r.cost, 0);
const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

function providerFor(api: 'openai' | 'anthropic', server: FakeApi) {
	return createProvider({
		provider: api,
		model: api === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-6',
		baseUrl: api === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl,
		env: { OPENAI_API_KEY: 'test-key', ANTHROPIC_API_KEY: 'test-key' },
		streamTimeoutMs: 2000,
		streamRetryDelayMs: 10,
	});
}

for (const api of ['openai', 'anthropic'] as const) {
	test(`${api}: a run logs, bills and keeps every failed attempt, and takes back one the session lost`, async () => {
		const server = await startFakeApi({ respond: summaryReply });
		try {
			const config = makeConfig({
				provider: api,
				model: api === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-6',
				method: 'hier',
				chunkSize: 1024,
				maxSummary: 300,
				contextWindow: 4096,
				concurrency: 1,
			});
			const provider = providerFor(api, server);
			// One call meets all three, in this order (concurrency 1): a 429 the rate limiter waits out, a cut
			// stream, then endless text cut off at the output cap.
			server.fail({ kind: 'status', status: 429, retryAfter: 0.01 });
			server.fail({ kind: 'cut' });
			server.fail({ kind: 'forever', send: 'text', everyMs: 1 });
			const ctx = {
				config,
				templates: await loadTemplates(),
				book: BOOK,
				tokens: (t: string) => countTokens(t),
			};
			const run = newRun(config, chunkText(BOOK, config.chunkSize));
			const store = new MemoryStore({ run });
			const engine = new Engine({ store, provider, planner: plannerFor('hier'), ctx, costOf });
			const events: EngineEvent[] = [];
			engine.on((e) => events.push(e));
			assert.equal(await engine.start(), 'done', run.error ?? '');

			const failed = store.log.filter((c) => c.error !== undefined);
			const limit = run.nodes[0]!.budget.summaryTokens;
			assert.deepEqual(
				failed.map((c) => [c.node, c.version, c.attempt]),
				[
					['n0', 0, 0],
					['n0', 0, 0],
					['n0', 0, 0],
				],
			);
			assert.equal(failed[0]!.error, 'HTTP 429 Too Many Requests');
			assert.match(failed[1]!.error!, /^stream (broke|ended without a (finish|stop) reason)/u);
			assert.equal(
				failed[2]!.error,
				`stream sent more than ${2 * limit + 64} tokens for an output limit of ${limit}`,
			);
			const [http, cut, endless] = failed as [CallRecord, CallRecord, CallRecord];
			assert.deepEqual([http.response, http.usage, http.cost], ['', { input: 0, output: 0, cached: 0 }, 0]);
			for (const dropped of [cut, endless]) {
				assert.ok(dropped.response.length > 0, 'the text it sent is logged');
				assert.ok(
					dropped.usage.input > 0 && dropped.usage.output >= countTokens(dropped.response) - 1,
					JSON.stringify(dropped.usage),
				);
				assert.ok(near(dropped.cost, costOf(dropped.usage)));
				assert.equal(dropped.prompt, store.log.find((c) => c.node === 'n0' && c.error === undefined)!.prompt);
			}
			// Visible as they happen.
			const retries = events
				.filter((e) => e.type === 'retry')
				.map((e) => (e.type === 'retry' ? e.reason : ''));
			assert.ok(!retries.some((r) => r.includes('429')), 'a 429 is waited out, not retried as a broken call');
			assert.ok(
				events.some((e) => e.type === 'rate-limit' && e.refusals === 1),
				'the 429 was reported as a rate limit',
			);
			assert.ok(
				retries.some((r) => /^stream sent more than .*; retry 2 of 3$/u.test(r)),
				retries.join(' | '),
			);

			// Kept with the node, and in every total: live, at the end, and from the session alone.
			// Billed, but no call done: the calls are the answered ones.
			const n0 = run.nodes.find((n) => n.id === 'n0')!;
			assert.deepEqual(
				n0.failed,
				failed.map((c) => ({ reason: c.error, usage: c.usage, cost: c.cost, timings: c.timings })),
			);
			const finished = events.at(-1)!;
			assert.ok(finished.type === 'run-finished');
			assert.equal(finished.totals.calls, store.log.length - failed.length);
			assert.ok(near(finished.totals.cost, sum(store.log)));
			assert.ok(near(totalsOf(run).cost, sum(store.log)));
			assert.equal(totalsOf(run).calls, store.log.length - failed.length);
			const usages = events.filter((e) => e.type === 'usage');
			assert.equal(usages.length, store.log.length, 'one usage event per attempt');
			assert.deepEqual(
				usages.flatMap((e) => (e.type === 'usage' && e.failed !== undefined ? [e.failed] : [])),
				failed.map((c) => c.error),
			);

			// Killed after a failed attempt was logged but before the session was saved: the next
			// start takes it back from the log, once.
			delete n0.failed;
			const again = new Engine({ store, provider, planner: plannerFor('hier'), ctx, costOf });
			assert.equal(await again.start(), 'done');
			assert.equal(failedOf(n0)?.length, 3);
			assert.ok(near(again.totals.cost, sum(store.log)));
			assert.equal(await again.start(), 'done');
			assert.equal(failedOf(n0)?.length, 3);
			assert.ok(near(again.totals.cost, sum(store.log)));
		} finally {
			await server.close();
		}
	});

	test(`${api}: annotating logs and bills every failed attempt`, async () => {
		const server = await startFakeApi({ respond: annotatingReply });
		try {
			const provider = providerFor(api, server);
			server.fail({ kind: 'status', status: 500, retryAfter: 0.01 });
			server.fail({ kind: 'cut' });
			const summary: ScoredSummary = {
				id: 's0',
				book: 'B',
				text: 'Anna left the farm. She came back in May. Nobody asked why.',
				node: null,
				version: null,
				source: 'test',
			};
			const log: CallRecord[] = [];
			const annotations: Annotation[] = [];
			const store = {
				id: 'memory',
				data: { summaries: [summary], annotations },
				append: async (_list: 'annotations', ...items: Annotation[]) => {
					annotations.push(...items);
				},
				appendCall: async (record: CallRecord) => {
					log.push(record);
				},
				calls: async () => [...log],
			};
			const annotator = new Annotator({
				store,
				provider,
				templates: await loadTemplates(),
				work: [{ summary: 's0', sentences: [0, 1, 2] }],
				concurrency: 1,
				costOf,
			});
			const events: AnnotatorEvent[] = [];
			annotator.on((e) => events.push(e));
			assert.equal(await annotator.start(), 'done', annotator.error ?? '');
			assert.equal(store.data.annotations.length, 3);

			const failed = log.filter((c) => c.error !== undefined);
			assert.equal(failed.length, 2);
			assert.equal(failed[0]!.error, 'HTTP 500 Internal Server Error');
			assert.match(failed[1]!.error!, /^stream /u);
			assert.ok(failed[1]!.usage.input > 0 && failed[1]!.response.length > 0);
			assert.ok(
				events.some(
					(e) =>
						e.type === 'annotate-retry' &&
						e.reason === 'HTTP 500 Internal Server Error; the SDK retries (1 of 4)',
				),
			);
			const finished = events.at(-1)!;
			assert.ok(finished.type === 'annotate-finished');
			assert.equal(finished.totals.calls, log.length - failed.length);
			assert.ok(near(finished.totals.cost, sum(log)));
		} finally {
			await server.close();
		}
	});
}
