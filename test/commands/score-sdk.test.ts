import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeConfig } from '../../source/config.ts';
import type { Annotation, Book, Run, ScoredSummary } from '../../source/domain.ts';
import { Annotator, type AnnotatorEvent } from '../../source/engine/annotator.ts';
import { createProvider } from '../../source/llm/create.ts';
import { BUILTIN_PRICES, callCost } from '../../source/llm/prices.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import { LABELS } from '../../source/score/labels.ts';
import { planSummary, scoreSession } from '../../source/score/session-score.ts';
import { Session } from '../../source/store/session.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { countTokens } from '../../source/text/tokens.ts';
import { booook, printed } from '../support/cli.ts';
import {
	annotatingReply,
	annotationQuestion,
	hashVerdict,
	startFakeApi,
	type WireBlock,
} from '../support/fake-api.ts';
import { tempDir } from '../support/temp.ts';
import { DATA_DIR as DATA } from '../support/repo-data.ts';

const RELEASED: Record<string, string> = JSON.parse(
	readFileSync(join(DATA, 'summaries/gpt4-2048-hier-cleaned.json'), 'utf8'),
);
// Real summaries from the authors' data: the longest few, so a run has a few dozen sentences.
const [BOOK, SUMMARY] = Object.entries(RELEASED).sort(
	(a, b) => splitSentences(b[1]).length - splitSentences(a[1]).length,
)[0]!;

/** What the fake's answers make of a text: confusing sentences and type counts, from its own rule. */
function expected(texts: readonly string[]) {
	const types = Object.fromEntries(LABELS.map((l) => [l, 0])) as Record<string, number>;
	const perSummary = texts.map((text) => {
		const verdicts = splitSentences(text).map(hashVerdict);
		for (const v of verdicts) for (const t of new Set(v?.types ?? [])) types[t]! += 1;
		const confusing = verdicts.filter((v) => v !== null).length;
		return { sentences: verdicts.length, confusing, score: 1 - confusing / verdicts.length };
	});
	return {
		sentences: perSummary.reduce((s, p) => s + p.sentences, 0),
		confusing: perSummary.reduce((s, p) => s + p.confusing, 0),
		score: (100 * perSummary.reduce((s, p) => s + p.score, 0)) / perSummary.length,
		types,
	};
}

for (const api of ['openai', 'anthropic'] as const) {
	test(`${api} SDK: a whole summary annotated concurrently through 429s, a 500 and a stalled stream, scored as the answers say, with the prompt cache used`, async () => {
		countTokens('warm up the encoder the fake server counts with');
		const server = await startFakeApi({ respond: annotatingReply });
		const dir = tempDir('score-sdk');
		const session = await Session.createCollection(dir, {
			title: 'sdk',
			sources: [],
			runs: [],
			summaries: [{ id: 's0', book: BOOK, text: SUMMARY, node: null, version: null, source: 'test' }],
			annotations: [],
			judgments: [],
		});
		try {
			const model = api === 'openai' ? 'gpt-4o-mini' : 'claude-sonnet-4-6';
			const provider = createProvider({
				provider: api,
				model,
				baseUrl: api === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl,
				env: { OPENAI_API_KEY: 'test-key', ANTHROPIC_API_KEY: 'test-key' },
				// Long enough for the fake server to answer a 5,000-token prompt on a busy machine (the SDK
				// also waits this long for response headers), short enough that the stall below is one.
				streamTimeoutMs: 1000,
				streamRetryDelayMs: 10,
			});
			server.fail({ kind: 'status', status: 429, retryAfter: 0.01 });
			server.fail({ kind: 'status', status: 429, retryAfter: 0.01 });
			server.fail({ kind: 'status', status: 500, retryAfter: 0.01 });
			server.fail({ kind: 'stall', ms: 4000 });
			const sentences = splitSentences(SUMMARY);
			const annotator = new Annotator({
				store: session,
				provider,
				templates: await loadTemplates(),
				work: [{ summary: 's0', sentences: sentences.map((_, i) => i) }],
				concurrency: 4,
				costOf: (usage) => callCost(BUILTIN_PRICES, model, usage, api).cost,
			});
			const events: AnnotatorEvent[] = [];
			annotator.on((e) => events.push(e));
			assert.equal(await annotator.start(), 'done', annotator.error ?? '');

			assert.ok(
				server.requests.some((r) => r.fault?.kind === 'stall'),
				'the stall was served',
			);
			assert.ok(
				server.requests.filter((r) => r.fault?.kind === 'status').length === 3,
				'the error statuses were served',
			);
			assert.ok(
				events.some((e) => e.type === 'annotate-retry' && /stream/.test(e.reason)),
				'the stalled stream was retried',
			);
			const { annotations } = session.data;
			assert.equal(annotations.length, sentences.length);
			assert.ok(annotations.every((a) => a.failure === null && a.annotator === `${api}/${model}`));
			const score = scoreSession(session.data.summaries, annotations, [
				planSummary(session.data.summaries[0]!, annotations, { requested: `${api}/${model}`, fallback: '' }),
			]);
			const want = expected([SUMMARY]);
			assert.ok(
				want.confusing > 0 && want.confusing < want.sentences,
				'the fixture has both kinds of sentence',
			);
			assert.equal(score.system.sentences, want.sentences);
			assert.equal(score.system.confusing, want.confusing);
			assert.ok(Math.abs(score.system.score! - want.score) < 1e-9);
			assert.deepEqual(score.system.types, want.types);

			const finished = events.at(-1)!;
			assert.ok(finished.type === 'annotate-finished');
			assert.ok(finished.totals.cached > 0, 'cached input tokens are reported');
			assert.ok(finished.totals.saved > 0, 'and what the cache saved');
			// Attempts that failed (the 429s, the 500, the stall) have usage events of their own.
			const usages = events.filter((e) => e.type === 'usage').filter((e) => e.failed === undefined);
			assert.ok(
				usages.filter((e) => e.usage.cached === 0).length <= 1,
				'only the first call served writes the cache',
			);
			// Saved on disk: the log has every call, the session every annotation.
			const reopened = await Session.snapshot(dir, session.id);
			assert.equal(reopened.data.annotations.length, sentences.length);
			if (api === 'anthropic') {
				const bodies = server.requests.flatMap((r) => (r.body?.messages ? [r.body.messages] : []));
				const prefixes = new Set<string>();
				for (const messages of bodies) {
					type Block = WireBlock & { text: string };
					const [first, second] = messages[0]!.content as [Block, Block];
					assert.deepEqual(
						first.cache_control,
						{ type: 'ephemeral' },
						'the prefix block carries the cache breakpoint',
					);
					assert.ok(first.text.includes(SUMMARY), 'the prefix holds the summary');
					assert.ok(
						!second.cache_control && !second.text.includes(SUMMARY),
						'the sentence block is not cached',
					);
					assert.ok(sentences.includes(annotationQuestion(first.text + second.text)!.sentences[0]!));
					prefixes.add(first.text);
				}
				assert.equal(prefixes.size, 1, 'one prefix for every sentence of the summary');
			}
		} finally {
			await session.close();
			await server.close();
		}
	});
}

test('anthropic SDK: the first call of each summary writes the prompt cache alone, then the rest read it, four at a time', async (t) => {
	countTokens('warm up the encoder the fake server counts with');
	// Two summaries of ten sentences each; the fake's cache works as the real API documents it.
	const texts = Object.values(RELEASED)
		.sort((a, b) => splitSentences(b).length - splitSentences(a).length)
		.slice(0, 2)
		.map((t) => splitSentences(t).slice(0, 10).join(' '));
	// Answers are held until four requests wait at once (never, if calls did not run concurrently);
	// the first request of each summary is answered at once, or nothing would start the rest.
	const seen = new Set<string>();
	let held: (() => void)[] | null = [];
	const server = await startFakeApi({
		cacheOnResponse: true,
		// Every response begins a while after its request arrives, as a real model's does: calls sent
		// together would all arrive before the first one's cache entry exists.
		latencyMs: 50,
		respond: async (input) => {
			const prefix = (input.body.messages![0]!.content as WireBlock[])[0]!.text!;
			const first = !seen.has(prefix);
			seen.add(prefix);
			if (!first && held) {
				await new Promise<void>((resolve) => {
					held!.push(resolve);
					if (held!.length < 4) return;
					for (const answer of held!) answer();
					held = null;
				});
			}
			return annotatingReply(input);
		},
	});
	const dir = tempDir('score-cache', t);
	const summaries = texts.map((text, i) => ({
		id: `s${i}` as const,
		book: `B${i}`,
		text,
		node: null,
		version: null,
		source: 'test',
	}));
	const session = await Session.createCollection(dir, {
		title: 'cache',
		sources: [],
		runs: [],
		summaries,
		annotations: [],
		judgments: [],
	});
	try {
		const model = 'claude-sonnet-4-6';
		const provider = createProvider({
			provider: 'anthropic',
			model,
			baseUrl: server.anthropicBaseUrl,
			env: { ANTHROPIC_API_KEY: 'test-key' },
			streamTimeoutMs: 10_000,
		});
		const annotator = new Annotator({
			store: session,
			provider,
			templates: await loadTemplates(),
			work: summaries.map((s) => ({ summary: s.id, sentences: splitSentences(s.text).map((_, i) => i) })),
			concurrency: 4,
			costOf: (usage) => callCost(BUILTIN_PRICES, model, usage, 'anthropic').cost,
		});
		const events: AnnotatorEvent[] = [];
		annotator.on((e) => events.push(e));
		assert.equal(await annotator.start(), 'done', annotator.error ?? '');
		assert.equal(held, null, 'four calls were in flight at once');
		assert.equal(session.data.annotations.length, 20);

		for (const s of summaries) {
			const mine = server.requests
				.filter((r) => r.prompt.includes(s.text))
				.sort((a, b) => a.arrived - b.arrived);
			assert.equal(mine.length, 10);
			const first = mine[0]!;
			assert.ok(
				mine.slice(1).every((r) => first.started !== null && r.arrived > first.started),
				`no second call of ${s.id} before its first had begun answering`,
			);
			const usages = events
				.filter((e) => e.type === 'usage' && e.failed === undefined && e.unit.startsWith(`${s.id}:`))
				.map((e) => (e.type === 'usage' ? e.usage.cached : -1));
			assert.equal(usages.length, 10);
			assert.equal(usages.filter((cached) => cached === 0).length, 1, `${s.id}: one call writes the cache`);
			assert.equal(
				usages.filter((cached) => cached > 0).length / (usages.length - 1),
				1,
				`${s.id}: every later call reads it`,
			);
		}
		const finished = events.at(-1)!;
		assert.ok(finished.type === 'annotate-finished' && finished.totals.saved > 0);
	} finally {
		await session.close();
		await server.close();
	}
});

// ---------------------------------------------------------------------------------------------
// The command, as a user runs it.

function sha256(text: string): string {
	return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A book session whose run is done, with `summary` as its final summary (or none). */
async function bookSession(
	dir: string,
	id: string,
	summary: string | null,
	config: Partial<Parameters<typeof makeConfig>[0]> = {},
): Promise<void> {
	const text = `${SUMMARY}\n\nThe end.\n`;
	const book: Book = {
		title: BOOK,
		sha256: sha256(text),
		source: 'book.txt',
		chars: text.length,
		tokens: 900,
	};
	const at = '2024-05-01T10:00:00.000Z';
	const params = { temperature: 0.5, maxTokens: 1200, words: 600, template: 'hier-init' };
	const usage = { input: 900, output: 700, cached: 0 };
	const timings = { start: at, end: at, ms: 0 };
	const run: Run = {
		config: makeConfig({
			provider: 'openai',
			model: 'gpt-4o-mini',
			method: 'hier',
			concurrency: 2,
			...config,
		}),
		status: summary === null ? 'running' : 'done',
		chunks: [{ index: 0, start: 0, end: text.length, tokens: 900 }],
		nodes: [
			{
				id: 'n0',
				kind: 'summarize',
				level: 0,
				index: 0,
				inputs: ['c0'],
				context: null,
				budget: { promptTokens: 4000, summaryTokens: 1200, words: 600 },
				status: summary === null ? 'pending' : 'done',
				versions:
					summary === null
						? []
						: [
								{
									text: summary,
									origin: 'model',
									template: 'hier-init',
									params,
									usage,
									cost: 0,
									attempts: [{ text: summary, finishReason: 'stop', params, usage, cost: 0, timings }],
									timings,
									overBudget: false,
									model: 'openai/gpt-4o-mini',
									createdAt: at,
								},
							],
				active: summary === null ? null : 0,
				pending: [],
				meta: {},
			},
		],
		root: summary === null ? null : 'n0',
		error: null,
	};
	const session = await Session.create(dir, { id, book, text, run });
	await session.close();
}

test('score ID annotates the final summary through the fake API, pins it, and scores again with no call', async () => {
	const server = await startFakeApi({ respond: annotatingReply });
	try {
		const sessions = join(tempDir('score-cli'), 'sessions');
		await bookSession(sessions, 'b1', SUMMARY);
		const args = ['score', 'b1', '--json', '--sessions-dir', sessions];
		const llm = [
			'--provider',
			'openai',
			'--model',
			'gpt-4o-mini',
			'--base-url',
			server.openaiBaseUrl,
			'--concurrency',
			'4',
		];
		const r = await booook([...args, ...llm], { env: { OPENAI_API_KEY: 'test-key' } });
		assert.equal(r.code, 0, r.stderr);
		const out = JSON.parse(r.stdout);
		const want = expected([SUMMARY]);
		assert.deepEqual(Object.keys(out).slice(0, 8), [
			'booookscore',
			'summaries',
			'sentences',
			'confusing',
			'parse_failures',
			'avg_tokens',
			'types',
			'books',
		]);
		assert.ok(Math.abs(out.booookscore - want.score) < 1e-9, `${out.booookscore} vs ${want.score}`);
		assert.equal(out.sentences, want.sentences);
		assert.equal(out.confusing, want.confusing);
		assert.equal(out.parse_failures, 0);
		assert.deepEqual(out.types, want.types);
		assert.deepEqual(Object.keys(out.books), [BOOK]);
		assert.equal(out.calls, want.sentences);
		assert.ok(out.cached_tokens > 0 && out.saved > 0);
		assert.match(r.stderr, /\[\d+\/\d+ calls\]/, 'progress on stderr');
		assert.equal(server.requests.length, want.sentences);

		const state = JSON.parse(readFileSync(join(sessions, 'b1', 'session.json'), 'utf8'));
		assert.deepEqual(
			state.summaries.map((s: ScoredSummary) => [s.id, s.node, s.version, s.source]),
			[['s0', 'n0', 0, 'run']],
		);
		assert.equal(state.annotations.length, want.sentences);
		const log = readFileSync(join(sessions, 'b1', 'calls.jsonl'), 'utf8')
			.trim()
			.split('\n');
		assert.equal(log.length, want.sentences);

		// Again, with no key at all: every sentence is annotated, so no call and the same score.
		const again = await booook(args);
		assert.equal(again.code, 0, again.stderr);
		const second = JSON.parse(again.stdout);
		assert.equal(second.booookscore, out.booookscore);
		assert.equal(second.calls, 0);
		assert.equal(server.requests.length, want.sentences, 'no request reached the server');
		const after = JSON.parse(readFileSync(join(sessions, 'b1', 'session.json'), 'utf8'));
		assert.equal(after.summaries.length, 1, 'the same node and version reuse their pinned summary');
		// show names the session's score.
		const shown = await booook(['show', 'b1', '--sessions-dir', sessions]);
		assert.ok(shown.stdout.includes(`BooookScore: ${out.booookscore.toFixed(1)} `), shown.stdout);
	} finally {
		await server.close();
	}
});

test('score ID asks again the sentences whose answers were unreadable, and says so; without a key it scores what it has and says how', async () => {
	const sentences = splitSentences(SUMMARY);
	const garbled = sentences[2]!;
	let readable = false;
	const server = await startFakeApi({
		respond: (input) =>
			!readable && annotationQuestion(input.prompt)?.sentences[0] === garbled
				? 'I would rather not say.'
				: annotatingReply(input),
	});
	try {
		const sessions = join(tempDir('score-again'), 'sessions');
		await bookSession(sessions, 'b3', SUMMARY);
		const args = ['score', 'b3', '--json', '--sessions-dir', sessions];
		const llm = ['--base-url', server.openaiBaseUrl, '--concurrency', '4'];
		const env = { OPENAI_API_KEY: 'test-key' };
		const first = await booook([...args, ...llm], { env });
		assert.equal(first.code, 0, first.stderr);
		assert.equal(JSON.parse(first.stdout).parse_failures, 1);
		assert.equal(server.requests.length, sentences.length + 3, 'the unreadable sentence was asked 4 times');
		assert.match(first.stderr, /1 sentence had no readable answer after every retry/u);
		assert.ok(
			first.stderr.includes(`run ${printed(`score b3 --sessions-dir ${sessions}`)} again to ask again`),
			first.stderr,
		);

		// Without a key nothing can be asked: the score is what the session holds, and the warning says what to set.
		const keyless = await booook(args);
		assert.equal(keyless.code, 0, keyless.stderr);
		assert.equal(JSON.parse(keyless.stdout).booookscore, JSON.parse(first.stdout).booookscore);
		assert.equal(server.requests.length, sentences.length + 3);
		assert.ok(
			keyless.stderr.includes(
				`set OPENAI_API_KEY and run ${printed(`score b3 --sessions-dir ${sessions}`)} again to ask again`,
			),
			keyless.stderr,
		);

		readable = true;
		const again = await booook([...args, ...llm], { env });
		assert.equal(again.code, 0, again.stderr);
		const out = JSON.parse(again.stdout);
		assert.equal(
			server.requests.length,
			sentences.length + 4,
			'only the unreadable sentence was asked again',
		);
		assert.equal(out.calls, 1);
		assert.equal(out.parse_failures, 0);
		const want = expected([SUMMARY]);
		assert.ok(Math.abs(out.booookscore - want.score) < 1e-9, `${out.booookscore} vs ${want.score}`);
		assert.equal(out.sentences, want.sentences);
		assert.doesNotMatch(again.stderr, /no readable answer/u);

		const settled = await booook(args);
		assert.equal(settled.code, 0, settled.stderr);
		assert.equal(JSON.parse(settled.stdout).calls, 0);
		assert.equal(
			server.requests.length,
			sentences.length + 4,
			'a sentence with a readable answer is never asked again',
		);
	} finally {
		await server.close();
	}
});

test("score ID annotates with the run's own model on the run's own server unless told otherwise", async (t) => {
	const server = await startFakeApi({ respond: annotatingReply });
	try {
		const sessions = join(tempDir('score-own', t), 'sessions');
		await bookSession(sessions, 'b2', SUMMARY, { model: 'local-llama', baseUrl: server.openaiBaseUrl });
		const r = await booook(['score', 'b2', '--json', '--sessions-dir', sessions], {
			env: { OPENAI_API_KEY: 'test-key' },
		});
		assert.equal(r.code, 0, r.stderr);
		const want = expected([SUMMARY]);
		assert.equal(server.requests.length, want.sentences);
		assert.deepEqual([...new Set(server.requests.map((q) => q.body!.model))], ['local-llama']);
		const state = JSON.parse(readFileSync(join(sessions, 'b2', 'session.json'), 'utf8'));
		assert.deepEqual(
			[...new Set(state.annotations.map((a: Annotation) => a.annotator))],
			['openai/local-llama'],
		);
	} finally {
		await server.close();
	}
});

test('score without an LLM is a one-line error naming what to set; nothing is written', async () => {
	const sessions = join(tempDir('score-cli'), 'sessions');
	await bookSession(sessions, 'b2', SUMMARY);
	const before = readFileSync(join(sessions, 'b2', 'session.json'), 'utf8');
	const none = await booook(['score', 'b2', '--sessions-dir', sessions]);
	assert.equal(none.code, 2);
	assert.equal(none.stderr.trim().split('\n').length, 1, none.stderr);
	// The run's own model is the default annotator, so its key is what is missing.
	assert.match(none.stderr, /with openai\/gpt-4o-mini needs OPENAI_API_KEY/);
	const anthropic = await booook(['score', 'b2', '--provider', 'anthropic', '--sessions-dir', sessions]);
	assert.equal(anthropic.code, 2);
	assert.match(anthropic.stderr, /ANTHROPIC_API_KEY/);
	const extractive = await booook(['score', 'b2', '--provider', 'extractive', '--sessions-dir', sessions], {
		env: { OPENAI_API_KEY: 'k' },
	});
	assert.equal(extractive.code, 2);
	assert.match(
		extractive.stderr,
		/needs an LLM, and the extractive baseline cannot read a prompt: pass --provider openai or anthropic/,
	);
	assert.doesNotMatch(extractive.stderr, /set OPENAI_API_KEY/, 'the key is set: it is not what is missing');
	const after = JSON.parse(readFileSync(join(sessions, 'b2', 'session.json'), 'utf8'));
	const { updatedAt: _a, openedAt: _b, ...was } = JSON.parse(before);
	const { updatedAt: _c, openedAt: _d, ...now } = after;
	assert.deepEqual(now, was, 'no summary was pinned, no annotation added');
	// A run without a final summary cannot be scored.
	await bookSession(sessions, 'b3', null);
	const unfinished = await booook(['score', 'b3', '--sessions-dir', sessions], {
		env: { OPENAI_API_KEY: 'k' },
	});
	assert.equal(unfinished.code, 2);
	assert.ok(
		unfinished.stderr.includes(
			`has no final summary yet: finish it with ${printed(`resume b3 --sessions-dir ${sessions}`)}`,
		),
		unfinished.stderr,
	);
});

test('score --summaries F alone annotates them in a new collection session and scores them', async () => {
	const server = await startFakeApi({ respond: annotatingReply });
	try {
		const dir = tempDir('score-cli');
		const sessions = join(dir, 'sessions');
		const picked = Object.fromEntries(
			Object.entries(RELEASED)
				.slice(0, 2)
				.map(([book, text]) => [book, splitSentences(text).slice(0, 6).join(' ')]),
		);
		const file = join(dir, 'two.json');
		writeFileSync(file, JSON.stringify(picked));
		const r = await booook(
			[
				'score',
				'--summaries',
				file,
				'--json',
				'--batch-size',
				'4',
				'--base-url',
				server.openaiBaseUrl,
				'--sessions-dir',
				sessions,
			],
			{ env: { OPENAI_API_KEY: 'test-key' } },
		);
		assert.equal(r.code, 0, r.stderr);
		const out = JSON.parse(r.stdout);
		const want = expected(Object.values(picked));
		assert.ok(Math.abs(out.booookscore - want.score) < 1e-9);
		assert.equal(out.summaries, 2);
		assert.equal(out.calls, 2 * Math.ceil(6 / 4), 'batched: four sentences a call');
		assert.match(r.stderr, new RegExp(`new collection session ${out.session}`));
		const state = JSON.parse(readFileSync(join(sessions, out.session, 'session.json'), 'utf8'));
		assert.equal(state.kind, 'collection');
		assert.equal(state.annotations.length, want.sentences);
	} finally {
		await server.close();
	}
});
