import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../../source/store/session.ts';
import type { SessionData } from '../../source/store/schema.ts';
import { booook } from '../support/cli.ts';
import { killScreenAtEachWrite, type Step } from '../support/durable-walks.ts';
import { annotatingReply, startFakeApi } from '../support/fake-api.ts';
import { recordingApi } from '../support/durable-writes.ts';
import { bookFile, extractiveMill, millRunOptions, scoreMillArgs } from '../support/mill-book.ts';
import { runOutcome } from '../support/session-outcome.ts';
import { summaryReply } from '../support/summary-reply.ts';
import { faithfulnessReply } from '../support/faithfulness-reply.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux } from '../support/tmux.ts';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { comparisonResults } from '../../source/app/compare.ts';
import { compareJson } from '../../source/format/compare.ts';
import { ComparisonStore, type ComparisonSnapshot } from '../../source/store/comparison.ts';

/**
 * Nothing lost, whatever kills it, on the screens: the validation walks and the run screen's edit
 * and re-run, typed into booook in tmux, are killed with SIGKILL right after each of their durable
 * writes (test/support/durable-walks.ts); opened again, the session is where a step left it, and
 * the steps after it end where the work never killed ends.
 */

const ENV = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };

/** The extractive run of the small book, scored by the fake API: a collection of model annotations to judge. */
async function scoredMill(sessions: string): Promise<void> {
	await extractiveMill(sessions, await bookFile(tempDir('kill-screens-book')));
	const api = await startFakeApi({ respond: annotatingReply });
	try {
		const scored = await booook(scoreMillArgs(api.openaiBaseUrl, sessions), { env: ENV });
		assert.equal(scored.code, 0, scored.stderr);
	} finally {
		await api.close();
	}
}

const snapshot = async (sessions: string) => (await Session.snapshot(sessions, 'mill')).data;
const mine = (data: SessionData) => data.judgments.filter((j) => j.validator === 'val');

/** What a validation walk leaves, without times: its record, the verdicts in order, the annotations added. */
async function walkOutcome(sessions: string) {
	const data = await snapshot(sessions);
	return {
		walks: (data.walks ?? []).map((w) => [w.validator, w.mode, w.seed, w.fraction]),
		judgments: data.judgments.map((j) => [j.annotation, j.validator, j.verdict, j.reasons, j.note]),
		annotations: data.annotations.length,
		own: data.annotations
			.filter((a) => a.source === 'human')
			.map((a) => [a.id, a.summary, a.sentence, a.spans, a.questions, a.types, a.annotator]),
	};
}

const at = (n: number) => (s: string) => new RegExp(`annotation ${n}/\\d+`, 'u').test(s);

/**
 * Each step starts and ends on the walk's first unjudged item, where the walk opens again, so the
 * continuation after a kill types the same keys on the same items.
 */
const VALIDATE: Step[] = [
	{ name: 'agree', keys: (t) => t.keys('a'), shown: at(2), landed: (d) => mine(d).length === 1 },
	{ name: 'disagree', keys: (t) => t.keys('d'), shown: at(3), landed: (d) => mine(d).length === 2 },
	{
		name: 'undo',
		keys: (t) => t.keys('u'),
		shown: (s) => at(2)(s) && /undone: disagree/u.test(s),
		landed: (d) => mine(d).length === 1,
	},
	{
		name: 'partial, answered in the summary',
		keys: (t) => t.keys('p', '2', 'Enter'),
		shown: at(3),
		landed: (d) => mine(d).length === 2 && mine(d)[1]!.verdict === 'partial',
	},
	{
		name: 'a note on the verdict before',
		keys: (t) => t.keys('Left', 'm', 'the ford is named twice', 'Enter', 'n'),
		shown: (s) => at(3)(s),
		landed: (d) => mine(d).some((j) => j.note !== null),
	},
	{
		name: 'an annotation of my own',
		keys: (t) => t.keys('h', 'Enter', 'Which ford?', 'Enter', '3', 'Enter'),
		shown: (s) => /added your annotation/u.test(s),
		landed: (d) => d.annotations.some((a) => a.source === 'human'),
	},
	{ name: 'agree again', keys: (t) => t.keys('a'), shown: at(4), landed: (d) => mine(d).length === 4 },
];

test(
	'the validation walk killed after each durable write (verdicts, undo, a note, an annotation of my own) ends as if never killed',
	{ skip: noTmux, timeout: 600_000 },
	inTerminal(async (t) => {
		const report = await killScreenAtEachWrite({
			id: 'mill',
			setup: scoredMill,
			command: (sessions) => [
				'validate',
				'mill',
				'--mode',
				'model',
				'--validator',
				'val',
				'--sessions-dir',
				sessions,
			],
			ready: (s) => /annotation \d+\/\d+/u.test(s),
			steps: VALIDATE,
			outcome: walkOutcome,
		});
		t.diagnostic(`${report.writes} durable writes; killed after ${report.killedAt.join(', ')}`);
	}),
);

const faith = (data: SessionData) => (data.faithfulness ?? []).filter((v) => v.validator === 'ann');
const sentence = (n: number) => (s: string) => new RegExp(`sentence ${n}/\\d+`, 'u').test(s);
const claim = (n: number) => (s: string) => new RegExp(`claim ${n}/\\d+`, 'u').test(s);

/** The small book's extractive run, its final summary judged by the fake model claim by claim. */
async function judgedMill(sessions: string): Promise<void> {
	await extractiveMill(sessions, await bookFile(tempDir('kill-screens-book')));
	const api = await startFakeApi({ respond: ({ prompt }) => faithfulnessReply(prompt) ?? 'not asked' });
	try {
		const judged = await booook(
			[
				...['faithfulness', 'mill', '--provider', 'openai', '--model', 'gpt-4o-mini'],
				...['--base-url', api.openaiBaseUrl, '--sessions-dir', sessions],
			],
			{ env: ENV },
		);
		assert.equal(judged.code, 0, judged.stderr);
	} finally {
		await api.close();
	}
}

/** What a faithfulness walk leaves, without times: the summary it pinned, the ratings and the verdicts in order. */
async function faithOutcome(sessions: string) {
	const data = await snapshot(sessions);
	return {
		ratings: (data.faithfulnessRatings ?? []).map((r) => [r.summary, r.validator, r.rating]),
		summaries: data.summaries.map((s) => [s.id, s.node, s.version, s.text]),
		walks: (data.walks ?? []).map((w) => [w.validator, w.mode, w.seed, w.fraction]),
		verdicts: (data.faithfulness ?? []).map((v) => [
			v.summary,
			v.sentence,
			v.claim?.index ?? null,
			v.label,
			v.note,
			v.validator,
			v.origin,
		]),
	};
}

const ratings = (data: SessionData) => (data.faithfulnessRatings ?? []).filter((r) => r.validator === 'ann');
const rated = (n: number) => (s: string) => new RegExp(`whole summary rated ${n}/5`, 'u').test(s);

/**
 * As VALIDATE's, each step starts and ends on the first sentence not judged, where the walk opens
 * again; LongEval's coarse rating of the whole summary comes first, and is changed at the end.
 */
const FAITHFULNESS: Step[] = [
	{
		name: 'the whole summary rated 4',
		keys: (t) => t.keys('4'),
		shown: (s) => sentence(1)(s) && rated(4)(s),
		landed: (d) => ratings(d).length === 1 && ratings(d)[0]!.rating === 4,
	},
	{ name: 'faithful', keys: (t) => t.keys('f'), shown: sentence(2), landed: (d) => faith(d).length === 1 },
	{ name: 'unfaithful', keys: (t) => t.keys('x'), shown: sentence(3), landed: (d) => faith(d).length === 2 },
	{
		name: 'undo',
		keys: (t) => t.keys('u'),
		shown: (s) => sentence(2)(s) && /undone/u.test(s),
		landed: (d) => faith(d).length === 1,
	},
	{
		name: "can't tell",
		keys: (t) => t.keys('c'),
		shown: sentence(3),
		landed: (d) => faith(d).length === 2 && faith(d)[1]!.label === 'unsure',
	},
	{
		name: 'a note on the verdict before',
		keys: (t) => t.keys('Left', 'm', 'no such letter', 'Enter', 'n'),
		shown: sentence(3),
		landed: (d) => faith(d).some((v) => v.note !== null),
	},
	{
		name: 'faithful again',
		keys: (t) => t.keys('f'),
		shown: sentence(4),
		landed: (d) => faith(d).length === 4,
	},
	// The claims the model judged: the walk opens again on them once one is judged.
	{
		name: 'to the claims, partial support',
		keys: (t) => t.keys('s', 'p'),
		shown: claim(2),
		landed: (d) =>
			faith(d).length === 5 && faith(d)[4]!.claim?.index === 0 && faith(d)[4]!.label === 'partial',
	},
	{
		name: 'a claim faithful',
		keys: (t) => t.keys('f'),
		shown: claim(3),
		landed: (d) => faith(d).length === 6,
	},
	{
		name: 'undo on claims',
		keys: (t) => t.keys('u'),
		shown: (s) => claim(2)(s) && /undone/u.test(s),
		landed: (d) => faith(d).length === 5,
	},
	{
		name: 'a claim unfaithful',
		keys: (t) => t.keys('x'),
		shown: claim(3),
		landed: (d) =>
			faith(d).length === 6 && faith(d)[5]!.label === 'unfaithful' && faith(d)[5]!.claim !== undefined,
	},
	{
		name: 'the whole summary rated 2 instead',
		keys: (t) => t.keys('2'),
		shown: (s) => claim(3)(s) && rated(2)(s),
		landed: (d) => ratings(d).length === 2 && ratings(d)[1]!.rating === 2,
	},
];

test(
	'the faithfulness walk killed after each durable write (the summary pinned, the coarse rating and its change, verdicts on sentences and on claims, undo, a note) ends as if never killed',
	{ skip: noTmux, timeout: 600_000 },
	inTerminal(async (t) => {
		const report = await killScreenAtEachWrite({
			id: 'mill',
			setup: judgedMill,
			command: (sessions) => [
				'validate',
				'mill',
				'--mode',
				'faithfulness',
				'--validator',
				'ann',
				'--sessions-dir',
				sessions,
			],
			ready: (s) => /(?:sentence|claim) \d+\/\d+/u.test(s),
			steps: FAITHFULNESS,
			outcome: faithOutcome,
		});
		t.diagnostic(`${report.writes} durable writes; killed after ${report.killedAt.join(', ')}`);
	}),
);

/** Three summaries of the small book made elsewhere, each opening on its own sentence of it: three pairs. */
const SUMMARIES = {
	'sum-ada': 'Ada walked to the mill on day 1 and spoke with Bram about the river. Later Ada wrote a letter.',
	'sum-bram': 'Bram walked to the mill on day 2 and spoke with Esme about the river. The water rose 1 feet.',
	'sum-cleo': 'Cleo walked to the mill on day 3 and spoke with Hugo about the river. Cleo counted the sacks.',
};
const SOURCES = Object.keys(SUMMARIES);

async function threeSummaries(sessions: string): Promise<void> {
	const dir = tempDir('kill-compare-book');
	const book = await bookFile(dir);
	for (const [id, text] of Object.entries(SUMMARIES)) {
		const file = join(dir, `${id}.txt`);
		await writeFile(file, text);
		const made = await booook([
			...['import', 'summary', '--book', book, '--summary', file],
			...['--session', id, '--sessions-dir', sessions],
		]);
		assert.equal(made.code, 0, made.stderr);
	}
}

const comparison = (sessions: string) => ComparisonStore.peek(sessions, 'kc');

/**
 * What a comparison holds, without times: every record in order (an answer lost or written twice
 * shows here), and its results as `compare --json` gives them (the pairs with their shown order,
 * the judgments, Table 4); null before it is made.
 */
async function compareOutcome(sessions: string) {
	if (!(await comparison(sessions))) return null;
	const found = await comparisonResults(sessions, 'kc', { seed: 1, resamples: 20 });
	return {
		records: found.snapshot.records.map(({ at: _at, ...rest }) => rest),
		results: compareJson(found),
	};
}

const pairShown = (n: number) => (s: string) => s.includes(`pair ${n}/3`);
/** The criterion's row on the screen ends in its answer: A, B, tie, or · when not answered. */
const row = (name: string, answer: string) => (s: string) =>
	new RegExp(`${name}\\s+${answer}\\s*$`, 'mu').test(s);
const records = (c: ComparisonSnapshot) => c.records;

/**
 * Each step ends where the comparison opens again: on the first pair not judged, its cursor on the
 * first criterion not answered; a step writes one record (an answer, an undo, a note).
 */
const COMPARE: Step<ComparisonSnapshot>[] = [
	{
		name: 'pair 1, overall: A',
		keys: (t) => t.keys('a'),
		shown: (s) => pairShown(1)(s) && row('overall preference', 'A')(s),
		landed: (c) => records(c).length === 1,
	},
	{
		name: 'detail: B',
		keys: (t) => t.keys('b'),
		shown: (s) => row('level of detail', 'B')(s),
		landed: (c) => records(c).length === 2,
	},
	{
		name: 'undo',
		keys: (t) => t.keys('u'),
		shown: (s) => /undone/u.test(s) && row('level of detail', '·')(s) && /▸ level of detail/u.test(s),
		landed: (c) => records(c).length === 3 && records(c)[2]!.kind === 'undo',
	},
	{
		name: 'detail: tie',
		keys: (t) => t.keys('t'),
		shown: (s) => row('level of detail', 'tie')(s),
		landed: (c) => records(c).length === 4,
	},
	{
		name: 'a note on the pair',
		keys: (t) => t.keys('m', 'both name the ford', 'Enter'),
		shown: (s) => /^note: both name the ford/mu.test(s),
		landed: (c) => records(c).some((r) => r.kind === 'note'),
	},
	{
		name: 'structure: A',
		keys: (t) => t.keys('a'),
		shown: (s) => row('structure and pacing', 'A')(s),
		landed: (c) => records(c).length === 6,
	},
	{
		name: 'logic: B, the pair judged, on to the next',
		keys: (t) => t.keys('b', 'n'),
		shown: (s) => pairShown(2)(s) && /▸ overall preference/u.test(s),
		landed: (c) => records(c).length === 7,
	},
	{
		name: 'pair 2, overall: tie',
		keys: (t) => t.keys('t'),
		shown: (s) => pairShown(2)(s) && row('overall preference', 'tie')(s),
		landed: (c) => records(c).length === 8,
	},
	{
		name: 'detail: A',
		keys: (t) => t.keys('a'),
		shown: (s) => row('level of detail', 'A')(s),
		landed: (c) => records(c).length === 9,
	},
	{
		name: 'structure: B',
		keys: (t) => t.keys('b'),
		shown: (s) => row('structure and pacing', 'B')(s),
		landed: (c) => records(c).length === 10,
	},
	{
		name: 'logic: A, on to pair 3',
		keys: (t) => t.keys('a', 'n'),
		shown: (s) => pairShown(3)(s) && /▸ overall preference/u.test(s),
		landed: (c) => records(c).length === 11,
	},
	{
		name: 'pair 3, overall: B',
		keys: (t) => t.keys('b'),
		shown: (s) => pairShown(3)(s) && row('overall preference', 'B')(s),
		landed: (c) => records(c).length === 12,
	},
];

/** The text of pane A, shown above B under 120 columns: its lines up to B's label. */
function paneA(screen: string): string {
	const lines = screen.split('\n');
	const from = lines.indexOf('A');
	assert.notEqual(from, -1, `no pane A on the screen:\n${screen}`);
	const to = lines.indexOf('B', from);
	return lines
		.slice(from + 1, to)
		.map((l) => l.trim())
		.join(' ')
		.trim();
}

/** The comparison as it opens: the pair shown is the stored order's, and its summary A the one stored as shown first. */
async function samePairAndSide(screen: string, sessions: string): Promise<void> {
	const stored = await comparison(sessions);
	assert.ok(stored, 'the comparison is made before its screen opens');
	const at = /pair (\d+)\/3/u.exec(screen);
	assert.ok(at, `no pair on the screen:\n${screen}`);
	const pair = stored.definition.pairs[Number(at[1]) - 1]!;
	const text = (key: string) => stored.definition.contenders.find((c) => c.key === key)!.text;
	const a = paneA(screen);
	assert.ok(a.length > 20, `pane A shows the summary:\n${screen}`);
	assert.ok(
		text(pair[pair.first]).startsWith(a) && !text(pair[pair.first === 'x' ? 'y' : 'x']).startsWith(a),
		`pair ${at[1]} shows as A the summary stored as shown first (${pair.first}):\n${screen}`,
	);
}

test(
	'the blind comparison killed after each durable write (made, answers, undo, a note) opens on the same pairs and sides, loses and doubles no answer, and ends as if never killed',
	{ skip: noTmux, timeout: 600_000 },
	inTerminal(async (t) => {
		const args = (sessions: string) => [
			'compare',
			...SOURCES,
			...['--name', 'kc', '--annotator', 'ann', '--sessions-dir', sessions],
		];
		const report = await killScreenAtEachWrite<ComparisonSnapshot>({
			id: null,
			read: comparison,
			setup: threeSummaries,
			command: args,
			ready: (s) => /pair \d\/3/u.test(s) && /▸ /u.test(s),
			check: samePairAndSide,
			steps: COMPARE,
			outcome: compareOutcome,
		});
		t.diagnostic(`${report.writes} durable writes; killed after ${report.killedAt.join(', ')}`);
	}),
);

const node = (d: SessionData, id: string) =>
	d.kind === 'book' ? d.run.nodes.find((n) => n.id === id) : undefined;

/**
 * A finished run of the small book (two chunks, a merge, the clean-up): the first chunk's summary
 * edited through $EDITOR, then what reads it made again.
 */
const EDIT: Step[] = [
	{
		name: "the first chunk's summary edited in $EDITOR",
		keys: (t) => t.keys('Up', 'Up', 'e'),
		shown: (s) => /Saved as a new version of node n0/u.test(s),
		landed: (d) => node(d, 'n0')?.versions.length === 2 && node(d, 'n3')?.status === 'stale',
	},
	{
		name: 'what reads it re-run',
		keys: (t) => t.keys('r'),
		shown: (s) => s.includes('✓ done') && s.includes('the final summary is printed above'),
		landed: (d) =>
			d.kind === 'book' &&
			d.run.status === 'done' &&
			d.run.root === 'n3' &&
			node(d, 'n3')?.versions.length === 2,
	},
];

test(
	'an edit and its re-run on the run screen, killed after each durable write, end as if never killed',
	{ skip: noTmux, timeout: 600_000 },
	inTerminal(async (t) => {
		const { api, take } = await recordingApi(t, summaryReply);
		const book = await bookFile(tempDir('kill-edit-book', t));
		const report = await killScreenAtEachWrite({
			id: 'mill',
			setup: async (sessions) => {
				const made = await booook(
					['run', book, ...millRunOptions(api.openaiBaseUrl, sessions), '--session', 'mill'],
					{ env: ENV },
				);
				assert.equal(made.code, 0, made.stderr);
			},
			command: (sessions) => ['resume', 'mill', '--base-url', api.openaiBaseUrl, '--sessions-dir', sessions],
			// The edit's prefix marks its version; sed edits the file in place, as an editor saves it.
			env: { ...ENV, EDITOR: 'sed -i s/^/EDITED_/' },
			// Not the first frame's "✓ done", read from the disk before the resumed run starts: an edit
			// typed then is made at once by that run, and r would find no stale node and re-run n0. A
			// resumed run finished (what an edit left stale made) prints its final summary.
			ready: (s) => s.includes('✓ done') && s.includes('the final summary is printed above'),
			steps: EDIT,
			outcome: (sessions) => runOutcome(sessions, 'mill'),
			asked: take,
		});
		t.diagnostic(`${report.writes} durable writes; killed after ${report.killedAt.join(', ')}`);
	}),
);
