import { test } from 'node:test';
import assert from 'node:assert/strict';
import { costText, usd } from '../../source/format/cost.ts';
import { compact } from '../../source/format/count.ts';
import { formatSeconds, minutesText, secondsText } from '../../source/format/duration.ts';
import {
	percent,
	percentInterval,
	percentNumber,
	points,
	shareOf,
	signedPoints,
} from '../../source/format/percent.ts';

test('percentages: lines, tables and JSON each keep their form', () => {
	assert.equal(percent(0.1234), '12.3%');
	assert.equal(percent(null), '—');
	assert.equal(percent(null, 'n/a', 0), 'n/a');
	// Whole percents round half up, as Math.round did for the coverage lines.
	assert.deepEqual(
		[0.125, 0.135, 1].map((x) => percent(x, 'n/a', 0)),
		['13%', '14%', '100%'],
	);
	assert.equal(points(0.5), '50.0');
	assert.deepEqual([0.031, 0, -0.0449].map(signedPoints), ['+3.1', '+0.0', '-4.5']);
	assert.equal(percentInterval(0.8333, { low: 0.701, high: 0.92 }), '83.3% [70.1, 92.0]');
	assert.equal(shareOf(3, 8), '37.5');
	assert.equal(shareOf(1, 3, 2), '33.33');
	assert.equal(shareOf(1, 8, 0), '13');
	assert.equal(percentNumber(0.12345), 12.35);
});

test('costs in dollars to four decimals, never a false $0 for an unpriced model', () => {
	assert.equal(usd(0.01234), '$0.0123');
	assert.equal(costText(0, false), 'cost unknown');
	assert.equal(costText(0, true), '$0.0000');
});

test('counts and durations', () => {
	assert.deepEqual([950, 12_345, 1_234_567].map(compact), ['950', '12k', '1.2M']);
	assert.deepEqual([42, 187, 3900, Infinity].map(formatSeconds), ['42s', '3m07s', '1h05m', '?']);
	assert.equal(secondsText(1500), '1.5 s');
	assert.equal(secondsText(60_000), '60 s');
	assert.deepEqual([150_000, 42_000].map(minutesText), ['2.5 min', '42 s']);
});
