import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FaithfulnessLabel, FaithfulnessVerdict, ScoredSummary, Walk } from '../../source/domain.ts';
import { reportJson } from '../../source/format/report.ts';
import { faithfulnessReport, faithfulnessUnits, firstUnjudgedUnit } from '../../source/score/faithfulness.ts';
import { kendallTauB } from '../../source/score/kendall.ts';
import { partialUnits, partialValidators, sampleSize } from '../../source/score/partial-faithfulness.ts';
import { buildReport, reportLines } from '../../source/score/report.ts';
import { FaithfulnessWalk } from '../../source/app/faithfulness-walk.ts';
import { Session } from '../../source/store/session.ts';
import { tempDir } from '../support/temp.ts';

/** The commands the report suggests, as booook on the PATH names them for no session in particular. */
const anySession = (verb: string) => `booook ${verb} ID`;

const at = '2026-01-01T00:00:00.000Z';
const summary = (id: string, text: string): ScoredSummary => ({
	id: id as ScoredSummary['id'],
	book: id,
	text,
	node: null,
	version: null,
	source: 'test',
});
const summaries = [
	summary('s0', 'Ann sails to Dover. The war ends. Bob sells the boat. Ann returns home.'),
	summary('s1', 'A storm hits. The mast breaks. Everyone survives.'),
	summary('s2', 'It rains. It stops.'),
];
const v = (
	validator: string,
	s: string,
	sentence: number,
	label: FaithfulnessLabel,
	origin: 'human' | 'model' = 'human',
): FaithfulnessVerdict => ({
	summary: s as ScoredSummary['id'],
	sentence,
	label,
	note: null,
	validator,
	origin,
	at,
});
const walk = (validator: string, fraction: number | null): Walk => ({
	validator,
	mode: 'faithfulness',
	seed: 7,
	fraction,
	startedAt: at,
});

test("Kendall's τ-b matches hand-computed values, ties included", () => {
	// Pairs of [1,2,2,3] and [1,3,2,2]: 3 concordant, 1 discordant, 1 tied in x only, 1 in y only:
	// (3 − 1) ÷ √((3 + 1 + 1)(3 + 1 + 1)) = 0.4.
	assert.equal(kendallTauB([1, 2, 2, 3], [1, 3, 2, 2]), 0.4);
	// A pair tied on both sides counts nowhere: 2 concordant of 2 counted.
	assert.equal(kendallTauB([1, 1, 2], [5, 5, 9]), 1);
	assert.equal(kendallTauB([1, 2, 3], [3, 2, 1]), -1);
	assert.ok(Number.isNaN(kendallTauB([1, 1, 1], [1, 2, 3])), 'undefined when one side is constant');
	assert.ok(Number.isNaN(kendallTauB([1], [1])), 'undefined for one item');
	assert.throws(() => kendallTauB([1, 2], [1]), /paired/u);
});

test('a partial walk: ⌈F·n⌉ sentences of each summary, in reading order, different per validator, the same on every call', () => {
	const ten = summary('s3', Array.from({ length: 10 }, (_, i) => `Line ${i + 1} ends here.`).join(' '));
	const units = faithfulnessUnits([...summaries, ten]);
	const count = (us: readonly { summary: string }[], s: string) => us.filter((u) => u.summary === s).length;
	const ann = partialUnits(units, { seed: 7, validator: 'ann', fraction: 0.3 });
	// ⌈0.3·4⌉ = 2, ⌈0.3·3⌉ = 1, ⌈0.3·2⌉ = 1, ⌈0.3·10⌉ = 3 (not 4: 0.3 × 10 is a hair above 3 in floating point).
	assert.deepEqual(
		['s0', 's1', 's2', 's3'].map((s) => count(ann, s)),
		[2, 1, 1, 3],
	);
	assert.deepEqual(
		[sampleSize(5, 0.5), sampleSize(1, 0.01), sampleSize(7, 1), sampleSize(0, 0.5)],
		[3, 1, 7, 0],
	);
	assert.throws(() => sampleSize(4, 0), /\(0, 1\]/u);
	const order = ann.map((u) => units.indexOf(u));
	assert.deepEqual(
		order,
		[...order].sort((a, b) => a - b),
		'kept in reading order',
	);
	assert.deepEqual(
		partialUnits(units, { seed: 7, validator: 'ann', fraction: 0.3 }),
		ann,
		'the same walk gives the same sample',
	);
	const keys = (us: readonly { summary: string; sentence: number }[]) =>
		us.map((u) => `${u.summary}:${u.sentence}`);
	const names = ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal'];
	const drawn = new Set(
		names.map((name) => keys(partialUnits(units, { seed: 7, validator: name, fraction: 0.3 })).join()),
	);
	assert.ok(
		drawn.size >= 6,
		`validators get samples of their own (${drawn.size} distinct of ${names.length})`,
	);
	assert.notDeepEqual(
		keys(partialUnits(units, { seed: 8, validator: 'ann', fraction: 0.3 })),
		keys(ann),
		'another seed, another sample',
	);
	assert.deepEqual(
		partialUnits(units, { seed: 7, validator: 'ann', fraction: 1 }),
		units,
		'fraction 1 is every sentence',
	);
	// Adding a summary leaves the other summaries' samples as they were.
	const without = partialUnits(faithfulnessUnits(summaries), { seed: 7, validator: 'ann', fraction: 0.3 });
	assert.deepEqual(keys(without), keys(ann.filter((u) => u.summary !== 's3')));
});

test('partialValidators: the latest faithfulness walk of each validator decides; full walks and fraction 1 are not partial', () => {
	const walks: Walk[] = [
		walk('ann', 0.5),
		walk('bob', null),
		walk('cat', 0.5),
		walk('cat', 1),
		{ ...walk('dan', 0.2), mode: 'sample' },
	];
	assert.deepEqual([...partialValidators(walks)], [['ann', 0.5]]);
});

test('the full-annotation estimate: the mean of per-summary shares, with an interval over summaries; τ-b and the difference against a full annotation', () => {
	const verdicts = [
		// pat, partial: s0 1 of 3 judged faithful (1/3), s1 1 of 2 (1/2: its "can't tell" counts against), s2 0 of 1 (0).
		v('pat', 's0', 0, 'faithful'),
		v('pat', 's0', 2, 'unfaithful'),
		v('pat', 's0', 3, 'unfaithful'),
		v('pat', 's1', 1, 'faithful'),
		v('pat', 's1', 2, 'unsure'),
		v('pat', 's2', 0, 'unfaithful'),
		// bob, every sentence: s0 2/4, s1 3/3, s2 1/2.
		v('bob', 's0', 0, 'faithful'),
		v('bob', 's0', 1, 'faithful'),
		v('bob', 's0', 2, 'unfaithful'),
		v('bob', 's0', 3, 'unfaithful'),
		v('bob', 's1', 0, 'faithful'),
		v('bob', 's1', 1, 'faithful'),
		v('bob', 's1', 2, 'faithful'),
		v('bob', 's2', 0, 'unfaithful'),
		v('bob', 's2', 1, 'faithful'),
		// cat judged only s1 in full: the comparison with cat covers s1 alone.
		v('cat', 's1', 0, 'faithful'),
		v('cat', 's1', 1, 'faithful'),
		v('cat', 's1', 2, 'unfaithful'),
		v('cat', 's0', 0, 'faithful'),
	];
	const r = faithfulnessReport(summaries, verdicts, { seed: 1, resamples: 2000 }, [
		walk('pat', 0.5),
		walk('bob', null),
	]).partial;
	assert.match(r.estimator, /mean over summaries/u);
	assert.equal(r.validators.length, 1);
	const pat = r.validators[0]!;
	assert.equal(pat.validator, 'pat');
	assert.equal(pat.fraction, 0.5);
	assert.equal(
		pat.estimate,
		(1 / 3 + 1 / 2 + 0) / 3,
		"the mean of the summaries' shares, not the pooled 2/6",
	);
	assert.deepEqual(
		{ over: pat.over, summaries: pat.summaries, judged: pat.judged, units: pat.units },
		{ over: null, summaries: 3, judged: 6, units: 9 },
	);
	// Three summaries are too few to resample, and a mean of their shares is no share of pooled
	// sentences: no interval, and it says why.
	assert.deepEqual(
		[pat.interval!.method, pat.interval!.low, pat.interval!.tooFew],
		['none', null, { unit: 'summaries', n: 3 }],
	);

	const bob = r.vsFull.find((c) => c.full === 'bob')!;
	// Per-summary shares: pat (1/3, 1/2, 0), bob (1/2, 1, 1/2). Pairs: (s0,s1) concordant, (s1,s2)
	// concordant, (s0,s2) tied in bob's only: τ-b = 2 ÷ √(2 · 3).
	assert.equal(bob.summaries, 3);
	assert.ok(Math.abs(bob.tau! - 2 / Math.sqrt(6)) < 1e-12);
	assert.ok(Math.abs(bob.partialShare - 5 / 18) < 1e-12);
	assert.ok(Math.abs(bob.fullShare - 2 / 3) < 1e-12);
	assert.ok(Math.abs(bob.difference - (5 / 18 - 2 / 3)) < 1e-12);
	assert.equal(bob.fullOrigin, 'human');
	const cat = r.vsFull.find((c) => c.full === 'cat')!;
	assert.deepEqual(
		{ n: cat.summaries, tau: cat.tau, partial: cat.partialShare, full: cat.fullShare },
		{ n: 1, tau: null, partial: 1 / 2, full: 2 / 3 },
		'one summary in common: no τ, the difference still',
	);
	assert.equal(
		r.vsFull.some((c) => c.full === 'pat' || c.partial !== 'pat'),
		false,
		'only partial validators are compared, never against themselves',
	);

	assert.equal(
		faithfulnessReport(summaries, verdicts, { seed: 1, resamples: 100 }).partial.validators.length,
		0,
		'without walks, nobody annotated partially',
	);
});

test("one summary: the estimate is its share of all judged sentences and the interval is Wilson's over them", () => {
	const verdicts = [
		v('pat', 's0', 0, 'faithful'),
		v('pat', 's0', 1, 'faithful'),
		v('pat', 's0', 2, 'unfaithful'),
		v('pat', 's0', 3, 'unsure'),
	];
	const pat = faithfulnessReport([summaries[0]!], verdicts, { seed: 1, resamples: 2000 }, [walk('pat', 0.9)])
		.partial.validators[0]!;
	assert.equal(pat.estimate, 2 / 4, "the can't tell counts against it");
	assert.equal(pat.over, 'sentences');
	// Four judged sentences, two faithful: Wilson's 95% interval for 2 of 4.
	assert.deepEqual(
		[pat.interval!.low, pat.interval!.high].map((x) => +x!.toFixed(4)),
		[0.15, 0.85],
	);
});

test('report: partial annotation in text and JSON', () => {
	const verdicts = [
		v('pat', 's0', 0, 'faithful'),
		v('pat', 's0', 2, 'unfaithful'),
		v('pat', 's1', 1, 'faithful'),
		v('pat', 's2', 0, 'unfaithful'),
		...faithfulnessUnits(summaries).map((u) =>
			v('openai/gpt-4o', u.summary, u.sentence, u.sentence === 0 ? 'unfaithful' : 'faithful', 'model'),
		),
	];
	const report = buildReport(
		{ summaries, annotations: [], judgments: [], faithfulness: verdicts, walks: [walk('pat', 0.5)] },
		{ seed: 3, resamples: 300 },
	);
	const json = reportJson(report).faithfulness.partial;
	assert.match(json.estimator, /mean over summaries/u);
	const pat = json.validators.pat!;
	assert.deepEqual(
		{
			fraction: pat.fraction,
			share: pat.estimated_share,
			over: pat.interval_over,
			summaries: pat.summaries,
			judged: pat.judged,
			units: pat.units,
		},
		{ fraction: 0.5, share: 50, over: null, summaries: 3, judged: 4, units: 9 },
	);
	assert.equal(pat.ci, null);
	assert.deepEqual(pat.interval!.too_few, { unit: 'summaries', n: 3 });
	assert.equal(json.vs_full.length, 1);
	const c = json.vs_full[0]!;
	// pat (1/2, 1, 0) against the model's (3/4, 2/3, 1/2): pairs (s0,s1) C, (s0,s2) C, (s1,s2) D -> 1/3.
	assert.deepEqual(
		{
			partial: c.partial,
			full: c.full,
			origin: c.full_origin,
			n: c.summaries,
			partialShare: c.partial_share,
			fullShare: c.full_share,
			difference: c.difference,
		},
		{
			partial: 'pat',
			full: 'openai/gpt-4o',
			origin: 'model',
			n: 3,
			partialShare: 50,
			fullShare: 63.89,
			difference: -13.89,
		},
	);
	assert.ok(Math.abs(c.kendall_tau_b! - 1 / 3) < 1e-12);
	const text = reportLines('t', report, 80, anySession).join('\n');
	assert.match(
		text,
		/partial annotation \(LongEval §3\.2\), full score estimated as the mean over summaries/u,
	);
	assert.match(
		text,
		/pat judged 50\.0% of each summary \(4\/9 sentences of 3 summaries\): estimated 50\.0% faithful \(3 summaries are too few for an interval over summaries\)$/mu,
	);
	assert.match(
		text,
		/partial pat vs full openai\/gpt-4o \(model\): Kendall's τ-b 0\.333 over 3 summaries; faithful 50\.0% \(partial\) vs 63\.9% \(full\), -13\.9 points/u,
	);
});

test('FaithfulnessWalk with a fraction: records the walk once, walks only its sample, and reopens on the same sample at the first unjudged sentence', async (t) => {
	const dir = tempDir('faithfulness-partial', t);
	await (
		await Session.createCollection(dir, {
			id: 'p',
			title: 'voyage',
			sources: ['test'],
			summaries,
			annotations: [],
			judgments: [],
			runs: [],
		})
	).close();

	const open = async (validator: string) => {
		const session = await Session.open(dir, 'p');
		const walk = new FaithfulnessWalk(session, validator, () => new Date(at), { seed: 7, fraction: 0.5 });
		await walk.begin();
		return { session, walk };
	};
	const first = await open('ann');
	assert.equal(first.walk.partial, true);
	// ⌈0.5·4⌉ + ⌈0.5·3⌉ + ⌈0.5·2⌉ = 2 + 2 + 1.
	assert.equal(first.walk.units.length, 5);
	const sample = first.walk.units.map((u) => `${u.summary}:${u.sentence}`);
	await first.walk.mark(first.walk.units[0]!, 'faithful');
	await first.walk.mark(first.walk.units[1]!, 'unfaithful');
	const outside = faithfulnessUnits(summaries).find((u) => !sample.includes(`${u.summary}:${u.sentence}`))!;
	await assert.rejects(
		first.walk.mark(outside, 'faithful'),
		/in this walk/u,
		"a sentence outside the sample is not this walk's",
	);
	await first.session.close();

	const again = await open('ann');
	t.after(() => again.session.close());
	assert.deepEqual(
		again.walk.units.map((u) => `${u.summary}:${u.sentence}`),
		sample,
		'the same sample on reopening',
	);
	assert.equal(firstUnjudgedUnit(again.walk.units, again.walk.verdicts, 'ann'), 2);
	assert.deepEqual(again.session.data.walks, [walk('ann', 0.5)], 'the walk recorded once');
	// Each validator's sample is its own independent draw (LongEval's choice), so two can coincide by
	// chance: here 1 in 36, and at seed 7 ann's and bob's do. cat's does not.
	const cat = new FaithfulnessWalk(again.session, 'cat', () => new Date(at), { seed: 7, fraction: 0.5 });
	await cat.begin();
	assert.notDeepEqual(
		cat.units.map((u) => `${u.summary}:${u.sentence}`),
		sample,
		"another validator's sample differs",
	);
	assert.equal(cat.units.length, 5);
	assert.deepEqual(
		[...partialValidators(again.session.data.walks ?? [])],
		[
			['ann', 0.5],
			['cat', 0.5],
		],
	);
});
