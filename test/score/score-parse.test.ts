import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isLabel, LABELS, type Label } from '../../source/score/labels.ts';
import { parseAnswer, parseBatchAnswer, type Answer } from '../../source/score/parse.ts';
import { prng } from '../support/prng.ts';
import { DATA_DIR as DATA } from '../support/repo-data.ts';

const read = (rel: string): string => readFileSync(DATA + rel, 'utf8');

const confusing = (questions: string, types: string[]): Answer => ({
	ok: true,
	confusing: true,
	questions,
	types: types as Label[],
});
const CLEAR: Answer = { ok: true, confusing: false, questions: '', types: [] };

test('the eight labels are spelled as in the prompt and in the released annotations', () => {
	const prompt = read('prompts/get_annotations.txt');
	// The definitions list: "- Entity omission: an entity, ..."
	const defined = [...prompt.matchAll(/^- ([A-Z][a-z]+(?: [a-z]+)?): /gmu)].map((m) => m[1]!.toLowerCase());
	assert.deepEqual(defined, [...LABELS]);
	const used = new Set<string>();
	for (const config of ['hier', 'inc']) {
		const file = JSON.parse(read(`annotations/gpt4-2048-${config}.json`)) as Record<
			string,
			Record<string, { types: string[] }> | null
		>;
		for (const book of Object.values(file))
			for (const a of Object.values(book ?? {})) for (const t of a.types) used.add(t);
	}
	for (const t of used) assert.ok(isLabel(t), `released type ${t}`);
	assert.ok(used.size >= 6, 'the released files use most labels');
});

/** The prompt's few-shot examples: the [Example response] blocks of the v1 prompt. */
function fewShot(): { response: string; questions: string; types: string }[] {
	const prompt = read('prompts/get_annotations.txt');
	return [...prompt.matchAll(/\[Example response\]\n(Questions: (.*)\nTypes: (.*))\n/gu)].map((m) => ({
		response: m[1]!,
		questions: m[2]!,
		types: m[3]!,
	}));
}

test('every few-shot example of the v1 prompt parses to what it says', () => {
	const examples = fewShot();
	// The paper: "two full summaries with 42 sentence-level annotations".
	assert.equal(examples.length, 42);
	let clear = 0;
	for (const ex of examples) {
		const answer = parseAnswer(ex.response);
		if (ex.types === 'no confusion') {
			clear += 1;
			assert.deepEqual(answer, CLEAR, ex.response);
		} else {
			assert.deepEqual(answer, confusing(ex.questions, ex.types.split(', ')), ex.response);
		}
	}
	assert.ok(clear > 0 && clear < examples.length, 'both kinds of example occur');
});

test('every released v1 annotation, written back as an answer, parses to itself', () => {
	let n = 0;
	for (const config of ['hier', 'inc']) {
		const file = JSON.parse(read(`annotations/gpt4-2048-${config}.json`)) as Record<
			string,
			Record<string, { questions: string; types: string[] }> | null
		>;
		for (const book of Object.values(file)) {
			for (const a of Object.values(book ?? {})) {
				n += 1;
				assert.deepEqual(
					parseAnswer(`Questions: ${a.questions}\nTypes: ${a.types.join(', ')}`),
					confusing(a.questions, a.types),
				);
			}
		}
	}
	assert.ok(n > 900, `${n} annotations`);
});

test('v1 answers in the shapes models produce', () => {
	assert.deepEqual(
		parseAnswer('Here is my response:\n\nQuestions: Who is Rusty?\nTypes: Entity omission.\n'),
		confusing('Who is Rusty?', ['entity omission']),
	);
	assert.deepEqual(
		parseAnswer('Questions: Who is Rusty?\r\nTypes: entity omission,event omission\r\n'),
		confusing('Who is Rusty?', ['entity omission', 'event omission']),
	);
	assert.deepEqual(
		parseAnswer('Questions: Who is Rusty?\nWhy now?\nTypes: entity omission, causal omission'),
		confusing('Who is Rusty?\nWhy now?', ['entity omission', 'causal omission']),
	);
	assert.deepEqual(
		parseAnswer('Questions: Who?\nTypes: salience, salience'),
		confusing('Who?', ['salience']),
	);
	assert.deepEqual(parseAnswer('Questions: "no confusion"\nTypes: No confusion.'), CLEAR);
	assert.deepEqual(
		parseAnswer('  Questions: no confusion\n  Types: no confusion\n\nThe sentence is clear.'),
		CLEAR,
	);
});

test('malformed v1 answers fail with a reason and never throw', () => {
	const bad: [string, RegExp][] = [
		['', /no "Questions:" line/u],
		['no confusion', /no "Questions:" line/u],
		['Questions: Who is X?', /no "Types:" line/u],
		['Types: entity omission', /no "Questions:" line/u],
		['Types: entity omission\nQuestions: Who?', /before/u],
		['Questions: Who?\nTypes: plot hole', /unknown type "plot hole"/u],
		['Questions: Who?\nTypes: entity and event omission', /unknown type/u],
		['Questions: Who?\nTypes: entity omission, ', /empty entry/u],
		['Questions: Who?\nTypes:', /empty/u],
		['Questions:\nTypes: entity omission', /Questions is empty/u],
		['Questions: no confusion\nTypes: entity omission', /Questions say no confusion/u],
		['Questions: Who is Rusty?\nTypes: no confusion', /Types say no confusion/u],
		[
			'Questions: Who?\nTypes: salience\nQuestions: no confusion\nTypes: no confusion',
			/one answer has one of each/u,
		],
	];
	for (const [text, reason] of bad) {
		const answer = parseAnswer(text);
		assert.equal(answer.ok, false, text);
		if (!answer.ok) assert.match(answer.reason, reason, text);
	}
	assert.equal(parseAnswer(null as unknown as string).ok, false);
	assert.equal(parseAnswer(42 as unknown as string).ok, false);
});

test('random edits of valid answers never throw, and what parses has only known labels', () => {
	const rnd = prng(7);
	const pieces = [
		'Questions:',
		'Types:',
		'no confusion',
		'entity omission',
		',',
		'\n',
		' ',
		'Who?',
		'"',
		'.',
		'salience',
		'Language',
		'x',
	];
	const seeds = fewShot().map((e) => e.response);
	for (let i = 0; i < 3000; i++) {
		let text = seeds[Math.floor(rnd() * seeds.length)]!;
		for (let k = 0, edits = 1 + Math.floor(rnd() * 4); k < edits; k++) {
			const at = Math.floor(rnd() * (text.length + 1));
			const cut = Math.floor(rnd() * 6);
			text =
				text.slice(0, at) +
				(rnd() < 0.5 ? pieces[Math.floor(rnd() * pieces.length)] : '') +
				text.slice(at + cut);
		}
		const answer = parseAnswer(text);
		if (answer.ok) {
			for (const t of answer.types) assert.ok(isLabel(t), text);
			assert.equal(answer.confusing, answer.types.length > 0, text);
			assert.equal(answer.confusing, answer.questions !== '', text);
		} else {
			assert.ok(answer.reason.length > 0);
		}
	}
});

/** The v2 prompt's example list, as a model would write it (the template doubles its braces). */
function v2Example(): { text: string; items: { questions: string | null; types: string | null }[] } {
	const prompt = read('prompts/get_annotations_v2.txt');
	const block = /\[Example responses 2\]\n(\[[\s\S]*?\n\])/u.exec(prompt);
	assert.ok(block, 'the v2 prompt has an example response list');
	const text = block[1]!.replaceAll('{{', '{').replaceAll('}}', '}');
	return { text, items: JSON.parse(text) as { questions: string | null; types: string | null }[] };
}

test("the v2 prompt's example list parses by position", () => {
	const { text, items } = v2Example();
	const batch = parseBatchAnswer(`Sure, here you go:\n\`\`\`json\n${text}\n\`\`\``, items.length);
	assert.ok(batch.ok, batch.ok ? '' : batch.reason);
	assert.equal(batch.answers.length, items.length);
	batch.answers.forEach((answer, i) => {
		const item = items[i]!;
		if (item.questions === null) assert.deepEqual(answer, CLEAR);
		else assert.deepEqual(answer, confusing(item.questions, item.types!.split(', ')));
	});
});

test('a v2 answer that cannot be matched to the sentences fails as a whole', () => {
	const { text, items } = v2Example();
	const wrongCount = parseBatchAnswer(text, items.length + 1);
	assert.equal(wrongCount.ok, false);
	if (!wrongCount.ok)
		assert.match(
			wrongCount.reason,
			new RegExp(`expected ${items.length + 1} answers.*got ${items.length}`, 'u'),
		);

	const list = JSON.parse(text) as Record<string, unknown>[];
	const swapped = [list[1], list[0], ...list.slice(2)];
	const misnumbered = parseBatchAnswer(JSON.stringify(swapped), list.length);
	assert.equal(misnumbered.ok, false);
	if (!misnumbered.ok) assert.match(misnumbered.reason, /answer 1 is numbered 2/u);

	for (const [answer, reason] of [
		['I cannot help with that.', /no JSON list/u],
		['[{"questions": null,}]', /not valid JSON/u],
		['{"answer": "no confusion"}', /no JSON list/u],
		[
			'[{"questions": null, "types": null}, {"questions": null, "types": null}]',
			/expected 1 answer, one per sentence, got 2/u,
		],
	] as const) {
		const batch = parseBatchAnswer(answer, 1);
		assert.equal(batch.ok, false, answer);
		if (!batch.ok) assert.match(batch.reason, reason, answer);
	}
});

test('a bad item in a v2 answer fails alone; the others keep their verdicts', () => {
	const answer = JSON.stringify([
		{ sentence_num: 1, questions: null, types: null },
		{ sentence_num: 2, questions: 'Who is Bag Man?', types: 'entity omission, plot hole' },
		{ sentence_num: 3, questions: 'Who is Bag Man?', types: null },
		{ sentence_num: 4, questions: null, types: 'salience' },
		{ sentence_num: 5, questions: 'Why?', types: ['causal omission'] },
		'no confusion',
		{ questions: '', types: '' },
	]);
	const batch = parseBatchAnswer(answer, 7);
	assert.ok(batch.ok);
	const [a1, a2, a3, a4, a5, a6, a7] = batch.answers;
	assert.deepEqual(a1, CLEAR);
	assert.ok(!a2!.ok && /answer 2: unknown type "plot hole"/u.test(a2!.reason));
	assert.ok(!a3!.ok && /answer 3: questions without types/u.test(a3!.reason));
	assert.ok(!a4!.ok && /answer 4: types without questions/u.test(a4!.reason));
	assert.deepEqual(a5, confusing('Why?', ['causal omission']));
	assert.ok(!a6!.ok && /answer 6 is not an object/u.test(a6!.reason));
	assert.deepEqual(a7, CLEAR);
});
