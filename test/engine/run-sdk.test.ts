import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { makeConfig } from '../../source/config.ts';
import { Engine } from '../../source/engine/engine.ts';
import type { EngineEvent } from '../../source/engine/events.ts';
import { createProvider } from '../../source/llm/create.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import { activeVersion, getNode } from '../../source/summarize/graph.ts';
import { newRun, plannerFor } from '../../source/summarize/run.ts';
import { summaryProblem } from '../../source/summarize/validity.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { countTokens } from '../../source/text/tokens.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { MemoryStore } from '../support/memory-store.ts';
import { summaryReply } from '../support/summary-reply.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

const BOOK = readFileSync(FRANKENSTEIN, 'utf8').slice(0, 70_000);

for (const api of ['openai', 'anthropic'] as const) {
	for (const method of ['hier', 'inc'] as const) {
		test(`${api} SDK, ${method}: a run completes through 429s, 500s, cut and stalled streams and invalid summaries, accepting nothing invalid`, async () => {
			let answers = 0;
			const server = await startFakeApi({
				// Every fifth answer is unusable: no terminal punctuation, or far over budget.
				respond: (input) => {
					const text = summaryReply(input);
					answers++;
					if (answers % 5 === 1) return text.replace(/\.$/u, ' and then');
					if (answers % 5 === 3) return `${text} ${text} ${text} ${text}`;
					return text;
				},
				chunkDelayMs: 0,
			});
			try {
				const config = makeConfig({
					provider: api,
					model: api === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-6',
					method,
					chunkSize: 1024,
					maxSummary: 300,
					contextWindow: 4096,
					concurrency: 3,
					streamTimeout: 1,
				});
				const provider = createProvider({
					provider: api,
					model: config.model,
					baseUrl: api === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl,
					env: { OPENAI_API_KEY: 'test-key', ANTHROPIC_API_KEY: 'test-key' },
					streamTimeoutMs: 300,
					streamRetryDelayMs: 10,
				});
				server.fail({ kind: 'status', status: 429, retryAfter: 0.01 });
				server.fail({ kind: 'status', status: 500, retryAfter: 0.01 });
				server.fail({ kind: 'cut' });
				server.fail({ kind: 'stall', ms: 1500 });
				const ctx = {
					config,
					templates: await loadTemplates(),
					book: BOOK,
					tokens: (t: string) => countTokens(t),
				};
				const run = newRun(config, chunkText(BOOK, config.chunkSize));
				const store = new MemoryStore({ run });
				const engine = new Engine({ store, provider, planner: plannerFor(method), ctx, costOf: () => 0 });
				const events: EngineEvent[] = [];
				engine.on((e) => events.push(e));
				const status = await engine.start();
				assert.equal(status, 'done', run.error ?? '');
				assert.ok(
					server.requests.some((r) => r.fault?.kind === 'stall'),
					'the stall was served',
				);
				assert.ok(
					events.some((e) => e.type === 'retry' && /stream/u.test(e.reason)),
					'the broken streams were retried',
				);
				assert.ok(
					events.some((e) => e.type === 'retry' && /terminal punctuation|over the limit/u.test(e.reason)),
					'invalid summaries were regenerated',
				);
				for (const node of run.nodes) {
					const v = activeVersion(node)!;
					if (v.overBudget) continue;
					const strict = method === 'inc' && node.kind !== 'clean';
					assert.equal(
						summaryProblem(v.text, countTokens(v.text), node.budget.summaryTokens, strict),
						null,
						`${node.id} kept an invalid text`,
					);
				}
				const final = activeVersion(getNode(run, run.root!))!.text;
				assert.ok(final.endsWith('.'));
				if (api === 'anthropic') {
					const body = server.requests.find((r) => r.api === 'anthropic')!.body!;
					assert.equal(body.stream, true);
				}
			} finally {
				await server.close();
			}
		});
	}
}
