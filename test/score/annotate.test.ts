import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Annotation, ScoredSummary } from '../../source/domain.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import {
	batchMaxTokens,
	modelAnnotation,
	nextAnnotationId,
	nextSummaryId,
	readAnswer,
	sentencesOf,
	unitsFor,
	V1_MAX_TOKENS,
} from '../../source/score/annotate.ts';
import {
	bookKeys,
	planSummary,
	scoreSession,
	sessionAnnotator,
	verdictsFor,
} from '../../source/score/session-score.ts';
import { splitSentences } from '../../source/text/sentences.ts';

const templates = await loadTemplates();

// Braces in a summary must reach the prompt verbatim; the repeated sentence must be two units.
const TEXT =
	'Mr. Darcy arrives at Netherfield with {his} friend. He leaves. Elizabeth reads a letter {}. He leaves. Mrs. Bennet is delighted.';
const SUMMARY: ScoredSummary = {
	id: 's3',
	book: 'Pride',
	text: TEXT,
	node: null,
	version: null,
	source: 'test',
};

test('v1: one unit per sentence of the shared split, repeated sentences included, each prompt holding its sentence', () => {
	const sentences = splitSentences(TEXT);
	const units = unitsFor(
		SUMMARY,
		sentences.map((_, i) => i),
		templates,
	);
	assert.equal(units.length, sentences.length);
	assert.equal(sentences.filter((s) => s === 'He leaves.').length, 2, 'the fixture repeats a sentence');
	assert.equal(new Set(units.map((u) => u.id)).size, units.length, 'unit ids are distinct');
	units.forEach((u, i) => {
		assert.equal(u.template, 'get_annotations');
		assert.equal(u.summary, 's3');
		assert.deepEqual(
			u.sentences.map((s) => s.index),
			[i],
		);
		assert.equal(u.sentences[0]!.text, sentences[i]);
		assert.equal(TEXT.slice(u.sentences[0]!.span.start, u.sentences[0]!.span.end), sentences[i]);
		assert.equal(u.maxTokens, V1_MAX_TOKENS);
		assert.ok(u.prompt.includes(`[Your sentence]\n\n${sentences[i]}\n`), `unit ${i} asks about its sentence`);
	});
});

test('the cacheable prefix is the same for every sentence of a summary, holds the summary, and the rest does not', () => {
	for (const batch of [null, 2] as const) {
		const units = unitsFor(SUMMARY, [0, 1, 2, 3, 4], templates, batch);
		const prefix = units[0]!.prefix;
		for (const u of units) {
			assert.equal(u.prefix, prefix, 'one prefix per summary');
			assert.ok(u.prompt.startsWith(u.prefix));
			assert.ok(u.prefix.includes(TEXT), 'the summary is inside the prefix');
			const rest = u.prompt.slice(u.prefix.length);
			assert.ok(!rest.includes(TEXT), 'the summary is not after the prefix');
			assert.ok(
				rest.startsWith(batch === null ? u.sentences[0]!.text : `1. ${u.sentences[0]!.text}`),
				'what follows starts with the sentence slot',
			);
		}
		// Instructions and examples come first, so two summaries share the start of their prefixes.
		const other = unitsFor({ id: 's4', text: 'A ship sails. It sinks.' }, [0], templates, batch)[0]!;
		assert.notEqual(other.prefix, prefix);
		assert.ok(
			other.prefix.startsWith(
				templates[batch === null ? 'get_annotations' : 'get_annotations_v2'].slice(0, 200),
			),
		);
	}
});

test('v2 batches: N numbered sentences a call, numbered from 1 in each batch, only the sentences asked for', () => {
	const units = unitsFor(SUMMARY, [4, 0, 1, 3], templates, 3);
	assert.deepEqual(
		units.map((u) => u.sentences.map((s) => s.index)),
		[[0, 1, 3], [4]],
	);
	assert.deepEqual(
		units.map((u) => u.id),
		['s3:0,1,3', 's3:4'],
	);
	const sentences = sentencesOf({ text: TEXT });
	for (const u of units) {
		assert.equal(u.template, 'get_annotations_v2');
		assert.equal(u.maxTokens, batchMaxTokens(u.sentences.length));
		const list = u.sentences.map((s, i) => `${i + 1}. ${sentences[s.index]!.text}`).join('\n');
		assert.ok(u.prompt.includes(`[Your sentences]\n${list}\n\n\n[Your responses]`), u.id);
	}
	assert.ok(batchMaxTokens(10) > batchMaxTokens(3));
	assert.throws(() => unitsFor(SUMMARY, [0], templates, 0), /batch size/);
	assert.throws(() => unitsFor(SUMMARY, [99], templates), /no sentence 99/);
});

test('answers: v1 read strictly; v2 matched by position, a wrong count failing every sentence, a bad item failing alone', () => {
	const [v1] = unitsFor(SUMMARY, [0], templates);
	assert.deepEqual(readAnswer(v1!, 'Questions: no confusion\nTypes: no confusion'), [
		{ ok: true, confusing: false, questions: '', types: [] },
	]);
	const confusing = readAnswer(v1!, 'Questions: Who is Darcy?\nTypes: entity omission, salience')[0]!;
	assert.ok(confusing.ok && confusing.confusing);
	assert.deepEqual(confusing.ok && confusing.types, ['entity omission', 'salience']);
	assert.equal(readAnswer(v1!, 'I think it is fine.')[0]!.ok, false);
	assert.equal(readAnswer(v1!, 'Questions: Why?\nTypes: plot hole')[0]!.ok, false);

	const [v2] = unitsFor(SUMMARY, [0, 1, 2], templates, 3);
	const item = (n: number, q: string | null, t: string | null) => ({
		sentence_num: n,
		sentence: 'x',
		questions: q,
		types: t,
	});
	const good = readAnswer(
		v2!,
		JSON.stringify([item(1, null, null), item(2, 'Who?', 'entity omission'), item(3, null, null)]),
	);
	assert.deepEqual(
		good.map((a) => a.ok && a.confusing),
		[false, true, false],
	);
	const short = readAnswer(v2!, JSON.stringify([item(1, null, null), item(2, null, null)]));
	assert.equal(short.length, 3);
	for (const a of short) assert.ok(!a.ok && /expected 3 answers/.test(a.reason));
	const oneBad = readAnswer(
		v2!,
		`Here you go:\n${JSON.stringify([item(1, null, null), item(2, 'Who?', 'bad type'), item(3, null, null)])}`,
	);
	assert.deepEqual(
		oneBad.map((a) => a.ok),
		[true, false, true],
	);
	assert.ok(readAnswer(v2!, 'no list at all').every((a) => !a.ok));
});

test('an annotation record per sentence: the sentence span, a failure kept with its raw answer and no verdict', () => {
	const sentence = sentencesOf({ text: TEXT })[2]!;
	const base = {
		id: 'a7' as const,
		summary: 's3' as const,
		sentence,
		annotator: 'openai/gpt-4o',
		createdAt: '2024-05-01T10:00:00.000Z',
	};
	const ok = modelAnnotation({
		...base,
		answer: { ok: true, confusing: true, questions: 'Which letter?', types: ['event omission'] },
		raw: 'Questions: Which letter?\nTypes: event omission',
	});
	assert.deepEqual(ok, {
		id: 'a7',
		summary: 's3',
		sentence: 2,
		spans: [sentence.span],
		confusing: true,
		questions: 'Which letter?',
		types: ['event omission'],
		source: 'model',
		annotator: 'openai/gpt-4o',
		imported: null,
		raw: 'Questions: Which letter?\nTypes: event omission',
		failure: null,
		createdAt: base.createdAt,
	});
	const failed = modelAnnotation({
		...base,
		answer: { ok: false, reason: 'no "Types:" line' },
		raw: 'garbled',
	});
	assert.equal(failed.failure, 'no "Types:" line');
	assert.equal(failed.raw, 'garbled');
	assert.equal(failed.confusing, false);
	assert.deepEqual(failed.types, []);
	assert.equal(nextAnnotationId([{ id: 'a2' }, { id: 'a10' }]), 'a11');
	assert.equal(nextAnnotationId([]), 'a0');
	assert.equal(nextSummaryId([{ id: 's0' }]), 's1');
});

// ---------------------------------------------------------------------------------------------
// A session's score from its stored annotations.

let n = 0;
function annotation(fields: Partial<Annotation> & Pick<Annotation, 'summary'>): Annotation {
	return {
		id: `a${n++}`,
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
const made = (summary: ScoredSummary['id'], sentence: number, extra: Partial<Annotation> = {}) =>
	annotation({ summary, sentence, ...extra });

test('which annotations score a summary: the named model alone; else imported ones; else a model that answered every sentence; else what is missing', () => {
	const count = sentencesOf({ text: TEXT }).length;
	const all = (annotator: string) => Array.from({ length: count }, (_, i) => made('s3', i, { annotator }));
	const partial = [made('s3', 0), made('s3', 2)];
	assert.deepEqual(
		planSummary(SUMMARY, partial, { requested: 'openai/gpt-4o', fallback: 'x/y' }).missing,
		[1, 3, 4],
	);
	assert.deepEqual(
		planSummary(SUMMARY, partial, { requested: null, fallback: 'openai/gpt-4o' }).missing,
		[1, 3, 4],
	);
	// Another model answered everything: no call needed, whatever the fallback.
	const claude = all('anthropic/claude-sonnet-4-6');
	const plan = planSummary(SUMMARY, [...partial, ...claude], { requested: null, fallback: 'openai/gpt-4o' });
	assert.deepEqual(plan, {
		summary: 's3',
		source: { kind: 'model', annotator: 'anthropic/claude-sonnet-4-6' },
		sentences: count,
		missing: [],
		unreadable: [],
	});
	// ...but a named model must answer for itself.
	assert.equal(
		planSummary(SUMMARY, claude, { requested: 'openai/gpt-4o', fallback: 'openai/gpt-4o' }).missing.length,
		count,
	);
	// Imported model annotations score as they are.
	const imported = [
		annotation({
			summary: 's3',
			sentence: 1,
			confusing: true,
			questions: 'Who?',
			types: ['entity omission'],
			imported: 'gpt4.json',
			annotator: 'GPT-4 (released)',
		}),
	];
	assert.deepEqual(planSummary(SUMMARY, imported, { requested: null, fallback: 'openai/gpt-4o' }).source, {
		kind: 'imported',
		file: 'gpt4.json',
	});
	assert.equal(sessionAnnotator([...partial, ...claude], 'z/z'), 'anthropic/claude-sonnet-4-6');
	assert.equal(sessionAnnotator([], 'z/z'), 'z/z');
	assert.equal(sessionAnnotator(imported, 'z/z'), 'z/z', 'imported annotations are no model to call');
});

test("verdicts: a model's per sentence (null where missing); imported ones mark their sentence, the rest clear", () => {
	const sentences = sentencesOf({ text: TEXT });
	const model = verdictsFor(
		SUMMARY,
		[
			made('s3', 1, { confusing: true, questions: 'Q', types: ['salience'] }),
			made('s3', 3, { failure: 'no list' }),
			made('s3', 0, { annotator: 'other/m' }),
		],
		{ kind: 'model', annotator: 'openai/gpt-4o' },
	);
	assert.equal(model.length, sentences.length);
	assert.equal(model[0], null, "another model's verdict is not this one's");
	assert.deepEqual(model[1], { ok: true, confusing: true, questions: 'Q', types: ['salience'] });
	assert.deepEqual(model[3], { ok: false, reason: 'no list' });
	// An imported span without a sentence index is placed by where it lies.
	const span = { start: sentences[2]!.span.start + 3, end: sentences[2]!.span.end };
	const imported = verdictsFor(
		SUMMARY,
		[
			annotation({
				summary: 's3',
				spans: [span],
				confusing: true,
				questions: 'Which letter?',
				types: ['event omission'],
				imported: 'f.json',
			}),
		],
		{ kind: 'imported', file: 'f.json' },
	);
	assert.deepEqual(
		imported.map((v) => v?.ok && v.confusing),
		sentences.map((_, i) => i === 2),
	);
});

test('a session score: failures left out and counted, missing sentences counted, human annotations by footnote 13 beside it', () => {
	const other: ScoredSummary = {
		id: 's5',
		book: 'Pride',
		text: 'A ship sails. It sinks. Everyone swims.',
		node: null,
		version: null,
		source: 'test',
	};
	const count = sentencesOf({ text: TEXT }).length;
	const annotations = [
		...Array.from({ length: count }, (_, i) =>
			made(
				's3',
				i,
				i === 1
					? { confusing: true, questions: 'Q', types: ['salience', 'language'] }
					: i === 2
						? { failure: 'bad' }
						: {},
			),
		),
		made('s5', 0),
		made('s5', 1, { confusing: true, questions: 'Why?', types: ['causal omission'] }),
		// One human single and one relation on s3: two confusing units.
		annotation({
			summary: 's3',
			source: 'human',
			annotator: 'ann',
			spans: [{ start: 0, end: 5 }],
			confusing: true,
			questions: 'Who?',
			types: ['entity omission'],
		}),
		annotation({
			summary: 's3',
			source: 'human',
			annotator: 'ann',
			spans: [
				{ start: 0, end: 5 },
				{ start: 60, end: 70 },
			],
			confusing: true,
			questions: 'Same?',
			types: ['inconsistency'],
		}),
	];
	const plans = [
		planSummary(SUMMARY, annotations, { requested: null, fallback: 'openai/gpt-4o' }),
		planSummary(other, annotations, { requested: null, fallback: 'openai/gpt-4o' }),
	];
	assert.deepEqual(plans[1]!.missing, [2]);
	const score = scoreSession([SUMMARY, other], annotations, plans);
	const [a, b] = score.entries;
	assert.deepEqual([a!.book, b!.book], ['Pride (s3)', 'Pride (s5)'], 'two summaries of one book keep apart');
	assert.equal(a!.score.sentences, count - 1);
	assert.equal(a!.score.confusing, 1);
	assert.equal(a!.score.failures, 1);
	assert.deepEqual(a!.failures, [{ sentence: 2, reason: 'bad' }]);
	assert.equal(b!.missing, 1);
	assert.equal(score.missing, 1);
	assert.equal(b!.score.score, 1 - 1 / 2);
	assert.equal(score.system.score, (100 * (1 - 1 / (count - 1) + 0.5)) / 2);
	assert.equal(score.system.types.salience, 1);
	assert.equal(score.system.types['causal omission'], 1);
	// Human: only s3 was read by a person; a single and a relation are two confusing sentences.
	assert.ok(score.human);
	assert.equal(score.human.scored, 1);
	assert.equal(score.human.perBook.get('Pride (s3)')!.confusing, 2);
	assert.equal(score.human.score, 100 * (1 - 2 / count));
	assert.equal(scoreSession([other], annotations, [plans[1]!]).human, null);
	assert.deepEqual(
		[
			...bookKeys([
				{ id: 's0', book: 'A' },
				{ id: 's1', book: 'B' },
			]).values(),
		],
		['A', 'B'],
	);
});
