import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAnnotationCall } from '../../source/score/annotate.ts';
import { estimateScoring, SENTENCE_TOKENS, SUMMARY_SHARE } from '../../source/score/estimate.ts';
import { booook } from '../support/cli.ts';
import { annotationReply, startFakeApi, type RespondInput } from '../support/fake-api.ts';
import { bookishReply } from '../support/summary-reply.ts';
import { tinyStudy } from '../support/study-books.ts';

/**
 * `study --plan` prices everything the study will do: the runs and, with "score": true, the
 * BooookScore annotation of every final summary. Against the fake API (a model whose summaries
 * come out at 80% of the words asked, in sentences of 12 to 20 words, as a real one's about), the
 * plan and what the run then logged must agree within TOLERANCE, for the scoring and in all.
 */

/** How far the plan may be from the spending, as a share of the spending. */
const TOLERANCE = 0.35;

const env = { OPENAI_API_KEY: 'sk-test' };
const summaries = bookishReply(10_000);
const respond = (input: RespondInput) => annotationReply(input.prompt) ?? summaries(input);

interface Logged {
	node: string;
	cost: number;
}

function spent(sessions: string): { all: number; scoring: number; scoringCalls: number } {
	const calls = readdirSync(sessions, { withFileTypes: true })
		.filter((e) => e.isDirectory() && !e.name.startsWith('.'))
		.flatMap((e) =>
			readFileSync(join(sessions, e.name, 'calls.jsonl'), 'utf8')
				.split('\n')
				.filter((line) => line.trim() !== '')
				.map((line) => JSON.parse(line) as Logged),
		);
	const scoring = calls.filter((c) => isAnnotationCall(c.node));
	return {
		all: calls.reduce((s, c) => s + c.cost, 0),
		scoring: scoring.reduce((s, c) => s + c.cost, 0),
		scoringCalls: scoring.length,
	};
}

test('study --plan estimates the scoring a "score": true study does, and the whole within the tolerance of what it spent', async (t) => {
	const api = await startFakeApi({ respond });
	t.after(() => api.close());
	const baseUrl = api.openaiBaseUrl;
	const study = await tinyStudy('plan-cost', ['ann', 'bob'], {
		methods: ['hier', 'inc'],
		chunkSizes: [1024],
		maxSummary: 300,
		// One call at a time: which prompts the fake's cache still holds does not depend on timing.
		concurrency: 1,
		providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl }],
		score: true,
	});
	const planned = await booook(['study', study.file, '--plan', '--json', '--sessions-dir', study.sessions], {
		env,
	});
	assert.equal(planned.code, 0, planned.stderr);
	const plan = JSON.parse(planned.stdout) as {
		cost: number;
		scoring: { calls: number; cost: number };
		total: { calls: number; cost: number };
	};
	assert.equal(api.requests.length, 0, '--plan makes no call');
	assert.ok(plan.scoring.cost > 0 && plan.total.cost > plan.cost, planned.stdout);
	const text = await booook(['study', study.file, '--plan', '--sessions-dir', study.sessions], { env });
	assert.match(
		text.stdout,
		/; then BooookScore annotation: ~\d+ calls, estimated \$[\d.]+; in all ~\d+ calls, estimated \$[\d.]+$/mu,
	);

	const ran = await booook(['study', study.file, '--headless', '--sessions-dir', study.sessions], { env });
	assert.equal(ran.code, 0, ran.stderr);
	const actual = spent(study.sessions);
	t.diagnostic(
		`scoring: planned ${plan.scoring.calls} calls $${plan.scoring.cost.toFixed(4)}, spent ${actual.scoringCalls} calls $${actual.scoring.toFixed(4)}; in all: planned $${plan.total.cost.toFixed(4)}, spent $${actual.all.toFixed(4)}`,
	);
	const within = (planned: number, spent: number, what: string) =>
		assert.ok(
			Math.abs(planned - spent) <= TOLERANCE * spent,
			`${what}: planned ${planned}, spent ${spent} (tolerance ${TOLERANCE * 100}%)`,
		);
	within(plan.scoring.cost, actual.scoring, 'the scoring');
	within(plan.total.cost, actual.all, 'the whole study');
});

test("the scoring estimate: a call a sentence of the expected summary, the prompt's start cached after each summary's first", () => {
	const e = estimateScoring({ summaryTokens: 900, promptTokens: 5000, cached: true });
	const summary = Math.round(900 * SUMMARY_SHARE);
	assert.equal(e.sentences, Math.round(summary / SENTENCE_TOKENS));
	assert.equal(e.calls, e.sentences);
	assert.equal(e.usage.input, e.calls * (5000 + summary + SENTENCE_TOKENS));
	assert.equal(e.usage.cached, (e.calls - 1) * (5000 + summary));
	assert.equal(estimateScoring({ summaryTokens: 900, promptTokens: 5000, cached: false }).usage.cached, 0);
	assert.equal(estimateScoring({ summaryTokens: 1, promptTokens: 5000, cached: true }).calls, 1);
});
