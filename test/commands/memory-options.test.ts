import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MemoryQuestion } from '../../source/domain.ts';
import { shortcutAccuracy } from '../../source/memory/shortcuts.ts';
import { Session, type BookSessionData } from '../../source/store/session.ts';
import { booook } from '../support/cli.ts';
import { digestReply } from '../support/digest-reply.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { memoryQuestion, memoryReply } from '../support/memory-reply.ts';
import { bookFile, otherBook, smallBook } from '../support/mill-book.ts';
import { FRANKENSTEIN, PRIDE_AND_PREJUDICE, WAR_AND_PEACE } from '../support/repo-data.ts';
import { tempDir } from '../support/temp.ts';

/**
 * The options of a memory question give nothing away: every option is made the same way (NarrativeXL's
 * "symmetric by design"), so a reader who picks the longest or the shortest option does about as
 * well as one who guesses among the scenes.
 */

const ENV = { OPENAI_API_KEY: 'test-key' };
/** The goal: the longest or the shortest option right at most this often (a guess among five: 20%). */
const SHORTCUT_MOST = 0.3;

const words = (text: string) => text.trim().split(/\s+/u).length;

/**
 * Readers that know nothing, named by the model asked for: the option of the most words (the first
 * of equals), of the fewest, one drawn from the options' hash (the same with the summary shown or
 * hidden), or "None of the above" always.
 */
const KNOW_NOTHING: Record<string, (options: readonly string[]) => number> = {
	longest: (options) => options.map(words).indexOf(Math.max(...options.map(words))),
	shortest: (options) => options.map(words).indexOf(Math.min(...options.map(words))),
	random: (options) =>
		createHash('sha256').update(options.join('\n')).digest().readUInt32BE(0) % (options.length + 1),
	none: (options) => options.length,
};

/** The fake model; asked as one of `KNOW_NOTHING`'s models, a memory question is answered by that reader. */
async function fakeModel(t: TestContext): Promise<FakeApi> {
	const api = await startFakeApi({
		respond: async ({ prompt, body }) => {
			const pick = KNOW_NOTHING[body.model ?? ''];
			const asked = pick ? memoryQuestion(prompt) : null;
			if (pick && asked) return `Answer: ${pick(asked.options) + 1}`;
			return memoryReply(prompt) ?? digestReply({ prompt }) ?? 'Nothing happens.';
		},
	});
	t.after(() => api.close());
	return api;
}

async function run(
	api: FakeApi,
	dir: string,
	book: string,
	method: 'hier' | 'inc',
	id: string,
	...extra: string[]
) {
	const made = await booook(
		[
			'run',
			book,
			...['--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', api.openaiBaseUrl],
			...['--method', method, '--headless', '--session', id, '--sessions-dir', dir, ...extra],
		],
		{ env: ENV },
	);
	assert.equal(made.code, 0, made.stderr);
}

const memory = (api: FakeApi, dir: string, ...args: string[]) =>
	booook(['memory', ...args, '--base-url', api.openaiBaseUrl, '--sessions-dir', dir], { env: ENV });

async function bookData(dir: string, id: string): Promise<BookSessionData> {
	return (await Session.snapshot(dir, id)).data as BookSessionData;
}

interface Rate {
	n: number;
	correct: number;
	accuracy: number;
	low: number;
	high: number;
}
interface SessionJson {
	session: string;
	readers: {
		reader: string;
		overall: Rate;
		shortcuts: { longest: number; shortest: number; n: number };
		floor: { overall: Rate } | null;
	}[];
}

const booksOf = (q: MemoryQuestion) => q.options.filter((o) => o.kind === 'other-book').map((o) => o.book);

test("on the repository books, picking the longest or the shortest option answers at most 30% of the scene questions, hierarchical and incremental alike; each other-book option from another book; no other book's place left; readers that know nothing (longest, shortest, random, None) score near chance through memory and report, beside their floor", async (t) => {
	const dir = tempDir('memory-shortcuts', t);
	const books = tempDir('memory-shortcut-books', t);
	// Two other books, written as scenes alike whether a folder or the sessions folder holds them.
	copyFileSync(WAR_AND_PEACE, `${books}/war-and-peace.txt`);
	copyFileSync(PRIDE_AND_PREJUDICE, `${books}/pride-and-prejudice.txt`);
	const api = await fakeModel(t);
	await run(api, dir, FRANKENSTEIN, 'hier', 'fh');
	await run(api, dir, FRANKENSTEIN, 'inc', 'fi');
	for (const id of ['fh', 'fi']) {
		const asked = await memory(api, dir, id, '--questions', '30', '--steps', '2', '--distractors', books);
		assert.equal(asked.code, 0, asked.stderr);
		assert.doesNotMatch(asked.stderr, /shown in more than/u, asked.stderr);
		const data = await bookData(dir, id);
		const questions = data.memoryQuestions ?? [];
		// Scene questions only: a None question is one no length reader can hit, and would dilute the figure.
		const scored = shortcutAccuracy(questions.filter((q) => q.answer < q.options.length));
		assert.ok(scored.n >= 20, `${id}: ${scored.n} scene questions`);
		assert.ok(scored.longest <= SHORTCUT_MOST, `${id}: the longest option right in ${scored.longest}`);
		assert.ok(scored.shortest <= SHORTCUT_MOST, `${id}: the shortest option right in ${scored.shortest}`);
		const scenes = new Map((data.memoryScenes ?? []).map((s) => [s.id, s]));
		const titles = new Set<string>();
		for (const q of questions) {
			assert.equal(q.stretch, 500);
			for (const o of q.options) {
				assert.equal(scenes.get(o.scene)?.source, 'written', `${q.id}: ${o.scene} is a written scene`);
				for (const place of ['Pemberley', 'Longbourn', 'Netherfield', 'Moscow', 'Smolénsk', 'Petersburg'])
					assert.ok(!o.text.includes(place), `${place} in ${q.id}: ${o.text}`);
			}
			const from = booksOf(q);
			from.forEach((b) => titles.add(b));
			// Two other books: the other-book options split between them, one more of one at most.
			if (q.type === 'other-book') {
				const counts = [...new Set(from)].map((b) => from.filter((x) => x === b).length);
				assert.equal(counts.length, 2, `${q.id}: both other books`);
				assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `${q.id}: ${from.join(', ')}`);
			}
		}
		assert.equal(titles.size, 2);
	}

	// The attack through the command line: readers that know nothing are asked the same questions,
	// shown the summary and with it hidden, and score near chance both ways; memory, report and
	// their JSON print each one's floor and the options-alone figures.
	const chance = 1 / 6;
	for (const model of Object.keys(KNOW_NOTHING)) {
		const args = ['fh', 'fi', '--model', model, '--questions', '30', '--steps', '2', '--distractors', books];
		const asked = await memory(api, dir, ...args, '--json');
		assert.equal(asked.code, 0, asked.stderr);
		const spent = [...asked.stderr.matchAll(/^([\d,]+) answers \(([\d,]+) calls/gmu)];
		assert.equal(spent.length, 2, asked.stderr);
		assert.ok(
			spent.every(([, answers, calls]) => answers === calls),
			`only answers, the scenes and questions stored: ${asked.stderr}`,
		);
		for (const one of JSON.parse(asked.stdout) as SessionJson[]) {
			const reader = one.readers.find((r) => r.reader === `openai/${model}`)!;
			const { overall, shortcuts } = reader;
			const floor = reader.floor!.overall;
			const says = `${one.session}, ${model}: ${overall.accuracy} right, floor ${floor.accuracy}`;
			// Shown the summary or not, a reader that reads neither chooses alike.
			assert.deepEqual([floor.n, floor.correct], [overall.n, overall.correct], says);
			assert.ok(overall.accuracy <= SHORTCUT_MOST, says);
			if (model === 'random' || model === 'none')
				assert.ok(
					overall.low <= chance && chance <= overall.high,
					`${says}, interval [${overall.low}, ${overall.high}]`,
				);
			// The options-alone figure printed is what such a reader scores, up to ties it breaks by order.
			const data = await bookData(dir, one.session);
			const answered = new Set(
				(data.memoryAnswers ?? []).filter((a) => a.reader === `openai/${model}`).map((a) => a.question),
			);
			const questions = (data.memoryQuestions ?? []).filter((q) => answered.has(q.id));
			const tied = questions.filter((q) => {
				const lengths = q.options.map((o) => words(o.text));
				const best = model === 'shortest' ? Math.min(...lengths) : Math.max(...lengths);
				return lengths.filter((l) => l === best).length > 1;
			}).length;
			if (model === 'longest' || model === 'shortest')
				assert.ok(
					Math.abs(overall.accuracy - shortcuts[model]) <= tied / overall.n + 0.05,
					`${says}; options alone ${shortcuts[model]}, ${tied} ties`,
				);
		}
	}
	const report = await booook(['report', 'fi', '--sessions-dir', dir]);
	assert.equal(report.code, 0, report.stderr);
	for (const model of Object.keys(KNOW_NOTHING))
		assert.match(
			report.stdout,
			new RegExp(
				`^ {2}openai/${model}, shown the summaries: [\\d.]+% \\[[\\d.]+, [\\d.]+\\] of 90 questions right; floor \\(the summary hidden\\) [\\d.]+% \\[[\\d.]+, [\\d.]+\\] of 90 questions; chance 16\\.7%\\n {4}options alone: always picking the longest option scores [\\d.]+%, the shortest [\\d.]+% \\(of 90 questions\\)$`,
				'mu',
			),
		);
	const json = await booook(['report', 'fh', '--json', '--sessions-dir', dir]);
	assert.equal(json.code, 0, json.stderr);
	const inReport = (JSON.parse(json.stdout) as { memory: SessionJson }).memory.readers;
	for (const model of Object.keys(KNOW_NOTHING)) {
		const reader = inReport.find((r) => r.reader === `openai/${model}`)!;
		assert.ok(reader.floor !== null && reader.floor.overall.n === 30, model);
		assert.equal(reader.shortcuts.n, 30, model);
	}
});

test("--level-0-scenes: every option a level-0 summary, this run's and another run's; a distractor scene shown too often is warned of; refusals in one line", async (t) => {
	const dir = tempDir('memory-level0', t);
	const api = await fakeModel(t);
	const mill = await bookFile(dir, 'mill.txt', smallBook());
	const ferry = await bookFile(dir, 'ferry.txt', otherBook());
	const small = ['--chunk-size', '256', '--max-summary', '200'];
	await run(api, `${dir}/s`, mill, 'hier', 'mh', ...small);
	await run(api, `${dir}/s`, mill, 'inc', 'mi', ...small);
	await run(api, `${dir}/s`, ferry, 'hier', 'oh', ...small);
	const asked = await memory(api, `${dir}/s`, 'mh', '--questions', '12', '--level-0-scenes');
	assert.equal(asked.code, 0, asked.stderr);
	// Eight or so level-0 summaries of the other book fill the wrong options of twelve questions.
	assert.match(asked.stderr, /^\d+ other-book scenes? shown in more than 3 questions each \(up to \d+\)/mu);
	const data = await bookData(`${dir}/s`, 'mh');
	const other = await bookData(`${dir}/s`, 'oh');
	const own = new Map((data.memoryScenes ?? []).map((s) => [s.id, s]));
	const levelZero = other.run.nodes.filter((n) => n.kind === 'summarize' && n.level === 0).length;
	const theirs = new Set(Array.from({ length: levelZero }, (_, i) => `oh/s${i}`));
	const questions = data.memoryQuestions ?? [];
	assert.ok(questions.length > 0);
	for (const q of questions) {
		assert.equal(q.scenes, 'node');
		assert.equal(q.stretch, null);
		for (const o of q.options)
			if (o.kind === 'other-book') assert.ok(theirs.has(o.scene), o.scene);
			else assert.equal(own.get(o.scene)?.source, 'node', o.scene);
	}
	assert.equal(
		data.memoryScenes?.some((s) => s.source === 'written'),
		false,
		'no scene written',
	);
	for (const [args, says] of [
		[['mi', '--level-0-scenes'], /^booook: --level-0-scenes .* session "mi" is incremental/u],
		[
			['mh', '--level-0-scenes', '--scenes', '300'],
			/^booook: --level-0-scenes and --scenes choose two kinds/u,
		],
		[['mh', '--level-0-scenes', '--distractors', dir], /^booook: --level-0-scenes .*--distractors/u],
	] as const) {
		const refused = await memory(api, `${dir}/s`, ...args);
		assert.equal(refused.code, 2, refused.stderr);
		assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
		assert.match(refused.stderr.trim(), says);
	}
});

test('--distortions: as many questions again whose wrong options are scenes already read with one fact changed, written through the call log, priced, and asked once', async (t) => {
	const dir = tempDir('memory-distortions', t);
	const api = await fakeModel(t);
	const mill = await bookFile(dir, 'mill.txt', smallBook());
	const ferry = await bookFile(dir, 'ferry.txt', otherBook());
	const sessions = `${dir}/s`;
	await run(api, sessions, mill, 'hier', 'mh', '--chunk-size', '256', '--max-summary', '200');
	await run(api, sessions, ferry, 'hier', 'oh', '--chunk-size', '256', '--max-summary', '200');
	const args = ['mh', '--questions', '6', '--scenes', '50', '--distortions', '--json'];
	const asked = await memory(api, sessions, ...args);
	assert.equal(asked.code, 0, asked.stderr);
	const data = await bookData(sessions, 'mh');
	const scenes = new Map((data.memoryScenes ?? []).map((s) => [s.id, s]));
	const questions = data.memoryQuestions ?? [];
	const distortion = questions.filter((q) => q.type === 'distortion');
	assert.equal(distortion.length, 6, 'as many distortion questions as asked');
	assert.equal(questions.length - distortion.length, 6, 'beside the other questions');
	for (const q of distortion) {
		const truth = q.options.find((o) => o.kind === 'true');
		for (const o of q.options.filter((o) => o.kind !== 'true')) {
			assert.equal(o.kind, 'distortion');
			const scene = scenes.get(o.scene)!;
			assert.equal(scene.source, 'distorted');
			const of = scenes.get(scene.of!)!;
			assert.equal(of.source, 'written', 'a distortion of a written scene of this book');
			assert.notEqual(scene.text, of.text);
			assert.ok(of.end <= q.read.chars, 'of a scene read');
			assert.notEqual(scene.of, truth?.scene, "never the true scene's own distortion");
		}
	}
	const calls = readFileSync(join(sessions, 'mh', 'calls.jsonl'), 'utf8')
		.trim()
		.split('\n')
		.map((line) => JSON.parse(line) as { node: string; cost: number; params: { template?: string } });
	const distortions = calls.filter((c) => c.params.template === 'memory-distortion');
	assert.ok(
		distortions.length > 0 && distortions.every((c) => c.node.startsWith('distortion.') && c.cost > 0),
	);
	const json = JSON.parse(asked.stdout) as {
		readers: { byType: { distortion: { n: number } } }[];
	}[];
	assert.equal(json[0]!.readers[0]!.byType.distortion.n, 6);
	const requests = api.requests.length;
	const again = await memory(api, sessions, ...args);
	assert.equal(again.code, 0, again.stderr);
	assert.equal(api.requests.length, requests, 'distortions and answers are stored: nothing asked again');
});
