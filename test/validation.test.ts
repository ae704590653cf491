import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Annotation, Judgment, ScoredSummary } from '../source/domain.ts';
import { nextUnjudged, verdictsOf, walkItems, walkProgress } from '../source/score/validation.ts';

const at = '2026-01-01T00:00:00.000Z';
const summaries: ScoredSummary[] = [
	{ id: 's0', book: 'one', text: 'A. B. C.', node: null, version: null, source: 'f' },
	{ id: 's1', book: 'two', text: 'D. E.', node: null, version: null, source: 'f' },
];
let next = 0;
function annotation(summary: 's0' | 's1', start: number, source: 'model' | 'human', extra: Partial<Annotation> = {}): Annotation {
	return { id: `a${next++}`, summary, sentence: null, spans: [{ start, end: start + 2 }], confusing: true, questions: 'Who?', types: ['entity omission'], source, annotator: source === 'model' ? 'm' : 'p', imported: null, raw: null, failure: null, createdAt: at, ...extra };
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
	assert.deepEqual(walkItems(data, { mode: 'model', seed: 1 }).map((a) => [a.summary, a.spans[0]!.start]), [['s0', 0], ['s1', 0]]);
	assert.deepEqual(walkItems(data, { mode: 'human', seed: 1 }).map((a) => [a.summary, a.spans[0]!.start]), [['s0', 3], ['s1', 3]]);
});

test('a blind walk mixes both sources in an order fixed by the seed', () => {
	const ids = (seed: number) => walkItems(data, { mode: 'blind', seed }).map((a) => a.id);
	assert.deepEqual(new Set(ids(7)), new Set([...walkItems(data, { mode: 'model', seed: 0 }), ...walkItems(data, { mode: 'human', seed: 0 })].map((a) => a.id)));
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
	const j = (a: Annotation, validator: string, verdict: Judgment['verdict']): Judgment => ({ annotation: a.id, validator, verdict, reasons: [], note: null, at });
	const judgments = [j(m0!, 'ann', 'disagree'), j(m0!, 'ann', 'agree'), j(m1!, 'ann', 'partial'), j(h0!, 'ann', 'disagree'), j(h0!, 'bob', 'agree')];
	const p = walkProgress(items, judgments, 'ann');
	assert.deepEqual({ ...p.model }, { total: 2, judged: 2, agree: 1, partial: 1, disagree: 0, precision: 1, strict: 0.5 });
	assert.deepEqual({ ...p.human }, { total: 2, judged: 1, agree: 0, partial: 0, disagree: 1, precision: 0, strict: 0 });
	assert.equal(verdictsOf(judgments, 'bob').size, 1);
	const unjudged = nextUnjudged(items, judgments, 'ann', 0);
	assert.ok(unjudged !== null && !verdictsOf(judgments, 'ann').has(items[unjudged]!.id));
	assert.equal(nextUnjudged(items, [...judgments, ...items.map((a) => j(a, 'ann', 'agree'))], 'ann', 0), null);
});
