import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FaithfulnessLabel, FaithfulnessVerdict, ScoredSummary } from '../../source/domain.ts';
import { reportJson } from '../../source/format/report.ts';
import { cohenKappa } from '../../source/score/agreement.ts';
import { faithfulnessReport, faithfulnessUnits, firstUnjudgedUnit } from '../../source/score/faithfulness.ts';
import { buildReport, reportLines } from '../../source/score/report.ts';
import { FaithfulnessWalk } from '../../source/app/faithfulness-walk.ts';
import { Session } from '../../source/store/session.ts';
import { tempDir } from '../support/temp.ts';

/** The commands the report suggests, as booook on the PATH names them for no session in particular. */
const anySession = (verb: string) => `booook ${verb} ID`;

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
	{
		id: 's1',
		book: 'storm',
		text: 'A storm hits. The mast breaks. Everyone survives.',
		node: null,
		version: null,
		source: 'test',
	},
];
const v = (
	validator: string,
	summary: 's0' | 's1',
	sentence: number,
	label: FaithfulnessLabel,
	origin: 'human' | 'model' = 'human',
): FaithfulnessVerdict => ({ summary, sentence, label, note: null, validator, origin, at });

test('faithfulnessUnits are the summary sentences in reading order; a walk opens at the first unjudged one', () => {
	const units = faithfulnessUnits(summaries);
	assert.deepEqual(
		units.map((u) => `${u.summary}:${u.sentence}:${u.text}`),
		[
			's0:0:Ann sails to Dover.',
			's0:1:The war ends.',
			's0:2:Bob sells the boat.',
			's0:3:Ann returns home.',
			's1:0:A storm hits.',
			's1:1:The mast breaks.',
			's1:2:Everyone survives.',
		],
	);
	const given = [v('ann', 's0', 0, 'faithful'), v('ann', 's0', 1, 'unsure'), v('bob', 's0', 2, 'faithful')];
	assert.equal(firstUnjudgedUnit(units, given, 'ann'), 2);
	assert.equal(firstUnjudgedUnit(units, given, 'bob'), 0);
});

test("faithfulnessReport: per validator each summary's faithful share of all its sentences, then their mean (can't tell counts against); κ between validators, human vs model", () => {
	const ann: FaithfulnessLabel[] = [
		'faithful',
		'faithful',
		'unfaithful',
		'faithful',
		'faithful',
		'unsure',
		'faithful',
	];
	const bob: FaithfulnessLabel[] = [
		'faithful',
		'unfaithful',
		'unfaithful',
		'faithful',
		'faithful',
		'faithful',
		'faithful',
	];
	const model: FaithfulnessLabel[] = [
		'faithful',
		'faithful',
		'faithful',
		'faithful',
		'unfaithful',
		'faithful',
		'faithful',
	];
	const units = faithfulnessUnits(summaries);
	const verdicts = [
		...units.map((u, i) => v('ann', u.summary as 's0', u.sentence, ann[i]!)),
		...units.map((u, i) => v('bob', u.summary as 's0', u.sentence, bob[i]!)),
		...units.map((u, i) => v('openai/gpt-4o', u.summary as 's0', u.sentence, model[i]!, 'model')),
		// A verdict on a summary not reported is left out.
		{ ...v('ann', 's0', 0, 'unfaithful'), summary: 's9' as const },
	];
	const r = faithfulnessReport(summaries, verdicts, { seed: 1, resamples: 500 });
	const annRow = r.validators.find((x) => x.validator === 'ann')!.sentences!;
	assert.deepEqual(
		{ f: annRow.counts.faithful, u: annRow.counts.unfaithful, q: annRow.counts.unsure, n: annRow.n },
		{ f: 5, u: 1, q: 1, n: 7 },
	);
	// s0: 3 of its 4 sentences, s1: 2 of its 3 (its "can't tell" among them); not 5 of 7 pooled, nor 5 of 6 decided.
	assert.equal(annRow.share, (3 / 4 + 2 / 3) / 2);
	assert.equal(annRow.shares.unsure, (0 / 4 + 1 / 3) / 2);
	// A mean of two summaries' shares is no share of pooled sentences, and two are too few to resample.
	assert.equal(annRow.interval.method, 'none');
	assert.deepEqual(annRow.interval.tooFew, { unit: 'summaries', n: 2 });
	assert.equal(r.validators.find((x) => x.validator === 'ann')!.claims, null, 'no claims judged');
	assert.equal(r.validators.find((x) => x.validator === 'openai/gpt-4o')!.origin, 'model');
	const pair = r.agreement.pairs.find((p) => p.validators.join() === 'ann,bob')!;
	assert.equal(pair.n, 7);
	assert.equal(pair.percent, 5 / 7);
	assert.equal(pair.kappa, cohenKappa(ann, bob));
	assert.equal(r.agreement.units, 7);
	assert.ok(r.agreement.alpha !== null);
	// The people's majority: ties (ann faithful, bob unfaithful) are "unsure".
	const majority: FaithfulnessLabel[] = [
		'faithful',
		'unsure',
		'unfaithful',
		'faithful',
		'faithful',
		'unsure',
		'faithful',
	];
	const hm = r.humanVsModel[0]!;
	assert.equal(hm.model, 'openai/gpt-4o');
	assert.equal(hm.n, 7);
	assert.equal(hm.kappa, cohenKappa(model, majority));
	assert.equal(hm.modelMissed, 1, 'the model passed sentence 3, which both people found unfaithful');
	assert.equal(hm.modelFlagged, 1, 'the model flagged a sentence both found faithful');
	assert.equal(r.judgedUnits, 7);
});

test('report: the faithfulness section in text and JSON; a session without verdicts has none', () => {
	const data = {
		summaries,
		annotations: [],
		judgments: [],
		faithfulness: [
			v('ann', 's0', 0, 'faithful'),
			v('ann', 's0', 1, 'unfaithful'),
			v('ann', 's1', 0, 'faithful'),
		],
	};
	const report = buildReport(data, { seed: 3, resamples: 200 });
	const json = reportJson(report).faithfulness;
	// s0: 1 of 2, s1: 1 of 1; the mean over the two summaries.
	assert.equal(json.validators.ann!.sentences!.faithful_share, 75);
	assert.equal(json.validators.ann!.sentences!.n, 3);
	assert.equal(json.judged, 3);
	assert.equal(json.sentences, 7);
	const text = reportLines('t', report, 80, anySession).join('\n');
	assert.match(text, /^faithfulness \(LongEval: .*\): 3\/7 sentences judged/mu);
	assert.match(
		text,
		/^ {2}ann \(human\), sentences: 75\.0% faithful, 0\.0% partial support, 25\.0% unfaithful, 0\.0% can't tell; n=3 in 2 summaries \(2 faithful, 0 partial support, 1 unfaithful, 0 can't tell; 2 summaries are too few for an interval over summaries\)$/mu,
	);
	const none = reportLines(
		't',
		buildReport({ summaries, annotations: [], judgments: [] }, { seed: 3, resamples: 200 }),
		80,
		anySession,
	).join('\n');
	// The per-book table's legend names faithfulness verdicts; the section itself is absent.
	assert.doesNotMatch(none, /^faithfulness \(/mu);
});

test('FaithfulnessWalk: verdicts reach the disk through the journal, undo takes one back, an old session without the list opens', async (t) => {
	const dir = tempDir('faithfulness', t);
	const created = await Session.createCollection(dir, {
		id: 'old',
		title: 'voyage',
		sources: ['test'],
		summaries,
		annotations: [],
		judgments: [],
		runs: [],
	});
	await created.close();
	const raw = JSON.parse(await readFile(path.join(dir, 'old', 'session.json'), 'utf8'));
	assert.equal('faithfulness' in raw, false, 'a session as made before faithfulness verdicts');

	const session = await Session.open(dir, 'old');
	const walk = new FaithfulnessWalk(session, 'ann', () => new Date(at));
	await walk.begin();
	assert.equal(walk.units.length, 7);
	await walk.mark(walk.units[0]!, 'faithful');
	await walk.mark(walk.units[1]!, 'unfaithful', 'Dover is never named');
	assert.ok(existsSync(path.join(dir, 'old', 'changes.jsonl')), 'verdicts are appended to the journal');
	const read = async () => (await Session.snapshot(dir, 'old')).data.faithfulness ?? [];
	assert.deepEqual(
		(await read()).map((f) => [f.sentence, f.label, f.note]),
		[
			[0, 'faithful', null],
			[1, 'unfaithful', 'Dover is never named'],
		],
	);
	await assert.rejects(walk.mark({ summary: 's0', sentence: 99 }, 'faithful'), /no sentence 100/u);
	assert.equal((await walk.undo())?.sentence, 1);
	assert.deepEqual(
		(await read()).map((f) => f.sentence),
		[0],
	);
	await walk.mark(walk.units[4]!, 'unsure');
	await session.close();

	const reopened = await Session.open(dir, 'old');
	t.after(() => reopened.close());
	assert.deepEqual(
		(reopened.data.faithfulness ?? []).map((f) => [f.summary, f.sentence, f.label, f.origin]),
		[
			['s0', 0, 'faithful', 'human'],
			['s1', 0, 'unsure', 'human'],
		],
	);
});

test('a faithfulness verdict on a summary the session does not hold is refused by save', async (t) => {
	const dir = tempDir('faithfulness', t);
	const session = await Session.createCollection(dir, {
		id: 'bad',
		title: 'voyage',
		sources: ['test'],
		summaries,
		annotations: [],
		judgments: [],
		runs: [],
	});
	t.after(() => session.close());
	await assert.rejects(
		session.append('faithfulness', { ...v('ann', 's0', 0, 'faithful'), summary: 's7' }),
		/no summary s7/u,
	);
});
