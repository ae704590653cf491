import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Annotation, ScoredSummary } from '../../source/domain.ts';
import { sentencesOf } from '../../source/score/annotate.ts';
import { emptyCounts, LABELS } from '../../source/score/labels.ts';
import { storedScore, storedSessionScore } from '../../source/score/session-score.ts';
import {
	cellErrorTypes,
	ERROR_TYPE_KEY,
	errorTypeColumns,
	errorTypeRow,
	errorTypeTable,
	SHORT_LABELS,
	type CellErrorTypes,
} from '../../source/study/error-types.ts';
import { resultRows, type CellOutcome } from '../../source/study/results.ts';
import { studyCells } from '../../source/study/grid.ts';
import { parseStudy } from '../../source/study/spec.ts';

const TEXT = 'Ann met Bob in Paris. They argued about the will. Then the house burned down. Nobody knew why.';

let n = 0;
function annotation(fields: Partial<Annotation> & Pick<Annotation, 'summary'>): Annotation {
	n += 1;
	return {
		id: `a${n}`,
		sentence: null,
		spans: [],
		confusing: false,
		questions: '',
		types: [],
		source: 'model',
		annotator: 'openai/gpt-4o',
		imported: null,
		raw: null,
		failure: null,
		createdAt: `2024-05-01T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
		...fields,
	};
}
const confusing = (sentence: number, types: Annotation['types'], extra: Partial<Annotation> = {}) =>
	annotation({ summary: 's0', sentence, confusing: true, questions: 'Why?', types, ...extra });
const clear = (sentence: number, extra: Partial<Annotation> = {}) =>
	annotation({ summary: 's0', sentence, ...extra });

const summary: ScoredSummary = { id: 's0', book: 'b', text: TEXT, node: null, version: null, source: 'run' };

test("a cell's error types: the sentences its stored BooookScore reads, counted per type (a parse failure, another model and people left out)", () => {
	assert.equal(sentencesOf({ text: TEXT }).length, 4);
	const annotations = [
		clear(0),
		confusing(1, ['entity omission', 'causal omission']),
		confusing(2, ['causal omission']),
		annotation({ summary: 's0', sentence: 3, failure: 'no "Types:" line' }),
		// A model that answered only part of the summary: its verdicts are not the ones scored.
		confusing(0, ['language'], { annotator: 'anthropic/claude' }),
		confusing(1, ['language'], { annotator: 'anthropic/claude' }),
		// A person's annotation: BooookScore from the model's verdicts does not read it.
		annotation({
			summary: 's0',
			source: 'human',
			annotator: 'ann',
			confusing: true,
			types: ['duplication'],
			spans: [{ start: 0, end: 5 }],
		}),
	];
	const scored = storedSessionScore([summary], annotations);
	assert.ok(scored);
	const cell = cellErrorTypes(scored.system);
	assert.deepEqual(cell, {
		sentences: 3,
		confusing: 2,
		counts: { ...emptyCounts(), 'entity omission': 1, 'causal omission': 2 },
	});
	// The same selection as the score: 1 − 2/3.
	assert.ok(Math.abs(storedScore([summary], annotations)! - 100 / 3) < 1e-9);
	// Until every sentence has a verdict there is no score, and no error types either.
	assert.equal(storedSessionScore([summary], annotations.slice(0, 2)), null);
});

test("a configuration's error types: counts summed over its books, shares of all their annotated sentences", () => {
	const a: CellErrorTypes = {
		sentences: 3,
		confusing: 2,
		counts: { ...emptyCounts(), 'entity omission': 1, 'causal omission': 2 },
	};
	const b: CellErrorTypes = {
		sentences: 7,
		confusing: 1,
		counts: { ...emptyCounts(), salience: 1, 'causal omission': 1 },
	};
	const row = errorTypeRow([a, b])!;
	assert.equal(row.books, 2);
	assert.equal(row.sentences, 10);
	assert.equal(row.confusing, 3);
	assert.deepEqual(row.counts, { ...emptyCounts(), 'entity omission': 1, 'causal omission': 3, salience: 1 });
	assert.deepEqual(row.shares, {
		...emptyCounts(),
		'entity omission': 0.1,
		'causal omission': 0.3,
		salience: 0.1,
	});
	assert.equal(errorTypeRow([]), null);
	assert.equal(errorTypeRow([{ sentences: 0, confusing: 0, counts: emptyCounts() }])!.shares.salience, 0);

	const table = errorTypeTable(
		[
			{ config: ['hier'], errorTypes: row },
			{ config: ['inc'], errorTypes: null },
		],
		['method'],
	);
	assert.deepEqual(table[0], [
		'method',
		'books',
		'sentences',
		'confusing',
		'ent',
		'evt',
		'cause',
		'sal',
		'disc',
		'dup',
		'incon',
		'lang',
	]);
	assert.deepEqual(table[1], [
		'hier',
		'2',
		'10',
		'30.0 (3)',
		'10.0 (1)',
		'0.0 (0)',
		'30.0 (3)',
		'10.0 (1)',
		'0.0 (0)',
		'0.0 (0)',
		'0.0 (0)',
		'0.0 (0)',
	]);
	assert.equal(table[2]![0], 'inc');
	assert.ok(table[2]!.slice(2).every((c) => c === '—'));
	// The key names every header.
	for (const l of LABELS) assert.ok(ERROR_TYPE_KEY.includes(`${SHORT_LABELS[l]} ${l}`), l);

	const columns = errorTypeColumns([row, null]);
	assert.equal(columns[0]!.length, 2 + 2 * LABELS.length);
	const at = (header: string, i: number) => columns[i]![columns[0]!.indexOf(header)];
	assert.equal(at('sentences annotated', 1), '10');
	assert.equal(at('causal omission n', 1), '3');
	assert.equal(at('causal omission %', 1), '30.00');
	assert.equal(at('causal omission %', 2), '');
	// Annotated books whose every verdict failed to parse: no sentence, so no share (not 0%).
	const none = errorTypeRow([{ sentences: 0, confusing: 0, counts: emptyCounts() }]);
	assert.deepEqual(errorTypeTable([{ config: ['inc'], errorTypes: none }], ['method'])[1], [
		'inc',
		'1',
		'0',
		...Array(1 + LABELS.length).fill('—'),
	]);
	assert.equal(errorTypeColumns([none])[1]![2 + 2 * LABELS.indexOf('salience') + 1], '');
});

test('results rows carry the error types of their books done and annotated, only when the study scores', () => {
	const spec = parseStudy(
		{
			name: 't',
			books: ['a.txt', 'b.txt', 'c.txt'],
			methods: ['hier'],
			providers: [{ provider: 'extractive' }],
			chunkSizes: [4096],
		},
		's.json',
	);
	const cells = studyCells(
		spec,
		['a', 'b', 'c'].map((key) => ({ key, path: `${key}.txt` })),
		() => 'textrank',
		{ chunkSize: 2048, contextWindow: 8192 },
	);
	const types = (sentences: number, salience: number): CellErrorTypes => ({
		sentences,
		confusing: salience,
		counts: { ...emptyCounts(), salience },
	});
	const outcomes = new Map<string, CellOutcome>([
		[cells[0]!.key, { status: 'done', words: 10, calls: 1, cost: 0, score: 0.5, errorTypes: types(4, 2) }],
		[cells[1]!.key, { status: 'done', words: 10, calls: 1, cost: 0, score: 0.75, errorTypes: types(4, 1) }],
		// Not done (an edit left it stale): its annotations are of a summary that is no longer final.
		[
			cells[2]!.key,
			{ status: 'running', words: null, calls: 1, cost: 0, score: null, errorTypes: types(2, 2) },
		],
	]);
	const [row] = resultRows(cells, outcomes, { score: true, resamples: 100 });
	assert.equal(row!.errorTypes!.books, 2);
	assert.equal(row!.errorTypes!.sentences, 8);
	assert.equal(row!.errorTypes!.counts.salience, 3);
	assert.equal(row!.errorTypes!.shares.salience, 3 / 8);
	assert.equal(resultRows(cells, outcomes, { score: false })[0]!.errorTypes, null);
});
