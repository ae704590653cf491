import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
	convertHierarchicalRuns,
	convertHumanAnnotations,
	convertIncrementalRuns,
	convertModelAnnotations,
	convertPrecisionStudy,
	convertSummaries,
	type Converted,
} from '../../source/score/formats.ts';
import type * as Released from '../support/released.ts';
import { DATA_DIR as DATA } from '../support/repo-data.ts';

const load = <T>(rel: string): T => JSON.parse(readFileSync(DATA + rel, 'utf8')) as T;

function ok<T>(result: Converted<T>): T {
	assert.ok(result.ok, result.ok ? '' : result.error);
	return result.value;
}

function error<T>(result: Converted<T>): string {
	assert.equal(result.ok, false, 'a malformed value must be refused');
	return result.ok ? '' : result.error;
}

test('summaries: every book and its text', () => {
	for (const config of ['hier', 'inc']) {
		const raw = load<Released.Summaries>(`summaries/gpt4-2048-${config}-cleaned.json`);
		const summaries = ok(convertSummaries(raw));
		assert.deepEqual([...summaries.keys()], Object.keys(raw));
		for (const [book, text] of summaries) assert.equal(text, raw[book]);
	}
	assert.match(error(convertSummaries({ 'a.epub': 'x', 'b.epub': 3 })), /^summaries: b\.epub: .*string/u);
	assert.match(error(convertSummaries(['x'])), /^summaries: .*record/u);
});

test('model annotations (v1 dict form): every listed sentence, confusing, in file order', () => {
	for (const config of ['hier', 'inc']) {
		const raw = load<Released.Annotations>(`annotations/gpt4-2048-${config}.json`);
		const annotations = ok(convertModelAnnotations(raw));
		assert.deepEqual([...annotations.keys()], Object.keys(raw));
		for (const [book, list] of annotations) {
			const entries = Object.entries(raw[book] ?? {}) as [string, { questions: string; types: string[] }][];
			assert.deepEqual(
				list,
				entries.map(([sentence, a]) => ({
					sentence,
					confusing: true,
					questions: a.questions,
					types: a.types,
				})),
			);
		}
	}
});

test('model annotations: null books, the list form and the v2 form with nulls', () => {
	const annotations = ok(
		convertModelAnnotations({
			'none.epub': null,
			'list.epub': [
				{ span: 'Who is Ann?', questions: 'Who is Ann?', types: ['entity omission'] },
				{ span: 'All is clear.', questions: null, types: null },
			],
			'v2.epub': {
				'Bag Man rules.': {
					sentence_num: 1,
					sentence: 'Bag Man rules.',
					questions: 'Who is Bag Man?',
					types: 'entity omission, Salience',
				},
				'It rains.': { sentence_num: 2, sentence: 'It rains.', questions: null, types: null },
			},
		}),
	);
	assert.deepEqual(annotations.get('none.epub'), []);
	assert.deepEqual(annotations.get('list.epub'), [
		{ sentence: 'Who is Ann?', confusing: true, questions: 'Who is Ann?', types: ['entity omission'] },
		{ sentence: 'All is clear.', confusing: false, questions: '', types: [] },
	]);
	assert.deepEqual(annotations.get('v2.epub'), [
		{
			sentence: 'Bag Man rules.',
			confusing: true,
			questions: 'Who is Bag Man?',
			types: ['entity omission', 'salience'],
		},
		{ sentence: 'It rains.', confusing: false, questions: '', types: [] },
	]);
});

test('model annotations: an error names the first bad entry', () => {
	const raw = load<Released.Annotations>('annotations/gpt4-2048-hier.json');
	const books = Object.keys(raw);
	const at = books.findIndex((b, i) => i > 2 && raw[b] !== null && Object.keys(raw[b]!).length >= 2);
	const book = books[at]!;
	const sentence = Object.keys(raw[book]!)[1]!;
	raw[book]![sentence]!.types = ['entity omission', 'plot hole'];
	(raw as Record<string, unknown>)[books[at + 1]!] = 'not annotations';
	const message = error(convertModelAnnotations(raw));
	assert.ok(message.startsWith(`model annotations: ${book}, `), message);
	assert.ok(message.includes(JSON.stringify(sentence.slice(0, 20)).slice(0, -1)), message);
	assert.match(message, /types\[1\]: unknown type "plot hole"$/u);

	assert.match(
		error(
			convertModelAnnotations({
				'a.epub': [
					{ span: 's', questions: 'q', types: ['salience'] },
					{ span: 't', questions: 'Why?', types: [] },
				],
			}),
		),
		/^model annotations: a\.epub\[1\]: questions and types must both be given or both be empty$/u,
	);
	assert.match(
		error(convertModelAnnotations({ 'a.epub': { s: { questions: 5, types: null } } })),
		/^model annotations: a\.epub, "s", questions: /u,
	);
	assert.match(error(convertModelAnnotations({ 'a.epub': 'text' })), /^model annotations: a\.epub: /u);
});

test('intermediate summaries: hierarchical levels in order, incremental steps', () => {
	const rawHier = load<Released.Hierarchical>('intermediate/claude-88000-hier.json');
	const hier = ok(convertHierarchicalRuns(rawHier));
	assert.equal(hier.size, Object.keys(rawHier).length);
	for (const [book, run] of hier) {
		assert.equal(run.final, rawHier[book]!.final_summary);
		assert.deepEqual(
			run.levels,
			Object.keys(rawHier[book]!.summaries_dict)
				.sort((a, b) => Number(a) - Number(b))
				.map((k) => rawHier[book]!.summaries_dict[k]),
		);
		assert.ok(run.levels.length >= 1);
		// Merging never adds summaries, and the top level is the one root.
		for (let l = 1; l < run.levels.length; l++)
			assert.ok(run.levels[l]!.length <= run.levels[l - 1]!.length, book);
		assert.equal(run.levels.at(-1)!.length, 1, book);
	}
	const rawInc = load<Released.Incremental>('intermediate/claude-88000-inc.json');
	const inc = ok(convertIncrementalRuns(rawInc));
	for (const [book, steps] of inc) assert.deepEqual(steps, rawInc[book]);

	const book = Object.keys(rawHier)[2]!;
	rawHier[book]!.summaries_dict = { 0: ['a', 'b'], 2: ['c'] };
	assert.match(
		error(convertHierarchicalRuns(rawHier)),
		new RegExp(`^hierarchical intermediate summaries: ${book}, summaries_dict: levels 0, 2 `, 'u'),
	);
	assert.match(
		error(convertIncrementalRuns({ 'a.epub': ['x'], 'b.epub': [] })),
		/^incremental intermediate summaries: b\.epub: /u,
	);
	assert.match(
		error(convertIncrementalRuns({ 'a.epub': ['x', 7] })),
		/^incremental intermediate summaries: a\.epub\[1\]: /u,
	);
});

test('human annotations: singles and relations of every summary', () => {
	const raw = load<Released.Human>('human_annotations/summary-gpt4-4096-hier.json');
	const human = ok(convertHumanAnnotations(raw));
	let singles = 0;
	let relations = 0;
	for (const [book, h] of human) {
		assert.equal(h.summary, raw[book]!.summary);
		singles += h.singles.length;
		relations += h.relations.length;
		h.relations.forEach((r, i) => {
			const src = raw[book]!.relations[i]!;
			assert.deepEqual(r, {
				ids: [src.id_a, src.id_b],
				spans: [src.span_a, src.span_b],
				questions: src.shared_questions,
				same: src.same,
				labels: src.shared_labels,
			});
		});
	}
	// Paper §3: "the annotators mark ... 353 errors for hierarchical merging".
	assert.equal(singles + relations, 353);

	const book = Object.keys(raw).find((b, i) => i > 3 && raw[b]!.singles.length >= 3)!;
	raw[book]!.singles[2]!.labels = ['Entity omission'];
	assert.match(
		error(convertHumanAnnotations(raw)),
		new RegExp(
			`^human annotations: ${book}, singles\\[2\\], labels\\[0\\]: unknown type "Entity omission"$`,
			'u',
		),
	);
});

test('precision study: every judgment with its source, verdict and reasons', () => {
	const raw = load<Released.Study>('human_annotations/annotations-gpt4-4096-inc.json');
	const study = ok(convertPrecisionStudy(raw));
	assert.equal(study.size, Object.keys(raw).length);
	const verdicts = { Agree: 'agree', 'Partially agree': 'partial', "Don't agree": 'disagree' } as Record<
		string,
		string
	>;
	for (const [book, s] of study) {
		assert.equal(s.summary, raw[book]!.summary);
		assert.equal(s.judged.length, raw[book]!.annotations.length);
		s.judged.forEach((j, i) => {
			const src = raw[book]!.annotations[i]!;
			assert.equal(j.source, src.source);
			assert.equal(j.verdict, verdicts[src.agreement]);
			assert.deepEqual(j.reasons, src.reasons ?? []);
			if ('span_a' in src.anno) {
				assert.deepEqual(j.annotation, {
					kind: 'relation',
					spans: [src.anno.span_a, src.anno.span_b],
					questions: src.anno.shared_questions,
					labels: src.anno.shared_labels ?? null,
				});
			} else {
				assert.deepEqual(j.annotation, {
					kind: 'single',
					span: src.anno.span,
					questions: src.anno.questions,
					labels: src.anno.labels ?? null,
				});
			}
		});
	}

	const book = Object.keys(raw)[7]!;
	raw[book]!.annotations[5]!.agreement = 'Strongly agree';
	assert.match(
		error(convertPrecisionStudy(raw)),
		new RegExp(`^precision study: ${book}, annotations\\[5\\], agreement: `, 'u'),
	);
	raw[book]!.annotations[5]!.agreement = 'Agree';
	raw[book]!.annotations[6]!.anno = { span_a: 'x', shared_questions: 'Why?' };
	assert.match(
		error(convertPrecisionStudy(raw)),
		new RegExp(`^precision study: ${book}, annotations\\[6\\], anno, span_b: `, 'u'),
	);
});
