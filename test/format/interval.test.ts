import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../source/score/bootstrap.ts';
import {
	intervals,
	MIN_CLUSTERS,
	normalQuantile,
	pickInterval,
	shareInterval,
	wilson,
} from '../../source/score/interval.ts';
import { intervalJson, intervalNote } from '../../source/format/interval.ts';
import { percentInterval } from '../../source/format/percent.ts';

const round = (x: number | null) => (x === null ? null : +x.toFixed(4));

test("one rule: books resampled from MIN_CLUSTERS on; below, Wilson's over counted items, else none", () => {
	const books = (n: number) => ({ unit: 'books' as const, n });
	const items = { unit: 'sentences' as const, n: 40 };
	assert.deepEqual(pickInterval(books(MIN_CLUSTERS), items), {
		method: 'bootstrap',
		over: books(MIN_CLUSTERS),
		tooFew: null,
	});
	assert.deepEqual(pickInterval(books(MIN_CLUSTERS - 1), items), {
		method: 'wilson',
		over: items,
		tooFew: books(MIN_CLUSTERS - 1),
	});
	assert.deepEqual(pickInterval(books(2), null), { method: 'none', over: null, tooFew: books(2) });
	assert.deepEqual(pickInterval(null, { unit: 'questions', n: 5 }), {
		method: 'wilson',
		over: { unit: 'questions', n: 5 },
		tooFew: null,
	});
	assert.equal(pickInterval(null, { unit: 'questions', n: 0 }).method, 'none');
});

test("Wilson's interval: textbook values, never a point at 0 or n, and the level heeded", () => {
	assert.ok(Math.abs(normalQuantile(0.975) - 1.959964) < 1e-6);
	assert.deepEqual([wilson(6, 9).low, wilson(6, 9).high].map(round), [0.3542, 0.8794]);
	assert.deepEqual([wilson(5, 5).low, wilson(5, 5).high].map(round), [0.5655, 1]);
	assert.deepEqual([wilson(0, 5).low, wilson(0, 5).high].map(round), [0, 0.4345]);
	const at90 = wilson(50, 100, 0.9);
	assert.ok(at90.high - at90.low < wilson(50, 100).high - wilson(50, 100).low);
	const five = shareInterval(5, 5, 'questions');
	assert.equal(percentInterval(five.estimate, five), '100.0% [56.6, 100.0]');
	assert.equal(intervalNote(five), '95% Wilson interval over 5 questions');
});

test('intervals: the estimate from the clusters, the bounds by the rule, the reason named in text and JSON', () => {
	const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
	const options = { random: seededRandom(1), resamples: 300 };
	const two = intervals({ unit: 'books', values: [0.8, 0.9] }, { m: { of: mean } }, options).m;
	assert.deepEqual([round(two.estimate), two.low, two.high, two.method], [0.85, null, null, 'none']);
	assert.equal(percentInterval(two.estimate, two), '85.0%');
	assert.equal(intervalNote(two), '2 books are too few for an interval over books');
	assert.deepEqual(intervalJson(two), {
		method: 'none',
		level: 0.95,
		over: null,
		too_few: { unit: 'books', n: 2 },
		low: null,
		high: null,
	});
	const one = intervals(
		{ unit: 'summaries', values: [1] },
		{ s: { of: mean, pooled: { successes: 1, n: 1, unit: 'sentences' } } },
		options,
	).s;
	assert.equal(
		intervalNote(one),
		'95% Wilson interval over 1 sentence; 1 summary is too few for one over summaries',
	);
	const many = Array.from({ length: 12 }, (_, i) => i / 12);
	const twelve = intervals({ unit: 'books', values: many }, { m: { of: mean } }, options).m;
	assert.equal(twelve.method, 'bootstrap');
	assert.ok(twelve.low! < twelve.estimate && twelve.estimate < twelve.high!);
	assert.equal(intervalNote(twelve), '95% bootstrap interval over 12 books');
});
