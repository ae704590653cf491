import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
	judgmentsOf,
	makePairs,
	pairsOf,
	shownChoice,
	storedChoice,
	type Choice,
	type CompareRecord,
	type Contender,
	type Criterion,
} from '../../source/score/compare.ts';
import { preferenceResults, rankCorrelation } from '../../source/score/preference.ts';
import { ComparisonStore, type ComparisonDefinition } from '../../source/store/comparison.ts';
import {
	init,
	update,
	type CompareState,
	type CompareWorld,
	type Shown,
} from '../../source/ui/screens/compare/model.ts';
import { readSessions } from '../../source/store/list.ts';
import { tempDir } from '../support/temp.ts';
import { booook } from '../support/cli.ts';
import { bookFile } from '../support/mill-book.ts';

/** Comparisons, pure and stored: the pairs and who gets them, the judgments replayed, Table 4 and the correlation by hand, the screen's keys. */

function contender(key: string, session: string, book: string, method: 'inc' | 'hier'): Contender {
	return {
		key,
		session,
		summary: null,
		node: 'n1',
		version: 0,
		book,
		bookKey: book,
		method,
		provider: 'openai',
		model: 'gpt-4o',
		text: `${book} by ${session}`,
	};
}

/** `n` books, each with an incremental and a hierarchical run: n pairs. */
function books(n: number): Contender[] {
	return Array.from({ length: n }, (_, i) => [
		contender(`c${2 * i}`, `b${i}-hier`, `book ${i}`, 'hier'),
		contender(`c${2 * i + 1}`, `b${i}-inc`, `book ${i}`, 'inc'),
	]).flat();
}

test('pairs are two summaries of one book from two sessions, the incremental one its x, shown in an order drawn from the seed', () => {
	const contenders = [...books(3), contender('c9', 'b0-inc2', 'book 0', 'inc')];
	const pairs = makePairs(contenders, 7);
	// Book 0 has three summaries (three pairs), books 1 and 2 two each.
	assert.equal(pairs.length, 5);
	const byKey = new Map(contenders.map((c) => [c.key, c]));
	for (const p of pairs) {
		assert.equal(byKey.get(p.x)!.book, byKey.get(p.y)!.book);
		assert.notEqual(byKey.get(p.x)!.session, byKey.get(p.y)!.session);
		if (byKey.get(p.x)!.method !== byKey.get(p.y)!.method) assert.equal(byKey.get(p.x)!.method, 'inc');
	}
	assert.deepEqual(makePairs(contenders, 7), pairs, 'the same seed draws the same pairs and orders');
	const many = makePairs(books(40), 1);
	const xFirst = many.filter((p) => p.first === 'x').length;
	assert.ok(xFirst > 10 && xFirst < 30, `about half the pairs show x first (${xFirst} of 40)`);
	for (const p of many) {
		for (const shown of ['first', 'second', 'tie'] as const)
			assert.equal(shownChoice(p, storedChoice(p, shown)), shown);
	}
});

test('split pairs go to each annotator once, the overlap to all; an annotator not named has none', () => {
	const pairs = makePairs(books(11), 3);
	const assignment = { kind: 'split' as const, annotators: ['ann', 'bo', 'cy'], overlap: 2 };
	const given = ['ann', 'bo', 'cy'].map((a) => pairsOf(pairs, assignment, a)!);
	const count = new Map<string, number>();
	for (const list of given) for (const p of list) count.set(p.id, (count.get(p.id) ?? 0) + 1);
	assert.equal(count.size, 11, 'every pair is given to someone');
	assert.deepEqual(
		pairs.filter((p) => count.get(p.id) === 3).map((p) => p.id),
		pairs.slice(0, 2).map((p) => p.id),
	);
	assert.ok(pairs.slice(2).every((p) => count.get(p.id) === 1));
	assert.equal(pairsOf(pairs, assignment, 'dee'), null);
	assert.equal(pairsOf(pairs, { kind: 'all' }, 'dee')!.length, 11);
});

const at = '2024-01-01T00:00:00.000Z';
const verdict = (
	annotator: string,
	pair: string,
	choices: Partial<Record<Criterion, Choice>>,
): CompareRecord => ({
	kind: 'verdict',
	at,
	annotator,
	origin: 'human',
	pair,
	choices,
});

test("an undo takes back that annotator's latest answer or note, and nothing of another's", () => {
	const records: CompareRecord[] = [
		verdict('ann', 'p1', { overall: 'x' }),
		verdict('bo', 'p1', { overall: 'y' }),
		verdict('ann', 'p1', { overall: 'tie' }),
		{ kind: 'note', at, annotator: 'ann', pair: 'p1', note: 'close call' },
		{ kind: 'undo', at, annotator: 'ann' },
		{ kind: 'undo', at, annotator: 'ann' },
		verdict('ann', 'p1', { detail: 'y' }),
	];
	const j = judgmentsOf(records);
	assert.deepEqual(j.get('ann')!.get('p1'), {
		choices: { overall: 'x', detail: 'y' },
		note: null,
		origin: 'human',
	});
	assert.deepEqual(j.get('bo')!.get('p1')!.choices, { overall: 'y' });
});

/** Every criterion of `pair` answered `choice` by `annotator`. */
const all = (annotator: string, pair: string, choice: Choice) =>
	verdict(annotator, pair, { overall: choice, detail: choice, structure: choice, logic: choice });

function wilsonByHand(k: number, n: number): [number, number] {
	const z = 1.959963984540054;
	const p = k / n;
	const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
	const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
	return [k === 0 ? 0 : centre - half, k === n ? 1 : centre + half];
}

test('Table 4 by hand: shares per side and ties with Wilson intervals over few pairs, a bootstrap over many, and agreement where pairs overlap', () => {
	const contenders = books(5);
	const pairs = makePairs(contenders, 1);
	// ann prefers x on 3, y on 1, a tie on 1; bo judged the first two the same and the third otherwise.
	const annSays: Choice[] = ['x', 'x', 'x', 'y', 'tie'];
	const records = [
		...pairs.map((p, i) => all('ann', p.id, annSays[i]!)),
		all('bo', pairs[0]!.id, 'x'),
		all('bo', pairs[1]!.id, 'x'),
		all('bo', pairs[2]!.id, 'y'),
	];
	const results = preferenceResults({
		contenders,
		pairs,
		records,
		scores: new Map(),
		seed: 1,
		resamples: 200,
	});
	assert.equal(results.groups.length, 1);
	const group = results.groups[0]!;
	assert.deepEqual(group.systems, ['incremental · openai/gpt-4o', 'hierarchical · openai/gpt-4o']);
	const ann = group.annotators.find((t) => t.annotator === 'ann')!.criteria[0]!;
	assert.deepEqual([ann.x.count, ann.y.count, ann.tie.count, ann.judgments, ann.pairs], [3, 1, 1, 5, 5]);
	assert.equal(ann.x.estimate, 3 / 5);
	assert.equal(ann.x.method, 'wilson');
	assert.deepEqual(ann.x.over, { unit: 'pairs', n: 5 });
	const [low, high] = wilsonByHand(3, 5);
	assert.ok(Math.abs(ann.x.low! - low) < 1e-9 && Math.abs(ann.x.high! - high) < 1e-9);
	// Pooled: eight judgments of five pairs; the interval over the judgments, and says the pairs are too few.
	const pooled = group.people!.criteria[0]!;
	assert.deepEqual(
		[pooled.x.count, pooled.y.count, pooled.tie.count, pooled.judgments, pooled.pairs],
		[5, 2, 1, 8, 5],
	);
	assert.deepEqual(pooled.x.over, { unit: 'judgments', n: 8 });
	assert.deepEqual(pooled.x.tooFew, { unit: 'pairs', n: 5 });
	// Agreement on the three pairs both judged: 2 of 3; κ = (2/3 − p_e) / (1 − p_e), p_e = (3/3·2/3) + (0·1/3).
	const agreement = results.agreement[0]!.pairs[0]!;
	assert.equal(agreement.n, 3);
	assert.equal(agreement.percent, 2 / 3);
	const pe = 1 * (2 / 3);
	assert.ok(Math.abs(agreement.kappa! - (2 / 3 - pe) / (1 - pe)) < 1e-12);
	assert.deepEqual(results.progress.get('ann'), { judged: 5, assigned: null, origin: 'human' });

	// Twelve pairs: a percentile bootstrap over pairs.
	const more = books(12);
	const morePairs = makePairs(more, 2);
	const many = preferenceResults({
		contenders: more,
		pairs: morePairs,
		records: morePairs.map((p, i) => all('ann', p.id, i % 3 === 0 ? 'y' : 'x')),
		scores: new Map(),
		seed: 1,
		resamples: 500,
	});
	const x = many.groups[0]!.people!.criteria[0]!.x;
	assert.equal(x.method, 'bootstrap');
	assert.equal(x.estimate, 8 / 12);
	assert.ok(x.low! < 8 / 12 && x.high! > 8 / 12 && x.low! >= 0 && x.high! <= 1);
});

test('the correlation of preference with the BooookScore difference is Spearman ρ on midranks, with a Fisher-z interval', () => {
	const contenders = books(6);
	const pairs = makePairs(contenders, 4);
	const prefs: Choice[] = ['x', 'y', 'tie', 'x', 'x', 'y'];
	const scores = new Map(
		contenders.map((c, i) => [c.key, [40, 70, 55, 52, 90, 61, 33, 80, 45, 45, 71, 64][i]!]),
	);
	const results = preferenceResults({
		contenders,
		pairs,
		records: pairs.map((p, i) => all('ann', p.id, prefs[i]!)),
		scores,
		seed: 1,
		resamples: 10,
	});
	const pref = prefs.map((c) => (c === 'x' ? 1 : c === 'y' ? -1 : 0));
	const diff = pairs.map((p) => scores.get(p.x)! - scores.get(p.y)!);
	const rank = (v: number[]) =>
		v.map((x) => v.filter((y) => y < x).length + (v.filter((y) => y === x).length + 1) / 2);
	const [rx, ry] = [rank(pref), rank(diff)];
	const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
	const [mx, my] = [mean(rx), mean(ry)];
	const cov = rx.reduce((s, x, i) => s + (x - mx) * (ry[i]! - my), 0);
	const rho =
		cov / Math.sqrt(rx.reduce((s, x) => s + (x - mx) ** 2, 0) * ry.reduce((s, y) => s + (y - my) ** 2, 0));
	const got = results.correlation.people[0]!;
	assert.equal(got.n, 6);
	assert.ok(Math.abs(got.rho! - rho) < 1e-12);
	const half = 1.959963984540054 * Math.sqrt((1 + (rho * rho) / 2) / 3);
	assert.ok(Math.abs(got.low! - Math.tanh(Math.atanh(rho) - half)) < 1e-9);
	assert.ok(Math.abs(got.high! - Math.tanh(Math.atanh(rho) + half)) < 1e-9);
	assert.equal(results.unscored, 0);

	assert.equal(rankCorrelation('overall', [1, 0], [3, 4]).rho, null, 'two pairs are too few');
	assert.equal(
		rankCorrelation('overall', [1, 1, 1, 1], [3, 4, 5, 6]).method,
		'none',
		'one answer everywhere has no rank',
	);
	const perfect = rankCorrelation('overall', [1, 2, 3, 4], [3, 4, 5, 6]);
	assert.equal(perfect.rho, 1);
	assert.equal(perfect.low, null);
});

function definition(): ComparisonDefinition {
	const contenders = books(2);
	return {
		schema: 1,
		name: 'two',
		createdAt: at,
		seed: 1,
		study: null,
		assignment: { kind: 'all' },
		contenders,
		pairs: makePairs(contenders, 1),
	};
}

test('stored judgments survive a line a kill cut short (it is cut off before the next), refuse a damaged one, and the session list passes the folder over', async (t) => {
	const dir = tempDir('compare-store', t);
	const store = await ComparisonStore.create(dir, definition());
	await store.record(verdict('ann', 'p1', { overall: 'x' }));
	await store.close();
	const file = join(dir, 'two.compare', 'judgments.jsonl');
	await appendFile(file, '{"kind":"verdict","at":"2024');
	const again = await ComparisonStore.open(dir, 'two');
	assert.equal(again.records.length, 1);
	await again.record(verdict('ann', 'p2', { overall: 'y' }));
	await again.close();
	const lines = (await readFile(file, 'utf8')).trim().split('\n');
	assert.deepEqual(
		lines.map((l) => JSON.parse(l).pair),
		['p1', 'p2'],
	);
	assert.equal((await ComparisonStore.peek(dir, 'two'))!.records.length, 2);
	await writeFile(file, `not json\n${lines[1]}\n`);
	await assert.rejects(ComparisonStore.open(dir, 'two'), /line 1 of judgments.jsonl is damaged/u);
	assert.equal(await readFile(file, 'utf8'), `not json\n${lines[1]}\n`, 'left unchanged');
	const listed = await readSessions(dir);
	assert.deepEqual(listed, { sessions: [], problems: [] });
	await assert.rejects(ComparisonStore.create(dir, definition()), /already exists/u);
});

function world(answers: Record<number, Partial<Record<Criterion, Shown>>> = {}, pairs = 3): CompareWorld {
	return {
		pairs,
		answers: new Map(Object.entries(answers).map(([k, v]) => [Number(k), v])),
		notes: new Map(),
		latest: null,
		page: 10,
	};
}

const key = (
	action: Parameters<typeof update>[1] extends infer M ? (M extends { action: infer A } ? A : never) : never,
	input = '',
) => ({ type: 'key', action, press: { input } }) as const;

test('the screen: an answer saves and moves to the next open criterion; the fourth stays on the pair; the same answer again saves nothing; undo goes back', () => {
	let state: CompareState = init(0, world());
	let step = update(state, key('preferSecond', 'b'), world());
	assert.deepEqual(step.effects[0], {
		kind: 'choose',
		pair: 0,
		criterion: 'overall',
		choice: 'second',
		done: 'saved: overall preference B',
	});
	assert.equal(step.state.criterion, 1);
	state = { ...step.state, criterion: 3 };
	const three = { 0: { overall: 'second', detail: 'first', structure: 'tie' } as const };
	step = update(state, key('tie', 't'), world(three));
	assert.match((step.effects[0] as { done: string }).done, /pair judged/u);
	assert.equal(step.state.index, 0, 'a judged pair stays, so who made it can be read');
	step = update(step.state, key('nextUnjudged', 'n'), world({ 0: { ...three[0], logic: 'tie' } }));
	assert.equal(step.state.index, 1);
	step = update({ ...state, criterion: 0 }, key('preferSecond', 'b'), world(three));
	assert.deepEqual(step.effects, []);
	assert.match(step.state.message!, /unchanged/u);
	step = update(init(2, world()), key('undo', 'u'), { ...world(three), latest: { pair: 0, criterion: 2 } });
	assert.deepEqual(step.effects, [{ kind: 'undo' }]);
	assert.deepEqual([step.state.index, step.state.criterion], [0, 2]);
});

test('a run named NAME.compare is refused before anything is made: the session list would take its folder for a comparison and hide it', async (t) => {
	const dir = tempDir('compare-id', t);
	const book = await bookFile(dir);
	const sessions = join(dir, 'sessions');
	const run = await booook([
		...['run', book, '--provider', 'extractive', '--headless'],
		...['--session', 'mill.compare', '--sessions-dir', sessions],
	]);
	assert.equal(run.code, 2, run.stderr);
	assert.match(
		run.stderr,
		/^booook: "mill\.compare" is not a valid session id: .*choose an id that does not end in \.compare\n$/u,
	);
	assert.deepEqual(await readdir(sessions).catch(() => []), [], 'no folder made');
});
