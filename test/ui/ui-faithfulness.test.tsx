import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimVerdict, FaithfulnessVerdict, ScoredSummary } from '../../source/domain.ts';
import { sentenceLabel } from '../../source/score/claims.ts';
import { faithfulnessLines, faithfulnessReport } from '../../source/score/faithfulness.ts';
import { FaithfulnessWalk } from '../../source/app/faithfulness-walk.ts';
import { Session } from '../../source/store/session.ts';
import { actionFor } from '../../source/ui/keymap.ts';
import { FaithfulnessScreen } from '../../source/ui/screens/faithfulness/Screen.tsx';
import type { Evidence } from '../../source/ui/components/EvidencePane.tsx';
import { KEYS } from '../support/keys.ts';
import { pressKeys, renderScreen, until } from '../support/screen.tsx';
import { tempDir } from '../support/temp.ts';

const at = '2026-01-01T00:00:00.000Z';
const summaries: ScoredSummary[] = [
	{
		id: 's0',
		book: 'voyage',
		text: 'Ann sails to Dover. The war ends. Bob sells the boat. Ann returns home.',
		node: null,
		version: null,
		source: 'test',
	},
];
/** The lines of the frame marked as highlighted (the gutter mark), joined. */
const marked = (frame: string) =>
	frame
		.split('\n')
		.filter((l) => l.includes('▌'))
		.join(' ');

async function open(
	t: import('node:test').TestContext,
	dir: string,
	evidenceFor?: (u: { sentence: number }) => Evidence[],
) {
	const session = await Session.open(dir, 'walk');
	const walk = new FaithfulnessWalk(session, 'val', () => new Date(at));
	await walk.begin();
	const app = renderScreen(<FaithfulnessScreen walk={walk} title="voyage" evidenceFor={evidenceFor} />);
	const close = async () => {
		app.unmount();
		await session.close();
	};
	t.after(close);
	const frame = () => app.lastFrame() ?? '';
	const see = (check: (f: string) => boolean, what: string) => until(frame, check, what);
	const press = (...keys: string[]) => pressKeys(app, ...keys);
	const saved = (n: number) =>
		until(
			() => String((walk.verdicts ?? []).length),
			(f) => f === String(n),
			`${n} verdicts saved`,
		);
	return { walk, frame, see, press, saved, close };
}

test('the faithfulness keys are on their own screen and clash with nothing there (? stays help)', () => {
	assert.equal(actionFor('faithfulness', { input: 'f' }), 'faithful');
	assert.equal(actionFor('faithfulness', { input: 'x' }), 'unfaithful');
	assert.equal(actionFor('faithfulness', { input: 'c' }), 'cantTell');
	assert.equal(actionFor('faithfulness', { input: 'p' }), 'partial');
	assert.equal(actionFor('faithfulness', { input: 's' }), 'units');
	assert.equal(actionFor('faithfulness', { input: '?' }), 'help');
	assert.equal(actionFor('validate', { input: 'f' }), null, 'the annotation walk does not take f');
});

test('a faithfulness walk: mark, undo, note, and reopening starts at the first unjudged sentence', async (t) => {
	const dir = tempDir('faithfulness-ui', t);
	await (
		await Session.createCollection(dir, {
			id: 'walk',
			title: 'voyage',
			sources: ['test'],
			summaries,
			annotations: [],
			judgments: [],
			runs: [],
		})
	).close();

	const first = await open(t, dir);
	await first.see(
		(f) => /sentence 1\/4/u.test(f) && marked(f).includes('Ann sails to Dover.'),
		'the first sentence highlighted',
	);
	assert.doesNotMatch(first.frame(), /evidence from the book/u, 'no evidence slot drawn without evidence');
	await first.press('f');
	await first.see((f) => /sentence 2\/4/u.test(f) && /saved: faithful/u.test(f), 'moved on after faithful');
	await first.press('x');
	await first.see(
		(f) => /sentence 3\/4/u.test(f) && /saved: unfaithful/u.test(f),
		'moved on after unfaithful',
	);
	await first.saved(2);
	// Undo takes back the latest verdict and goes back to its sentence.
	await first.press('u');
	await first.see(
		(f) => /sentence 2\/4/u.test(f) && /undone/u.test(f) && /not judged yet/u.test(f),
		'undone, back on sentence 2',
	);
	await first.saved(1);
	await first.press('c');
	await first.see((f) => /sentence 3\/4/u.test(f) && /saved: can't tell/u.test(f), "can't tell saved");
	// A note on sentence 2's verdict.
	await first.press(KEYS.left);
	await first.see(
		(f) => /sentence 2\/4/u.test(f) && /your verdict: can't tell/u.test(f),
		'back on sentence 2',
	);
	await first.press('m');
	await first.see((f) => /note: /u.test(f), 'the note field');
	// One key at a time, each after the last one shows, as a person types.
	for (let i = 1; i <= 'no war'.length; i++) {
		await first.press('no war'[i - 1]!);
		await first.see((f) => f.includes(`note: ${'no war'.slice(0, i)}`), `"${'no war'.slice(0, i)}" typed`);
	}
	await first.press(KEYS.enter);
	await first.see(
		(f) => /note saved/u.test(f) && /your verdict: can't tell · note: no war/u.test(f),
		'the note saved',
	);
	await first.see(
		(f) =>
			/judged 2\/4 · 50\.0% of them faithful \(1 faithful, 0 partial, 0 unfaithful, 1 can't tell\)/u.test(f),
		"the running tally: the can't tell counts against",
	);
	await first.close();

	const { data } = await Session.snapshot(dir, 'walk');
	assert.deepEqual(
		(data.faithfulness ?? []).map((f) => [f.sentence, f.label, f.note]),
		[
			[0, 'faithful', null],
			[1, 'unsure', null],
			[1, 'unsure', 'no war'],
		],
	);

	const second = await open(t, dir, (u) => [
		{ text: `passage for sentence ${u.sentence + 1}`, where: `chunk ${u.sentence}` },
	]);
	await second.see(
		(f) => /sentence 3\/4/u.test(f) && marked(f).includes('Bob sells the boat.'),
		'reopened at the first unjudged sentence',
	);
	await second.see(
		(f) => /evidence from the book/u.test(f) && /chunk 2/u.test(f) && /passage for sentence 3/u.test(f),
		'the evidence slot shows the passages for this sentence',
	);
});

test('a partial faithfulness walk shows only its sample, counted as such, and stops at its end', async (t) => {
	const dir = tempDir('faithfulness-ui', t);
	const five: ScoredSummary[] = [
		{
			id: 's0',
			book: 'voyage',
			text: 'Ann sails to Dover. The war ends. Bob sells the boat. Ann returns home. The sea is calm.',
			node: null,
			version: null,
			source: 'test',
		},
	];
	await (
		await Session.createCollection(dir, {
			id: 'part',
			title: 'voyage',
			sources: ['test'],
			summaries: five,
			annotations: [],
			judgments: [],
			runs: [],
		})
	).close();
	const session = await Session.open(dir, 'part');
	const walk = new FaithfulnessWalk(session, 'val', () => new Date(at), { seed: 3, fraction: 0.5 });
	await walk.begin();
	const app = renderScreen(<FaithfulnessScreen walk={walk} title="voyage" reportHint="booook report part" />);
	t.after(async () => {
		app.unmount();
		await session.close();
	});
	const frame = () => app.lastFrame() ?? '';
	// ⌈0.5 · 5⌉ = 3 sentences of the five.
	const sample = walk.units;
	assert.equal(sample.length, 3);
	const placeOf = (i: number) => `sentence ${sample[i]!.sentence + 1}/5 of the summary`;
	for (let i = 0; i < 3; i++) {
		await until(
			frame,
			(f) =>
				f.includes(`sentence ${i + 1} of 3 in your sample`) &&
				f.includes(placeOf(i)) &&
				marked(f).includes(sample[i]!.text),
			`sample sentence ${i + 1} highlighted`,
		);
		app.stdin.write('f');
	}
	await until(
		frame,
		(f) =>
			/judged 3\/3/u.test(f) &&
			/every sentence of your sample is judged; see the results with booook report part/u.test(f),
		'the end of the sample',
	);
	// It stops there: moving on stays on the last sentence of the sample.
	app.stdin.write(KEYS.right);
	await until(
		frame,
		(f) => f.includes('sentence 3 of 3 in your sample') && marked(f).includes(sample[2]!.text),
		'still on the last sentence',
	);
	assert.deepEqual(
		(walk.verdicts ?? []).map((v) => v.sentence),
		sample.map((u) => u.sentence),
		'verdicts only on the sampled sentences',
	);
});

/** A model judge's verdict on sentence `sentence` of s0, its claims checked as given. */
const modelVerdict = (sentence: number, ...checks: [string, ClaimVerdict][]): FaithfulnessVerdict => {
	const claims = checks.map(([claim, verdict]) => ({
		claim,
		verdict,
		quote: verdict === 'not found' ? null : claim,
		passage: verdict === 'not found' ? null : { start: 0, end: 10 },
		reason: 'as read',
	}));
	return {
		summary: 's0',
		sentence,
		label: sentenceLabel(claims),
		note: null,
		validator: 'openai/gpt-4o',
		origin: 'model',
		at,
		claims,
		split: 'read',
	};
};

test('the walk judges the claims a model judged, with partial support; it reopens on claims; the report compares them claim by claim', async (t) => {
	const dir = tempDir('faithfulness-ui', t);
	await (
		await Session.createCollection(dir, {
			id: 'walk',
			title: 'voyage',
			sources: ['test'],
			summaries,
			annotations: [],
			judgments: [],
			runs: [],
		})
	).close();

	const bare = await open(t, dir);
	await bare.see((f) => /sentence 1\/4/u.test(f), 'the walk open');
	await bare.press('s');
	await bare.see((f) => /no claims to judge yet/u.test(f) && /sentence 1\/4/u.test(f), 'still on sentences');
	await bare.close();

	const session = await Session.open(dir, 'walk');
	await session.append(
		'faithfulness',
		modelVerdict(0, ['Ann sails', 'supported'], ['to Dover', 'not found']),
		modelVerdict(1, ['The war ends', 'contradicted']),
		modelVerdict(2, ['Bob sells the boat', 'supported']),
	);
	await session.close();

	const first = await open(t, dir);
	await first.press('f');
	await first.see((f) => /sentence 2\/4/u.test(f) && /saved: faithful/u.test(f), 'a sentence judged whole');
	await first.press('s');
	await first.see(
		(f) =>
			/claim 1\/4 · claim 1 of sentence 1/u.test(f) &&
			/claim: Ann sails/u.test(f) &&
			/judging the claims openai\/gpt-4o split the sentences into/u.test(f) &&
			marked(f).includes('Ann sails to Dover.'),
		"the model's claims, the first one's sentence highlighted",
	);
	await first.press('f');
	await first.see((f) => /claim: to Dover/u.test(f) && /saved: faithful/u.test(f), 'the second claim');
	await first.press('p');
	await first.see(
		(f) => /claim 3\/4 · claim 1 of sentence 2/u.test(f) && /saved: partial support/u.test(f),
		'partial support saved',
	);
	await first.saved(6);
	await first.close();

	const { data } = await Session.snapshot(dir, 'walk');
	const mine = (data.faithfulness ?? []).filter((v) => v.validator === 'val');
	assert.deepEqual(
		mine.map((v) => [v.sentence, v.label, v.claim ?? null]),
		[
			[0, 'faithful', null],
			[0, 'faithful', { index: 0, text: 'Ann sails', judge: 'openai/gpt-4o' }],
			[0, 'partial', { index: 1, text: 'to Dover', judge: 'openai/gpt-4o' }],
		],
	);

	// Opened again, the walk is on claims, where its validator left it, at the first claim not judged.
	const second = await open(t, dir);
	await second.see((f) => /claim 3\/4/u.test(f) && /claim: The war ends/u.test(f), 'reopened on claims');
	await second.press('x');
	await second.see((f) => /claim 4\/4/u.test(f), 'the last claim');
	// Back to sentences and a verdict in one burst: the verdict is on the sentence, not on a claim.
	await second.press('sf');
	await second.see(
		(f) => /sentence 3\/4/u.test(f) && /saved: faithful/u.test(f),
		'back on sentences, the first not judged judged at once',
	);
	await second.saved(8);
	await second.close();

	const report = faithfulnessReport(
		summaries,
		(await Session.snapshot(dir, 'walk')).data.faithfulness ?? [],
		{ seed: 1, resamples: 100 },
	);
	const val = report.validators.find((v) => v.validator === 'val')!;
	assert.deepEqual([val.sentences!.n, val.claims!.n], [2, 3]);
	assert.deepEqual(
		[val.claims!.counts.faithful, val.claims!.counts.partial, val.claims!.counts.unfaithful],
		[1, 1, 1],
	);
	// Against the model on the same three claims: agree on "Ann sails" and "The war ends" (contradicted is
	// unfaithful); "to Dover", not found by the model, the person found partly supported.
	const pair = report.claimAgreement.pairs[0]!;
	assert.deepEqual([pair.validators, pair.n, pair.percent], [['openai/gpt-4o', 'val'], 3, 2 / 3]);
	const vsModel = report.humanVsModel.find((r) => r.unit === 'claims')!;
	assert.equal(vsModel.n, 3);
	const lines = faithfulnessLines(report, (s) => s);
	assert.ok(
		lines.some((l) => l.startsWith('  val (human), claims (FABLES): 33.3% ')),
		lines.join('\n'),
	);
	assert.ok(
		lines.includes("  agreement openai/gpt-4o vs val: 66.7% on 3 claims, Cohen's κ 0.500"),
		lines.join('\n'),
	);
});

test("LongEval's coarse rating in the walk: asked before a summary's sentences, 1-5 saved and shown, changed later, skipped by judging; reopened as saved", async (t) => {
	assert.equal(actionFor('faithfulness', { input: '3' }), 'rate');
	assert.equal(actionFor('faithfulness', { input: '6' }), null, 'the scale ends at 5');
	const dir = tempDir('faithfulness-ui', t);
	const two: ScoredSummary[] = [
		summaries[0]!,
		{
			id: 's1',
			book: 'ride',
			text: 'Cleo rides north. Dov waits.',
			node: null,
			version: null,
			source: 'test',
		},
	];
	await (
		await Session.createCollection(dir, {
			id: 'walk',
			title: 'voyage',
			sources: ['test'],
			summaries: two,
			annotations: [],
			judgments: [],
			runs: [],
		})
	).close();
	const ASK = /first, optionally, rate the whole summary 1–5/u;
	const ratings = async () =>
		((await Session.snapshot(dir, 'walk')).data.faithfulnessRatings ?? []).map((r) => [
			r.summary,
			r.validator,
			r.rating,
		]);

	const first = await open(t, dir);
	await first.see(
		(f) => /sentence 1\/6/u.test(f) && ASK.test(f),
		"asked for the whole summary's rating first",
	);
	await first.press('4');
	await first.see(
		(f) =>
			/saved: the whole summary rated 4\/5/u.test(f) &&
			/judged 0\/6 · whole summary rated 4\/5/u.test(f) &&
			!ASK.test(f) &&
			/sentence 1\/6/u.test(f),
		'rated, still on the first sentence, no longer asked',
	);
	assert.deepEqual(await ratings(), [['s0', 'val', 4]]);
	await first.press('4');
	await first.see(
		(f) => /unchanged: the whole summary is rated 4\/5 already/u.test(f),
		'the same rating again',
	);
	for (let i = 1; i <= 4; i++) {
		await first.press('f');
		await first.see((f) => new RegExp(`sentence ${i + 1}/6`, 'u').test(f), `sentence ${i + 1}`);
	}
	// The second summary, not rated and not judged: asked again; a verdict skips the rating.
	await first.see((f) => ASK.test(f) && !/whole summary rated/u.test(f), 'asked again on the next summary');
	await first.press('x');
	await first.see(
		(f) => /sentence 6\/6/u.test(f) && !ASK.test(f),
		'judging its sentences skipped the rating',
	);
	// Rated afterwards all the same, then changed: the later rating is the one shown and counted.
	await first.press('2');
	// The status line says saved once the rating is on the disk.
	await first.see((f) => /saved: the whole summary rated 2\/5/u.test(f), 'the second summary rated');
	await first.press('3');
	await first.see((f) => /saved: the whole summary rated 3\/5/u.test(f), 'its rating changed');
	assert.deepEqual(await ratings(), [
		['s0', 'val', 4],
		['s1', 'val', 2],
		['s1', 'val', 3],
	]);
	await first.press(KEYS.left, KEYS.left);
	await first.see(
		(f) => /sentence 4\/6/u.test(f) && /whole summary rated 4\/5/u.test(f),
		"the first summary's own rating",
	);
	// Undo takes back verdicts, never a rating.
	await first.press('u');
	await first.see((f) => /undone/u.test(f), 'the verdict undone');
	assert.equal((await ratings()).length, 3);
	await first.close();

	const second = await open(t, dir);
	await second.see(
		(f) => /sentence 5\/6/u.test(f) && /whole summary rated 3\/5/u.test(f) && !ASK.test(f),
		'reopened on the first unjudged sentence with its summary rated',
	);
	const report = faithfulnessReport(
		two,
		[...second.walk.verdicts],
		{ seed: 1, resamples: 100 },
		[],
		[...((await Session.snapshot(dir, 'walk')).data.faithfulnessRatings ?? [])],
	);
	assert.deepEqual(
		report.coarseFine.rows.map((r) => [r.summary, Object.fromEntries(r.coarse)]),
		[
			['s0', { val: 0.75 }],
			['s1', { val: 0.5 }],
		],
	);
});
