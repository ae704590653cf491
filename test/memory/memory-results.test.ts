import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryAnswer, MemoryQuestion, NodeRef } from '../../source/domain.ts';
import { MIN_CURVE_WIDTH, retentionCurve } from '../../source/format/curve.ts';
import { memoryResults, tokenEdges } from '../../source/memory/results.ts';

type Kind = MemoryQuestion['options'][number]['kind'];

function question(
	id: string,
	type: MemoryQuestion['type'],
	kinds: readonly Kind[],
	demand: [number, number] | null,
	target: [NodeRef, number | null],
): MemoryQuestion {
	const truth = kinds.indexOf('true');
	return {
		id,
		target: { node: target[0], step: target[1] },
		read: {
			chars: 100 * (target[1] ?? 10),
			tokens: 10 * (target[1] ?? 10),
			fraction: (target[1] ?? 10) / 10,
		},
		type,
		options: kinds.map((kind, i) => ({ kind, scene: `s${i}`, book: 'B', text: `scene ${i}` })),
		answer: truth >= 0 ? truth : kinds.length,
		demand: demand && { fraction: demand[0], tokens: demand[1] },
		seed: 1,
	};
}

const T: Kind = 'true';
const L: Kind = 'lookahead';
const O: Kind = 'other-book';
const FINAL: [NodeRef, null] = ['n10', null];
const questions: MemoryQuestion[] = [
	question('q1', 'other-book', [T, O, O, O, O], [0.05, 100], FINAL),
	question('q2', 'other-book', [T, O, O, O, O], [0.1, 200], FINAL),
	question('q3', 'lookahead', [L, T, L, L, L], [0.5, 1000], ['n4', 3]),
	question('q4', 'lookahead', [L, T, L, L, L], [0.55, 1100], ['n4', 3]),
	question('q5', 'other-book', [O, O, O, O, O], null, FINAL),
	question('q6', 'lookahead', [T, L, L, L, L], [0.95, 1900], ['n8', 7]),
	question('q7', 'lookahead', [T, L, L, L, L], [1, 2000], ['n8', 7]),
	question('q8', 'other-book', [O, O, O, O, O], null, FINAL),
	question('q9', 'other-book', [T, O, O, O, O], [0.3, 600], FINAL),
];

function answer(q: string, choice: number | null, reader = 'openai/m'): MemoryAnswer {
	const correct = choice === questions.find((x) => x.id === q)!.answer;
	return { question: q, reader, shown: 'summary', choice, correct, at: '2026-01-01T00:00:00.000Z' };
}

// q9 is not answered yet; q1 was answered twice (the later answer counts).
const answers = [
	answer('q1', 3),
	answer('q1', 0),
	answer('q2', 1),
	answer('q3', 0),
	answer('q4', 1),
	answer('q5', 5),
	answer('q6', 5),
	answer('q7', null),
	answer('q8', 2),
];

test('accuracy overall, by type and by target, on answers counted by hand', () => {
	const r = memoryResults(questions, answers);
	assert.equal(r.n, 8);
	assert.equal(r.answered, 7);
	assert.equal(r.unreadable, 1);
	assert.equal(r.overall.correct, 3);
	assert.equal(r.overall.accuracy, 3 / 8);
	assert.ok(r.overall.low < 3 / 8 && 3 / 8 < r.overall.high, `${r.overall.low} ${r.overall.high}`);
	assert.equal(r.chance, 1 / 6);
	assert.deepEqual([r.byType['other-book'].correct, r.byType['other-book'].n], [2, 4]);
	assert.deepEqual([r.byType.lookahead.correct, r.byType.lookahead.n], [1, 4]);
	assert.deepEqual([r.none.correct, r.none.n], [1, 2]);
	// Wrong answers: q3 took a lookahead scene, q2 and q8 other-book scenes, q6 "None", q7 nothing readable.
	assert.deepEqual(r.wrong, { lookahead: 1, 'other-book': 2, distortion: 0, none: 1, unreadable: 1 });
	assert.deepEqual(
		r.byTarget.map((t) => [t.target.step, t.correct, t.n]),
		[
			[3, 1, 2],
			[7, 0, 2],
			[null, 2, 4],
		],
	);
	assert.deepEqual(r.byTarget[0]!.read, { chars: 300, tokens: 30, fraction: 0.3 });
});

test('accuracy by retention demand: five bins over the book, empty ones kept, the mean tokens of each', () => {
	const { bins } = memoryResults(questions, answers);
	assert.deepEqual(
		bins.map((b) => [b.from, b.to, b.n, b.correct]),
		[
			[0, 0.2, 2, 1],
			[0.2, 0.4, 0, 0],
			[0.4, 0.6, 2, 1],
			[0.6, 0.8, 0, 0],
			[0.8, 1, 2, 0],
		],
	);
	assert.deepEqual(
		bins.map((b) => b.tokens),
		[150, Number.NaN, 1050, Number.NaN, 1950],
	);
	assert.ok(Number.isNaN(bins[1]!.accuracy) && Number.isNaN(bins[1]!.low));
	// All wrong of two: Wilson's interval, not the point [0, 0] a resample of two wrong answers gives.
	assert.deepEqual([bins[4]!.accuracy, bins[4]!.low, +bins[4]!.high.toFixed(4)], [0, 0, 0.6576]);
	assert.equal(memoryResults(questions, answers, { bins: 2 }).bins.length, 2);
	assert.deepEqual(memoryResults(questions, answers).bins, bins);
});

test('accuracy by retention demand in tokens: bins on a 1-3-10 scale, up to the farthest question', () => {
	assert.deepEqual(tokenEdges(45_000), [0, 1000, 3000, 10_000, 30_000, 100_000]);
	assert.deepEqual(tokenEdges(0), [0, 1000]);
	// A bin holds its lower edge, not its upper.
	assert.deepEqual(tokenEdges(1000), [0, 1000, 3000]);
	const { tokenBins } = memoryResults(questions, answers);
	// q1 (100 tokens back, right) and q2 (200, wrong); q3, q4 (right), q6 and q7 at 1,000 to 2,000.
	assert.deepEqual(
		tokenBins.map((b) => [b.from, b.to, b.n, b.correct]),
		[
			[0, 1000, 2, 1],
			[1000, 3000, 4, 1],
		],
	);
	// "None" questions have no demand: with only them, no bins.
	const none = questions.filter((q) => q.demand === null).map((q) => answer(q.id, 5));
	assert.deepEqual(memoryResults(questions, none).tokenBins, []);
});

test('answers of several readers, or to unknown questions, are refused', () => {
	assert.throws(() => memoryResults(questions, [answer('q1', 0), answer('q2', 0, 'other/m')]), /one reader/u);
	assert.throws(() => memoryResults(questions.slice(1), [answer('q1', 0)]), /q1/u);
	const none = memoryResults(questions, []);
	assert.equal(none.n, 0);
	assert.ok(Number.isNaN(none.overall.accuracy) && Number.isNaN(none.chance));
});

const bin = (i: number, n: number, accuracy: number) => ({ from: i / 5, to: (i + 1) / 5, n, accuracy });
/** The rows of the curve's plot, and the characters of each bin's first column. */
function columnOf(lines: readonly string[], height: number, width: number, i: number): string {
	const left = lines.at(-1)!.search(/\S/u);
	const at = left + Math.floor((i / 5) * (width - left));
	return lines
		.slice(0, height)
		.map((line) => line[at] ?? ' ')
		.join('');
}

test('the retention curve fits its width, draws a higher bin higher, an empty bin as a gap and marks chance', () => {
	const width = 60;
	const height = 10;
	const bins = [bin(0, 4, 0.9), bin(1, 4, 0.4), bin(2, 0, Number.NaN), bin(3, 3, 0), bin(4, 2, 1)];
	const lines = retentionCurve(bins, { width, height, chance: 1 / 6 });
	assert.equal(lines.length, height + 4);
	for (const line of lines) assert.ok(line.length <= width, line);
	assert.ok(
		lines.every((line) => !line.includes('\u001b')),
		'no colour codes',
	);
	const bars = [0, 1, 2, 3, 4].map((i) => columnOf(lines, height, width, i));
	const heightOf = (column: string) => column.split('').filter((c) => c === '#').length;
	assert.deepEqual(bars.map(heightOf), [9, 4, 0, 0, 10]);
	assert.doesNotMatch(bars[2]!, /[#_]/u, 'an empty bin is a gap');
	assert.match(bars[3]!, /_$/u, 'a bin of accuracy 0 is drawn on the floor');
	// Chance: one row of dots, labelled with its percentage.
	const chanceRows = lines.slice(0, height).filter((line) => line.includes('.'));
	assert.equal(chanceRows.length, 1);
	assert.match(chanceRows[0]!, /^ *17% \|/u);
	assert.match(lines.join('\n'), /0%.*20%.*40%.*60%.*80%.*100%/u);
	// Too narrow a width is widened to the narrowest curve.
	for (const line of retentionCurve(bins, { width: 10, height: 3, chance: 0.25 }))
		assert.ok(line.length <= MIN_CURVE_WIDTH, line);
});
