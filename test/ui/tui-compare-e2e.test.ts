import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pairsOf, type Assignment, type Pair } from '../../source/score/compare.ts';
import { BIN, booook } from '../support/cli.ts';
import { annotatingReply, startFakeApi } from '../support/fake-api.ts';
import { FRANKENSTEIN, PRIDE_AND_PREJUDICE } from '../support/repo-data.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal, type Terminal } from '../support/tmux.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The paper's second human study run through the real terminal: two annotators compare, blind,
 * pairs of summaries of the repository's books (three runs each of two books: incremental and
 * hierarchical, and a second incremental one), the pairs split between them with two judged by
 * both. The first is killed with SIGKILL halfway through a pair and comes back to it; the stored
 * judgments, the shown order, what each screen named before its verdict, the Table 4 shares with
 * their intervals, the agreement and the correlation with BooookScore are checked against what
 * was typed, computed here by hand.
 */

const ENV = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };
const RUNS = [
	{ book: FRANKENSTEIN, id: 'fr-inc', method: 'inc', chunk: '4096' },
	{ book: FRANKENSTEIN, id: 'fr-hier', method: 'hier', chunk: '4096' },
	{ book: FRANKENSTEIN, id: 'fr-inc2', method: 'inc', chunk: '2048' },
	{ book: PRIDE_AND_PREJUDICE, id: 'pp-inc', method: 'inc', chunk: '4096' },
	{ book: PRIDE_AND_PREJUDICE, id: 'pp-hier', method: 'hier', chunk: '4096' },
	{ book: PRIDE_AND_PREJUDICE, id: 'pp-inc2', method: 'inc', chunk: '2048' },
];
const CRITERIA = ['overall', 'detail', 'structure', 'logic'] as const;
type Criterion = (typeof CRITERIA)[number];
type Shown = 'a' | 'b' | 't';

/** What each annotator types on their k-th pair: one key per criterion, in order. */
const TYPED: Record<string, Shown[][]> = {
	alice: [
		['a', 'b', 't', 'a'],
		['b', 'b', 'a', 't'],
		['a', 'a', 'b', 'b'],
		['t', 'b', 'b', 'a'],
	],
	bob: [
		['a', 'a', 't', 'a'],
		['b', 'a', 'a', 'b'],
		['b', 'b', 'b', 't'],
		['a', 't', 'a', 'a'],
	],
};

/** Words that would tell an annotator who made a summary. */
const TELLING = [
	/incremental/iu,
	/hierarchical/iu,
	/textrank/iu,
	/extractive/iu,
	...RUNS.map((r) => new RegExp(r.id, 'u')),
];

interface Contender {
	key: string;
	session: string;
	method: string;
	booookscore: number | null;
}

async function setup(sessions: string): Promise<void> {
	for (const r of RUNS) {
		const made = await booook([
			'run',
			r.book,
			'--provider',
			'extractive',
			'--method',
			r.method,
			'--chunk-size',
			r.chunk,
			'--headless',
			'--session',
			r.id,
			'--sessions-dir',
			sessions,
		]);
		assert.equal(made.code, 0, made.stderr);
	}
	const api = await startFakeApi({ respond: annotatingReply });
	try {
		for (const r of RUNS) {
			const scored = await booook(
				[
					'score',
					r.id,
					'--provider',
					'openai',
					'--model',
					'gpt-4o-mini',
					'--base-url',
					api.openaiBaseUrl,
					'--json',
					'--sessions-dir',
					sessions,
				],
				{ env: ENV },
			);
			assert.equal(scored.code, 0, scored.stderr);
		}
	} finally {
		await api.close();
	}
}

function open(
	name: string,
	sessions: string,
	annotator: string,
	columns: number,
	sources: string[] = [],
): Promise<Terminal> {
	const args = sources.length > 0 ? ['--annotators', 'alice,bob', '--overlap', '2'] : [];
	return terminal(
		name,
		shellLine([
			process.execPath,
			BIN,
			'compare',
			...sources,
			'--name',
			'paper',
			...args,
			'--annotator',
			annotator,
			'--sessions-dir',
			sessions,
		]),
		{ columns, rows: 34 },
	);
}

/** The text of pane `label` (A or B) as shown, one above the other: its lines up to the other's label or the rule. */
function paneText(screen: string, label: 'A' | 'B'): string {
	const lines = screen.split('\n');
	const from = lines.indexOf(label);
	assert.notEqual(from, -1, `no pane ${label} on the screen:\n${screen}`);
	const out: string[] = [];
	for (const line of lines.slice(from + 1)) {
		if (line === 'A' || line === 'B' || line.startsWith('───')) break;
		out.push(line.trim());
	}
	return out.join(' ');
}

/** The two panes side by side: the left and right halves of the rows between the header and the rule. */
function sidePanes(screen: string): { A: string; B: string } {
	const lines = screen.split('\n');
	const head = lines.findIndex((l) => /^A\s+│ B$/u.test(l.trimEnd()));
	assert.notEqual(head, -1, `the panes are not side by side:\n${screen}`);
	const A: string[] = [];
	const B: string[] = [];
	for (const line of lines.slice(head + 1)) {
		if (line.startsWith('───')) break;
		const [left, right] = line.split(' │ ');
		A.push(left!.trim());
		B.push((right ?? '').trim());
	}
	return { A: A.filter((l) => l !== '').join(' '), B: B.filter((l) => l !== '').join(' ') };
}

const flat = (text: string) => text.replace(/\s+/gu, ' ').trim();

/** Which contender a pane shows: the one whose text starts with it (and only one does). */
function shownContender(shown: string, texts: ReadonlyMap<string, string>, pair: Pair): 'x' | 'y' {
	const x = flat(texts.get(pair.x)!).startsWith(shown);
	const y = flat(texts.get(pair.y)!).startsWith(shown);
	assert.ok(x !== y, `the pane is neither or both of the pair's summaries: ${shown.slice(0, 80)}…`);
	return x ? 'x' : 'y';
}

/** Judges `pairs[from..]` as TYPED says, checking each screen before its verdict names no one; `stop`: kill after two answers of that pair. */
async function judge(
	term: Terminal,
	annotator: string,
	pairs: readonly Pair[],
	texts: ReadonlyMap<string, string>,
	shownFirst: Map<string, 'x' | 'y'>,
	from: number,
	opts: { sideBySide: boolean; stopAt?: number; resumedAfter?: number },
): Promise<void> {
	for (let k = from; k < pairs.length; k++) {
		const pair = pairs[k]!;
		const screen = await term.waitFor(
			`pair ${k + 1}`,
			(s) => s.includes(`pair ${k + 1}/${pairs.length}`) && !/^A was /mu.test(s),
		);
		for (const word of TELLING)
			assert.doesNotMatch(screen, word, `pair ${k + 1} before its verdict names who made it:\n${screen}`);
		const panes = opts.sideBySide
			? sidePanes(screen)
			: { A: paneText(screen, 'A'), B: paneText(screen, 'B') };
		const a = shownContender(panes.A, texts, pair);
		assert.equal(shownContender(panes.B, texts, pair), a === 'x' ? 'y' : 'x');
		const seen = shownFirst.get(pair.id);
		if (seen) assert.equal(a, seen, `pair ${pair.id} is shown in another order to ${annotator} than before`);
		shownFirst.set(pair.id, a);
		const keys = TYPED[annotator]![k]!;
		const skip = k === from && opts.resumedAfter !== undefined ? opts.resumedAfter : 0;
		for (let c = skip; c < CRITERIA.length; c++) {
			if (k === opts.stopAt && c === 2) return;
			// Answers after a kill: the ones saved before it are on the screen already.
			term.keys(keys[c]!);
			await term.waitFor(
				`answer ${c + 1} of pair ${k + 1}`,
				(s) => s.includes(`saved: `) && answeredCount(s) === c + 1,
			);
		}
		const judged = await term.waitFor(
			`pair ${k + 1} revealed`,
			(s) => /^A was /mu.test(s) && /^B was /mu.test(s),
		);
		assert.match(judged, /session (fr|pp)-/u, 'a judged pair names its sessions');
		if (k < pairs.length - 1) term.keys('n');
	}
}

/** Criteria answered on the screen: their rows end in A, B or tie. */
function answeredCount(screen: string): number {
	const rows = [
		'overall preference',
		'level of detail',
		'structure and pacing',
		'logic and understandability',
	];
	return rows.filter((name) => new RegExp(`${name}\\s+(A|B|tie)\\s*$`, 'mu').test(screen)).length;
}

/** The app's process over `sessions`: node itself (`env` became it), not the shell that started it. */
function appPid(sessions: string): number {
	const pattern = `compare .*--sessions-dir ${sessions.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}`;
	const out = execFileSync('pgrep', ['-a', '-f', pattern], { encoding: 'utf8' });
	const pids = out
		.trim()
		.split('\n')
		.filter((line) => line.split(' ')[1] === process.execPath)
		.map((line) => Number(line.split(' ')[0]));
	assert.equal(pids.length, 1, `one app process, not ${pids.length}:\n${out}`);
	return pids[0]!;
}

function wilson(k: number, n: number): [number, number] {
	const z = 1.959963984540054;
	const p = k / n;
	const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
	const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
	return [k === 0 ? 0 : centre - half, k === n ? 1 : centre + half];
}

function midranks(v: readonly number[]): number[] {
	return v.map((x) => {
		const below = v.filter((y) => y < x).length;
		const same = v.filter((y) => y === x).length;
		return below + (same + 1) / 2;
	});
}

function pearson(a: readonly number[], b: readonly number[]): number {
	const ma = a.reduce((s, x) => s + x, 0) / a.length;
	const mb = b.reduce((s, x) => s + x, 0) / b.length;
	let num = 0;
	let da = 0;
	let db = 0;
	for (let i = 0; i < a.length; i++) {
		num += (a[i]! - ma) * (b[i]! - mb);
		da += (a[i]! - ma) ** 2;
		db += (b[i]! - mb) ** 2;
	}
	return num / Math.sqrt(da * db);
}

const round2 = (x: number) => Math.round(x * 10_000) / 100;

test(
	'two annotators compare summaries of the repository books blind in the terminal, one killed midway and resumed; Table 4 and the correlation are as computed by hand',
	{ skip: noTmux, timeout: 400_000 },
	inTerminal(async (t) => {
		const sessions = tempDir('compare-e2e', t);
		await setup(sessions);

		// Alice makes the comparison, the pairs split between her and Bob with two shared.
		const first = await open(
			'compare-alice',
			sessions,
			'alice',
			100,
			RUNS.map((r) => r.id),
		);
		let definition: {
			pairs: Pair[];
			assignment: Assignment;
			contenders: { key: string; text: string; session: string }[];
		};
		try {
			await first.waitFor('the first pair', (s) => /pair 1\/\d+/u.test(s));
			definition = JSON.parse(await readFile(join(sessions, 'paper.compare', 'comparison.json'), 'utf8'));
			assert.equal(definition.pairs.length, 6, 'three pairs of each book');
			const firsts = new Set(definition.pairs.map((p) => p.first));
			assert.equal(firsts.size, 2, 'the shown order is drawn per pair, not one for all');
			const texts = new Map(definition.contenders.map((c) => [c.key, c.text]));
			const alicePairs = pairsOf(definition.pairs, definition.assignment, 'alice')!;
			assert.equal(alicePairs.length, 4);
			const shown = new Map<string, 'x' | 'y'>();
			await judge(first, 'alice', alicePairs, texts, shown, 0, { sideBySide: false, stopAt: 1 });
			const lines = async () =>
				(await readFile(join(sessions, 'paper.compare', 'judgments.jsonl'), 'utf8')).trim().split('\n')
					.length;
			// Six answers on the disk (a pair and two criteria of the next): then the process is killed.
			await waitFor('six answers on the disk', async () => (await lines()) === 6, { ms: 30_000 });
			process.kill(appPid(sessions), 'SIGKILL');
			await first.waitFor('the app killed', (s) => /EXIT=137/u.test(s));
			first.close();

			const again = await open('compare-alice-2', sessions, 'alice', 100);
			try {
				const screen = await again.waitFor('the half-judged pair', (s) => /pair 2\/4/u.test(s));
				assert.equal(answeredCount(screen), 2, `the two answers saved before the kill are shown:\n${screen}`);
				assert.match(screen, /▸ structure and pacing/u, 'the cursor is on the first criterion not answered');
				await judge(again, 'alice', alicePairs, texts, shown, 1, { sideBySide: false, resumedAfter: 2 });
				again.keys('q');
				const end = await again.waitFor('alice done', (s) => /EXIT=0/u.test(s));
				assert.match(end, /alice: 4\/4 pairs judged/u);
			} finally {
				again.close();
			}

			// Bob, on a wide terminal: the summaries side by side.
			const bob = await open('compare-bob', sessions, 'bob', 130);
			try {
				const bobPairs = pairsOf(definition.pairs, definition.assignment, 'bob')!;
				await judge(bob, 'bob', bobPairs, texts, shown, 0, { sideBySide: true });
				bob.keys('q');
				await bob.waitFor('bob done', (s) => /EXIT=0/u.test(s));
			} finally {
				bob.close();
			}
			for (const p of definition.pairs)
				if (shown.has(p.id))
					assert.equal(shown.get(p.id), p.first, `pair ${p.id} shows its stored first summary as A`);
		} finally {
			first.close();
		}

		const printed = await booook(['compare', '--name', 'paper', '--json', '--sessions-dir', sessions]);
		assert.equal(printed.code, 0, printed.stderr);
		const results = JSON.parse(printed.stdout);

		// The stored judgments: what was typed, each key turned into the pair's own side by the order shown.
		const expected = new Map<string, Record<Criterion, 'x' | 'y' | 'tie'>>();
		for (const who of ['alice', 'bob']) {
			pairsOf(definition!.pairs, definition!.assignment, who)!.forEach((p, k) => {
				const choices = Object.fromEntries(
					CRITERIA.map((c, i) => {
						const key = TYPED[who]![k]![i]!;
						const side = key === 't' ? 'tie' : (key === 'a') === (p.first === 'x') ? 'x' : 'y';
						return [c, side];
					}),
				) as Record<Criterion, 'x' | 'y' | 'tie'>;
				expected.set(`${who}:${p.id}`, choices);
			});
		}
		assert.equal(results.judgments.length, expected.size);
		for (const j of results.judgments)
			assert.deepEqual(j.choices, expected.get(`${j.annotator}:${j.pair}`), `${j.annotator} on ${j.pair}`);

		// Table 4 for incremental against hierarchical, the people pooled, by hand.
		const contenders = new Map<string, Contender>(results.contenders.map((c: Contender) => [c.key, c]));
		const incHier = definition!.pairs.filter(
			(p) => contenders.get(p.x)!.method === 'inc' && contenders.get(p.y)!.method === 'hier',
		);
		const group = results.groups.find(
			(g: { sides: string[] }) => g.sides[0] === 'incremental' && g.sides[1] === 'hierarchical',
		);
		assert.ok(group, 'a group of incremental against hierarchical');
		assert.equal(group.pairs, incHier.length);
		for (const c of CRITERIA) {
			const answers = [...expected]
				.filter(([k]) => incHier.some((p) => k.endsWith(`:${p.id}`)))
				.map(([, v]) => v[c]);
			const row = group.people.criteria[c];
			assert.equal(row.judgments, answers.length);
			for (const side of ['x', 'y', 'tie'] as const) {
				const k = answers.filter((a) => a === side).length;
				assert.equal(row[side].count, k, `${c} ${side}`);
				assert.equal(row[side].percent, round2(k / answers.length));
				// Under ten pairs: Wilson's interval over the judgments.
				assert.equal(row[side].interval.method, 'wilson');
				const [low, high] = wilson(k, answers.length);
				assert.equal(row[side].interval.low, round2(low), `${c} ${side} low`);
				assert.equal(row[side].interval.high, round2(high), `${c} ${side} high`);
			}
		}

		// Agreement on the two pairs both judged.
		const shared = definition!.pairs.slice(0, 2);
		for (const c of CRITERIA) {
			const a = shared.map((p) => expected.get(`alice:${p.id}`)![c]);
			const b = shared.map((p) => expected.get(`bob:${p.id}`)![c]);
			const same = a.filter((x, i) => x === b[i]).length;
			const entry = results.agreement[c].pairs.find(
				(p: { annotators: string[] }) => p.annotators.join() === 'alice,bob',
			);
			assert.equal(entry.n, 2);
			assert.equal(entry.percent, round2(same / 2));
		}

		// Preference against the BooookScore difference, the people pooled (a pair's mean), by hand.
		for (const c of CRITERIA) {
			const prefs: number[] = [];
			const diffs: number[] = [];
			for (const p of definition!.pairs) {
				const values = ['alice', 'bob'].flatMap((who) => {
					const v = expected.get(`${who}:${p.id}`)?.[c];
					return v === undefined ? [] : [v === 'x' ? 1 : v === 'y' ? -1 : 0];
				});
				const sx = contenders.get(p.x)!.booookscore;
				const sy = contenders.get(p.y)!.booookscore;
				assert.equal(typeof sx, 'number', 'every summary was scored');
				prefs.push(values.reduce((s, v) => s + v, 0) / values.length);
				diffs.push(sx! - sy!);
			}
			const rho = pearson(midranks(prefs), midranks(diffs));
			const got = results.correlation.people[c];
			assert.equal(got.n, 6);
			assert.ok(Math.abs(got.rho - rho) < 1e-12, `${c}: ρ ${got.rho}, by hand ${rho}`);
			const half = 1.959963984540054 * Math.sqrt((1 + (rho * rho) / 2) / (6 - 3));
			assert.ok(Math.abs(got.low - Math.tanh(Math.atanh(rho) - half)) < 1e-9, `${c} low`);
			assert.ok(Math.abs(got.high - Math.tanh(Math.atanh(rho) + half)) < 1e-9, `${c} high`);
		}

		// The same results in `report`, as text.
		const report = await booook(['report', 'paper.compare', '--sessions-dir', sessions]);
		assert.equal(report.code, 0, report.stderr);
		assert.match(report.stdout, /incremental\s+hierarchical\s+tie/u);
		assert.match(report.stdout, /logic and understandability/u);
	}),
);
