import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Node, NodeRef, Run } from '../../source/domain.ts';
import { forgettingOf } from '../../source/app/forgetting.ts';
import { drawForgetting } from '../../source/format/forgetting-chart.ts';
import { citedChunks } from '../../source/evidence/coverage.ts';
import { nodeEvidence } from '../../source/evidence/evidence.ts';
import { forgettingFrom, forgettingMap } from '../../source/evidence/forgetting.ts';
import { sentenceKey } from '../../source/evidence/provenance.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { UserError } from '../../source/errors.ts';
import { Session, type BookSessionData } from '../../source/store/session.ts';
import { activeVersion, getNode } from '../../source/summarize/graph.ts';
import { stepSummaries } from '../../source/summarize/inc.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { chunkedBook, done, treeRun } from '../support/trees.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/**
 * A story in five chunks, each with its own people, places and things, and an incremental run whose
 * running summaries reword it (nothing is copied from the book) and drop what they tell at known
 * steps (counted from 0): Pieter's lessons (chunk 0) and the flood (chunk 1) at step 3, where the
 * loan (chunk 1 too) stays, then the loan and the contest's start (chunk 2) at step 4.
 */
const { book: BOOK, chunks: CHUNKS } = chunkedBook([
	'Marta opened a bakery on Linden Street. Her sourdough loaves sold out every morning. The old baker Pieter taught her to fold the dough.\n',
	'A storm flooded the cellar under the shop. The flour sacks were ruined by the muddy water. Marta borrowed money from her cousin Ansel.\n',
	'Ansel demanded the loan back within a month. He threatened to take the ovens. Marta entered a baking contest in the capital.\n',
	'At the contest the judges tasted her rye bread with caraway. A famous chef named Odile praised the crust. Marta won the silver ribbon.\n',
	'The prize money paid off the debt to Ansel. Pieter retired and gave Marta his recipe book. The shop reopened with a new sign.\n',
]);
const index = new PassageIndex(BOOK, CHUNKS);

/** `node` as a node of incremental step `step`; `overBudget`: its text was too long and was compressed. */
function atStep(step: number, node: Node, overBudget = false): Node {
	const versions = node.versions.map((v) => ({ ...v, overBudget }));
	return { ...node, meta: { step }, versions };
}

const LESSONS = 'Marta starts a bakery on Linden Street, where old Pieter shows her how to fold sourdough.';
const FLOOD = 'A storm fills the cellar with muddy water and spoils the flour sacks.';
const LOAN = 'Marta borrows from her cousin Ansel.';
const CONTEST =
	'Ansel wants his loan repaid within a month or he will seize the ovens, so Marta enters a contest.';
const WIN =
	'Judges taste her caraway rye, the chef Odile praises the crust, and Marta wins the silver ribbon.';
const PAID =
	'The prize pays off Ansel, Pieter retires and hands Marta his recipe book, and the shop reopens.';

const NODES: Node[] = [
	atStep(0, done('n0', 'summarize', ['c0'], LESSONS, null, 'model')),
	atStep(1, done('n1', 'update', ['c1', 'n0'], [LESSONS, FLOOD, LOAN].join(' '), null, 'model')),
	atStep(2, done('n2', 'update', ['c2', 'n1'], [LESSONS, FLOOD, LOAN, CONTEST].join(' '), null, 'model')),
	// Step 3's first update came out too long: the summary so far was compressed and the update made again.
	atStep(
		3,
		done('n3', 'update', ['c3', 'n2'], [LESSONS, FLOOD, LOAN, CONTEST, WIN].join(' '), null, 'model'),
		true,
	),
	atStep(3, done('n4', 'compress', ['n2'], `${LOAN} ${CONTEST}`, null, 'model')),
	atStep(3, done('n5', 'update', ['c3', 'n4'], [LOAN, CONTEST, WIN].join(' '), null, 'model')),
	atStep(4, done('n6', 'update', ['c4', 'n5'], `${WIN} ${PAID}`, null, 'model')),
];
const RUN = treeRun('inc', CHUNKS, NODES);

test('the running summary after each step is the node the step settled on, through compressions, and only steps that are done', () => {
	assert.deepEqual(stepSummaries(RUN), [
		{ step: 0, node: 'n0' },
		{ step: 1, node: 'n1' },
		{ step: 2, node: 'n2' },
		{ step: 3, node: 'n5' },
		{ step: 4, node: 'n6' },
	]);
	// Cut after the overlong update, and after its compression: step 3 is not done either way.
	const upTo = (last: number): Run => ({
		...RUN,
		nodes: NODES.slice(0, last),
		root: null,
		status: 'running',
	});
	assert.deepEqual(
		stepSummaries(upTo(4)).map((s) => s.step),
		[0, 1, 2],
	);
	assert.deepEqual(
		stepSummaries(upTo(5)).map((s) => s.step),
		[0, 1, 2],
	);
	// A step whose node is still running is not done.
	const running = { ...NODES[1]!, status: 'running' as const, versions: [], active: null };
	assert.deepEqual(stepSummaries({ ...upTo(2), nodes: [NODES[0]!, running] }), [{ step: 0, node: 'n0' }]);
});

test('the forgetting map cites, at each step, exactly the chunks the running summary still tells, and how long each chunk survived', () => {
	const map = forgettingMap(RUN, index);
	assert.equal(map.chunks, 5);
	assert.deepEqual(
		map.steps.map((s) => [s.step, s.node, s.sentences, s.cites]),
		[
			[0, 'n0', 1, [1]],
			[1, 'n1', 3, [1, 2]],
			[2, 'n2', 4, [1, 2, 1]],
			[3, 'n5', 3, [0, 1, 1, 1]],
			[4, 'n6', 2, [0, 0, 0, 1, 1]],
		],
	);
	assert.deepEqual(
		map.steps.map((s) => [s.cited, s.share]),
		[
			[1, 1],
			[2, 1],
			[3, 1],
			[3, 3 / 4],
			[2, 2 / 5],
		],
	);
	assert.deepEqual(
		map.survival.map((c) => [c.chunk, c.lastCited, c.survived]),
		[
			[0, 2, 2],
			[1, 3, 2],
			[2, 3, 1],
			[3, 4, 1],
			[4, 4, 0],
		],
	);
});

test('a chunk never cited has no survival, and a run cut short maps only its done steps', () => {
	const map = forgettingFrom(4, [
		{ step: 0, node: 'n0', cited: [null] },
		{ step: 1, node: 'n1', cited: [0, 0, null] },
	]);
	assert.deepEqual(
		map.steps.map((s) => [s.sentences, s.cites, s.share]),
		[
			[1, [0], 0],
			[3, [2, 0], 1 / 2],
		],
	);
	assert.deepEqual(map.survival, [
		{ chunk: 0, lastCited: 1, survived: 1 },
		{ chunk: 1, lastCited: null, survived: null },
	]);
});

/** The grid part of a drawn row (after its step label and the space). */
const grid = (line: string, label: number) => line.slice(label + 1);

test('the drawing: a row per step, blank right of the diagonal, a light mark where no longer cited, darker by sentences', () => {
	const map = forgettingMap(RUN, index);
	const lines = drawForgetting(map, { width: 60, height: 12 });
	// Five chunks in 55 columns: each chunk two characters wide.
	assert.deepEqual(lines.slice(0, 6), [
		'step 1 2 3 4 5',
		'   1 ░░',
		'   2 ░░▒▒',
		'   3 ░░▒▒░░',
		'   4 ··░░░░░░',
		'   5 ······░░░░',
	]);
	assert.equal(lines.length, 7);
	assert.match(lines[6]!, /^· read, no longer cited; ░▒▓█ cited by 1, 2, 3, 4\+ sentences$/u);
});

/** A long run: at step s the summary cites chunk 0 (three sentences), chunk s, and chunk s - 10 while s is under 50. */
const LONG = forgettingFrom(
	120,
	Array.from({ length: 100 }, (_, s) => ({
		step: s,
		node: `n${s}` as NodeRef,
		cited: [0, 0, 0, s, ...(s >= 10 && s < 50 ? [s - 10] : [])],
	})),
);

test('bucketed: the drawing fits every size asked for, and a shared cell is blank only where none of its chunks was read', () => {
	for (const width of [7, 9, 20, 33, 60, 80, 200])
		for (const height of [3, 4, 10, 25, 60, 150]) {
			const lines = drawForgetting(LONG, { width, height });
			assert.ok(lines.length <= height, `${width}×${height}: ${lines.length} lines`);
			for (const line of lines) assert.ok(line.length <= width, `${width}×${height}: "${line}"`);
		}
	const lines = drawForgetting(LONG, { width: 35, height: 12 });
	assert.equal(lines.length, 12);
	const rows = lines.slice(1, -1).map((l) => grid(l, 4).padEnd(30));
	// 100 steps in 10 rows of 10; 120 chunks in 30 columns of 4.
	assert.deepEqual(
		lines.slice(1, -1).map((l) => l.slice(0, 4)),
		['   1', '  11', '  21', '  31', '  41', '  51', '  61', '  71', '  81', '  91'],
	);
	rows.forEach((row, r) => {
		const lastStep = r * 10 + 9;
		for (let col = 0; col < 30; col++) {
			const read = col * 4 <= lastStep;
			assert.equal(row[col] === ' ', !read, `row ${r} column ${col}: "${row[col]}"`);
		}
		// Chunk 0, cited by three sentences at every step, averaged with its column's other chunks.
		assert.notEqual(row[0], '·');
	});
	// Chunks 40 to 99 are cited at their own step only: read, no longer cited at the last row.
	assert.match(rows[9]!.slice(10, 22), /^·+$/u);
	assert.match(drawForgetting(LONG, { width: 120, height: 12 }).at(-1)!, /up to 10 steps × 2 chunks$/u);
	assert.match(drawForgetting(LONG, { width: 140, height: 12 }).at(-1)!, /up to 10 steps × 1 chunk$/u);
	assert.throws(() => drawForgetting(LONG, { width: 80, height: 2 }), /height of at least 3/u);
	assert.throws(() => drawForgetting(LONG, { width: 5, height: 10 }), /width of at least 6/u);
});

/** `run` saved as session `id` in `dir`, over this file's book. */
async function saved(dir: string, id: string, run: Run): Promise<void> {
	const sha256 = createHash('sha256').update(BOOK, 'utf8').digest('hex');
	const book = { title: 'The Bakery', sha256, source: 'bakery.txt', chars: BOOK.length, tokens: 100 };
	const session = await Session.create(dir, { id, book, text: BOOK, run });
	await session.close();
}

test('forgettingOf reads an incremental session, and refuses a hierarchical one or one with no finished step in one line', async (t) => {
	const dir = tempDir('forgetting', t);
	await saved(dir, 'inc', RUN);
	const read = await forgettingOf({ id: 'inc', sessionsDir: dir });
	assert.equal(read.title, 'The Bakery');
	assert.equal(read.finished, true);
	assert.deepEqual(read.map, forgettingMap(RUN, index));

	await saved(dir, 'hier', treeRun('hier', CHUNKS, [done('n0', 'summarize', ['c0'], LESSONS)]));
	const pending = { ...NODES[0]!, status: 'pending' as const, versions: [], active: null };
	await saved(dir, 'fresh', { ...RUN, nodes: [pending], root: null, status: 'running' });
	const refused = async (id: string, message: RegExp) => {
		const error = await forgettingOf({ id, sessionsDir: dir }).then(
			() => assert.fail(`session ${id} was not refused`),
			(e: unknown) => e,
		);
		assert.ok(error instanceof UserError && error.exitCode === 2, String(error));
		assert.match(error.message, message);
		assert.doesNotMatch(error.message, /\n/u);
	};
	await refused(
		'hier',
		/^forgetting is drawn for incremental runs; session "hier" is hierarchical: .*--method inc/u,
	);
	await refused('fresh', /^session "fresh" has no finished step yet: resume it with .*resume fresh/u);
});

test('a real extractive incremental run of Frankenstein: each step cites the chunks its copied sentences come from', async (t) => {
	const dir = tempDir('forgetting-real', t);
	const book = FRANKENSTEIN;
	const args = ['run', book, '--provider', 'extractive', '--method', 'inc', '--headless'];
	const r = await booook([...args, '--session', 'inc', '--sessions-dir', dir]);
	assert.equal(r.code, 0, r.stderr);
	const { map } = await forgettingOf({ id: 'inc', sessionsDir: dir });
	const { data, text } = await Session.snapshot(dir, 'inc');
	const run = (data as BookSessionData).run;
	assert.equal(map.steps.length, run.chunks.length);
	const chunkKeys = run.chunks.map((c) => sentenceKey(text.slice(c.start, c.end)));
	let placed = 0;
	let sentences = 0;
	for (const s of map.steps) {
		// The chunks that hold each sentence word for word; a sentence held by one alone must cite it.
		const expected = s.cites.map(() => 0);
		const summary = splitSentences(activeVersion(getNode(run, s.node))!.text);
		for (const sentence of summary) {
			const key = sentenceKey(sentence);
			const holders = chunkKeys.slice(0, s.step + 1).flatMap((k, c) => (k.includes(key) ? [c] : []));
			if (holders.length === 1) expected[holders[0]!]!++;
		}
		for (const [c, n] of expected.entries()) assert.ok(s.cites[c]! >= n, `step ${s.step} chunk ${c}`);
		placed += expected.reduce((a, b) => a + b, 0);
		sentences += s.sentences;
		assert.equal(s.sentences, summary.length);
	}
	assert.ok(placed >= 0.9 * sentences, `${placed} of ${sentences} sentences held by one chunk`);
	// Each sentence cites what `evidence` shows first for it at that step.
	const bookIndex = new PassageIndex(text, run.chunks);
	for (const s of map.steps) {
		const shown = s.cites.map(() => 0);
		for (const c of citedChunks(nodeEvidence(run, bookIndex, s.node, { top: 1 })))
			if (c !== null) shown[c]!++;
		assert.deepEqual(s.cites, shown, `step ${s.step}`);
	}
	const lines = drawForgetting(map, { width: 80, height: 24 });
	assert.ok(lines.length <= 24 && lines.every((l) => l.length <= 80));
});
