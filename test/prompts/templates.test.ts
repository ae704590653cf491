import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../source/errors.ts';
import { loadTemplates, MAX_TEMPLATE_BYTES, SHIPPED_PROMPTS } from '../../source/prompts/load.ts';
import {
	fill,
	fillWithOffsets,
	parseTemplate,
	slotMismatch,
	TEMPLATE_SLOTS,
	TemplateError,
	templateSlots,
	type TemplateId,
} from '../../source/summarize/templates.ts';
import { unitsFor } from '../../source/score/annotate.ts';
import { prng } from '../support/prng.ts';
import { tempDir } from '../support/temp.ts';
import { SUMMARIZING_TEMPLATES } from '../support/digest-reply.ts';
import { DATA_DIR } from '../support/repo-data.ts';

const AUTHORS = join(DATA_DIR, 'prompts/');
const shipped = (id: TemplateId): string => readFileSync(join(SHIPPED_PROMPTS, `${id}.txt`), 'utf8');

test('positional {} slots are filled in order, named {name} slots by name (a name may repeat)', () => {
	assert.equal(fill('a {} b {} c', ['X', 2]), 'a X b 2 c');
	assert.equal(fill('{}{}', ['', 'y']), 'y');
	assert.equal(fill('[{summary}] ({n}) [{summary}]', { summary: 'S', n: 7 }), '[S] (7) [S]');
	assert.equal(fill('no slots', []), 'no slots');
	assert.equal(fill('no slots', {}), 'no slots');
});

test('{{ and }} are literal braces, outside and next to slots', () => {
	assert.equal(fill('{{}} {} {{{}}}', ['v', 'w']), '{} v {w}');
	assert.equal(fill('}}{{', []), '}{');
	assert.equal(fill('{{"k": "{x}"}}', { x: 'V' }), '{"k": "V"}');
});

test('values are inserted verbatim: braces, {} and {name} inside them are never read as slots', () => {
	const tricky = ['{}', '{summary}', '{{x}}', '}', '{', '{sentences}{}', '$& $1 $$'];
	for (const value of tricky) {
		assert.equal(fill('<{}>', [value]), `<${value}>`);
		assert.equal(fill('<{summary}|{sentences}>', { summary: value, sentences: '1. s' }), `<${value}|1. s>`);
		assert.equal(fill('<{summary}|{sentences}>', { summary: 'S', sentences: value }), `<S|${value}>`);
	}
	// A value that looks like a later slot does not shift the slots after it.
	assert.equal(fill('{} and {}', ['{}', 'second']), '{} and second');
});

test('the wrong values are refused: count, missing or unknown names, or the wrong form', () => {
	assert.throws(() => fill('{} {}', ['one']), /2 \{\} slots but 1 value was given/);
	assert.throws(() => fill('{}', ['one', 'two']), /1 \{\} slot but 2 values were given/);
	assert.throws(() => fill('{a} {b}', { a: 1 }), /no value for template field \{b\}/);
	assert.throws(() => fill('{a}', { a: 1, c: 2 }), /no field \{c\}/);
	assert.throws(() => fill('{a}', ['x']), /named fields but positional values/);
	assert.throws(() => fill('{}', { a: 'x' }), /\{\} slots but named values/);
	assert.throws(() => fill('text', ['x']), /0 \{\} slots but 1 value was given/);
});

/** Malformed templates and what the error must say. */
const MALFORMED: [template: string, problem: RegExp][] = [
	['a { b', /unclosed field at line 1, column 3/],
	['ends with {', /unclosed field/],
	['{abc', /unclosed field/],
	['{a{b}}', /unclosed field/],
	['a } b', /single '}' at line 1, column 3/],
	['line one\n  {}}', /single '}' at line 2, column 5/],
	['{{}', /single '}'/],
	['{} and {name}', /mixes \{\} and named fields/],
	['{name} and {}', /mixes \{\} and named fields/],
	['{0:>3}', /numbered field \{0\}.*not supported/],
	['{x:>3}', /format spec.*not supported/],
	['{:>3}', /format spec.*not supported/],
	['{x!r}', /conversion.*not supported/],
	['{0}', /numbered field/],
	['{a.b}', /invalid field "\{a\.b\}"/],
	['{a[0]}', /invalid field/],
	['{"key": 1}', /invalid field.*\{\{ or \}\} for a literal brace/],
	['{\n  "key": 1\n}', /invalid field/],
];

test('each malformed form is refused with a one-line error naming the problem', () => {
	for (const [template, problem] of MALFORMED) {
		assert.throws(
			() => parseTemplate(template),
			(error: unknown) => {
				assert.ok(error instanceof TemplateError, `${JSON.stringify(template)} throws a TemplateError`);
				assert.match(error.message, problem, JSON.stringify(template));
				assert.ok(!error.message.includes('\n'), `one line for ${JSON.stringify(template)}`);
				return true;
			},
		);
		assert.throws(() => fill(template, []), TemplateError);
	}
});

/** A random template of literal text, escaped braces and slots, with the text it should fill to. */
function randomCase(random: () => number, named: boolean) {
	const names = ['summary', 'sentences', 'x'];
	const chunks: string[] = [];
	const expected: (string | { slot: number | string })[] = [];
	let positional = 0;
	for (let k = 0; k < 12; k++) {
		const r = random();
		if (r < 0.3) {
			chunks.push(r < 0.15 ? '{{' : '}}');
			expected.push(r < 0.15 ? '{' : '}');
		} else if (r < 0.6) {
			const slot = named ? names[Math.floor(random() * names.length)]! : positional++;
			chunks.push(named ? `{${slot}}` : '{}');
			expected.push({ slot });
		} else {
			const word = ['a', ' ', '\n', 'word', '"q"', ':', '$1'][Math.floor(random() * 7)]!;
			chunks.push(word);
			expected.push(word);
		}
	}
	const value = (slot: number | string): string =>
		`<${slot}:{}{summary}{{${'}'.repeat(1 + Math.floor(random() * 2))}>`;
	const used = [...new Set(expected.flatMap((e) => (typeof e === 'string' ? [] : [e.slot])))];
	const values = named ? Object.fromEntries(used.map((s) => [s, value(s)])) : used.map(value);
	const lookup = values as Record<string | number, string>;
	return { template: chunks.join(''), values, expected, lookup };
}

test('offsets point at each value', () => {
	const random = prng(42);
	for (let trial = 0; trial < 300; trial++) {
		const named = trial % 2 === 1;
		const { template, values, expected, lookup } = randomCase(random, named);
		const { text, offsets } = fillWithOffsets(template, values);
		const reference = expected.map((e) => (typeof e === 'string' ? e : lookup[e.slot])).join('');
		assert.equal(text, reference, JSON.stringify(template));
		const firstAt = new Map<number | string, number>();
		let at = 0;
		for (const e of expected) {
			if (typeof e !== 'string' && !firstAt.has(e.slot)) firstAt.set(e.slot, at);
			at += (typeof e === 'string' ? e : lookup[e.slot]!).length;
		}
		for (const [slot, where] of firstAt) {
			const offset = (offsets as Record<string | number, number>)[slot]!;
			assert.equal(offset, where, `${JSON.stringify(template)} slot ${slot}`);
			assert.ok(text.slice(offset).startsWith(lookup[slot]!));
		}
	}
});

test('the prefix before the sentence slot is the same for every sentence of a summary (cacheable)', async () => {
	const templates = await loadTemplates();
	const summary = { id: 's0' as const, text: 'Ann sails. She {} returns.' };
	const [first, second] = unitsFor(summary, [0, 1], templates);
	assert.equal(second!.prefix, first!.prefix);
	assert.ok(first!.prefix.includes(`\n${summary.text}\n`));
	assert.ok(fill(shipped('get_annotations'), [summary.text, 'She {} returns.']).startsWith(first!.prefix));
	assert.ok(first!.prefix.endsWith('[Your sentence]\n\n'), 'the prefix stops where the sentence goes');
	const [v2] = unitsFor(summary, [0], templates, 1);
	const [other] = unitsFor(summary, [1], templates, 1);
	assert.equal(other!.prefix, v2!.prefix);
	assert.ok(v2!.prefix.endsWith('[Your sentences]\n'));
});

test('the seven summarizing templates fill exactly as the plain split on {} did before', () => {
	const random = prng(7);
	const legacy = (template: string, values: (string | number)[]): string => {
		const parts = template.split('{}');
		return parts.slice(1).reduce((out, part, i) => out + String(values[i]) + part, parts[0]!);
	};
	for (const id of SUMMARIZING_TEMPLATES) {
		const template = shipped(id);
		assert.equal(templateSlots(template), TEMPLATE_SLOTS[id], id);
		for (let trial = 0; trial < 5; trial++) {
			const values = Array.from({ length: TEMPLATE_SLOTS[id] as number }, (_, i) =>
				random() < 0.5 ? Math.floor(random() * 900) : `v${i} {} {{x}} {summary} }`,
			);
			assert.equal(fill(template, values), legacy(template, values), id);
		}
	}
});

test("the authors' annotation prompts ship byte-for-byte and have the expected slots", async () => {
	for (const id of ['get_annotations', 'get_annotations_v2'] as const) {
		assert.equal(
			await readFile(join(SHIPPED_PROMPTS, `${id}.txt`), 'utf8'),
			await readFile(join(AUTHORS, `${id}.txt`), 'utf8'),
			id,
		);
	}
	const templates = await loadTemplates();
	assert.deepEqual(Object.keys(templates).sort(), Object.keys(TEMPLATE_SLOTS).sort());
	// The nine of the authors' method, the faithfulness judge's two (ours, issues 14 and 27), the memory
	// probes' four (issues 28 and 37: question, floor, scene, distortion) and the comparison judge's one (issue 39).
	assert.equal(Object.keys(templates).length, 16);
	assert.deepEqual(templateSlots(templates['faithfulness-claims']), ['summary', 'sentence']);
	assert.deepEqual(templateSlots(templates['faithfulness-judge']), ['sentence', 'claim', 'evidence']);
	assert.equal(templateSlots(templates.get_annotations), 2);
	assert.deepEqual(templateSlots(templates.get_annotations_v2), ['summary', 'sentences']);
	for (const id of Object.keys(TEMPLATE_SLOTS) as TemplateId[])
		assert.equal(slotMismatch(templates[id], TEMPLATE_SLOTS[id]), null, id);
	assert.match(
		slotMismatch('{a}', ['a', 'b'])!,
		/has named fields \{a\} but needs named fields \{a\}, \{b\}/,
	);
	assert.match(slotMismatch('{}', 2)!, /has 1 \{\} slot but needs 2/);
});

test('filling v2 yields its JSON examples with single braces, plus our summary and numbered sentences', async () => {
	const { get_annotations_v2: v2 } = await loadTemplates();
	const summary = 'Mara leaves {home}. Then {} she returns.';
	const sentences = ['Mara leaves {home}.', 'Then {} she returns.']
		.map((s, i) => `${i + 1}. ${s}`)
		.join('\n');
	const { text, offsets } = fillWithOffsets(v2, { summary, sentences });
	assert.ok(!text.includes('{{') && !text.includes('}}'), 'every doubled brace of the template became one');
	assert.ok(text.slice(offsets.summary!).startsWith(`${summary}\n`));
	assert.ok(text.slice(offsets.sentences!).startsWith(`${sentences}\n`));
	assert.ok(offsets.summary! < offsets.sentences!);
	const examples = [
		...text.matchAll(
			/\[Example sentences(?: \d+)?\]\n([\s\S]*?)\n\n\[Example responses \d+\]\n(\[[\s\S]*?\n\])/gu,
		),
	];
	assert.equal(examples.length, 2);
	for (const [, listed, json] of examples) {
		const items = JSON.parse(json!) as {
			sentence_num: number;
			sentence: string;
			questions: string | null;
			types: string | null;
		}[];
		const numbered = listed!.split('\n').map((line) => /^(\d+)\. (.*)$/u.exec(line)!);
		assert.equal(items.length, numbered.length);
		items.forEach((item, i) => {
			assert.equal(item.sentence_num, i + 1);
			// One of the authors' examples quotes a title with "..." in the list and '...' in the JSON.
			assert.equal(item.sentence.replaceAll("'", '"'), numbered[i]![2]!.replaceAll("'", '"'));
			assert.equal(item.questions === null, item.types === null);
		});
	}
});

test('--prompts DIR overrides by file name, falls back to the shipped ones, and refuses bad templates before any call', async (t) => {
	const dir = tempDir('prompts', t);
	await writeFile(join(dir, 'clean.txt'), 'Tidy this {{please}}:\n{}\n');
	await writeFile(join(dir, 'get_annotations_v2.txt'), '{summary}\n---\n{sentences}\n{{"ok": true}}');
	const templates = await loadTemplates(dir);
	assert.equal(fill(templates.clean, ['S']), 'Tidy this {please}:\nS\n');
	assert.equal(
		fill(templates.get_annotations_v2, { summary: 'A', sentences: '1. B' }),
		'A\n---\n1. B\n{"ok": true}',
	);
	assert.equal(templates['hier-init'], shipped('hier-init'));
	assert.equal(templates.get_annotations, shipped('get_annotations'));

	const refuses = async (file: string, body: string, problem: RegExp): Promise<void> => {
		await writeFile(join(dir, file), body);
		await assert.rejects(loadTemplates(dir), (error: unknown) => {
			assert.ok(error instanceof UserError);
			assert.equal(error.exitCode, 2);
			assert.ok(error.message.startsWith(join(dir, file)), error.message);
			assert.match(error.message, problem);
			assert.match(error.message, /delete it to use the shipped one/);
			assert.ok(!error.message.includes('\n'), error.message);
			return true;
		});
		await rm(join(dir, file));
	};
	await refuses(
		'get_annotations_v2.txt',
		'{summary}\n{sentences}\n[{"a": 1}]',
		/"get_annotations_v2" is malformed: invalid field "\{\\"a\\": 1\}" at line 3, column 2/,
	);
	await refuses(
		'get_annotations_v2.txt',
		'only {summary}',
		/has named fields \{summary\} but needs named fields \{summary\}, \{sentences\}/,
	);
	await refuses(
		'get_annotations.txt',
		'{summary} {sentence}',
		/"get_annotations" has named fields .* but needs 2 \{\} slots/,
	);
	await refuses('get_annotations.txt', 'just {} one', /has 1 \{\} slot but needs 2/);
	await refuses('inc-update.txt', '{} {} {} {:d}', /malformed: format spec/);
	await refuses('hier-init.txt', '{} words {}}', /malformed: single '\}'/);
	await assert.rejects(loadTemplates(join(dir, 'nope')), /no such directory/);
});

test('a template too large to be a prompt is refused before it is read, with a one-line error', async (t) => {
	const dir = tempDir('prompts', t);
	// Well formed, so only its size can be the problem: the shipped one with 1 MB more instructions.
	const huge = `${shipped('hier-init')}\n${'Be brief. '.repeat(100_000)}`;
	await writeFile(join(dir, 'hier-init.txt'), huge);
	await assert.rejects(loadTemplates(dir), (error: unknown) => {
		assert.ok(error instanceof UserError);
		assert.equal(error.exitCode, 2);
		assert.ok(error.message.startsWith(join(dir, 'hier-init.txt')), error.message);
		assert.match(error.message, /template "hier-init" is larger than 256 KB/);
		assert.match(error.message, /delete it to use the shipped one/);
		assert.ok(!error.message.includes('\n'), error.message);
		return true;
	});
	// Just under the limit is still a template.
	await writeFile(join(dir, 'hier-init.txt'), huge.slice(0, MAX_TEMPLATE_BYTES));
	assert.equal((await loadTemplates(dir))['hier-init'], huge.slice(0, MAX_TEMPLATE_BYTES));
});
