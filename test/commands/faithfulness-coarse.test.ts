import { test } from 'node:test';
import assert from 'node:assert/strict';
import type {
	FaithfulnessLabel,
	FaithfulnessRating,
	FaithfulnessVerdict,
	ScoredSummary,
} from '../../source/domain.ts';
import { faithfulnessReport } from '../../source/score/faithfulness.ts';
import { ratingOnScale } from '../../source/score/faithfulness-coarse.ts';
import { Session } from '../../source/store/session.ts';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';

/**
 * LongEval's coarse rating against its fine one (its Table 3), on summaries whose ratings and
 * verdicts three people gave: each grain's mean and its spread across annotators, checked against
 * the arithmetic done here by hand, through the pure report and through `booook report`.
 */

const at = '2026-01-01T00:00:00.000Z';
const summary = (id: `s${number}`, text: string): ScoredSummary => ({
	id,
	book: `book ${id}`,
	text,
	node: null,
	version: null,
	source: 'test',
});
// Four sentences, two and three.
const SUMMARIES = [
	summary('s0', 'Ann sails to Dover. The war ends. Bob sells the boat. Ann returns home.'),
	summary('s1', 'Cleo rides north. Dov waits at the ford.'),
	summary('s2', 'Esme writes a letter. Finn burns it. Gwen reads the ashes.'),
];

const rating = (s: `s${number}`, validator: string, r: number): FaithfulnessRating => ({
	summary: s,
	rating: r,
	validator,
	at,
});
const RATINGS: FaithfulnessRating[] = [
	rating('s0', 'ann', 4),
	rating('s0', 'bo', 2),
	rating('s0', 'cy', 5),
	rating('s1', 'ann', 3),
	rating('s1', 'bo', 3),
	// Ann changes her mind on s2: the later rating counts.
	rating('s2', 'ann', 2),
	rating('s2', 'ann', 1),
];

const LABEL: Record<string, FaithfulnessLabel> = {
	f: 'faithful',
	x: 'unfaithful',
	c: 'unsure',
	p: 'partial',
};
/** A person's verdicts on a summary's sentences in order, one letter each. */
const judged = (s: `s${number}`, validator: string, labels: string): FaithfulnessVerdict[] =>
	[...labels].map((l, sentence) => ({
		summary: s,
		sentence,
		label: LABEL[l]!,
		note: null,
		validator,
		origin: 'human',
		at,
	}));
const VERDICTS: FaithfulnessVerdict[] = [
	...judged('s0', 'ann', 'fffx'),
	// Bo first calls sentence 2 faithful, then unfaithful: the latest counts.
	...judged('s0', 'bo', 'ff'),
	...judged('s0', 'bo', 'fxcp'),
	...judged('s0', 'cy', 'ffxf'),
	...judged('s1', 'ann', 'ff'),
	...judged('s1', 'bo', 'fx'),
	// Ann stops after two of s2's three sentences: her s2 is left out of fine.
	...judged('s2', 'ann', 'ff'),
	...judged('s2', 'cy', 'fff'),
	// A model's verdicts and a person's verdict on a claim are not a person's sentences.
	...judged('s0', 'openai/gpt-4o', 'ffff').map((v) => ({ ...v, origin: 'model' as const })),
	{
		...judged('s1', 'cy', 'x')[0]!,
		claim: { index: 0, text: 'Cleo rides.', judge: 'openai/gpt-4o' },
	},
];

/** numpy's std: over the values present, divided by their count. */
const sd = (xs: number[]) => {
	const m = xs.reduce((a, b) => a + b, 0) / xs.length;
	return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length);
};
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

// By hand: a rating r is (r − 1) / 4 of the scale; a fine score the faithful share of the sentences.
const COARSE = { s0: [3 / 4, 1 / 4, 4 / 4], s1: [2 / 4, 2 / 4], s2: [0 / 4] };
const FINE = { s0: [3 / 4, 1 / 4, 3 / 4], s1: [2 / 2, 1 / 2], s2: [3 / 3] };
const HAND = {
	coarse: {
		mean: avg([avg(COARSE.s0), avg(COARSE.s1), avg(COARSE.s2)]),
		spread: avg([sd(COARSE.s0), sd(COARSE.s1)]),
	},
	fine: {
		mean: avg([avg(FINE.s0), avg(FINE.s1), avg(FINE.s2)]),
		spread: avg([sd(FINE.s0), sd(FINE.s1)]),
	},
};

const close = (got: number | undefined, want: number, what: string) =>
	assert.ok(got !== undefined && Math.abs(got - want) < 1e-12, `${what}: ${got}, by hand ${want}`);

test('a 1–5 rating is put on the fine scale end to end: 1 is 0, 5 is 1, evenly between', () => {
	assert.deepEqual([1, 2, 3, 4, 5].map(ratingOnScale), [0, 0.25, 0.5, 0.75, 1]);
});

test("coarse against fine (LongEval Table 3): each grain's mean over summaries and its spread across annotators, by hand", () => {
	const cf = faithfulnessReport(SUMMARIES, VERDICTS, { seed: 1, resamples: 200 }, [], RATINGS).coarseFine;
	close(cf.coarse.mean?.estimate, HAND.coarse.mean, 'coarse mean');
	close(cf.coarse.spread?.estimate, HAND.coarse.spread, 'coarse spread');
	close(cf.fine.mean?.estimate, HAND.fine.mean, 'fine mean');
	close(cf.fine.spread?.estimate, HAND.fine.spread, 'fine spread');
	assert.deepEqual(
		[cf.coarse.summaries, cf.coarse.spreadSummaries, cf.coarse.annotators],
		[3, 2, 3],
		'coarse: three summaries rated, two by two or more, by three people',
	);
	assert.deepEqual(
		[cf.fine.summaries, cf.fine.spreadSummaries, cf.fine.annotators, cf.unfinished],
		[3, 2, 3, 1],
		"fine: the model and the claim left out, and Ann's unfinished s2",
	);
	assert.deepEqual(
		cf.rows.map((r) => [r.summary, Object.fromEntries(r.coarse), Object.fromEntries(r.fine)]),
		[
			['s0', { ann: 0.75, bo: 0.25, cy: 1 }, { ann: 0.75, bo: 0.25, cy: 0.75 }],
			['s1', { ann: 0.5, bo: 0.5 }, { ann: 1, bo: 0.5 }],
			['s2', { ann: 0 }, { cy: 1 }],
		],
	);
	// Three summaries are too few for a bootstrap over them, and it says so.
	assert.equal(cf.coarse.spread?.method, 'none');
	assert.deepEqual(cf.coarse.spread?.tooFew, { unit: 'summaries', n: 2 });
	// With no rating there is no coarse figure, and nothing to set beside the fine one.
	const none = faithfulnessReport(SUMMARIES, VERDICTS, { seed: 1, resamples: 200 }).coarseFine;
	assert.equal(none.coarse.mean, null);
	assert.equal(none.coarse.spread, null);
});

test('from ten summaries on, the spread gets a bootstrap interval over summaries around it', () => {
	const many = Array.from({ length: 12 }, (_, i) => summary(`s${i}`, 'One thing. Another thing.'));
	const ratings = many.flatMap((s, i) => [rating(s.id, 'ann', 1 + (i % 5)), rating(s.id, 'bo', 5 - (i % 3))]);
	const spread = faithfulnessReport(many, [], { seed: 1, resamples: 500 }, [], ratings).coarseFine.coarse
		.spread!;
	const byHand = avg(many.map((_, i) => sd([ratingOnScale(1 + (i % 5)), ratingOnScale(5 - (i % 3))])));
	close(spread.estimate, byHand, 'spread over twelve summaries');
	assert.equal(spread.method, 'bootstrap');
	assert.deepEqual(spread.over, { unit: 'summaries', n: 12 });
	assert.ok(
		spread.low! <= spread.estimate && spread.estimate <= spread.high!,
		'the interval holds the estimate',
	);
	assert.ok(spread.low! < spread.high!, 'and is not a point');
});

const points = (x: number) => Math.round(x * 10_000) / 100;

test('booook report sets the coarse and the fine figures side by side, in text and JSON, as computed by hand', async (t) => {
	const dir = tempDir('faith-coarse', t);
	const session = await Session.createCollection(dir, {
		id: 'three',
		title: 'three books',
		sources: ['test'],
		summaries: SUMMARIES,
		annotations: [],
		judgments: [],
		runs: [],
	});
	await session.append('faithfulness', ...VERDICTS);
	await session.append('faithfulnessRatings', ...RATINGS);
	await session.close();

	const json = await booook(['report', 'three', '--json', '--sessions-dir', dir]);
	assert.equal(json.code, 0, json.stderr);
	const cf = JSON.parse(json.stdout).faithfulness.coarse_fine;
	assert.equal(cf.coarse.mean.value, points(HAND.coarse.mean));
	assert.equal(cf.coarse.spread.value, points(HAND.coarse.spread));
	assert.equal(cf.fine.mean.value, points(HAND.fine.mean));
	assert.equal(cf.fine.spread.value, points(HAND.fine.spread));
	assert.deepEqual(
		[cf.coarse.spread_summaries, cf.fine.spread_summaries, cf.fine.annotators, cf.unfinished],
		[2, 2, 3, 1],
	);
	assert.equal(cf.coarse.spread.ci, null, 'no interval over two summaries');
	assert.deepEqual(cf.summaries[0], {
		summary: 's0',
		coarse: { ann: 75, bo: 25, cy: 100 },
		fine: { ann: 75, bo: 25, cy: 75 },
	});

	const text = await booook(['report', 'three', '--sessions-dir', dir]);
	assert.equal(text.code, 0, text.stderr);
	const line = (grain: string) => text.stdout.split('\n').find((l) => l.trimStart().startsWith(grain)) ?? '';
	const fixed = (x: number) => (100 * x).toFixed(1);
	assert.match(
		line('coarse, whole summaries rated 1–5'),
		new RegExp(`mean ${fixed(HAND.coarse.mean)} over 3 summaries`, 'u'),
	);
	assert.match(
		line('coarse, whole summaries rated 1–5'),
		new RegExp(`spread ${fixed(HAND.coarse.spread)} points over 2 summaries rated`, 'u'),
	);
	assert.match(
		line('fine, every sentence judged'),
		new RegExp(`spread ${fixed(HAND.fine.spread)} points over 2 summaries judged`, 'u'),
	);
	assert.match(text.stdout, /left out of fine: 1 annotation of a summary not finished/u);
});
