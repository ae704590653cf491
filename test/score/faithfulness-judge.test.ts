import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScoredSummary } from '../../source/domain.ts';
import { judgeFaithfulness, type FaithfulnessJudgeOptions } from '../../source/engine/faithfulness-judge.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import type { JudgeEvidence } from '../../source/score/claims.ts';
import { faithfulnessLines, faithfulnessReport } from '../../source/score/faithfulness.ts';
import { Session } from '../../source/store/session.ts';
import { claimQuestion, claimsQuestion, faithfulnessReply } from '../support/faithfulness-reply.ts';
import { modelPassBench } from '../support/model-pass.ts';

const summaries: ScoredSummary[] = [
	{
		id: 's0',
		book: 'voyage',
		text: 'Ann sails to Dover and meets Bob. The war ends. Bob sells the boat.',
		node: null,
		version: null,
		source: 'test',
	},
];

/** The book as the fake retrieval knows it: one passage per fact, at its place. */
const BOOK = [
	'Ann sails to Dover in May.',
	'There she meets Bob.',
	'The war goes on for years.',
	'Bob sells the boat to Carl.',
];
const passages: JudgeEvidence[] = BOOK.map((text, i) => ({
	text,
	where: `chunk ${i + 1}`,
	start: i * 100,
	end: i * 100 + text.length,
}));

/** Retrieval stand-in: the passages sharing a word of three letters or more with the claim. */
function evidenceFor(_unit: unknown, claim: string): JudgeEvidence[] {
	const words = claim.match(/\b\w{3,}\b/gu) ?? [];
	return passages.filter((p) => words.some((w) => p.text.includes(w)));
}

const verdicts0 = (session: Session) => session.data.faithfulness!.find((v) => v.sentence === 0)!;

async function setup(t: import('node:test').TestContext, name: string, respond: (prompt: string) => string) {
	const { prompts, dir, session, provider, costOf } = await modelPassBench(
		t,
		name,
		'voyage',
		respond,
		summaries,
	);
	const templates = await loadTemplates();
	const options = (store: FaithfulnessJudgeOptions['store']): FaithfulnessJudgeOptions => ({
		store,
		provider,
		templates,
		summaries: ['s0'],
		evidenceFor,
		concurrency: 2,
		costOf,
	});
	return { prompts, dir, session, options };
}

test('openai SDK: each sentence is split into claims, each claim judged with its own passages and a checked quote, and the sentence is as faithful as its claims', async (t) => {
	const { prompts, session, options } = await setup(t, 'faith-claims', (prompt) => {
		const claim = claimQuestion(prompt)?.claim;
		// The war: contradicted, quoting the passage. Bob's sale: "supported" with a quote that is in no passage.
		if (claim === 'The war ends')
			return 'Label: contradicted\nQuote: "The war goes on for years."\nReason: it goes on.';
		if (claim === 'Bob sells the boat')
			return 'Label: supported\nQuote: Bob sold his boat\nReason: passage 1 says so.';
		if (claim === 'meets Bob') return 'Label: supported\nQuote: she meets Bob\nReason: passage 1.';
		return faithfulnessReply(prompt)!;
	});
	t.after(() => session.close());
	const result = await judgeFaithfulness(options(session));
	assert.equal(result.status, 'done', result.error ?? '');
	assert.deepEqual(
		{ judged: result.judged, claims: result.claims, unreadable: result.unreadable, unsplit: result.unsplit },
		{ judged: 3, claims: 4, unreadable: 0, unsplit: 0 },
	);
	// One split per sentence, one judgment per claim.
	assert.equal(prompts.filter((p) => claimsQuestion(p) !== null).length, 3);
	assert.equal(prompts.filter((p) => claimQuestion(p) !== null).length, 4);
	// A claim is shown the passages retrieved for it, not its sentence's.
	const dover = prompts.map(claimQuestion).find((q) => q?.claim === 'Ann sails to Dover')!;
	assert.deepEqual(dover.passages, ['Ann sails to Dover in May.']);

	const verdicts = new Map((session.data.faithfulness ?? []).map((v) => [v.sentence, v]));
	const first = verdicts.get(0)!;
	assert.equal(first.label, 'faithful');
	assert.deepEqual(
		first.claims!.map((c) => [c.claim, c.verdict, c.passage]),
		[
			['Ann sails to Dover', 'supported', { start: 0, end: 26 }],
			['meets Bob', 'supported', { start: 100, end: 120 }],
		],
	);
	assert.equal(first.split, 'read');
	assert.equal(first.note, '2 claims: 2 supported');
	// A contradiction quoted word for word (its quotation marks aside) makes the sentence unfaithful.
	assert.equal(verdicts.get(1)!.label, 'unfaithful');
	assert.deepEqual(verdicts.get(1)!.claims![0]!.passage, { start: 200, end: 226 });
	// A "supported" whose quote is in no passage shown is caught: unquoted, and the sentence can't be told.
	const sale = verdicts.get(2)!;
	assert.deepEqual(
		[sale.label, sale.claims![0]!.verdict, sale.claims![0]!.quote, sale.claims![0]!.passage],
		['unsure', 'unquoted', 'Bob sold his boat', null],
	);
	assert.ok(
		[...verdicts.values()].every((v) => v.origin === 'model' && v.validator === 'openai/gpt-4o-mini'),
	);
	assert.equal((await session.calls()).length, 7, 'every call is in calls.jsonl');

	// Judging again asks nothing: every sentence has this model's verdict.
	const again = await judgeFaithfulness(options(session));
	assert.equal(again.judged, 0);
	assert.equal(prompts.length, 7);
	// The report counts each sentence by its claims: the unquoted one is neither faithful nor dropped.
	const report = faithfulnessReport(summaries, session.data.faithfulness!, { seed: 1, resamples: 100 });
	const row = report.validators[0]!;
	assert.deepEqual(row.sentences!.counts, {
		faithful: 1,
		partial: 0,
		unfaithful: 0,
		'not found': 0,
		contradicted: 1,
		unsure: 0,
		unchecked: 1,
	});
	assert.equal(row.sentences!.share, 1 / 3);
	assert.deepEqual([row.claims!.n, row.claims!.counts.faithful, row.claims!.counts.unchecked], [4, 2, 1]);
	// With the claims counted by check, the unquoted one among them.
	const claimsLine = faithfulnessLines(report, (s) => s).find((l) => l.includes(', claims (FABLES): '))!;
	assert.match(
		claimsLine,
		/: 50\.0% \[[\d.]+, [\d.]+\] faithful, 0\.0% not found, 25\.0% contradicted, 25\.0% unchecked; n=4 in 1 summary \(2 supported, 1 contradicted, 0 not found, 1 unquoted, 0 unreadable; 0 sentences judged whole \(claims answer unreadable\);/u,
	);
});

test('an unreadable claims answer leaves the sentence as one claim, recorded so; an unreadable claim answer is asked again, then recorded unreadable', async (t) => {
	const { prompts, dir, session, options } = await setup(t, 'faith-unread', (prompt) => {
		const sentence = claimsQuestion(prompt);
		if (sentence === 'The war ends.') return 'The sentence says the war ends.';
		// Well-formed lines, but more than the token limit: cut short, its last claims lost.
		if (sentence === 'Ann sails to Dover and meets Bob.')
			return `1. Ann sails to Dover.\n2. ${'Ann meets Bob, who is a sailor of long standing in the port. '.repeat(40)}`;
		const claim = claimQuestion(prompt)?.claim;
		if (claim === 'Bob sells the boat') return 'Supported, I think.';
		return faithfulnessReply(prompt)!;
	});
	const result = await judgeFaithfulness({ ...options(session), maxRetries: 1 });
	assert.equal(result.status, 'done', result.error ?? '');
	assert.deepEqual([result.judged, result.unsplit, result.unreadable], [3, 2, 1]);
	assert.deepEqual(
		verdicts0(session).claims!.map((c) => c.claim),
		['Ann sails to Dover and meets Bob.'],
		'the cut-short claims list is not taken',
	);
	const verdicts = new Map((session.data.faithfulness ?? []).map((v) => [v.sentence, v]));
	const war = verdicts.get(1)!;
	assert.equal(war.split, 'unreadable');
	assert.deepEqual(
		war.claims!.map((c) => [c.claim, c.verdict]),
		[['The war ends.', 'not found']],
	);
	assert.match(war.note!, /judged whole/u);
	const tally = faithfulnessReport(summaries, session.data.faithfulness!, { seed: 1, resamples: 100 })
		.validators[0]!.checks!;
	assert.deepEqual([tally.claims, tally.verdicts.unreadable, tally.unsplit], [3, 1, 2]);
	const sale = verdicts.get(2)!;
	assert.deepEqual(
		[sale.label, sale.claims![0]!.verdict, sale.claims![0]!.reason],
		['unsure', 'unreadable', null],
	);
	// Asked twice each (maxRetries 1): the war's split and the sale's claim.
	assert.equal(prompts.filter((p) => claimsQuestion(p) === 'The war ends.').length, 2);
	assert.equal(prompts.filter((p) => claimQuestion(p)?.claim === 'Bob sells the boat').length, 2);
	// The claims and checks are stored: the session reads back from disk as it was.
	const saved = structuredClone(session.data.faithfulness);
	await session.close();
	const { data } = await Session.snapshot(dir, session.id);
	assert.deepEqual(data.faithfulness, saved);
});

test('a judging stopped midway resumes from the call log without asking any prompt twice', async (t) => {
	const { prompts, dir, session, options } = await setup(t, 'faith-resume', (prompt) =>
		faithfulnessReply(prompt)!,
	);
	const stop = new AbortController();
	let logged = 0;
	// Stopped once four calls are logged: the three splits and one of the first sentence's two claims; no verdict saved.
	const store: FaithfulnessJudgeOptions['store'] = {
		data: session.data,
		append: (list, ...items) => session.append(list, ...items),
		calls: () => session.calls(),
		appendCall: async (record) => {
			await session.appendCall(record);
			if (++logged === 4) stop.abort();
		},
	};
	const first = await judgeFaithfulness({ ...options(store), concurrency: 1, signal: stop.signal });
	assert.equal(first.status, 'cancelled');
	assert.deepEqual([prompts.length, session.data.faithfulness ?? []], [4, []]);
	const id = session.id;
	await session.close();

	const reopened = await Session.open(dir, id);
	t.after(() => reopened.close());
	const rest = await judgeFaithfulness(options(reopened));
	assert.equal(rest.status, 'done', rest.error ?? '');
	assert.equal(reopened.data.faithfulness?.length, 3, 'every sentence judged');
	assert.equal(new Set(prompts).size, prompts.length, 'no prompt asked twice');
	// Split 3 sentences, judge 4 claims: seven prompts in all, over both runs.
	assert.equal(prompts.length, 7);
	// The calls taken from the log are billed again in the resumed totals, the ones made are new.
	assert.equal(rest.totals.calls, 7);
});
