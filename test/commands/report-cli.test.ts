import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook, importedStudy } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { VALIDATION_STUDY } from '../support/repo-data.ts';

const STUDY = VALIDATION_STUDY;

test('report --json on the imported validation study: the released verdicts are one validator with 79.7% / 78.2%', async () => {
	const dir = tempDir('report');
	await importedStudy(dir);
	const r = await booook(['report', 'study', '--sessions-dir', dir, '--json']);
	assert.equal(r.code, 0, r.stderr);
	const report = JSON.parse(r.stdout);
	const validators = Object.keys(report.precision);
	assert.equal(validators.length, 1);
	const p = report.precision[validators[0]!];
	assert.ok(Math.abs(p.human.precision - 79.7) <= 0.1, String(p.human.precision));
	assert.ok(Math.abs(p.model.precision - 78.2) <= 0.1, String(p.model.precision));
	// Counted from the raw file, independently of the importer.
	const raw = JSON.parse(readFileSync(STUDY, 'utf8')) as Record<
		string,
		{ annotations: { source: string }[] }
	>;
	const count = (source: string) =>
		Object.values(raw).reduce((s, b) => s + b.annotations.filter((a) => a.source === source).length, 0);
	assert.equal(p.human.n, count('human'));
	assert.equal(p.model.n, count('model'));
	assert.equal(Object.keys(report.books).length, Object.keys(raw).length);
	const text = await booook(['report', 'study', '--sessions-dir', dir]);
	assert.match(text.stdout, /precision, judged by/);
	assert.match(text.stdout, /entity omission +model +█/);
});

test('report of a session that does not exist is a one-line error', async () => {
	const r = await booook(['report', 'nope', '--sessions-dir', tempDir('report')]);
	assert.equal(r.code, 2);
	assert.match(r.stderr, /no session "nope"/);
});

test('export writes the verdicts in the released shape (which precision reads back identically) and as CSV', async () => {
	const dir = tempDir('export');
	assert.equal(
		(
			await booook([
				'import',
				'booookscore',
				'--validation',
				STUDY,
				'--session',
				'study',
				'--sessions-dir',
				dir,
			])
		).code,
		0,
	);
	const out = join(dir, 'verdicts.json');
	const exported = await booook([
		'export',
		'study',
		'--format',
		'validation',
		'--out',
		out,
		'--sessions-dir',
		dir,
	]);
	assert.equal(exported.code, 0, exported.stderr);
	const again = await booook(['precision', '--validation', out, '--json']);
	const original = await booook(['precision', '--validation', STUDY, '--json']);
	assert.equal(again.code, 0, again.stderr);
	const strip = (s: string) =>
		JSON.parse(s) as Record<string, { precision: number; strict: number; n: number }>;
	for (const source of ['human', 'model']) {
		const [a, b] = [strip(again.stdout)[source]!, strip(original.stdout)[source]!];
		assert.deepEqual([a.precision, a.strict, a.n], [b.precision, b.strict, b.n], source);
	}
	const csv = await booook(['export', 'study', '--format', 'csv', '--sessions-dir', dir]);
	assert.equal(csv.code, 0, csv.stderr);
	const lines = csv.stdout.trimEnd().split('\r\n');
	assert.equal(
		lines[0],
		'book,annotation,source,annotator,span,span_b,questions,types,validator,verdict,reasons,note,at',
	);
	const raw = JSON.parse(readFileSync(STUDY, 'utf8')) as Record<string, { annotations: unknown[] }>;
	const rows = csv.stdout.match(/,(agree|partial|disagree),/g)!.length;
	assert.equal(
		rows,
		Object.values(raw).reduce((s, b) => s + b.annotations.length, 0),
	);
	const none = await booook([
		'export',
		'study',
		'--format',
		'csv',
		'--validator',
		'nobody',
		'--sessions-dir',
		dir,
	]);
	assert.equal(none.code, 2);
	assert.match(none.stderr, /no verdicts by that name/);
});
