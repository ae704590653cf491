import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { DATA_DIR as DATA } from '../support/repo-data.ts';

test('score --json reproduces Table 2 from the released GPT-4 2048 files, with the documented shape', async () => {
	for (const [config, paper, tokens] of [
		['hier', 89.1, 778.6],
		['inc', 82.5, 805.4],
	] as const) {
		const r = await booook([
			'score',
			'--summaries',
			join(DATA, `summaries/gpt4-2048-${config}-cleaned.json`),
			'--annotations',
			join(DATA, `annotations/gpt4-2048-${config}.json`),
			'--json',
		]);
		assert.equal(r.code, 0, r.stderr);
		const out = JSON.parse(r.stdout);
		assert.deepEqual(Object.keys(out), [
			'booookscore',
			'summaries',
			'sentences',
			'confusing',
			'parse_failures',
			'avg_tokens',
			'types',
			'books',
			'not_in_summary',
		]);
		assert.equal(out.not_in_summary, 0);
		assert.ok(Math.abs(out.booookscore - paper) <= 0.5, `${config}: ${out.booookscore}`);
		assert.ok(Math.abs(out.avg_tokens - tokens) / tokens <= 0.02, `${config}: ${out.avg_tokens} tokens`);
		assert.equal(out.summaries, 100);
		const books = Object.values(out.books) as number[];
		assert.ok(
			Math.abs(books.reduce((a, b) => a + b, 0) / books.length - out.booookscore) < 1e-9,
			'the system score is the mean of the books',
		);
	}
});

test('score --human and precision --json reproduce the human-annotation score and both precisions', async () => {
	const human = JSON.parse(
		(
			await booook([
				'score',
				'--human',
				join(DATA, 'human_annotations/summary-gpt4-4096-hier.json'),
				'--json',
			])
		).stdout,
	);
	assert.ok(Math.abs(human.booookscore - 89.4) <= 1.0, String(human.booookscore));
	const r = await booook([
		'precision',
		'--validation',
		join(DATA, 'human_annotations/annotations-gpt4-4096-inc.json'),
		'--json',
	]);
	assert.equal(r.code, 0, r.stderr);
	const p = JSON.parse(r.stdout);
	assert.ok(Math.abs(p.human.precision - 79.7) <= 0.1, String(p.human.precision));
	assert.ok(Math.abs(p.model.precision - 78.2) <= 0.1, String(p.model.precision));
	for (const source of [p.human, p.model]) {
		assert.ok(source.ci[0] < source.precision && source.precision < source.ci[1]);
		assert.ok(source.strict < source.precision);
		assert.equal(source.n, source.agree + source.partial + source.disagree);
	}
});

test('a bootstrap of no resamples, or a negative seed (as run and validate refuse one), is a usage error, not intervals of NaN', async () => {
	const validation = join(DATA, 'human_annotations/annotations-gpt4-4096-inc.json');
	for (const args of [
		['precision', '--validation', validation],
		['report', 'any-session'],
	]) {
		for (const [flag, value, message] of [
			['--resamples', '0', /--resamples takes a whole number from 1 up/],
			['--seed', '-5', /--seed takes a whole number from 0 up/],
		] as const) {
			const r = await booook([...args, flag, value]);
			assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
			assert.equal(r.stdout, '');
			assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
			assert.match(r.stderr, message);
		}
	}
});

test('a malformed data file is a one-line error naming the file and the first bad entry', async () => {
	const dir = tempDir('score');
	const annotations = JSON.parse(readFileSync(join(DATA, 'annotations/gpt4-2048-hier.json'), 'utf8'));
	const book = Object.keys(annotations).find(
		(b) => annotations[b] && Object.keys(annotations[b]).length > 0,
	)!;
	const sentence = Object.keys(annotations[book])[0]!;
	annotations[book][sentence].types = ['spelling'];
	const bad = join(dir, 'bad.json');
	writeFileSync(bad, JSON.stringify(annotations));
	const r = await booook([
		'score',
		'--summaries',
		join(DATA, 'summaries/gpt4-2048-hier-cleaned.json'),
		'--annotations',
		bad,
	]);
	assert.equal(r.code, 2);
	assert.equal(r.stderr.trim().split('\n').length, 1);
	assert.ok(r.stderr.includes('bad.json') && r.stderr.includes(book), r.stderr);
	assert.match(r.stderr, /spelling/);
	writeFileSync(bad, '{ not json');
	const j = await booook(['precision', '--validation', bad]);
	assert.equal(j.code, 2);
	assert.match(j.stderr, /not valid JSON/);
	// A book given where the JSON goes: the parser quotes the text near the fault, line breaks and all.
	writeFileSync(bad, 'Letter 1\n\nTo Mrs. Saville, England\n\nSt. Petersburgh, Dec. 11th, 17--\n');
	const text = await booook(['precision', '--validation', bad]);
	assert.equal(text.code, 2);
	assert.equal(text.stderr.trim().split('\n').length, 1, text.stderr);
	assert.match(text.stderr, /bad\.json: not valid JSON/);
	const none = await booook(['score', '--summaries', join(DATA, 'summaries/gpt4-2048-hier-cleaned.json')]);
	assert.equal(none.code, 2);
	assert.match(none.stderr, /--annotations/);
});

test("--batch-size is checked even when no model call is made (scoring the authors' annotations)", async () => {
	const r = await booook([
		'score',
		'--summaries',
		join(DATA, 'summaries/gpt4-2048-hier-cleaned.json'),
		'--annotations',
		join(DATA, 'annotations/gpt4-2048-hier.json'),
		'--batch-size',
		'0',
	]);
	assert.equal(r.code, 2, r.stderr);
	assert.equal(r.stdout, '');
	assert.match(r.stderr, /--batch-size 0: use a whole number from 1 to 100/u);
});
