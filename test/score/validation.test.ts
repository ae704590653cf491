import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Annotation, Judgment, ScoredSummary, Walk } from '../../source/domain.ts';
import {
	blindWalksUnderWay,
	firstUnjudged,
	nextUnjudged,
	pooledPrecision,
	undoLast,
	verdictsOf,
	walkItems,
	walkOptions,
	walkProgress,
} from '../../source/score/validation.ts';

const at = '2026-01-01T00:00:00.000Z';
const summaries: ScoredSummary[] = [
	{ id: 's0', book: 'one', text: 'A. B. C.', node: null, version: null, source: 'f' },
	{ id: 's1', book: 'two', text: 'D. E.', node: null, version: null, source: 'f' },
];
let next = 0;
function annotation(
	summary: 's0' | 's1',
	start: number,
	source: 'model' | 'human',
	extra: Partial<Annotation> = {},
): Annotation {
	return {
		id: `a${next++}`,
		summary,
		sentence: null,
		spans: [{ start, end: start + 2 }],
		confusing: true,
		questions: 'Who?',
		types: ['entity omission'],
		source,
		annotator: source === 'model' ? 'm' : 'p',
		imported: null,
		raw: null,
		failure: null,
		createdAt: at,
		...extra,
	};
}
// Listed out of text order on purpose.
const annotations = [
	annotation('s1', 0, 'model'),
	annotation('s0', 3, 'human'),
	annotation('s0', 0, 'model'),
	annotation('s0', 6, 'model', { confusing: false }),
	annotation('s0', 6, 'model', { failure: 'no "Types:" line' }),
	annotation('s1', 3, 'human'),
];
const data = { summaries, annotations };

test('model and human walks list only claimed confusions, in text order', () => {
	assert.deepEqual(
		walkItems(data, { mode: 'model', seed: 1 }).map((a) => [a.summary, a.spans[0]!.start]),
		[
			['s0', 0],
			['s1', 0],
		],
	);
	assert.deepEqual(
		walkItems(data, { mode: 'human', seed: 1 }).map((a) => [a.summary, a.spans[0]!.start]),
		[
			['s0', 3],
			['s1', 3],
		],
	);
});

test('a blind walk mixes both sources in an order fixed by the seed', () => {
	const ids = (seed: number) => walkItems(data, { mode: 'blind', seed }).map((a) => a.id);
	assert.deepEqual(
		new Set(ids(7)),
		new Set(
			[...walkItems(data, { mode: 'model', seed: 0 }), ...walkItems(data, { mode: 'human', seed: 0 })].map(
				(a) => a.id,
			),
		),
	);
	assert.deepEqual(ids(7), ids(7));
	const orders = new Set(Array.from({ length: 30 }, (_, s) => ids(s).join()));
	assert.ok(orders.size > 5, `only ${orders.size} distinct orders over 30 seeds`);
});

test('a sample takes the given share, reproducibly, in text order', () => {
	const sample = walkItems(data, { mode: 'sample', seed: 3, fraction: 0.5 });
	assert.equal(sample.length, 2);
	assert.deepEqual(sample, walkItems(data, { mode: 'sample', seed: 3, fraction: 0.5 }));
	const all = walkItems(data, { mode: 'blind', seed: 0 });
	for (const a of sample) assert.ok(all.includes(a));
	assert.throws(() => walkItems(data, { mode: 'sample', seed: 3, fraction: 0 }), RangeError);
});

test('progress counts the latest verdict per annotation and validator, per source', () => {
	const items = walkItems(data, { mode: 'blind', seed: 2 });
	const [m0, m1] = walkItems(data, { mode: 'model', seed: 0 });
	const [h0] = walkItems(data, { mode: 'human', seed: 0 });
	const j = (a: Annotation, validator: string, verdict: Judgment['verdict']): Judgment => ({
		annotation: a.id,
		validator,
		verdict,
		reasons: [],
		note: null,
		at,
	});
	const judgments = [
		j(m0!, 'ann', 'disagree'),
		j(m0!, 'ann', 'agree'),
		j(m1!, 'ann', 'partial'),
		j(h0!, 'ann', 'disagree'),
		j(h0!, 'bob', 'agree'),
	];
	const p = walkProgress(items, judgments, 'ann');
	assert.deepEqual(
		{ ...p.model },
		{ total: 2, judged: 2, agree: 1, partial: 1, disagree: 0, precision: 1, strict: 0.5 },
	);
	assert.deepEqual(
		{ ...p.human },
		{ total: 2, judged: 1, agree: 0, partial: 0, disagree: 1, precision: 0, strict: 0 },
	);
	assert.equal(verdictsOf(judgments, 'bob').size, 1);
	const unjudged = nextUnjudged(items, judgments, 'ann', 0);
	assert.ok(unjudged !== null && !verdictsOf(judgments, 'ann').has(items[unjudged]!.id));
	assert.equal(
		nextUnjudged(items, [...judgments, ...items.map((a) => j(a, 'ann', 'agree'))], 'ann', 0),
		null,
	);
});

test('a blind walk reads one summary at a time: summaries in a seeded order, each one shuffled within', () => {
	// Six summaries of five annotations each, both sources in every one.
	const many: ScoredSummary[] = Array.from({ length: 6 }, (_, i) => ({
		id: `s${i}` as const,
		book: `b${i}`,
		text: 'A. B. C. D. E.',
		node: null,
		version: null,
		source: 'f',
	}));
	const pool = many.flatMap((s) =>
		Array.from({ length: 5 }, (_, k) => annotation(s.id as 's0', 2 * k, k % 2 ? 'human' : 'model')),
	);
	const walk = (seed: number) => walkItems({ summaries: many, annotations: pool }, { mode: 'blind', seed });
	const orders = Array.from({ length: 20 }, (_, seed) => walk(seed));
	for (const order of orders) {
		assert.equal(order.length, pool.length);
		// Grouped: once the walk leaves a summary, it never comes back to it.
		const runs = order.map((a) => a.summary).filter((s, i, all) => i === 0 || all[i - 1] !== s);
		assert.equal(runs.length, new Set(runs).size, `a summary is visited twice: ${runs.join(' ')}`);
	}
	assert.deepEqual(walk(3), walk(3));
	const summaryOrders = new Set(orders.map((o) => [...new Set(o.map((a) => a.summary))].join()));
	assert.ok(summaryOrders.size > 10, `only ${summaryOrders.size} orders of summaries over 20 seeds`);
	const withinS0 = new Set(
		orders.map((o) =>
			o
				.filter((a) => a.summary === 's0')
				.map((a) => a.id)
				.join(),
		),
	);
	assert.ok(withinS0.size > 10, `only ${withinS0.size} orders within a summary over 20 seeds`);
});

test('a walk reopens at its first unjudged item', () => {
	const items = walkItems(data, { mode: 'blind', seed: 2 });
	const j = (a: Annotation): Judgment => ({
		annotation: a.id,
		validator: 'ann',
		verdict: 'agree',
		reasons: [],
		note: null,
		at,
	});
	assert.equal(firstUnjudged(items, [], 'ann'), 0);
	assert.equal(firstUnjudged(items, [j(items[0]!), j(items[1]!)], 'ann'), 2);
	assert.equal(firstUnjudged(items, [j(items[0]!), j(items[2]!)], 'ann'), 1);
	assert.equal(
		firstUnjudged(items, [j(items[0]!), j(items[1]!)], 'bob'),
		0,
		"another validator's verdicts are not this one's",
	);
	assert.equal(firstUnjudged(items, items.map(j), 'ann'), 0, 'all judged: from the start');
});

test('a blind walk is under way until its validator has judged every item of it', () => {
	const walk: Walk = { validator: 'ann', mode: 'blind', seed: 4, fraction: null, startedAt: at };
	const items = walkItems(data, walkOptions(walk));
	const j = (a: Annotation, validator = 'ann'): Judgment => ({
		annotation: a.id,
		validator,
		verdict: 'agree',
		reasons: [],
		note: null,
		at,
	});
	const state = (judgments: Judgment[], walks: Walk[] = [walk]) =>
		blindWalksUnderWay({ ...data, judgments, walks });
	assert.deepEqual([...state([])], [['ann', { judged: 0, total: 4 }]]);
	assert.deepEqual([...state(items.slice(1).map((a) => j(a)))], [['ann', { judged: 3, total: 4 }]]);
	assert.deepEqual(
		[...state(items.map((a) => j(a, 'bob')))],
		[['ann', { judged: 0, total: 4 }]],
		"another validator's verdicts do not finish it",
	);
	assert.equal(state(items.map((a) => j(a))).size, 0);
	assert.equal(state([], [{ ...walk, mode: 'model' }]).size, 0, 'a walk by source hides nothing');
	assert.equal(state([], []).size, 0);
});

test('the pooled estimate counts both sources together, with an interval over summaries', () => {
	const items = walkItems(data, { mode: 'blind', seed: 1 });
	const verdicts: Judgment['verdict'][] = ['agree', 'disagree', 'partial'];
	const judgments = items.slice(0, 3).map((a, i): Judgment => ({
		annotation: a.id,
		validator: 'ann',
		verdict: verdicts[i]!,
		reasons: [],
		note: null,
		at,
	}));
	assert.equal(pooledPrecision(items, [], 'ann', { seed: 1, resamples: 50 }), null);
	const p = pooledPrecision(items, judgments, 'ann', { seed: 1, resamples: 50 })!;
	assert.deepEqual([p.judged, p.agree, p.partial, p.disagree], [3, 1, 1, 1]);
	assert.ok(Math.abs(p.precision - 2 / 3) < 1e-9);
	assert.ok(p.precisionInterval.low! <= p.precision && p.precision <= p.precisionInterval.high!);
});

test("annotations made by hand keep out of their author's walk and of walks begun before them", () => {
	const later = '2026-02-01T00:00:00.000Z';
	const walker = { validator: 'ann', startedAt: at };
	const before = walkItems(data, { mode: 'blind', seed: 9 }, walker).map((a) => a.id);
	const mine = annotation('s0', 3, 'human', { annotator: 'ann', createdAt: later });
	const theirs = annotation('s1', 0, 'human', { annotator: 'bob', createdAt: later });
	const imported = annotation('s0', 0, 'human', {
		annotator: 'bob',
		imported: 'summary-x.json',
		createdAt: later,
	});
	const grown = { summaries, annotations: [...annotations, mine, theirs, imported] };
	// The walk under way keeps its items and their order: only an import enters it.
	const ids = walkItems(grown, { mode: 'blind', seed: 9 }, walker).map((a) => a.id);
	assert.deepEqual(
		ids.filter((id) => id !== imported.id),
		before,
	);
	assert.ok(ids.includes(imported.id));
	// A walk begun after them has theirs, never one's own.
	const next = walkItems(
		grown,
		{ mode: 'human', seed: 9 },
		{ validator: 'ann', startedAt: '2026-03-01T00:00:00.000Z' },
	).map((a) => a.id);
	assert.ok(next.includes(theirs.id) && !next.includes(mine.id));
	// A walk's record is its walker: the blind walk under way counts the same items.
	const record: Walk = { validator: 'ann', mode: 'blind', seed: 9, fraction: null, startedAt: at };
	assert.equal(
		blindWalksUnderWay({ ...grown, judgments: [], walks: [record] }).get('ann')!.total,
		before.length + 1,
	);
});

test('undo takes back the latest action: a verdict, a later note alone, or a verdict with the note written on it', () => {
	let n = 0;
	const j = (
		annotation: `a${number}`,
		verdict: Judgment['verdict'],
		note: string | null = null,
		validator = 'ann',
	): Judgment => ({ annotation, validator, verdict, reasons: [], note, at: String(n++) });
	const marks = (js: Judgment[]) =>
		js.map((x) => `${x.annotation}:${x.verdict}${x.note ? `+${x.note}` : ''}`);
	// a0 agree, a1 disagree, bob's verdict between, then a note on a1: the verdict with its note go together.
	const judgments = [
		j('a0', 'agree'),
		j('a1', 'disagree'),
		j('a1', 'agree', null, 'bob'),
		j('a1', 'disagree', 'odd'),
	];
	assert.deepEqual(marks(undoLast(judgments, 'ann')), ['a1:disagree', 'a1:disagree+odd']);
	assert.deepEqual(marks(judgments), ['a0:agree', 'a1:agree']);
	// A note written later on an older verdict is undone alone.
	judgments.push(j('a2', 'partial'), j('a0', 'agree', 'late'));
	assert.deepEqual(marks(undoLast(judgments, 'ann')), ['a0:agree+late']);
	// A second note edit is undone alone, and then the verdict with its first note.
	judgments.push(j('a0', 'disagree'), j('a0', 'disagree', 'one'), j('a0', 'disagree', 'two'));
	assert.deepEqual(marks(undoLast(judgments, 'ann')), ['a0:disagree+two']);
	assert.deepEqual(marks(undoLast(judgments, 'ann')), ['a0:disagree', 'a0:disagree+one']);
	assert.deepEqual(marks(undoLast(judgments, 'ann')), ['a2:partial']);
	assert.deepEqual(marks(undoLast(judgments, 'ann')), ['a0:agree']);
	assert.deepEqual(marks(undoLast(judgments, 'nobody')), []);
});
