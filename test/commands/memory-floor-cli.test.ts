import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MemoryQuestion } from '../../source/domain.ts';
import { Session, type BookSessionData } from '../../source/store/session.ts';
import { booook } from '../support/cli.ts';
import { digestReply } from '../support/digest-reply.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { memoryQuestion, memoryReply } from '../support/memory-reply.ts';
import { bookFile, millRunOptions, otherBook, smallBook } from '../support/mill-book.ts';
import { tempDir } from '../support/temp.ts';

/**
 * The floor and the options' giveaway through the command line: a reader that answers from the
 * options alone (always the longest) must score its floor, and what `memory`, `report` and their
 * JSON print must say so; the side-by-side table puts only like question sets together.
 */

const ENV = { OPENAI_API_KEY: 'test-key' };
const words = (text: string) => text.trim().split(/\s+/u).length;

/** The first longest option's index: what a reader that ignores the summary, and the book, picks. */
function longest(options: readonly string[]): number {
	const lengths = options.map(words);
	return lengths.indexOf(Math.max(...lengths));
}

/** The fake API: memory questions answered from the options alone, scenes and summaries as memory-reply and digest-reply write them. */
async function optionsOnlyModel(t: TestContext): Promise<FakeApi> {
	const api = await startFakeApi({
		respond: ({ prompt }) => {
			const asked = memoryQuestion(prompt);
			if (asked) return `Answer: ${longest(asked.options) + 1}`;
			return memoryReply(prompt) ?? digestReply({ prompt }) ?? 'Nothing happens.';
		},
	});
	t.after(() => api.close());
	return api;
}

interface Rate {
	n: number;
	correct: number;
	accuracy: number;
}
interface ReaderJson {
	reader: string;
	shown: string;
	overall: Rate;
	bins: Rate[];
	none: Rate;
	shortcuts: { longest: number; shortest: number; n: number };
	floor: { overall: Rate; bins: Rate[]; none: Rate } | null;
}

test('a reader answering from the options alone scores its floor in every retention bin, and memory, report and their JSON print the floor and the longest/shortest figures', async (t) => {
	const dir = tempDir('memory-floor', t);
	const books = tempDir('memory-floor-books', t);
	await bookFile(books, 'ferry.txt', otherBook());
	const book = await bookFile(dir, 'mill.txt', smallBook());
	const api = await optionsOnlyModel(t);
	const made = await booook(['run', book, ...millRunOptions(api.openaiBaseUrl, dir), '--session', 'mill'], {
		env: ENV,
	});
	assert.equal(made.code, 0, made.stderr);
	const memory = (...extra: string[]) =>
		booook(
			[
				'memory',
				'mill',
				...['--questions', '24', '--scenes', '50', '--distractors', books],
				...['--base-url', api.openaiBaseUrl, '--sessions-dir', dir],
				...extra,
			],
			{ env: ENV },
		);

	// Without the floor first: the summary's answers only.
	const without = await memory('--no-floor');
	assert.equal(without.code, 0, without.stderr);
	assert.match(without.stdout, /; floor not asked; chance/u);
	const data = async () => (await Session.snapshot(dir, 'mill')).data as BookSessionData;
	assert.equal((await data()).memoryAnswers!.filter((a) => a.shown === 'none').length, 0);
	// Then the floor: only its questions are asked, the summary's answers are kept.
	const before = api.requests.length;
	const planned = await memory('--plan');
	assert.match(
		planned.stdout,
		/^mill: 0 questions to ask of the final summary, 24 with the summary hidden \(the floor\), 0 scenes to write: 24 calls/mu,
	);
	const floored = await memory('--json');
	assert.equal(floored.code, 0, floored.stderr);
	assert.equal(api.requests.length - before, 24, 'the floor asked once per question, nothing else');
	const stored = await data();
	const floorPrompts = api.requests.slice(before).map((r) => memoryQuestion(r.prompt));
	assert.ok(
		floorPrompts.every((q) => q !== null && q.floor && q.shown === ''),
		'the floor shows no summary',
	);
	// Through the one call runner: each floor call logged with its own owner and template, and priced.
	const logged = readFileSync(join(dir, 'mill', 'calls.jsonl'), 'utf8')
		.trim()
		.split('\n')
		.map((line) => JSON.parse(line) as { node: string; params: { template: string }; cost: number })
		.filter((c) => c.params.template === 'memory-floor');
	assert.equal(logged.length, 24);
	assert.ok(
		logged.every((c) => /^memory\.q\d+\.none$/u.test(c.node) && c.cost > 0),
		JSON.stringify(logged[0]),
	);

	const [one] = JSON.parse(floored.stdout) as { readers: ReaderJson[] }[];
	const reader = one!.readers.find((r) => r.shown === 'summary')!;
	assert.equal(one!.readers.length, 1, 'the floor is beside the summary, not a reader of its own');
	const floor = reader.floor!;
	assert.equal(floor.overall.n, 24);
	// Shown the summary or not, this reader chooses alike: its floor is its accuracy, bin by bin.
	assert.deepEqual(
		floor.bins.map((b) => [b.n, b.correct]),
		reader.bins.map((b) => [b.n, b.correct]),
	);
	assert.deepEqual([floor.none.n, floor.none.correct], [reader.none.n, reader.none.correct]);
	assert.equal(floor.overall.correct, reader.overall.correct);
	// And both are what always picking the longest option scores, up to the ties the fake breaks by order.
	const questions = stored.memoryQuestions as MemoryQuestion[];
	const tied = questions.filter((q) => {
		const lengths = q.options.map((o) => words(o.text));
		return lengths.filter((l) => l === Math.max(...lengths)).length > 1;
	}).length;
	assert.equal(reader.shortcuts.n, 24);
	assert.ok(
		Math.abs(floor.overall.accuracy - reader.shortcuts.longest) <= tied / 24 + 1e-9,
		`floor ${floor.overall.accuracy}, longest ${reader.shortcuts.longest}, ${tied} ties`,
	);
	assert.ok(reader.shortcuts.shortest >= 0 && reader.shortcuts.shortest <= 1);

	// The text: the floor overall and in a column beside each bin's accuracy, and the options' figures.
	const text = await memory();
	assert.equal(text.code, 0, text.stderr);
	assert.match(
		text.stdout,
		/; floor \(the same questions, the summary hidden\) \d+\.\d% \[[\d.]+, [\d.]+\] of 24 questions; chance 16\.7%/u,
	);
	assert.match(
		text.stdout,
		/^ {2}options alone: always picking the longest option scores \d+\.\d%, the shortest \d+\.\d% \(of 24 questions\)$/mu,
	);
	assert.match(
		text.stdout,
		/^ {2}how far back the true scene lies +questions +tokens back +accuracy +floor$/mu,
	);
	const first = text.stdout.split('\n').find((l) => /^ {4}0% to 20% of the book/u.test(l))!;
	const cells = first.match(/\d+\.\d% \[[\d.]+, [\d.]+\]/gu) ?? [];
	assert.equal(cells.length, 2, first);
	assert.equal(cells[0], cells[1], 'the same answers shown the summary and not');

	const report = await booook(['report', 'mill', '--sessions-dir', dir]);
	assert.equal(report.code, 0, report.stderr);
	assert.match(
		report.stdout,
		/^ {2}openai\/gpt-4o-mini, shown the summaries: [\d.]+% \[[\d.]+, [\d.]+\] of 24 questions right; floor \(the summary hidden\) [\d.]+% \[[\d.]+, [\d.]+\] of 24 questions; chance 16\.7%\n {4}options alone: always picking the longest option scores [\d.]+%, the shortest [\d.]+% \(of 24 questions\)$/mu,
	);
	const json = await booook(['report', 'mill', '--json', '--sessions-dir', dir]);
	assert.equal(json.code, 0, json.stderr);
	const inReport = (JSON.parse(json.stdout) as { memory: { readers: ReaderJson[] } }).memory.readers[0]!;
	assert.deepEqual(inReport.floor!.overall, floor.overall);
	assert.deepEqual(inReport.shortcuts, reader.shortcuts);
});

test('side by side: final summaries of like question sets share a table; another seed is another table, and a row alone says it has nothing to compare with', async (t) => {
	const dir = tempDir('memory-like', t);
	const books = tempDir('memory-like-books', t);
	await bookFile(books, 'ferry.txt', otherBook());
	const book = await bookFile(dir, 'mill.txt', smallBook());
	const api = await optionsOnlyModel(t);
	for (const method of ['hier', 'inc'] as const) {
		const made = await booook(
			['run', book, ...millRunOptions(api.openaiBaseUrl, dir, method), '--session', `m${method}`],
			{ env: ENV },
		);
		assert.equal(made.code, 0, made.stderr);
	}
	const memory = (ids: string[], ...extra: string[]) =>
		booook(
			[
				'memory',
				...ids,
				...['--questions', '12', '--scenes', '50', '--distractors', books, '--steps', '1'],
				...['--base-url', api.openaiBaseUrl, '--sessions-dir', dir],
				...extra,
			],
			{ env: ENV },
		);
	assert.equal((await memory(['mhier', 'minc'])).code, 0);
	// The hierarchical run again with another seed: another question set.
	const again = await memory(['mhier'], '--seed', '2');
	assert.equal(again.code, 0, again.stderr);
	// One session asked two question sets: its per-session results pool them, so the table keeps them apart.
	assert.equal(
		again.stdout.slice(again.stdout.indexOf('side by side')).split('\n\n').length,
		3,
		again.stdout,
	);
	const shown = await memory(['mhier', 'minc'], '--no-floor');
	assert.equal(shown.code, 0, shown.stderr);
	const side = shown.stdout.slice(shown.stdout.indexOf('side by side'));
	const tables = side.split('\n\n').slice(1);
	assert.equal(tables.length, 2, side);
	const [seed1, seed2] = [
		tables.find((t) => t.startsWith('final summaries, seed 1;'))!,
		tables.find((t) => t.startsWith('final summaries, seed 2;'))!,
	];
	assert.match(
		seed1,
		/^final summaries, seed 1; this book's scenes: written for the probe \(--scenes\); other books' scenes \(written for the probe\): Ferry\n/u,
	);
	const rows = (table: string) => table.split('\n').filter((l) => /^m(hier|inc) /u.test(l));
	// Final summaries only: the incremental run's running summary is not in its row.
	assert.deepEqual(
		rows(seed1).map((r) => r.split(/\s+/u).slice(0, 2).concat(r.split(/\s+/u)[4]!)),
		[
			['mhier', 'hier', '12'],
			['minc', 'inc', '12'],
		],
	);
	assert.equal(rows(seed2).length, 1);
	assert.match(seed2, /nothing to compare it with/u);
	assert.doesNotMatch(seed1, /nothing to compare/u);
	// Each row's floor is its own questions' (both rows asked it; the seed-2 row too).
	for (const row of [...rows(seed1), ...rows(seed2)])
		assert.match(row, /\] +\d+\.\d% +— +/u, `floor asked, no ceiling: ${row}`);
});
