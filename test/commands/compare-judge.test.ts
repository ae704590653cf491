import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRITERIA, type Choice, type Criterion, type Pair } from '../../source/score/compare.ts';
import { ComparisonStore } from '../../source/store/comparison.ts';
import { booook } from '../support/cli.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { assertResumedOnce, CallKiller } from '../support/kill-at-call.ts';
import { bookFile, otherBook } from '../support/mill-book.ts';
import { tempDir } from '../support/temp.ts';

/**
 * A model as judge of a comparison (`compare --model`): one call per pair through the call runner,
 * shown the pair in the people's blind order, its answers stored as its verdicts; killed with
 * SIGKILL it resumes without asking a pair twice; and its agreement with a person is as counted by hand.
 */

const ENV = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };

/** The judge's answer: a function of the two texts shown, so a test can say it again from the prompt. */
function judgeAnswer(first: string, second: string): Record<Criterion, 'A' | 'B' | 'tie'> {
	const pick = (n: number) => (['A', 'B', 'tie'] as const)[n % 3]!;
	return {
		overall: pick(first.length),
		detail: pick(second.length),
		structure: pick(first.length + second.length),
		logic: first.length > second.length ? 'A' : 'B',
	};
}

function shown(prompt: string): { first: string; second: string } | null {
	const m = /Summary A:\n([\s\S]*?)\n\nSummary B:\n([\s\S]*?)\n\nAnswer in exactly four lines/u.exec(prompt);
	return m ? { first: m[1]!, second: m[2]! } : null;
}

async function fakeJudge(t: TestContext, killer?: CallKiller): Promise<FakeApi> {
	const api = await startFakeApi({
		respond: async ({ prompt }) => {
			const texts = shown(prompt);
			if (!texts) return 'Nothing happens.';
			if (killer && (await killer.reached(prompt, 'the judging to start')))
				await new Promise<never>(() => {});
			const a = judgeAnswer(texts.first, texts.second);
			return `Overall: ${a.overall}\nDetail: ${a.detail}\nStructure: ${a.structure}\nLogic: ${a.logic}`;
		},
	});
	t.after(() => api.close());
	return api;
}

/** Five extractive runs of two small books: three of the mill book, two of the other; four pairs. */
async function sessions(t: TestContext, name: string): Promise<string> {
	const dir = tempDir(name, t);
	const books = tempDir(`${name}-books`, t);
	const mill = await bookFile(books);
	const other = await bookFile(books, 'harbour.txt', otherBook());
	const runs = [
		[mill, 'm-inc', 'inc', '1024'],
		[mill, 'm-hier', 'hier', '1024'],
		[mill, 'm-inc2', 'inc', '512'],
		[other, 'o-inc', 'inc', '1024'],
		[other, 'o-hier', 'hier', '1024'],
	];
	for (const [book, id, method, chunk] of runs) {
		const made = await booook([
			'run',
			book!,
			...['--provider', 'extractive', '--method', method!, '--chunk-size', chunk!, '--max-summary', '120'],
			...['--headless', '--session', id!, '--sessions-dir', dir],
		]);
		assert.equal(made.code, 0, made.stderr);
	}
	return dir;
}

const judgeArgs = (api: FakeApi, dir: string, ...sources: string[]) => [
	'compare',
	...sources,
	'--name',
	'cmp',
	'--model',
	'gpt-4o-mini',
	'--base-url',
	api.openaiBaseUrl,
	'--concurrency',
	'1',
	'--json',
	'--sessions-dir',
	dir,
];
const SOURCES = ['m-inc', 'm-hier', 'm-inc2', 'o-inc', 'o-hier'];

test('a model judges every pair once, in the order shown to people, priced and logged; its agreement with a person is as counted by hand', async (t) => {
	const api = await fakeJudge(t);
	const dir = await sessions(t, 'compare-judge');
	const judged = await booook(judgeArgs(api, dir, ...SOURCES), { env: ENV });
	assert.equal(judged.code, 0, judged.stderr);
	assert.match(judged.stderr, /openai\/gpt-4o-mini judged 4 pairs \(4 calls, \$/u);
	const results = JSON.parse(judged.stdout);
	const texts = new Map<string, string>(results.contenders.map((c: { key: string }) => [c.key, '']));
	const definition = JSON.parse(await readFile(join(dir, 'cmp.compare', 'comparison.json'), 'utf8'));
	for (const c of definition.contenders) texts.set(c.key, c.text);
	const prompts = api.requests.map((r) => shown(r.prompt)).filter((s) => s !== null);
	assert.equal(prompts.length, 4, 'one call per pair');
	const model = new Map<string, Record<Criterion, Choice>>();
	for (const pair of definition.pairs as Pair[]) {
		const [first, second] = pair.first === 'x' ? [pair.x, pair.y] : [pair.y, pair.x];
		const asked = prompts.filter((p) => p.first === texts.get(first) && p.second === texts.get(second));
		assert.equal(asked.length, 1, `pair ${pair.id} asked once, its first summary shown as A`);
		const a = judgeAnswer(asked[0]!.first, asked[0]!.second);
		model.set(
			pair.id,
			Object.fromEntries(
				CRITERIA.map((c) => [
					c,
					a[c] === 'tie' ? 'tie' : (a[c] === 'A') === (pair.first === 'x') ? 'x' : 'y',
				]),
			) as Record<Criterion, Choice>,
		);
	}
	for (const j of results.judgments) {
		assert.equal(j.annotator, 'openai/gpt-4o-mini');
		assert.equal(j.origin, 'model');
		assert.deepEqual(j.choices, model.get(j.pair));
	}
	const calls = (await readFile(join(dir, 'cmp.compare', 'calls.jsonl'), 'utf8')).trim().split('\n');
	assert.equal(calls.length, 4);

	// A person judges every pair x on every criterion; agreement with the model is the share where it said x too.
	const store = await ComparisonStore.open(dir, 'cmp');
	for (const p of definition.pairs as Pair[])
		await store.record({
			kind: 'verdict',
			at: new Date().toISOString(),
			annotator: 'ann',
			origin: 'human',
			pair: p.id,
			choices: { overall: 'x', detail: 'x', structure: 'x', logic: 'x' },
		});
	await store.close();
	const again = await booook(judgeArgs(api, dir), { env: ENV });
	assert.equal(again.code, 0, again.stderr);
	assert.match(again.stderr, /judged 0 pairs \(0 calls/u, 'pairs judged before are not asked again');
	const after = JSON.parse(again.stdout);
	for (const c of CRITERIA) {
		const same = [...model.values()].filter((m) => m[c] === 'x').length;
		const entry = after.agreement[c].pairs.find(
			(p: { annotators: string[] }) => p.annotators.join() === 'ann,openai/gpt-4o-mini',
		);
		assert.equal(entry.n, 4);
		assert.equal(entry.percent, Math.round((same / 4) * 10_000) / 100, c);
	}
	const group = after.groups.find((g: { sides: string[] }) => g.sides.join() === 'incremental,hierarchical');
	assert.equal(group.models.length, 1, 'the model has its own table');
	assert.equal(group.people.annotator, null);
});

test('compare --model killed with SIGKILL while judging: run again, it finishes without asking a pair twice', async (t) => {
	const killer = new CallKiller();
	const api = await fakeJudge(t, killer);
	const whole = await booook(judgeArgs(api, await sessions(t, 'compare-judge-ref'), ...SOURCES), {
		env: ENV,
	});
	assert.equal(whole.code, 0, whole.stderr);
	const all = killer.take();
	assert.equal(all.length, 4);
	const dir = await sessions(t, 'compare-judge-kill');
	killer.arm(2);
	const killed = await booook(judgeArgs(api, dir, ...SOURCES), { env: ENV, onStderr: killer.onStderr });
	assert.equal(killed.signal, 'SIGKILL');
	const before = killer.take();
	const resumed = await booook(judgeArgs(api, dir), { env: ENV });
	assert.equal(resumed.code, 0, resumed.stderr);
	assertResumedOnce(before, killer.take(), all, 'judging');
	const results = JSON.parse(resumed.stdout);
	assert.equal(results.judgments.length, 4);
	assert.equal(results.progress['openai/gpt-4o-mini'].judged, 4);
});

test('compare --model refuses the offline baseline and a missing key in one line, touching nothing', async (t) => {
	const dir = tempDir('compare-judge-refuse', t);
	const noKey = await booook(['compare', '--name', 'x', '--model', 'gpt-4o-mini', '--sessions-dir', dir], {
		env: { OPENAI_API_KEY: '' },
	});
	assert.equal(noKey.code, 2);
	assert.match(noKey.stderr, /judging a comparison needs an LLM/u);
	assert.equal(noKey.stderr.trim().split('\n').length, 1);
	const extractive = await booook([
		'compare',
		'--name',
		'x',
		'--provider',
		'extractive',
		'--sessions-dir',
		dir,
	]);
	assert.equal(extractive.code, 2);
	assert.deepEqual(await readdir(dir).catch(() => []), [], 'nothing was made');
});
