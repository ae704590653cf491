import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import type { ClaimVerdict, FaithfulnessVerdict, ScoredSummary } from '../../source/domain.ts';
import { sentenceLabel } from '../../source/score/claims.ts';
import { faithfulnessReport } from '../../source/score/faithfulness.ts';
import { OUTCOMES } from '../../source/score/faithfulness-count.ts';
import { claimQuestion, faithfulnessReply } from '../support/faithfulness-reply.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';
import { tempDir } from '../support/temp.ts';

/**
 * LongEval's counting (issue 37, items 6 and 7): a unit the book does not state is unfaithful
 * ("either a direct contradiction, or not present"), so a summary's score is its faithful share
 * of ALL its units, and a system's the mean over its summaries.
 */

// Three sentences Frankenstein states word for word, and one it never does.
const SUMMARY = [
	'Henry Clerval was the son of a merchant of Geneva.',
	'Six years have passed since I resolved on my present undertaking.',
	'Two years after this event Caroline became his wife.',
	'Victor takes up a trade as a watchmaker in Vienna.',
].join(' ');

test('issue 37.6: an invented sentence lowers the score; it is counted not found beside the faithful share, in text and JSON', async (t) => {
	const dir = tempDir('faith-count', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, SUMMARY);
	const made = await booook([
		...['import', 'summary', '--book', FRANKENSTEIN, '--summary', file],
		...['--session', 'frank', '--sessions-dir', dir],
	]);
	assert.equal(made.code, 0, made.stderr);
	// The judge reads words alone: supported when a passage shown holds the claim word for word, else not found.
	const api = await startFakeApi({ respond: ({ prompt }) => faithfulnessReply(prompt) ?? 'not asked' });
	t.after(() => api.close());
	const judged = await booook(
		[
			...['faithfulness', 'frank', '--provider', 'openai', '--model', 'gpt-4o-mini'],
			...['--base-url', api.openaiBaseUrl, '--sessions-dir', dir],
		],
		{ env: { OPENAI_API_KEY: 'test-key' } },
	);
	assert.equal(judged.code, 0, judged.stderr);

	const json = JSON.parse((await booook(['report', 'frank', '--json', '--sessions-dir', dir])).stdout);
	const judge = json.faithfulness.validators['openai/gpt-4o-mini'];
	const sentences = judge.sentences;
	assert.equal(sentences.n, 4);
	assert.deepEqual(sentences.counts, { faithful: 3, not_found: 1, contradicted: 0, unchecked: 0 });
	assert.equal(sentences.faithful_share, 75, 'the faithful share of all four sentences');
	assert.deepEqual(sentences.shares, { faithful: 75, not_found: 25, contradicted: 0, unchecked: 0 });
	// The fake splits no sentence: one claim each, counted alike.
	assert.deepEqual([judge.claims.n, judge.claims.faithful_share], [4, 75]);

	const text = (await booook(['report', 'frank', '--sessions-dir', dir])).stdout;
	const line = text.split('\n').find((l) => l.startsWith('  openai/gpt-4o-mini (model), sentences:'));
	assert.ok(line, text);
	assert.match(
		line,
		/: 75\.0% \[[\d.]+, [\d.]+\] faithful, 25\.0% not found, 0\.0% contradicted, 0\.0% unchecked;/u,
	);
	assert.match(line, /n=4 in 1 summary \(3 faithful, 1 not found, 0 contradicted, 0 unchecked;/u);
	// The figures the command ends with are the report's.
	assert.ok(judged.stdout.includes(line), judged.stdout);
});

test('issue 37.6: a judge that calls everything supported, quoting the claim itself, does not make the invented sentence faithful', async (t) => {
	const dir = tempDir('faith-count-yes', t);
	const file = join(dir, 'summary.txt');
	writeFileSync(file, SUMMARY);
	const made = await booook([
		...['import', 'summary', '--book', FRANKENSTEIN, '--summary', file],
		...['--session', 'frank', '--sessions-dir', dir],
	]);
	assert.equal(made.code, 0, made.stderr);
	// Reads nothing: every claim "supported", its own words given as the quote.
	const api = await startFakeApi({
		respond: ({ prompt }) => {
			const asked = claimQuestion(prompt);
			if (!asked) return faithfulnessReply(prompt) ?? 'not asked';
			return `Label: supported\nQuote: ${asked.claim}\nReason: it says so.`;
		},
	});
	t.after(() => api.close());
	const judged = await booook(
		[
			...['faithfulness', 'frank', '--provider', 'openai', '--model', 'gpt-4o-mini'],
			...['--base-url', api.openaiBaseUrl, '--sessions-dir', dir],
		],
		{ env: { OPENAI_API_KEY: 'test-key' } },
	);
	assert.equal(judged.code, 0, judged.stderr);
	const json = JSON.parse((await booook(['report', 'frank', '--json', '--sessions-dir', dir])).stdout);
	const sentences = json.faithfulness.validators['openai/gpt-4o-mini'].sentences;
	// Its quote of the invented claim is in no passage: unchecked, counted, and not faithful.
	assert.deepEqual(sentences.counts, { faithful: 3, not_found: 0, contradicted: 0, unchecked: 1 });
	assert.equal(sentences.faithful_share, 75);
});

const at = '2026-01-01T00:00:00.000Z';
const text = (n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i + 1} is here.`).join(' ');

/** A model judge's verdict on one sentence, each of its claims checked so. */
function judged(
	summary: ScoredSummary['id'],
	sentence: number,
	...checks: ClaimVerdict[]
): FaithfulnessVerdict {
	const claims = checks.map((verdict, k) => ({
		claim: `claim ${k + 1}`,
		verdict,
		quote: verdict === 'not found' ? null : 'a quote',
		passage: verdict === 'supported' || verdict === 'contradicted' ? { start: 0, end: 10 } : null,
		reason: 'because',
	}));
	return {
		summary,
		sentence,
		label: sentenceLabel(claims),
		note: null,
		validator: 'judge',
		origin: 'model',
		at,
		claims,
		split: 'read',
	};
}

test('issue 37.7: a summary scores the mean of its units and a system the mean over summaries, for sentences and for claims', () => {
	const summaries: ScoredSummary[] = [
		{ id: 's0', book: 'a', text: text(1), node: null, version: null, source: 'test' },
		{ id: 's1', book: 'b', text: text(4), node: null, version: null, source: 'test' },
	];
	const verdicts = [
		judged('s0', 0, 'supported'),
		judged('s1', 0, 'supported', 'supported'),
		judged('s1', 1, 'supported', 'not found'),
		judged('s1', 2, 'not found'),
		judged('s1', 3, 'contradicted', 'supported'),
	];
	const row = faithfulnessReport(summaries, verdicts, { seed: 1, resamples: 200 }).validators[0]!;
	const sentences = row.sentences!;
	// s0: 1 of 1; s1: 1 of 4. Pooled over sentences it would be 2 of 5 (40%).
	assert.equal(sentences.share, (1 + 1 / 4) / 2);
	assert.equal(sentences.shares['not found'], (0 + 2 / 4) / 2);
	assert.equal(sentences.shares.contradicted, (0 + 1 / 4) / 2);
	const sum = OUTCOMES.reduce((a, o) => a + sentences.shares[o], 0);
	assert.ok(Math.abs(sum - 1) < 1e-12, 'the shares add up to all the units');
	// Claims: s0 1 of 1; s1 4 of 7.
	assert.equal(row.claims!.share, (1 + 4 / 7) / 2);
	assert.deepEqual([row.claims!.n, row.claims!.summaries], [8, 2]);
	// Two summaries: too few for an interval over them, and their mean is no share of pooled units.
	assert.equal(sentences.interval.method, 'none');
	assert.deepEqual(sentences.interval.tooFew, { unit: 'summaries', n: 2 });
});

test('issue 37.7: with ten summaries or more, the interval is a bootstrap over summaries; with one, Wilson over its units', () => {
	const many: ScoredSummary[] = Array.from({ length: 12 }, (_, i) => ({
		id: `s${i}`,
		book: `b${i}`,
		text: text(3),
		node: null,
		version: null,
		source: 'test',
	}));
	// Summary i has (i mod 4) of its 3 sentences faithful, capped at 3.
	const verdicts = many.flatMap((s, i) =>
		[0, 1, 2].map((k) => judged(s.id, k, k < Math.min(3, i % 4) ? 'supported' : 'not found')),
	);
	const row = faithfulnessReport(many, verdicts, { seed: 1, resamples: 500 }).validators[0]!.sentences!;
	assert.equal(row.interval.method, 'bootstrap');
	assert.deepEqual(row.interval.over, { unit: 'summaries', n: 12 });
	assert.ok(row.interval.low! < row.share && row.share < row.interval.high!);
	const one = faithfulnessReport(many.slice(1, 2), verdicts, { seed: 1, resamples: 500 }).validators[0]!
		.sentences!;
	assert.equal(one.share, 1 / 3);
	assert.deepEqual([one.interval.method, one.interval.over], ['wilson', { unit: 'sentences', n: 3 }]);
});
