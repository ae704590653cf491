import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Annotation, Judgment } from '../../source/domain.ts';
import { seededRandom } from '../../source/score/bootstrap.ts';
import {
	convertHierarchicalRuns,
	convertHumanAnnotations,
	convertIncrementalRuns,
	convertModelAnnotations,
	convertPrecisionStudy,
	convertSummaries,
	type Converted,
} from '../../source/score/formats.ts';
import { judgedItems, precisionBySource } from '../../source/score/precision.ts';
import { sessionJudgedItems, validatorsOf } from '../../source/score/session-precision.ts';
import {
	collectionTitle,
	importBooookScore,
	locate,
	RELEASED,
} from '../../source/score/import-booookscore.ts';
import { sentencesOf } from '../../source/score/annotate.ts';
import type * as Released from '../support/released.ts';
import { DATA_DIR as DATA } from '../support/repo-data.ts';

const load = <T>(rel: string): T => JSON.parse(readFileSync(DATA + rel, 'utf8')) as T;
const NOW = '2024-05-01T10:00:00.000Z';

function ok<T>(result: Converted<T>): T {
	assert.ok(result.ok, result.ok ? '' : result.error);
	return result.value;
}

const textOf = (summary: string, a: Annotation) => a.spans.map((s) => summary.slice(s.start, s.end));

for (const config of ['hier', 'inc'] as const) {
	test(`model annotations of gpt4-2048-${config}: one per sentence, every released entry placed once`, () => {
		const summariesFile = `summaries/gpt4-2048-${config}-cleaned.json`;
		const annotationsFile = `annotations/gpt4-2048-${config}.json`;
		const rawSummaries = load<Released.Summaries>(summariesFile);
		const rawAnnotations = load<Released.Annotations>(annotationsFile);
		const result = importBooookScore(
			{
				summaries: {
					file: DATA + summariesFile,
					books: ok(convertSummaries(rawSummaries)),
					annotations: { file: DATA + annotationsFile, books: ok(convertModelAnnotations(rawAnnotations)) },
				},
			},
			NOW,
		);
		assert.deepEqual(result.sources, [DATA + summariesFile, DATA + annotationsFile]);
		assert.equal(result.title, `gpt4-2048-${config} (BooookScore release)`);
		assert.deepEqual(
			result.summaries.map((s) => [s.book, s.text]),
			Object.entries(rawSummaries),
		);
		for (const s of result.summaries) {
			assert.deepEqual([s.node, s.version, s.source], [null, null, `gpt4-2048-${config}-cleaned.json`]);
		}
		assert.deepEqual(result.judgments, []);

		let placed = 0;
		for (const summary of result.summaries) {
			const mine = result.annotations.filter((a) => a.summary === summary.id);
			const sentences = sentencesOf(summary).map((s) => s.text);
			assert.equal(mine.length, sentences.length, summary.book);
			mine.forEach((a, i) => {
				assert.equal(a.sentence, i);
				assert.deepEqual(textOf(summary.text, a), [sentences[i]]);
				assert.deepEqual(
					[a.source, a.annotator, a.imported, a.failure, a.createdAt],
					['model', RELEASED.model, `gpt4-2048-${config}.json`, null, NOW],
				);
				if (!a.confusing) {
					assert.deepEqual([a.raw, a.questions, a.types], [null, '', []]);
					return;
				}
				// Each released entry that marked this sentence lies (at least partly) in it and
				// brings its questions and types along.
				const entries: { sentence: string; questions: string; types: string[] }[] = JSON.parse(a.raw!);
				assert.ok(entries.length > 0);
				for (const e of entries) {
					const byFile = rawAnnotations[summary.book]![e.sentence]!;
					assert.ok(byFile, `${summary.book}: ${e.sentence} is in the released file`);
					assert.ok(a.questions.includes(byFile.questions.trim()));
					for (const t of byFile.types) assert.ok(a.types.includes(t as never));
					const words = e.sentence.split(/\s+/u).filter((w) => w.length > 3);
					assert.ok(
						words.some((w) => sentences[i]!.includes(w)),
						`${e.sentence} / ${sentences[i]}`,
					);
				}
				placed += entries.length;
			});
		}
		// Counted from the raw file: every annotated sentence of a book with a summary is placed or reported.
		const report = result.reports.find((r) => r.flag === '--annotations')!;
		const released = Object.entries(rawAnnotations)
			.filter(([book]) => book in rawSummaries)
			.reduce((n, [, v]) => n + Object.keys(v ?? {}).length, 0);
		assert.equal(placed + report.unmatched.length, released);
		assert.deepEqual(
			report.orphans,
			Object.keys(rawAnnotations).filter((b) => !(b in rawSummaries)),
		);
		assert.equal(report.annotations, result.annotations.length);
		assert.equal(report.confusing, result.annotations.filter((a) => a.confusing).length);

		// The session's annotations keep the published score (Table 2: 89.1 and 82.5).
		const perSummary = result.summaries.map((s) => {
			const mine = result.annotations.filter((a) => a.summary === s.id);
			return 1 - mine.filter((a) => a.confusing).length / mine.length;
		});
		const score = (100 * perSummary.reduce((x, y) => x + y, 0)) / perSummary.length;
		assert.ok(Math.abs(score - (config === 'hier' ? 89.1 : 82.5)) <= 1.0, String(score));
	});
}

test('model annotations: null books, the list form, missing books, unmatched sentences and orphans are handled and reported', () => {
	const summaries = new Map([
		['none.epub', 'Ann sails. She returns.'],
		['list.epub', 'Ann sails. Who is Bob? He waits.'],
		['missing.epub', 'All is well. The end.'],
	]);
	const annotations = ok(
		convertModelAnnotations({
			'none.epub': null,
			'list.epub': [
				{ span: 'Who is Bob?', questions: 'Who is Bob?', types: ['entity omission'] },
				{ span: 'He waits.', questions: 'For what?', types: ['causal omission', 'salience'] },
				{ span: 'A sentence that is nowhere.', questions: 'Where?', types: ['language'] },
			],
			'orphan.epub': { 'Lost.': { questions: 'Lost?', types: ['discontinuity'] } },
		}),
	);
	const result = importBooookScore(
		{
			summaries: { file: 's.json', books: summaries, annotations: { file: '/x/a.json', books: annotations } },
		},
		NOW,
	);
	const of = (book: string) => {
		const id = result.summaries.find((s) => s.book === book)!.id;
		return result.annotations.filter((a) => a.summary === id);
	};
	assert.deepEqual(
		of('none.epub').map((a) => a.confusing),
		[false, false],
	);
	assert.deepEqual(
		of('missing.epub').map((a) => a.confusing),
		[false, false],
	);
	const list = of('list.epub');
	assert.deepEqual(
		list.map((a) => a.confusing),
		[false, true, true],
	);
	assert.deepEqual(list[2]!.types, ['causal omission', 'salience']);
	assert.equal(list[2]!.questions, 'For what?');
	assert.deepEqual(
		JSON.parse(list[1]!.raw!).map((e: { sentence: string }) => e.sentence),
		['Who is Bob?'],
	);
	const report = result.reports.find((r) => r.flag === '--annotations')!;
	assert.deepEqual(report.unmatched, [{ book: 'list.epub', text: 'A sentence that is nowhere.' }]);
	assert.deepEqual(report.orphans, ['orphan.epub']);
	assert.deepEqual([report.annotations, report.confusing, report.file], [7, 2, 'a.json']);
	assert.deepEqual(
		result.annotations.map((a) => a.id),
		result.annotations.map((_, i) => `a${i}`),
	);

	// NLTK cut one of our sentences in two: both halves mark it, and both are its raw entries.
	const cut = importBooookScore(
		{
			summaries: {
				file: 's.json',
				books: new Map([['b.epub', 'Dr. Snow arrives late. Nobody waits.']]),
				annotations: {
					file: 'a.json',
					books: ok(
						convertModelAnnotations({
							'b.epub': {
								'Dr.': { questions: 'Who?', types: ['entity omission'] },
								'Snow arrives late.': { questions: 'Why late?', types: ['causal omission'] },
							},
						}),
					),
				},
			},
		},
		NOW,
	);
	assert.deepEqual(
		cut.annotations.map((a) => a.confusing),
		[true, false],
	);
	assert.deepEqual(
		JSON.parse(cut.annotations[0]!.raw!).map((e: { sentence: string }) => e.sentence),
		['Dr.', 'Snow arrives late.'],
	);
	assert.deepEqual(cut.annotations[0]!.types, ['entity omission', 'causal omission']);
	assert.equal(cut.annotations[0]!.questions, 'Who?\nWhy late?');
	assert.deepEqual(
		result.summaries.map((s) => s.id),
		['s0', 's1', 's2'],
	);
});

test('human annotations: one per single and per relation, spans located in the summary', () => {
	const file = 'human_annotations/summary-gpt4-4096-hier.json';
	const raw = load<Released.Human>(file);
	const result = importBooookScore(
		{ human: { file: DATA + file, books: ok(convertHumanAnnotations(raw)) } },
		NOW,
	);
	assert.equal(result.title, 'gpt4-4096-hier (BooookScore release)');
	assert.equal(result.summaries.length, Object.keys(raw).length);
	const report = result.reports[0]!;
	for (const summary of result.summaries) {
		const book = raw[summary.book]!;
		assert.equal(summary.text, book.summary);
		const mine = result.annotations.filter((a) => a.summary === summary.id);
		assert.equal(mine.length, book.singles.length + book.relations.length, summary.book);
		const expected = [
			...book.singles.map((s) => [s.span]),
			...book.relations.map((r) => [r.span_a, r.span_b]),
		];
		const sentences = sentencesOf(summary).map((s) => s.text);
		mine.forEach((a, i) => {
			assert.deepEqual(
				[a.source, a.annotator, a.confusing, a.imported],
				['human', RELEASED.human, true, 'summary-gpt4-4096-hier.json'],
			);
			if (a.spans.length === 0) return;
			assert.deepEqual(
				textOf(summary.text, a),
				expected[i]!.map((s) => s.trim()),
			);
			// The sentence is the one holding the first span's first word.
			const first = summary.text.slice(a.spans[0]!.start, a.spans[0]!.end);
			const word = /[\p{L}\p{N}]+/u.exec(first)![0];
			assert.ok(sentences[a.sentence!]!.includes(word), `${first} / ${sentences[a.sentence!]}`);
		});
	}
	const singles = Object.values(raw).reduce((n, b) => n + b.singles.length, 0);
	const relations = Object.values(raw).reduce((n, b) => n + b.relations.length, 0);
	assert.equal(result.annotations.length, singles + relations);
	// Spans not verbatim in their summary, counted from the file (the whitespace-tolerant search may
	// still place some of them, never more).
	const notVerbatim = Object.values(raw).flatMap((b) =>
		[...b.singles.map((x) => x.span), ...b.relations.flatMap((r) => [r.span_a, r.span_b])].filter(
			(t) => !b.summary.includes(t.trim()),
		),
	).length;
	assert.ok(report.unlocated.length <= notVerbatim);
	assert.equal(report.annotations, singles + relations);
	// Types as labelled, per unit, over the whole file.
	const labelled = [
		...Object.values(raw).flatMap((b) => [
			...b.singles.map((s) => s.labels),
			...b.relations.map((r) => r.shared_labels),
		]),
	];
	assert.deepEqual(
		result.annotations.map((a) => a.types),
		labelled.map((l) => [...new Set(l)]),
	);
});

test('spans are found verbatim, then across changed whitespace; a lost span is reported and its annotation kept', () => {
	const summary = 'Ann sails  to\nRome.  She meets Bob there. Bob leaves.';
	assert.deepEqual(locate(summary, 'She meets Bob'), { start: 21, end: 34 });
	const loose = locate(summary, ' sails to Rome. ');
	assert.equal(summary.slice(loose!.start, loose!.end), 'sails  to\nRome.');
	assert.equal(locate(summary, 'Carl'), null);
	assert.equal(locate(summary, '   '), null);

	const result = importBooookScore(
		{
			human: {
				file: 'h.json',
				books: new Map([
					[
						'b.epub',
						{
							summary,
							singles: [
								{
									id: 'x',
									span: 'sails to Rome.',
									questions: ' Why Rome? ',
									labels: ['causal omission', 'causal omission'],
								},
								{ id: 'y', span: 'Carl waves.', questions: 'Who is Carl?', labels: ['entity omission'] },
							],
							relations: [
								{
									ids: ['p', 'q'],
									spans: ['She meets Bob there.', 'Bob leaves.'],
									questions: 'Why?',
									same: true,
									labels: ['discontinuity'],
								},
								{
									ids: ['r', 's'],
									spans: ['Bob leaves.', 'Nobody.'],
									questions: 'Who?',
									same: false,
									labels: ['entity omission'],
								},
							],
						},
					],
				]),
			},
		},
		NOW,
	);
	const [single, lost, relation, half] = result.annotations;
	assert.deepEqual(single!.spans, [{ start: 4, end: 19 }]);
	assert.equal(single!.sentence, 0);
	assert.equal(single!.questions, 'Why Rome?');
	assert.deepEqual(single!.types, ['causal omission']);
	assert.deepEqual([lost!.spans, lost!.sentence, lost!.confusing], [[], null, true]);
	assert.equal(relation!.spans.length, 2);
	assert.equal(
		relation!.sentence,
		1,
		'a line break is whitespace, as in NLTK: "Ann sails to Rome." is sentence 0',
	);
	assert.deepEqual(JSON.parse(relation!.raw!).ids, ['p', 'q']);
	assert.deepEqual(half!.spans, [], 'a relation with one span lost keeps neither');
	assert.deepEqual(result.reports[0]!.unlocated, [
		{ book: 'b.epub', text: 'Carl waves.' },
		{ book: 'b.epub', text: 'Nobody.' },
	]);
});

test('the precision study: its summaries, an annotation per judged item, its verdict as a judgment', () => {
	const file = 'human_annotations/annotations-gpt4-4096-inc.json';
	const raw = load<Released.Study>(file);
	const result = importBooookScore(
		{ validation: { file: DATA + file, books: ok(convertPrecisionStudy(raw)) } },
		NOW,
	);
	assert.deepEqual(
		result.summaries.map((s) => [s.book, s.text]),
		Object.entries(raw).map(([b, v]) => [b, v.summary]),
	);
	const items = Object.values(raw).flatMap((b) => b.annotations);
	assert.equal(result.annotations.length, items.length);
	assert.equal(result.judgments.length, items.length);
	const verdicts: Record<string, Judgment['verdict']> = {
		Agree: 'agree',
		'Partially agree': 'partial',
		"Don't agree": 'disagree',
	};
	items.forEach((item, i) => {
		const a = result.annotations[i]!;
		const j = result.judgments[i]!;
		assert.equal(a.source, item.source);
		assert.equal(a.annotator, item.source === 'model' ? RELEASED.model : RELEASED.human);
		assert.equal(a.confusing, true);
		assert.equal(a.spans.length, 'span_a' in item.anno ? 2 : 1);
		assert.deepEqual(j, {
			annotation: a.id,
			validator: RELEASED.validator,
			verdict: verdicts[item.agreement],
			reasons: item.reasons ?? [],
			note: Array.isArray(item.explanation) ? item.explanation.join('\n') : item.explanation,
			at: NOW,
		});
	});
	for (const source of ['human', 'model'] as const) {
		assert.equal(
			result.annotations.filter((a) => a.source === source).length,
			items.filter((x) => x.source === source).length,
		);
	}
});

test('intermediate runs: the final summary is scored, the levels or steps kept beside it', () => {
	const hierRaw = load<Released.Hierarchical>('intermediate/claude-88000-hier.json');
	const hier = importBooookScore(
		{
			intermediate: {
				file: 'x/claude-88000-hier.json',
				method: 'hier',
				runs: ok(convertHierarchicalRuns(hierRaw)),
			},
		},
		NOW,
	);
	assert.deepEqual(
		hier.summaries.map((s) => [s.book, s.text, s.source]),
		Object.entries(hierRaw).map(([b, v]) => [b, v.final_summary, 'claude-88000-hier.json']),
	);
	assert.deepEqual(
		hier.runs,
		Object.entries(hierRaw).map(([book, v]) => ({
			book,
			source: 'claude-88000-hier.json',
			method: 'hier',
			levels: Object.keys(v.summaries_dict)
				.sort((a, b) => Number(a) - Number(b))
				.map((k) => v.summaries_dict[k]),
		})),
	);
	const incRaw = load<Released.Incremental>('intermediate/claude-88000-inc.json');
	const inc = importBooookScore(
		{
			intermediate: {
				file: 'claude-88000-inc.json',
				method: 'inc',
				runs: ok(convertIncrementalRuns(incRaw)),
			},
		},
		NOW,
	);
	assert.deepEqual(
		inc.summaries.map((s) => [s.book, s.text]),
		Object.entries(incRaw).map(([b, steps]) => [b, steps[steps.length - 1]]),
	);
	assert.deepEqual(
		inc.runs.map((r) => (r.method === 'inc' ? r.steps : null)),
		Object.values(incRaw),
	);
	assert.deepEqual([inc.annotations, inc.judgments], [[], []]);
	assert.equal(inc.reports[0]!.method, 'inc');
});

test('the title names the configurations of the files', () => {
	assert.equal(
		collectionTitle(['/d/summaries/gpt4-2048-hier-cleaned.json', '/d/annotations/gpt4-2048-hier.json']),
		'gpt4-2048-hier (BooookScore release)',
	);
	assert.equal(
		collectionTitle(['summary-gpt4-4096-hier.json', 'C:\\data\\annotations-gpt4-4096-inc.json']),
		'gpt4-4096-hier + gpt4-4096-inc (BooookScore release)',
	);
});

test("precision from a session's judgments equals precision from the study file, exactly", () => {
	const study = ok(convertPrecisionStudy(load('human_annotations/annotations-gpt4-4096-inc.json')));
	const session = importBooookScore({ validation: { file: 'v.json', books: study } }, NOW);
	assert.deepEqual(validatorsOf(session), [RELEASED.validator]);
	const options = () => ({ random: seededRandom(7), resamples: 500 });
	const fromSession = precisionBySource(sessionJudgedItems(session, RELEASED.validator), options());
	const fromFile = precisionBySource(judgedItems(study), options());
	assert.deepEqual(fromSession, fromFile);
	assert.ok(Math.abs(100 * fromSession.get('human')!.precision - 79.7) <= 0.1);
	assert.ok(Math.abs(100 * fromSession.get('model')!.precision - 78.2) <= 0.1);
});

test("session precision: one validator's latest verdict per annotation, confusing annotations only, clustered by summary", () => {
	const annotation = (
		id: number,
		summary: number,
		source: 'human' | 'model',
		confusing = true,
	): Annotation => ({
		id: `a${id}`,
		summary: `s${summary}`,
		sentence: 0,
		spans: [],
		confusing,
		questions: '',
		types: [],
		source,
		annotator: 'x',
		imported: null,
		raw: null,
		failure: null,
		createdAt: NOW,
	});
	const judge = (id: number, validator: string, verdict: Judgment['verdict']): Judgment => ({
		annotation: `a${id}`,
		validator,
		verdict,
		reasons: [],
		note: null,
		at: NOW,
	});
	const session = {
		summaries: [],
		annotations: [
			annotation(0, 0, 'model'),
			annotation(1, 1, 'model'),
			annotation(2, 1, 'human'),
			annotation(3, 1, 'model', false),
		],
		judgments: [
			judge(0, 'ann', 'disagree'),
			judge(1, 'bob', 'agree'),
			judge(0, 'ann', 'agree'),
			judge(2, 'ann', 'partial'),
			judge(3, 'ann', 'agree'),
		],
	};
	assert.deepEqual(validatorsOf(session), ['ann', 'bob']);
	assert.deepEqual(sessionJudgedItems(session, 'ann'), [
		{ book: 's0', source: 'model', verdict: 'agree' },
		{ book: 's1', source: 'human', verdict: 'partial' },
	]);
	assert.deepEqual(sessionJudgedItems(session, 'bob'), [{ book: 's1', source: 'model', verdict: 'agree' }]);
	assert.deepEqual(sessionJudgedItems(session, 'nobody'), []);
});
