import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScoredSummary } from '../source/domain.ts';
import { judgeFaithfulness } from '../source/engine/faithfulness-judge.ts';
import { createProvider } from '../source/llm/create.ts';
import { BUILTIN_PRICES, callCost } from '../source/llm/prices.ts';
import { loadTemplates } from '../source/prompts/load.ts';
import { faithfulnessReport, readFaithfulnessAnswer } from '../source/score/faithfulness.ts';
import { Session } from '../source/store/session.ts';
import { startFakeApi } from './support/fake-api.ts';
import { tempDir } from './support/temp.ts';

const summaries: ScoredSummary[] = [
	{
		id: 's0',
		book: 'voyage',
		text: 'Ann sails to Dover. The war ends. Bob sells the boat.',
		node: null,
		version: null,
		source: 'test',
	},
];

test('readFaithfulnessAnswer takes exactly a Label line and a Reason line, nothing looser', () => {
	assert.deepEqual(readFaithfulnessAnswer('Label: faithful\nReason: stated in passage 1.'), {
		ok: true,
		label: 'faithful',
		reason: 'stated in passage 1.',
	});
	assert.deepEqual(readFaithfulnessAnswer("label: Can't tell.\nreason: no passage names Bob"), {
		ok: true,
		label: 'unsure',
		reason: 'no passage names Bob',
	});
	assert.equal(readFaithfulnessAnswer('Label: unfaithful').ok, false);
	assert.equal(readFaithfulnessAnswer('Label: mostly faithful\nReason: x').ok, false);
	assert.equal(readFaithfulnessAnswer('The sentence is faithful.\nReason: x').ok, false);
	assert.equal(readFaithfulnessAnswer('Label: faithful\nReason: a\nAlso: b').ok, false);
});

test('openai SDK: the judge makes one call per sentence with its evidence, retries an unreadable answer, and saves verdicts of origin model', async (t) => {
	const prompts: string[] = [];
	let garbled = 0;
	const server = await startFakeApi({
		respond: ({ prompt }) => {
			prompts.push(prompt);
			const sentence = /The sentence to check:\n(.*)\n/u.exec(prompt)?.[1] ?? '';
			// The first answer about Bob is prose, which must be asked again.
			if (sentence.startsWith('Bob') && garbled++ === 0) return 'I think this is probably fine.';
			return sentence.startsWith('The war')
				? 'Label: unfaithful\nReason: the war goes on in passage 1.'
				: `Label: faithful\nReason: stated in the book.`;
		},
	});
	t.after(() => server.close());
	const dir = tempDir('faith-judge');
	const session = await Session.createCollection(dir, {
		title: 'voyage',
		sources: [],
		runs: [],
		summaries,
		annotations: [],
		judgments: [],
	});
	t.after(() => session.close());
	const provider = createProvider({
		provider: 'openai',
		model: 'gpt-4o-mini',
		baseUrl: server.openaiBaseUrl,
		env: { OPENAI_API_KEY: 'test-key' },
		streamTimeoutMs: 5000,
		streamRetryDelayMs: 10,
	});
	const templates = await loadTemplates();
	const result = await judgeFaithfulness({
		store: session,
		provider,
		template: templates.faithfulness,
		summaries: ['s0'],
		evidenceFor: (u) => [{ text: `passage about sentence ${u.sentence + 1}`, where: `chunk ${u.sentence}` }],
		concurrency: 2,
		costOf: (usage) => callCost(BUILTIN_PRICES, 'gpt-4o-mini', usage, 'openai').cost,
	});
	assert.equal(result.status, 'done', result.error ?? '');
	assert.deepEqual(
		{ judged: result.judged, unreadable: result.unreadable, calls: prompts.length },
		{ judged: 3, unreadable: 0, calls: 4 },
	);
	assert.ok(
		prompts.some((p) => p.includes('[1] (chunk 1) passage about sentence 2')),
		'the evidence is in the prompt',
	);
	const verdicts = session.data.faithfulness ?? [];
	assert.deepEqual(verdicts.map((v) => [v.sentence, v.label, v.origin, v.validator]).sort(), [
		[0, 'faithful', 'model', 'openai/gpt-4o-mini'],
		[1, 'unfaithful', 'model', 'openai/gpt-4o-mini'],
		[2, 'faithful', 'model', 'openai/gpt-4o-mini'],
	]);
	assert.equal(verdicts.find((v) => v.sentence === 1)!.note, 'the war goes on in passage 1.');
	assert.equal((await session.calls()).length, 4, 'every call is in calls.jsonl');
	// Judging again asks nothing: every sentence has this model's verdict.
	const again = await judgeFaithfulness({
		store: session,
		provider,
		template: templates.faithfulness,
		summaries: ['s0'],
		evidenceFor: () => [],
		concurrency: 2,
		costOf: () => 0,
	});
	assert.equal(again.judged, 0);
	assert.equal(prompts.length, 4);
	// The report compares it with a person.
	session.data.faithfulness!.push({
		summary: 's0',
		sentence: 1,
		label: 'faithful',
		note: null,
		validator: 'ann',
		origin: 'human',
		at: '2026-01-01T00:00:00.000Z',
	});
	const row = faithfulnessReport(summaries, session.data.faithfulness!, { seed: 1, resamples: 100 })
		.humanVsModel[0]!;
	assert.deepEqual(
		{ model: row.model, n: row.n, flagged: row.modelFlagged },
		{ model: 'openai/gpt-4o-mini', n: 1, flagged: 1 },
	);
});
