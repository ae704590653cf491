import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cohenKappa, krippendorffAlpha, percentAgreement } from '../../source/score/agreement.ts';
import { bootstrap, quantile, seededRandom } from '../../source/score/bootstrap.ts';
import { convertPrecisionStudy } from '../../source/score/formats.ts';
import { judgedItems, precisionBySource, type JudgedItem } from '../../source/score/precision.ts';
import { precisionJson } from '../../source/format/precision.ts';
import { MIN_CLUSTERS } from '../../source/score/interval.ts';
import { intervalNote } from '../../source/format/interval.ts';
import { percentInterval } from '../../source/format/percent.ts';
import { DATA_DIR as DATA } from '../support/repo-data.ts';

const raw: Record<string, { annotations: { source: string; agreement: string }[] }> = JSON.parse(
	readFileSync(DATA + 'human_annotations/annotations-gpt4-4096-inc.json', 'utf8'),
);

function study() {
	const converted = convertPrecisionStudy(raw);
	assert.ok(converted.ok, converted.ok ? '' : converted.error);
	return converted.value;
}

/** Paper §3, §4.1 and Appendix G. */
const PAPER = { human: 79.7, model: 78.2 } as const;

test('precision of human and GPT-4 annotations reproduces Appendix G', (t) => {
	const result = precisionBySource(judgedItems(study()), { random: seededRandom(2024), resamples: 2000 });
	assert.deepEqual([...result.keys()].sort(), ['human', 'model']);
	for (const source of ['human', 'model'] as const) {
		const p = result.get(source)!;
		// Counted straight from the file, independently of the converter.
		const rows = Object.values(raw).flatMap((b) => b.annotations.filter((a) => a.source === source));
		const count = (agreement: string) => rows.filter((a) => a.agreement === agreement).length;
		assert.equal(p.judged, rows.length);
		assert.equal(p.agree, count('Agree'));
		assert.equal(p.partial, count('Partially agree'));
		assert.equal(p.disagree, count("Don't agree"));
		assert.equal(
			p.books,
			Object.values(raw).filter((b) => b.annotations.some((a) => a.source === source)).length,
		);
		assert.equal(p.strict, p.agree / p.judged);
		t.diagnostic(
			`${source}: precision ${(100 * p.precision).toFixed(2)}% (paper ${PAPER[source]}), 95% CI ` +
				`[${(100 * p.precisionInterval.low!).toFixed(1)}, ${(100 * p.precisionInterval.high!).toFixed(1)}]; strict ${(100 * p.strict).toFixed(2)}% ` +
				`[${(100 * p.strictInterval.low!).toFixed(1)}, ${(100 * p.strictInterval.high!).toFixed(1)}]; ${p.agree}/${p.partial}/${p.disagree} of ${p.judged} over ${p.books} books`,
		);
		assert.ok(
			Math.abs(100 * p.precision - PAPER[source]) <= 0.1,
			`${source}: ${100 * p.precision} vs ${PAPER[source]}`,
		);
		for (const [value, ci] of [
			[p.precision, p.precisionInterval],
			[p.strict, p.strictInterval],
		] as const) {
			assert.equal(ci.estimate, value);
			assert.ok(ci.low! < value && value < ci.high!, `${ci.low} < ${value} < ${ci.high}`);
			assert.ok(ci.high! - ci.low! < 0.2, 'an interval over ~80 books is narrower than 20 points');
			assert.deepEqual([ci.method, ci.over], ['bootstrap', { unit: 'books', n: p.books }]);
		}
	}
});

test('the bootstrap is reproducible from its seed and resamples whole books', () => {
	const items = judgedItems(study());
	const a = precisionBySource(items, { random: seededRandom(5), resamples: 300 });
	const b = precisionBySource(items, { random: seededRandom(5), resamples: 300 });
	const c = precisionBySource(items, { random: seededRandom(6), resamples: 300 });
	assert.deepEqual(a, b);
	assert.notDeepEqual(a.get('human')!.precisionInterval, c.get('human')!.precisionInterval);

	// Books where every annotation is agreed with or every one is refused: resampling annotations
	// one by one would ignore that clustering, resampling books must not.
	const clustered: JudgedItem[] = [];
	for (let book = 0; book < 20; book++) {
		for (let i = 0; i < 30; i++)
			clustered.push({ book: `b${book}`, source: 'x', verdict: book % 2 === 0 ? 'agree' : 'disagree' });
	}
	const spread: JudgedItem[] = [];
	for (let book = 0; book < 20; book++) {
		for (let i = 0; i < 30; i++)
			spread.push({ book: `b${book}`, source: 'x', verdict: i % 2 === 0 ? 'agree' : 'disagree' });
	}
	const wide = precisionBySource(clustered, { random: seededRandom(1), resamples: 1000 }).get('x')!;
	const narrow = precisionBySource(spread, { random: seededRandom(1), resamples: 1000 }).get('x')!;
	assert.equal(wide.precision, 0.5);
	assert.equal(narrow.precision, 0.5);
	assert.ok(
		narrow.precisionInterval.high! - narrow.precisionInterval.low! < 1e-9,
		'no spread between books, no uncertainty',
	);
	assert.ok(
		wide.precisionInterval.high! - wide.precisionInterval.low! > 0.2,
		'books that disagree give a wide interval',
	);
});

test('too few books for a bootstrap: Wilson over the judged annotations, saying what it is over and why', () => {
	// 6 of 9 in one book: resampling the one book gave [66.7, 66.7], an interval of one point.
	const oneBook: JudgedItem[] = Array.from({ length: 9 }, (_, i) => ({
		book: 'only',
		source: 'model',
		verdict: i < 4 ? 'agree' : i < 6 ? 'partial' : 'disagree',
	}));
	const p = precisionBySource(oneBook, { random: seededRandom(1), resamples: 200 }).get('model')!;
	assert.equal(p.precisionInterval.method, 'wilson');
	assert.equal(percentInterval(p.precision, p.precisionInterval), '66.7% [35.4, 87.9]');
	assert.equal(percentInterval(p.strict, p.strictInterval), '44.4% [18.9, 73.3]');
	assert.equal(
		intervalNote(p.precisionInterval),
		'95% Wilson interval over 9 annotations; 1 book is too few for one over books',
	);
	assert.deepEqual(precisionJson(p).interval, {
		method: 'wilson',
		level: 0.95,
		over: { unit: 'annotations', n: 9 },
		too_few: { unit: 'books', n: 1 },
		low: 35.42,
		high: 87.94,
	});
	// From MIN_CLUSTERS books on, whole books are resampled.
	const tenBooks = Array.from({ length: MIN_CLUSTERS }, (_, b) =>
		oneBook.map((item) => ({ ...item, book: `b${b}` })),
	).flat();
	const q = precisionBySource(tenBooks, { random: seededRandom(1), resamples: 200 }).get('model')!;
	assert.equal(intervalNote(q.precisionInterval), '95% bootstrap interval over 10 books');
});

test('partial agreement counts for precision but not for strict precision', () => {
	const items: JudgedItem[] = [
		{ book: 'a', source: 'm', verdict: 'agree' },
		{ book: 'a', source: 'm', verdict: 'partial' },
		{ book: 'b', source: 'm', verdict: 'disagree' },
		{ book: 'b', source: 'm', verdict: 'partial' },
	];
	const p = precisionBySource(items, { random: seededRandom(3), resamples: 50 }).get('m')!;
	assert.equal(p.precision, 3 / 4);
	assert.equal(p.strict, 1 / 4);
});

test('quantile interpolates like numpy, and the bootstrap covers the truth of a known distribution', () => {
	assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
	assert.equal(quantile([1, 2, 3, 4], 0), 1);
	assert.equal(quantile([1, 2, 3, 4], 1), 4);
	assert.equal(quantile([10], 0.3), 10);
	assert.ok(Number.isNaN(quantile([], 0.5)));

	// 95% intervals for a mean of 40 uniform draws cover the true mean (0.5) in about 95% of trials.
	const rnd = seededRandom(11);
	let covered = 0;
	const trials = 200;
	for (let trial = 0; trial < trials; trial++) {
		const data = Array.from({ length: 40 }, () => rnd());
		const { mean } = bootstrap(
			data,
			{ mean: (s) => s.reduce((a, b) => a + b, 0) / s.length },
			{ random: rnd, resamples: 400 },
		);
		if (mean.low <= 0.5 && 0.5 <= mean.high) covered += 1;
	}
	assert.ok(covered / trials > 0.88 && covered / trials <= 1, `coverage ${covered / trials}`);
});

test("percent agreement and Cohen's kappa", () => {
	const a = ['y', 'y', 'n', 'n', 'y', 'n', 'y', 'y', 'n', 'y'];
	assert.equal(percentAgreement(a, a), 1);
	assert.equal(cohenKappa(a, a), 1);
	// The textbook table: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> p_o = 0.7, p_e = 0.5, kappa = 0.4.
	const r1 = [...Array(25).fill('yes'), ...Array(25).fill('no')];
	const r2 = [
		...Array(20).fill('yes'),
		...Array(5).fill('no'),
		...Array(10).fill('yes'),
		...Array(15).fill('no'),
	];
	assert.equal(percentAgreement(r1, r2), 0.7);
	assert.ok(Math.abs(cohenKappa(r1, r2) - 0.4) < 1e-12);
	// Raters who always say the same single thing: kappa is undefined.
	assert.ok(Number.isNaN(cohenKappa(['n', 'n'], ['n', 'n'])));
	assert.ok(Number.isNaN(percentAgreement([], [])));
	assert.throws(() => percentAgreement(['a'], ['a', 'b']), RangeError);
});

test("Krippendorff's alpha: the published nominal example, perfect agreement, and missing ratings", () => {
	// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4 observers x 12 units
	// example with missing values; the paper gives nominal alpha = 0.743.
	const _ = null;
	const observers = [
		[1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
		[1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
		[_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
		[1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
	];
	const units = observers[0]!.map((_v, u) => observers.map((o) => o[u]!));
	assert.ok(Math.abs(krippendorffAlpha(units) - 0.743) < 0.0005, String(krippendorffAlpha(units)));
	assert.equal(
		krippendorffAlpha([
			['a', 'a', null],
			['b', 'b', 'b'],
			['a', null, 'a'],
		]),
		1,
	);
	// A unit judged once carries no information: adding one changes nothing.
	const base = [
		['a', 'b'],
		['b', 'b'],
		['a', 'a'],
	];
	assert.equal(krippendorffAlpha([...base, ['b', null]]), krippendorffAlpha(base));
	// Labels that never vary: chance disagreement is zero and alpha is undefined.
	assert.ok(
		Number.isNaN(
			krippendorffAlpha([
				['a', 'a'],
				['a', 'a'],
			]),
		),
	);
});
