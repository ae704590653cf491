import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Annotation, Judgment, ScoredSummary } from '../../source/domain.ts';
import { agreementOf, buildReport, reportLines } from '../../source/score/report.ts';
import { sentenceSpans } from '../../source/text/sentences.ts';

/** The commands the report suggests, as booook on the PATH names them for no session in particular. */
const anySession = (verb: string) => `booook ${verb} ID`;

const at = '2026-01-01T00:00:00.000Z';
const texts = ['Ann sails. Bob waits. The war ends.', 'Cy runs. Di hides. Ed laughs. Fay sings.'];
const summaries: ScoredSummary[] = texts.map((text, i) => ({
	id: `s${i}`,
	book: `b${i}.epub`,
	text,
	node: null,
	version: null,
	source: 'run',
}));
let n = 0;
function model(summary: number, sentence: number, confusing: boolean): Annotation {
	const span = sentenceSpans(texts[summary]!)[sentence]!;
	return {
		id: `a${n++}`,
		summary: `s${summary}`,
		sentence,
		spans: [span],
		confusing,
		questions: confusing ? 'Who?' : '',
		types: confusing ? ['entity omission'] : [],
		source: 'model',
		annotator: 'openai/m',
		imported: null,
		raw: 'x',
		failure: null,
		createdAt: at,
	};
}
function human(summary: number, sentence: number): Annotation {
	const span = sentenceSpans(texts[summary]!)[sentence]!;
	return {
		id: `a${n++}`,
		summary: `s${summary}`,
		sentence,
		spans: [span],
		confusing: true,
		questions: 'Why?',
		types: ['causal omission'],
		source: 'human',
		annotator: 'pat',
		imported: null,
		raw: null,
		failure: null,
		createdAt: at,
	};
}
const annotations = [
	model(0, 0, true),
	model(0, 1, false),
	model(0, 2, false),
	model(1, 0, true),
	model(1, 1, true),
	model(1, 2, false),
	model(1, 3, false),
	human(1, 2),
];
const j = (a: Annotation, validator: string, verdict: Judgment['verdict']): Judgment => ({
	annotation: a.id,
	validator,
	verdict,
	reasons: [],
	note: null,
	at,
});

test('the report matches a hand computation', () => {
	const [m0, , , m3, m4, , , h7] = annotations;
	const judgments = [
		j(m0!, 'ann', 'agree'),
		j(m3!, 'ann', 'partial'),
		j(m4!, 'ann', 'disagree'),
		j(h7!, 'ann', 'agree'),
		j(m0!, 'bob', 'agree'),
		j(m3!, 'bob', 'disagree'),
	];
	const report = buildReport({ summaries, annotations, judgments }, { seed: 1, resamples: 200 });
	// Model: 1 of 3 and 2 of 4 sentences confusing -> (2/3 + 2/4) / 2.
	assert.ok(Math.abs(report.model!.booookscore! - (100 * (2 / 3 + 2 / 4)) / 2) < 1e-9);
	// Human: only the second summary was read by a person: 1 unit over 4 sentences.
	assert.equal(report.human!.booookscore, 75);
	assert.equal(report.human!.summaries, 1);
	const ann = report.precision.get('ann')!;
	assert.deepEqual(
		[ann.get('model')!.judged, ann.get('model')!.precision, ann.get('model')!.strict],
		[3, 2 / 3, 1 / 3],
	);
	assert.deepEqual([ann.get('human')!.judged, ann.get('human')!.precision], [1, 1]);
	assert.deepEqual(
		report.books.map((b) => [b.book, b.sentences, b.model?.confusing, b.human?.confusing ?? null, b.judged]),
		[
			['b0.epub', 3, 1, null, 2],
			['b1.epub', 4, 2, 1, 4],
		],
	);
	assert.deepEqual(
		report.agreement.pairs.map((p) => [p.validators, p.n, p.percent]),
		[[['ann', 'bob'], 2, 0.5]],
	);
	// Entity omission: 3 model units over 7 sentences, per 100.
	assert.ok(Math.abs(report.model!.types['entity omission'] - 300 / 7) < 1e-9);
});

test("agreement: Cohen's kappa for each pair and Krippendorff's alpha over everyone", () => {
	const items = annotations.slice(0, 6);
	const verdicts = (pattern: string) =>
		pattern.split('').map((c) => ({ a: 'agree', p: 'partial', d: 'disagree' })[c] as Judgment['verdict']);
	const three = [
		...verdicts('aadpad').map((v, i) => j(items[i]!, 'x', v)),
		...verdicts('aadpad').map((v, i) => j(items[i]!, 'y', v)),
		...verdicts('adapad').map((v, i) => j(items[i]!, 'z', v)),
	];
	const result = agreementOf(three);
	assert.equal(result.pairs.length, 3);
	const xy = result.pairs.find((p) => p.validators.join() === 'x,y')!;
	assert.equal(xy.percent, 1);
	assert.equal(xy.kappa, 1);
	const xz = result.pairs.find((p) => p.validators.join() === 'x,z')!;
	assert.equal(xz.percent, 4 / 6);
	assert.ok(result.alpha! < 1 && result.alpha! > 0);
	assert.equal(result.units, 6);
	// Someone re-judging keeps only the latest verdict.
	assert.equal(
		agreementOf([...three, j(items[1]!, 'z', 'agree'), j(items[2]!, 'z', 'disagree')]).pairs.find(
			(p) => p.validators.join() === 'x,z',
		)!.percent,
		1,
	);
});

test('a run has one BooookScore: that of its final summary as it stands; earlier versions are history', () => {
	// The run's final node n9 had version 0 (scored: 1 of 3 confusing), then an edit made version 1.
	const pinned: ScoredSummary[] = [
		{ id: 's0', book: 'b.epub', text: texts[0]!, node: 'n9', version: 0, source: 'run' },
		{ id: 's1', book: 'b.epub', text: texts[1]!, node: 'n9', version: 1, source: 'run' },
	];
	const run = { root: 'n9', nodes: [{ id: 'n9', active: 1 }] } as unknown as Parameters<
		typeof buildReport
	>[0]['run'];
	const report = buildReport(
		{ summaries: pinned, annotations: annotations.filter((a) => a.source === 'model'), judgments: [], run },
		{ seed: 1, resamples: 10 },
	);
	// Only s1 (2 of 4 confusing) counts: 50, not the mean of the two versions.
	assert.equal(report.model!.booookscore, 50);
	assert.equal(report.model!.summaries, 1);
	assert.equal(report.history, 1);
	assert.deepEqual(
		report.books.map((b) => b.summary),
		['s1'],
	);
});

test('per book, judged counts faithfulness verdicts too, and the text report names the answers it could not read', () => {
	const unreadable: Annotation = {
		...model(1, 3, false),
		raw: 'Sure! Here is my answer',
		failure: 'no "Questions:" line',
	};
	const verdict = (summary: string, sentence: number, validator: string) => ({
		summary: summary as ScoredSummary['id'],
		sentence,
		label: 'faithful' as const,
		note: null,
		validator,
		origin: 'human' as const,
		at,
	});
	const [m0] = annotations;
	const report = buildReport(
		{
			summaries,
			annotations: [...annotations.slice(0, 6), unreadable],
			judgments: [j(m0!, 'ann', 'agree')],
			faithfulness: [verdict('s0', 0, 'ann'), verdict('s0', 1, 'ann'), verdict('s1', 2, 'bob')],
		},
		{ seed: 1, resamples: 50 },
	);
	assert.deepEqual(
		report.books.map((b) => [b.book, b.judged, b.judgedAnnotations, b.judgedFaithfulness]),
		[
			['b0.epub', 3, 1, 2],
			['b1.epub', 1, 0, 1],
		],
	);
	assert.deepEqual(report.books[1]!.unreadable, [{ sentence: 3, reason: 'no "Questions:" line' }]);
	const lines = reportLines('t', report, 80, anySession);
	const at4 = lines.findIndex((l) => l.startsWith('unreadable answers: 1 sentence left out of the score'));
	assert.ok(at4 > 0, lines.join('\n'));
	assert.equal(lines[at4 + 1], '  b1.epub, sentence 4: no "Questions:" line');
	assert.equal(
		reportLines(
			't',
			buildReport({ summaries, annotations, judgments: [] }, { seed: 1, resamples: 50 }),
			80,
			anySession,
		).some((l) => l.startsWith('unreadable')),
		false,
	);
});
