import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRITERIA, type Choice, type Pair } from '../../source/score/compare.ts';
import { ComparisonStore } from '../../source/store/comparison.ts';
import { booook } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { bookFile, otherBook } from '../support/mill-book.ts';
import { tempDir } from '../support/temp.ts';

/**
 * A comparison made from a study file (`booook compare STUDY-FILE`): its summaries are the study's
 * finished cells, its name and record the study's, its pairs each of one book's two methods; and
 * the study's report (`booook report STUDY-FILE`, text and JSON) lists the comparisons over its
 * cells, and no other.
 */

const ENV = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };

/** The model judge prefers the summary shown first on every criterion. */
const FIRST = 'Overall: A\nDetail: A\nStructure: A\nLogic: A';

test("booook compare STUDY-FILE compares the study's finished cells, book by book, and booook report STUDY-FILE lists that comparison and no other", async (t) => {
	const dir = tempDir('compare-study', t);
	const sessions = join(dir, 'sessions');
	const file = join(dir, 'twomethods.json');
	await writeFile(
		file,
		JSON.stringify({
			name: 'twomethods',
			books: [await bookFile(dir), await bookFile(dir, 'harbour.txt', otherBook())],
			methods: ['hier', 'inc'],
			providers: [{ provider: 'extractive' }],
			chunkSizes: [1024],
		}),
	);
	const api = await startFakeApi({ respond: ({ prompt }) => (prompt.includes('Summary A:') ? FIRST : 'no') });
	t.after(() => api.close());
	const judging = (...sources: string[]) => [
		'compare',
		...sources,
		...['--model', 'gpt-4o-mini', '--base-url', api.openaiBaseUrl, '--json', '--sessions-dir', sessions],
	];

	// Before the study has run: one line naming the way on, and nothing made.
	const early = await booook(judging(file), { env: ENV });
	assert.equal(early.code, 2, early.stderr);
	assert.equal(early.stderr.trim().split('\n').length, 1, early.stderr);
	assert.match(
		early.stderr,
		/study "twomethods" has 0 finished cells .*; run it first with: .*study .*twomethods\.json/u,
	);
	assert.equal(existsSync(join(sessions, 'twomethods.compare')), false, 'no comparison made');

	const ran = await booook(['study', file, '--json', '--sessions-dir', sessions]);
	assert.equal(ran.code, 0, ran.stderr);
	const cells: { key: string; session: string; status: string }[] = JSON.parse(ran.stdout).cells;
	assert.equal(cells.length, 4);
	assert.ok(cells.every((c) => c.status === 'done'));

	const judged = await booook(judging(file), { env: ENV });
	assert.equal(judged.code, 0, judged.stderr);
	const definition = JSON.parse(
		await readFile(join(sessions, 'twomethods.compare', 'comparison.json'), 'utf8'),
	);
	assert.equal(definition.name, 'twomethods', 'named after the study');
	assert.equal(definition.study, 'twomethods', 'recorded as made over its cells');
	assert.deepEqual(
		definition.contenders.map((c: { session: string }) => c.session).sort(),
		cells.map((c) => c.session).sort(),
		"its summaries are the study's cells",
	);
	const byKey = new Map<string, { session: string; bookKey: string; method: string }>(
		definition.contenders.map((c: { key: string }) => [c.key, c]),
	);
	assert.equal(definition.pairs.length, 2, 'one pair per book');
	for (const p of definition.pairs as Pair[]) {
		const [x, y] = [byKey.get(p.x)!, byKey.get(p.y)!];
		assert.equal(x.bookKey, y.bookKey, 'a pair is of one book');
		assert.deepEqual([x.method, y.method], ['inc', 'hier'], "the incremental one is the pair's x");
	}

	// A person's judgments beside the model's: x on every criterion of the first pair, y on the second.
	const pairs = definition.pairs as Pair[];
	const store = await ComparisonStore.open(sessions, 'twomethods');
	const person: Choice[] = ['x', 'y'];
	for (const [i, p] of pairs.entries())
		await store.record({
			kind: 'verdict',
			at: new Date().toISOString(),
			annotator: 'ann',
			origin: 'human',
			pair: p.id,
			choices: Object.fromEntries(CRITERIA.map((c) => [c, person[i]!])),
		});
	await store.close();

	// A comparison of two of the cells named by session, not made from the study file: not the study's.
	const [book, method] = [
		(c: { key: string }) => c.key.split('/')[0],
		(c: { key: string }) => c.key.split('/')[1]!,
	];
	const inc = cells.find((c) => method(c).startsWith('inc-'))!;
	const hier = cells.find((c) => method(c).startsWith('hier-') && book(c) === book(inc))!;
	const solo = await booook([...judging(inc.session, hier.session), '--name', 'solo'], { env: ENV });
	assert.equal(solo.code, 0, solo.stderr);

	const json = await booook(['report', file, '--json', '--sessions-dir', sessions]);
	assert.equal(json.code, 0, json.stderr);
	const report = JSON.parse(json.stdout);
	assert.equal(report.name, 'twomethods');
	assert.deepEqual(
		report.comparisons.map((c: { name: string }) => c.name),
		['twomethods'],
		'the comparison over its cells, not "solo"',
	);
	const compared = report.comparisons[0];
	assert.equal(compared.study, 'twomethods');
	// By hand: the model says A on every criterion, so x where x was shown first; the person one x, one y.
	const model = pairs.map((p) => (p.first === 'x' ? 'x' : 'y'));
	for (const j of compared.judgments) {
		const at = pairs.findIndex((p) => p.id === j.pair);
		const want = j.annotator === 'ann' ? person[at] : model[at];
		assert.deepEqual(
			j.choices,
			Object.fromEntries(CRITERIA.map((c) => [c, want])),
			`${j.annotator} on ${j.pair}`,
		);
	}
	assert.equal(compared.judgments.length, 4);
	const [group] = compared.groups;
	assert.deepEqual(group.sides, ['incremental', 'hierarchical']);
	const people = group.people.criteria.overall;
	assert.deepEqual([people.judgments, people.x.count, people.y.count, people.tie.count], [2, 1, 1, 0]);
	const [judge] = group.models;
	assert.equal(judge.annotator, 'openai/gpt-4o-mini');
	const xFirst = model.filter((m) => m === 'x').length;
	assert.deepEqual([judge.criteria.logic.x.count, judge.criteria.logic.y.count], [xFirst, 2 - xFirst]);

	const text = await booook(['report', file, '--sessions-dir', sessions]);
	assert.equal(text.code, 0, text.stderr);
	const after = text.stdout.slice(text.stdout.indexOf('comparison twomethods: 2 pairs of 2 books'));
	assert.ok(after.length < text.stdout.length, `the study's report lists its comparison:\n${text.stdout}`);
	assert.match(after, /incremental\s+hierarchical\s+tie/u, 'its Table 4 after the study table');
	assert.match(after, /pairs judged on all four criteria: .*ann 2\/2/u);
	assert.doesNotMatch(text.stdout, /comparison solo/u, 'no comparison of other sessions');
	// The CSV is the study's table alone.
	const csv = await booook(['report', file, '--csv', '--sessions-dir', sessions]);
	assert.equal(csv.code, 0, csv.stderr);
	assert.doesNotMatch(csv.stdout, /comparison|overall preference/u);
});
