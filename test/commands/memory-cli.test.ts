import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allNames, bookNames, namesIn, randomNames, substituteNames } from '../../source/memory/names.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { contentStems } from '../../source/text/stems.ts';
import { Session, type BookSessionData } from '../../source/store/session.ts';
import { finalSummary } from '../../source/summarize/graph.ts';
import { booook } from '../support/cli.ts';
import { digestReply } from '../support/digest-reply.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { HELD_SHARE, memoryQuestion, memoryReply, sceneStretch } from '../support/memory-reply.ts';
import { assertResumedOnce, CallKiller } from '../support/kill-at-call.ts';
import { tempDir } from '../support/temp.ts';
import { BOOKS_DIR as BOOKS } from '../support/repo-data.ts';

const FRANKENSTEIN = `${BOOKS}frankenstein.txt`;
const PRIDE = `${BOOKS}pride-and-prejudice.txt`;
const ENV = { OPENAI_API_KEY: 'test-key' };

/** What the fake model answers: memory prompts by memory-reply.ts, summaries by paraphrase. */
const modelReply = (prompt: string) => memoryReply(prompt) ?? digestReply({ prompt }) ?? 'Nothing happens.';

/** The fake API answering as a model would; `hook` sees each prompt first, `reply` may answer it instead. */
async function fakeModel(
	t: TestContext,
	hook?: (prompt: string) => Promise<void>,
	reply: (prompt: string) => string = modelReply,
): Promise<FakeApi> {
	const api = await startFakeApi({
		respond: async ({ prompt }) => {
			await hook?.(prompt);
			return reply(prompt);
		},
	});
	t.after(() => api.close());
	return api;
}

/**
 * The runs the tests probe, made once for the file: Frankenstein hierarchical (fh) and incremental
 * (fi), Pride and Prejudice hierarchical (ph). A probe writes into its session, so each test
 * probes copies of its own (`runsIn`).
 */
let prepared: Promise<string> | undefined;
function preparedRuns(): Promise<string> {
	prepared ??= (async () => {
		const dir = tempDir('memory-cli-runs');
		const api = await startFakeApi({ respond: ({ prompt }) => modelReply(prompt) });
		try {
			await run(api, dir, FRANKENSTEIN, 'hier', 'fh');
			await run(api, dir, FRANKENSTEIN, 'inc', 'fi');
			await run(api, dir, PRIDE, 'hier', 'ph');
		} finally {
			await api.close();
		}
		return dir;
	})();
	return prepared;
}

/** A new sessions folder, removed after `t`, holding copies of the prepared runs `ids`. */
async function runsIn(t: TestContext, name: string, ...ids: ('fh' | 'fi' | 'ph')[]): Promise<string> {
	const from = await preparedRuns();
	const dir = tempDir(name, t);
	for (const id of ids) cpSync(join(from, id), join(dir, id), { recursive: true });
	return dir;
}

/** A run of `book` by gpt-4o-mini on the fake API, as session `id` in `dir`. */
async function run(api: FakeApi, dir: string, book: string, method: 'hier' | 'inc', id: string) {
	const made = await booook(
		[
			'run',
			book,
			...['--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', api.openaiBaseUrl],
			...['--method', method, '--headless', '--session', id, '--sessions-dir', dir],
		],
		{ env: ENV },
	);
	assert.equal(made.code, 0, made.stderr);
}

/** Words of each book's opening a study test reads: eight chunks of 2,048 tokens or so. */
const STUDY_WORDS = 12_000;

/** The first paragraphs of `book`, `words` words or a paragraph more, as a book of its own in `dir`. */
function opening(book: string, dir: string, words: number): string {
	const kept: string[] = [];
	let count = 0;
	for (const line of readFileSync(book, 'utf8').split('\n')) {
		if (count >= words) break;
		kept.push(line);
		count += line.split(/\s+/u).filter((w) => w !== '').length;
	}
	const path = join(dir, `opening-${book.split('/').at(-1)!}`);
	writeFileSync(path, `${kept.join('\n')}\n`);
	return path;
}

function memory(api: FakeApi, dir: string, ...args: string[]): string[] {
	return ['memory', ...args, '--base-url', api.openaiBaseUrl, '--sessions-dir', dir];
}

async function bookData(dir: string, id: string): Promise<BookSessionData> {
	return (await Session.snapshot(dir, id)).data as BookSessionData;
}

/** Test 1's probe: scenes of 1,000-word stretches, half as many to write as the default's, and as far back. */
const PROBE = ['--questions', '20', '--scenes', '1000'];

test('booook memory: a hierarchical and an incremental run of one book asked read-along questions; the incremental one forgets with distance, and both are shown side by side', async (t) => {
	// Another book's run in the same folder: its scenes are the other-book options.
	const dir = await runsIn(t, 'memory-cli', 'fh', 'fi', 'ph');
	const api = await fakeModel(t);
	const before = api.requests.length;

	// No key: a plan makes no call, so it asks for none.
	const planned = await booook(memory(api, dir, 'fi', ...PROBE, '--plan'), { env: {} });
	assert.equal(planned.code, 0, planned.stderr);
	assert.match(
		planned.stdout,
		/^fi: 100 questions to ask of 5 summaries, 100 with the summary hidden \(the floor\), \d+ scenes to write: \d+ calls, about [\d,]+ tokens in, \$/mu,
	);
	assert.equal(api.requests.length, before, '--plan makes no call');

	const asked = await booook(memory(api, dir, 'fi', 'fh', ...PROBE), { env: ENV });
	assert.equal(asked.code, 0, asked.stderr);
	for (const heading of [
		'Frankenstein (incremental, session fi): openai/gpt-4o-mini, shown the summary only',
		'Frankenstein (hierarchical, session fh): openai/gpt-4o-mini, shown the summary only',
		'how far back the true scene lies',
		'the same in tokens back',
		'retention curve',
		'side by side',
	])
		assert.ok(asked.stdout.includes(heading), `${heading} in:\n${asked.stdout}`);
	const curve = asked.stdout.split('\n').filter((l) => /^\s+(100|50|0)% [|+]/u.test(l));
	assert.equal(curve.length, 6, 'two curves, each with its 100%, 50% and 0% rows');
	// Side by side, final summaries only: both runs' options are scenes written for the probe, of the
	// same seed and distractor books, so the two were asked like questions and share one table.
	const side = asked.stdout.slice(asked.stdout.indexOf('side by side')).split('\n\n').slice(1);
	assert.deepEqual(
		side.map(
			(table) =>
				table.split('\n').filter((l) => /^f[ih] +(inc|hier) +Frankenstein +openai\/gpt-4o-mini +20 /u.test(l))
					.length,
		),
		[2],
		asked.stdout,
	);
	assert.match(side[0]!, /this book's scenes: written for the probe/u);
	assert.ok(!side[0]!.includes('nothing to compare it with'), side[0]);

	const fi = await bookData(dir, 'fi');
	const fh = await bookData(dir, 'fh');
	const pride = await Session.snapshot(dir, 'ph');
	const prideTitle = (pride.data as BookSessionData).book.title;
	const prideNames = allNames(bookNames(pride.text));
	const frankNames = allNames(bookNames((await Session.snapshot(dir, 'fi')).text));
	for (const data of [fi, fh]) {
		const questions = data.memoryQuestions ?? [];
		for (const q of questions) {
			const truths = q.options.filter((o) => o.kind === 'true').length;
			assert.equal(truths, q.answer === q.options.length ? 0 : 1, `${q.id}: one true answer or None`);
			if (q.answer < q.options.length) assert.equal(q.options[q.answer]!.kind, 'true');
			for (const o of q.options.filter((o) => o.kind === 'other-book')) {
				assert.equal(o.book, prideTitle);
				assert.deepEqual(
					namesIn(
						o.text,
						prideNames.filter((n) => !frankNames.includes(n)),
					),
					[],
					o.text,
				);
			}
		}
		const answers = (data.memoryAnswers ?? []).filter((a) => a.shown === 'summary');
		assert.equal(answers.length, questions.length, 'every question answered once');
		assert.ok(answers.every((a) => a.reader === 'openai/gpt-4o-mini' && a.choice !== null));
	}
	assert.equal(fh.memoryQuestions!.length, 20);
	assert.ok(fh.memoryQuestions!.every((q) => q.target.step === null && q.type === 'other-book'));
	assert.equal(
		new Set(fi.memoryQuestions!.map((q) => q.target.node)).size,
		5,
		'four steps and the final summary',
	);
	assert.ok(fi.memoryQuestions!.some((q) => q.type === 'lookahead'));
	// The incremental summary keeps what it read last: scenes read recently are recognized more often
	// than scenes read long before (the fake recognizes a scene by a sentence the summary holds).
	const accuracy = (data: BookSessionData, from: number, to: number) => {
		const qs = data.memoryQuestions!.filter(
			(q) => q.demand && q.demand.fraction >= from && q.demand.fraction < to,
		);
		const right = qs.filter((q) => data.memoryAnswers!.find((a) => a.question === q.id)!.correct);
		return right.length / qs.length;
	};
	assert.ok(
		accuracy(fi, 0, 0.4) > accuracy(fi, 0.6, 1.01),
		`near ${accuracy(fi, 0, 0.4)}, far ${accuracy(fi, 0.6, 1.01)}`,
	);

	// Again: everything is answered, nothing is asked.
	const requests = api.requests.length;
	const again = await booook(memory(api, dir, 'fi', ...PROBE, '--json'), { env: ENV });
	assert.equal(again.code, 0, again.stderr);
	assert.equal(api.requests.length, requests);
	const json = JSON.parse(again.stdout) as {
		session: string;
		readers: {
			overall: { n: number };
			bins: { n: number }[];
			tokenBins: { from: number; to: number; n: number }[];
		}[];
	}[];
	assert.equal(json[0]!.session, 'fi');
	assert.equal(json[0]!.readers[0]!.overall.n, 100);
	assert.equal(json[0]!.readers[0]!.bins.length, 5);
	const tokenBins = json[0]!.readers[0]!.tokenBins;
	assert.deepEqual(
		tokenBins.slice(0, 2).map((b) => [b.from, b.to]),
		[
			[0, 1000],
			[1000, 3000],
		],
	);
	assert.equal(
		tokenBins.reduce((sum, b) => sum + b.n, 0),
		json[0]!.readers[0]!.bins.reduce((sum, b) => sum + b.n, 0),
		'the token bins hold the same questions as the book-share bins',
	);

	const report = await booook(['report', 'fi', '--json', '--sessions-dir', dir]);
	assert.equal(report.code, 0, report.stderr);
	assert.equal(JSON.parse(report.stdout).memory.readers[0].overall.n, 100);
	const text = await booook(['report', 'fi', '--sessions-dir', dir]);
	assert.match(
		text.stdout,
		/^memory probes \(NarrativeXL read-along questions; 95% Wilson intervals over each row's questions; details: booook memory\)\n {2}openai\/gpt-4o-mini, shown the summaries: \d+\.\d% \[[\d.]+, [\d.]+\] of 100 questions right; floor \(the summary hidden\) \d+\.\d% \[[\d.]+, [\d.]+\] of 100 questions; chance 16\.7%$/mu,
	);
});

test('booook memory refuses in one line, changing nothing: no key, the extractive baseline, no other book, a hierarchical forgetting map', async (t) => {
	const dir = tempDir('memory-refusals', t);
	const made = await booook([
		'run',
		FRANKENSTEIN,
		...[
			'--provider',
			'extractive',
			'--method',
			'hier',
			'--headless',
			'--session',
			'fx',
			'--sessions-dir',
			dir,
		],
	]);
	assert.equal(made.code, 0, made.stderr);
	const before = JSON.stringify((await Session.snapshot(dir, 'fx')).data);
	for (const [args, env, says] of [
		[['fx'], {}, /^booook: answering memory questions needs an LLM: set OPENAI_API_KEY/u],
		[
			['fx', '--plan'],
			{},
			/^booook: answering memory questions needs an LLM: name the one to plan for with --provider openai\|anthropic .*planning needs no key$/u,
		],
		[
			['fx', '--provider', 'openai'],
			{},
			/^booook: answering with openai\/gpt-4o-mini needs OPENAI_API_KEY: export it/u,
		],
		[
			['fx', '--provider', 'openai'],
			ENV,
			/^booook: memory questions about the final summary need scenes of other books .*--distractors DIR/u,
		],
		[
			['fx', '--forgetting'],
			{},
			/^booook: forgetting is drawn for incremental runs; session "fx" is hierarchical/u,
		],
		[['nope', '--provider', 'openai'], ENV, /^booook: .*nope/u],
	] as const) {
		const refused = await booook(['memory', ...args, '--sessions-dir', dir], { env: { ...env } });
		assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
		assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
		assert.match(refused.stderr.trim(), says);
	}
	assert.equal(JSON.stringify((await Session.snapshot(dir, 'fx')).data), before);
});

test('booook memory killed with SIGKILL while answering: run again, it finishes without asking any scene or question twice', async (t) => {
	const killer = new CallKiller();
	const api = await fakeModel(t, async (prompt) => {
		// Only the probe's calls count (scenes and answers), not the summary runs' set-up.
		if (memoryQuestion(prompt) === null && sceneStretch(prompt) === null) return;
		// Killed: the answer never comes.
		if (await killer.reached(prompt, 'the probe to start')) await new Promise<never>(() => {});
	});
	const setUp = (name: string) => runsIn(t, name, 'fi', 'ph');
	const args = (dir: string) =>
		memory(api, dir, 'fi', '--questions', '6', '--steps', '1', '--scenes', '2000', '--concurrency', '1');
	const reference = await setUp('memory-kill-ref');
	const whole = await booook(args(reference), { env: ENV });
	assert.equal(whole.code, 0, whole.stderr);
	const all = killer.take();
	const questions = all.filter((p) => memoryQuestion(p) !== null).length;
	// Six questions of each of two summaries, each asked shown the summary and with it hidden (the floor).
	assert.equal(questions, 24);

	const fresh = await setUp('memory-kill');
	// Killed among the answers, after every scene and a few questions.
	const stopAt = all.length - questions + 4;
	killer.arm(stopAt);
	const killed = await booook(args(fresh), { env: ENV, onStderr: killer.onStderr });
	assert.equal(killed.signal, 'SIGKILL');
	const before = killer.take();
	assert.equal(before.length, stopAt);
	const resumed = await booook(args(fresh), { env: ENV });
	assert.equal(resumed.code, 0, resumed.stderr);
	assertResumedOnce(before, killer.take(), all, 'probe');
	const answers = (d: BookSessionData) =>
		(d.memoryAnswers ?? []).map((a) => [a.question, a.choice, a.correct]).sort();
	assert.deepEqual(answers(await bookData(fresh, 'fi')), answers(await bookData(reference, 'fi')));
});

test('a batched study with "memory" probes every finished cell with its scorer, in provider batches, and shows a memory column beside BooookScore; --plan prices the probes', async (t) => {
	const dir = tempDir('memory-study', t);
	const api = await fakeModel(t);
	const file = `${dir}/study.json`;
	// The books' openings: what the memory column shows does not depend on a book's length, and each
	// cell's probe writes scenes of both books.
	const books = [FRANKENSTEIN, PRIDE].map((book) => opening(book, dir, STUDY_WORDS));
	writeFileSync(
		file,
		JSON.stringify({
			name: 'mem',
			books,
			methods: ['hier', 'inc'],
			providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl }],
			chunkSizes: [2048],
			memory: { questions: 5, steps: 1 },
			// Provider batches, at half price: the probes' calls go in them too.
			batch: { poll: 0.02, gather: 0.1 },
		}),
	);
	const sessions = `${dir}/sessions`;
	const planned = await booook(['study', file, '--plan', '--sessions-dir', sessions], { env: ENV });
	assert.equal(planned.code, 0, planned.stderr);
	assert.match(planned.stdout, /; then memory probes: ~\d+ calls, estimated \$\d/u);
	assert.equal(api.requests.length, 0);

	const ran = await booook(['study', file, '--headless', '--sessions-dir', sessions], { env: ENV });
	assert.equal(ran.code, 0, ran.stderr);
	const probed = ran.stderr
		.split('\n')
		.filter((l) => /: memory probes: \d+ answers by openai\/gpt-4o-mini/u.test(l));
	assert.equal(probed.length, 4, ran.stderr);
	const cells = readdirSync(sessions, { withFileTypes: true }).filter((d) => d.isDirectory());
	assert.equal(cells.length, 4);
	for (const { name: id } of cells) {
		const calls = readFileSync(join(sessions, id, 'calls.jsonl'), 'utf8')
			.trim()
			.split('\n')
			.map((line) => JSON.parse(line) as { node: string; batch?: string });
		const probes = calls.filter((c) => c.node.startsWith('memory.'));
		assert.ok(
			probes.length > 0 && probes.every((c) => c.batch !== undefined),
			`${id}: every probe call batched`,
		);
	}
	const header = ran.stdout.split('\n')[0]!;
	assert.match(header, /BooookScore \(95% CI\) +memory \(95% CI\) +floor +longest\/shortest$/u);
	const rows = ran.stdout.split('\n').filter((l) => /^(hier|inc) /u.test(l));
	assert.equal(rows.length, 2);
	// Two books a row (and no scoring): the memory figure, with no interval over books to show, its
	// floor (the summary hidden), and what always picking the longest / the shortest option scores.
	for (const row of rows) assert.match(row, /— +\d+\.\d +\d+\.\d +\d+\.\d\/\d+\.\d$/u, row);
	assert.match(
		ran.stdout,
		/^memory: too few books \(2\) for an interval over books; a bootstrap over books needs 10$/mu,
	);

	// A cell's cost is every call its session logged: the run's and the probes'.
	const json = await booook(['report', file, '--json', '--sessions-dir', sessions]);
	assert.equal(json.code, 0, json.stderr);
	// Each row's floor and the options' figures, over the row's books, in the JSON too.
	const results = JSON.parse(json.stdout) as {
		rows: {
			memoryFloor: number | null;
			memoryShortcuts: { longest: number; shortest: number; n: number } | null;
		}[];
	};
	for (const row of results.rows) {
		assert.ok(row.memoryFloor !== null && row.memoryFloor >= 0 && row.memoryFloor <= 1, JSON.stringify(row));
		assert.equal(row.memoryShortcuts?.n, 10, 'five questions of each of two final summaries');
	}
	for (const cell of JSON.parse(json.stdout).cells as { session: string; cost: number }[]) {
		const logged = readFileSync(join(sessions, cell.session, 'calls.jsonl'), 'utf8')
			.trim()
			.split('\n')
			.reduce((sum, line) => sum + (JSON.parse(line) as { cost: number }).cost, 0);
		assert.ok(Math.abs(cell.cost - logged) < 1e-9, `${cell.session}: ${cell.cost} against ${logged} logged`);
	}
	const table = await booook(['report', file, '--csv', '--sessions-dir', sessions]);
	assert.equal(table.code, 0, table.stderr);
	const [head, ...lines] = table.stdout.trim().split('\r\n');
	const columns = head!.split(',');
	assert.ok(columns.includes('memory') && columns.includes('memory_ci_low'), head);
	for (const line of lines)
		for (const column of ['memory', 'memory_floor', 'memory_longest_option', 'memory_shortest_option'])
			assert.notEqual(line.split(',')[columns.indexOf(column)], '', `${column}: ${line}`);
});

test("booook memory --distractors DIR --scenes WORDS: other-book scenes written once from a folder of books, this book's scenes written for the probe", async (t) => {
	const dir = await runsIn(t, 'memory-distractors', 'fh');
	const books = tempDir('memory-distractor-books', t);
	copyFileSync(`${BOOKS}war-and-peace.txt`, `${books}/war-and-peace.txt`);
	// This session's own book is in the folder too: it is never its own distractor.
	copyFileSync(FRANKENSTEIN, `${books}/frankenstein.txt`);
	const api = await fakeModel(t);
	const args = memory(api, dir, 'fh', '--questions', '4', '--scenes', '2000', '--distractors', books);
	const first = await booook(args, { env: ENV });
	assert.equal(first.code, 0, first.stderr);
	const data = await bookData(dir, 'fh');
	const scenes = data.memoryScenes ?? [];
	const own = scenes.filter((s) => s.book === data.book.title);
	const others = scenes.filter((s) => s.book !== data.book.title);
	assert.ok(own.length > 0 && own.every((s) => s.source === 'written'), "this book's scenes written");
	assert.equal(new Set(others.map((s) => s.book)).size, 1, 'one other book, never this one');
	assert.ok(others.length <= 4 * 5, `as many other-book scenes as the questions can show: ${others.length}`);
	const questions = data.memoryQuestions ?? [];
	assert.equal(questions.length, 4);
	const own_ = new Set(own.map((s) => s.id));
	for (const q of questions)
		for (const o of q.options) assert.ok(o.kind === 'other-book' ? !own_.has(o.scene) : own_.has(o.scene));
	const requests = api.requests.length;
	const again = await booook(args, { env: ENV });
	assert.equal(again.code, 0, again.stderr);
	assert.equal(api.requests.length, requests, 'scenes and answers are stored: nothing is asked again');
	// The plan counts only questions made of the scene set it would use: without --scenes, scenes
	// of 500-word stretches, so the four stored questions (of 2,000-word ones) are not its.
	const plan = async (...extra: string[]) => {
		const planned = await booook(
			memory(api, dir, 'fh', '--questions', '4', '--distractors', books, '--plan', ...extra),
			{ env: ENV },
		);
		assert.equal(planned.code, 0, planned.stderr);
		return planned.stdout;
	};
	assert.match(await plan('--scenes', '2000'), /^fh: 0 questions to ask/mu);
	assert.match(await plan(), /^fh: 4 questions to ask/mu);
	assert.equal(api.requests.length, requests, '--plan makes no call');
	// And the probe without --scenes asks four questions of its own set, none of the stored ones.
	const fresh500 = await booook(memory(api, dir, 'fh', '--questions', '4', '--distractors', books), {
		env: ENV,
	});
	assert.equal(fresh500.code, 0, fresh500.stderr);
	const after = await bookData(dir, 'fh');
	const fresh = (after.memoryQuestions ?? []).filter((q) => !questions.some((old) => old.id === q.id));
	assert.equal(fresh.length, 4);
	const byId = new Map((after.memoryScenes ?? []).map((s) => [s.id, s]));
	for (const q of fresh) {
		assert.equal(q.scenes, 'written');
		assert.equal(q.stretch, 500);
		for (const o of q.options) {
			const scene = byId.get(o.scene);
			assert.ok(scene && scene.source === 'written', `${o.scene}: a written scene`);
			assert.ok(
				!questions.some((old) => old.options.some((p) => p.scene === o.scene)),
				'of 500-word stretches',
			);
		}
	}
});

/** Words of each stretch of the book a reader who knows it remembers together. */
const KNOWN_STRETCH = 600;

/**
 * A reader who knows `book` and answers from its fame: a sentence of an option is the book's when
 * it names one of the book's people or places and nearly all its content words (`HELD_SHARE`)
 * stand together in one stretch of the book, as who did what, where. Shown nothing (the floor), it
 * picks the option with the most such sentences, or "None" when none has any; shown a summary or
 * the book's text, it answers as memory-reply.ts does.
 */
function fameReader(book: string): (prompt: string) => string {
	const names = allNames(bookNames(book));
	const words = book.split(/\s+/u);
	const stretches: Set<string>[] = [];
	for (let i = 0; i < words.length; i += KNOWN_STRETCH / 2)
		stretches.push(new Set(contentStems(words.slice(i, i + KNOWN_STRETCH).join(' '))));
	const known = (option: string) =>
		splitSentences(option).filter((sentence) => {
			if (namesIn(sentence, names).length === 0) return false;
			const stems = [...new Set(contentStems(sentence))];
			return stretches.some((s) => stems.filter((x) => s.has(x)).length >= HELD_SHARE * stems.length);
		}).length;
	return (prompt) => {
		const asked = memoryQuestion(prompt);
		if (!asked?.floor) return modelReply(prompt);
		const held = asked.options.map(known);
		const best = Math.max(0, ...held);
		return `Answer: ${(best === 0 ? asked.options.length : held.indexOf(best)) + 1}`;
	};
}

/** The rename test's probe: thirty questions of the final summary, scenes of 1,000-word stretches (fewer to write). */
const ASKED = ['fh', '--questions', '30', '--scenes', '1000'];

interface FinalRowJson {
	key: string;
	renamed: boolean;
	accuracy: { n: number; accuracy: number };
	floor: { n: number; accuracy: number } | null;
}

test("--rename: the book's people and places under random names in the summary, the options and the ceiling's text; a reader who knows the book by its names loses its floor; the renamed questions are a set of their own", async (t) => {
	const dir = await runsIn(t, 'memory-rename', 'fh', 'ph');
	const book = readFileSync(FRANKENSTEIN, 'utf8');
	const names = bookNames(book);
	const api = await fakeModel(t, undefined, fameReader(book));
	const probe = (...extra: string[]) =>
		booook(memory(api, dir, ...ASKED, '--ceiling', ...extra), { env: ENV });
	const asked = (from: number) =>
		api.requests
			.slice(from)
			.map((r) => r.prompt)
			.filter((p) => memoryQuestion(p) !== null);

	const own = await probe();
	assert.equal(own.code, 0, own.stderr);
	const ownPrompts = asked(0);
	for (const name of ['Victor', 'Elizabeth'])
		assert.ok(
			ownPrompts.some((p) => namesIn(p, [name]).length > 0),
			`the book's own names shown without --rename: ${name}`,
		);
	const before = api.requests.length;
	const renamed = await probe('--rename', '--json');
	assert.equal(renamed.code, 0, renamed.stderr);
	const prompts = asked(before);
	assert.equal(
		prompts.length,
		90,
		'thirty new questions, each shown the summary, nothing and the scene’s text',
	);
	for (const prompt of prompts)
		assert.deepEqual(namesIn(prompt, allNames(names)), [], `a name of the book shown:\n${prompt}`);
	// Renamed, not cut: the summary shown is the final summary with each name replaced by its random one.
	const data = await bookData(dir, 'fh');
	const summary = finalSummary(data.run)!;
	const map = randomNames(names, 1);
	const shown = prompts.map((p) => memoryQuestion(p)!.shown);
	assert.equal(shown.filter((s) => s === substituteNames(summary, map)).length, 30, 'the summary, renamed');
	assert.ok(shown.some((s) => s.includes(map.get('Victor')!)));
	const stored = (data.memoryQuestions ?? []).filter((q) => q.renamed);
	assert.equal(stored.length, 30);
	for (const q of stored)
		for (const o of q.options) assert.deepEqual(namesIn(o.text, allNames(names)), [], o.text);

	// Two question sets, told apart: the reader who knows the book scores well without the summary
	// under its own names, and near chance once they are replaced; shown the summary (renamed alike),
	// the same reader recognizes scenes as well either way.
	const [result] = JSON.parse(renamed.stdout) as {
		final: FinalRowJson[];
		names: { questions: number; renamed: number };
	}[];
	assert.deepEqual(result!.names, { questions: 60, renamed: 30 });
	const ownRow = result!.final.find((r) => !r.renamed)!;
	const renamedRow = result!.final.find((r) => r.renamed)!;
	assert.notEqual(ownRow.key, renamedRow.key);
	assert.equal(renamedRow.floor!.n, 30);
	assert.ok(renamedRow.floor!.accuracy <= 0.3, `renamed floor ${renamedRow.floor!.accuracy}`);
	assert.ok(
		ownRow.floor!.accuracy >= renamedRow.floor!.accuracy + 0.25,
		`floor ${ownRow.floor!.accuracy} under the book's names, ${renamedRow.floor!.accuracy} renamed`,
	);
	assert.ok(
		Math.abs(ownRow.accuracy.accuracy - renamedRow.accuracy.accuracy) <= 0.1,
		`shown the summary: ${ownRow.accuracy.accuracy} under the book's names, ${renamedRow.accuracy.accuracy} renamed`,
	);

	const text = await booook(memory(api, dir, ...ASKED), { env: ENV });
	assert.equal(text.code, 0, text.stderr);
	assert.match(
		text.stdout,
		/^Frankenstein \(hierarchical, session fh, names randomized in 30 of 60 questions\): /mu,
	);
	const tables = text.stdout.slice(text.stdout.indexOf('side by side')).split('\n\n').slice(1);
	assert.equal(tables.length, 2, text.stdout);
	assert.equal(
		tables.filter((table) => /^final summaries, .*; this book's names randomized \(--rename\)\n/u.test(table))
			.length,
		1,
	);
	const planned = await booook(memory(api, dir, ...ASKED, '--rename', '--plan'), {
		env: ENV,
	});
	assert.match(planned.stdout, /^fh: 0 questions to ask/mu, 'the renamed set is stored and found again');
});

test('the same seed draws the same questions whatever order the scenes were stored in (concurrent calls finish in any order)', async (t) => {
	const api = await fakeModel(t);
	const args = (dir: string) => memory(api, dir, 'fh', '--questions', '12', '--scenes', '2000');
	const first = await runsIn(t, 'memory-order-a', 'fh', 'ph');
	const asked = await booook(args(first), { env: ENV });
	assert.equal(asked.code, 0, asked.stderr);
	const written = (await bookData(first, 'fh')).memoryScenes ?? [];
	assert.ok(written.length > 50, `${written.length} scenes`);
	// The same scenes stored in the other order, as calls finishing the other way round would store them.
	const second = await runsIn(t, 'memory-order-b', 'fh', 'ph');
	const session = await Session.open(second, 'fh');
	try {
		await session.append('memoryScenes', ...[...written].reverse());
	} finally {
		await session.close();
	}
	const requests = api.requests.length;
	const again = await booook(args(second), { env: ENV });
	assert.equal(again.code, 0, again.stderr);
	assert.equal(
		api.requests.length - requests,
		24,
		'no scene written again: twelve questions, each with its floor',
	);
	const drawn = async (dir: string) => {
		const data = await bookData(dir, 'fh');
		const at = new Map((data.memoryScenes ?? []).map((s) => [s.id, `${s.book} ${s.start}-${s.end}`]));
		return (data.memoryQuestions ?? []).map((q) => [
			q.type,
			q.answer,
			...q.options.map((o) => at.get(o.scene)),
		]);
	};
	assert.deepEqual(await drawn(second), await drawn(first));
});
