import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtractiveProvider, extractSummary } from '../../source/llm/extractive.ts';
import { ProviderError, type CallRequest } from '../../source/llm/provider.ts';
import type { Task } from '../../source/summarize/planner.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { countTokens, countWords } from '../../source/text/tokens.ts';
import { prng } from '../support/prng.ts';

const TERMINAL = /[.?!…"”’»]$/u;

function request(
	texts: string[],
	words: number,
	maxTokens: number,
	extra: Partial<CallRequest> = {},
	kind: Task['kind'] = 'summarize',
): CallRequest {
	return {
		prompt: 'ignored by the extractive provider',
		maxTokens,
		temperature: 0,
		task: { kind, texts, words },
		...extra,
	};
}

const VOCAB = (
	'the a of and to in was his her it keeper harbor storm lighthouse ship sailor night lamp sea village ' +
	'mother letter secret garden winter brother quarrel fortune inheritance captain wreck island map treasure ' +
	'remembered walked feared hid found lost wrote burned returned promised ancient quiet bitter golden ' +
	'extraordinarily unquestionably circumstances photosynthesis'
).split(' ');

function randomText(rnd: () => number): string {
	const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
	const lines: string[] = [];
	const nLines = 1 + Math.floor(rnd() * 6);
	for (let l = 0; l < nLines; l++) {
		// Now and then a heading: a line without terminal punctuation.
		if (rnd() < 0.15) {
			lines.push(`Chapter ${pick(VOCAB)} ${pick(VOCAB)}`);
			continue;
		}
		const sentences: string[] = [];
		const nSentences = 1 + Math.floor(rnd() * 8);
		for (let s = 0; s < nSentences; s++) {
			const words = Array.from({ length: 2 + Math.floor(rnd() * 28) }, () => pick(VOCAB));
			words[0] = words[0]![0]!.toUpperCase() + words[0]!.slice(1);
			const sep = rnd() < 0.1 ? '  ' : ' ';
			const body = words.join(sep);
			const r = rnd();
			sentences.push(r < 0.7 ? `${body}.` : r < 0.8 ? `${body}?` : r < 0.9 ? `${body}!` : `"${body}."`);
		}
		lines.push(sentences.join(' '));
	}
	return lines.join(rnd() < 0.5 ? '\n' : '\n\n');
}

/** The sentences the provider chooses from, as it presents them (one space inside, terminal mark). */
function inputSentences(texts: string[]): string[] {
	return texts
		.flatMap((t) => splitSentences(t))
		.map((s) => s.replace(/\s+/gu, ' '))
		.map((s) => (TERMINAL.test(s) ? s : `${s}.`));
}

test('budgets, narrative order and punctuation hold over many random inputs and budgets', () => {
	const rnd = prng(20240601);
	let cuts = 0;
	let multi = 0;
	for (let round = 0; round < 400; round++) {
		const texts = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => randomText(rnd));
		// Tiny budgets now and then, so the cut-short path is exercised too.
		const words = rnd() < 0.1 ? 1 + Math.floor(rnd() * 3) : 1 + Math.floor(rnd() * 200);
		const maxTokens = rnd() < 0.1 ? 2 + Math.floor(rnd() * 6) : 2 + Math.floor(rnd() * 300);
		const result = extractSummary(texts, { words, maxTokens });
		const ctx = `round ${round}, words ${words}, maxTokens ${maxTokens}: ${JSON.stringify(result.text)}`;

		assert.ok(result.text.length > 0, ctx);
		assert.ok(countWords(result.text) <= words, ctx);
		assert.ok(countTokens(result.text) <= maxTokens, ctx);
		assert.match(result.text, TERMINAL, ctx);
		assert.equal(result.pieces.join(''), result.text, ctx);

		const sentences = inputSentences(texts);
		if (result.cut) {
			cuts++;
			// Only when no sentence fits on its own, and then a prefix of one of them.
			for (const s of sentences)
				assert.ok(countWords(s) > words || countTokens(s) > maxTokens, `${ctx} skipped ${s}`);
			assert.equal(result.picked.length, 1, ctx);
			const source = sentences[result.picked[0]!]!.split(' ');
			const kept = result.text.slice(0, -1).split(' ');
			assert.ok(kept.length <= source.length, ctx);
			kept.forEach((w, k) =>
				assert.ok(k < kept.length - 1 ? w === source[k] : source[k]!.startsWith(w), ctx),
			);
		} else {
			if (result.picked.length > 1) multi++;
			for (let k = 1; k < result.picked.length; k++)
				assert.ok(result.picked[k - 1]! < result.picked[k]!, `${ctx} out of order`);
			assert.equal(result.text, result.picked.map((i) => sentences[i]!).join(' '), ctx);
		}
	}
	// The random budgets must exercise both paths, or this test proves less than it claims.
	assert.ok(cuts > 10, `only ${cuts} cut outputs`);
	assert.ok(multi > 100, `only ${multi} multi-sentence outputs`);
});

test('the provider honours word and token budgets on random inputs', async () => {
	const rnd = prng(7);
	const provider = new ExtractiveProvider();
	for (let round = 0; round < 60; round++) {
		const texts = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => randomText(rnd));
		const words = 5 + Math.floor(rnd() * 120);
		const maxTokens = 10 + Math.floor(rnd() * 200);
		const { text } = await provider.complete(request(texts, words, maxTokens));
		assert.ok(countWords(text) <= words && countTokens(text) <= maxTokens && TERMINAL.test(text), text);
	}
});

test('the token budget binds when the word budget is loose', () => {
	const text = Array.from(
		{ length: 40 },
		(_, i) => `Sentence number ${i} mentions the harbor and the keeper.`,
	).join(' ');
	const result = extractSummary([text], { words: 10_000, maxTokens: 50 });
	assert.ok(countTokens(result.text) <= 50);
	assert.ok(result.picked.length >= 2, 'it fills the budget with several sentences');
	assert.ok(
		countTokens(result.text) > 50 - 2 * countTokens('Sentence number 10 mentions the harbor and the keeper.'),
	);
});

const CENTRAL = [
	'Quantum penguins juggle seventeen violins.',
	'The keeper lived alone in the lighthouse.',
	'A storm came over the harbor at night.',
	'The old lighthouse keeper watched the storm over the harbor.',
	'Ships in the harbor feared the storm.',
	'The keeper lit the lighthouse lamp.',
];

test('a central sentence is chosen over an outlier', async () => {
	const provider = new ExtractiveProvider();
	// Room for exactly one sentence: the outlier comes first, so position alone would pick it.
	const one = await provider.complete(request([CENTRAL.join(' ')], countWords(CENTRAL[3]!), 1000));
	assert.equal(one.text, CENTRAL[3]);
	// Room for all but the outlier: it is the one left out.
	const total = CENTRAL.reduce((s, x) => s + countWords(x), 0);
	const most = await provider.complete(request([CENTRAL.join(' ')], total - countWords(CENTRAL[0]!), 1000));
	assert.equal(most.text, CENTRAL.slice(1).join(' '));
});

test('output keeps the narrative order across input texts', async () => {
	const texts = [CENTRAL.slice(0, 3).join(' '), CENTRAL.slice(3).join('\n')];
	const { text } = await new ExtractiveProvider().complete(request(texts, 25, 1000));
	const all = texts.join(' ');
	const positions = splitSentences(text).map((s) => all.indexOf(s));
	assert.ok(positions.length >= 2);
	assert.ok(positions.every((p) => p >= 0));
	assert.deepEqual(
		positions,
		[...positions].sort((a, b) => a - b),
	);
});

test('same input gives the same output', async () => {
	const rnd = prng(99);
	const texts = [randomText(rnd), randomText(rnd), randomText(rnd)];
	const a = await new ExtractiveProvider().complete(request(texts, 60, 200));
	const provider = new ExtractiveProvider();
	const b = await provider.complete(request(texts, 60, 200));
	const c = await provider.complete(request([...texts], 60, 200));
	assert.equal(a.text, b.text);
	assert.equal(b.text, c.text);
});

test('summarize, merge, update and compress all extract the same way', async () => {
	const provider = new ExtractiveProvider();
	const texts = [CENTRAL.join(' ')];
	const outputs = await Promise.all(
		(['summarize', 'merge', 'update', 'compress'] as const).map((kind) =>
			provider.complete(request(texts, 20, 100, {}, kind)),
		),
	);
	for (const o of outputs) assert.equal(o.text, outputs[0]!.text);
});

test('a chosen sentence without terminal punctuation gets a full stop', async () => {
	const { text } = await new ExtractiveProvider().complete(
		request(['The keeper watched the harbor at night'], 50, 100),
	);
	assert.equal(text, 'The keeper watched the harbor at night.');
});

test('when no sentence fits, the best one is cut at a word boundary and closed with a full stop', () => {
	const long =
		'The old lighthouse keeper, who had watched the harbor for forty years through storms and calms, finally left his post.';
	const byWords = extractSummary([long], { words: 6, maxTokens: 1000 });
	assert.equal(byWords.cut, true);
	assert.equal(byWords.text, 'The old lighthouse keeper, who had.');
	const byTokens = extractSummary([long], { words: 1000, maxTokens: 6 });
	assert.ok(countTokens(byTokens.text) <= 6);
	assert.match(byTokens.text, /^The old\b.*\.$/u);
});

test('a budget that cannot hold a single word is refused', async () => {
	const provider = new ExtractiveProvider();
	await assert.rejects(
		provider.complete(request(['Some text here.'], 0, 100)),
		(e: unknown) => e instanceof ProviderError && !e.retryable,
	);
	await assert.rejects(
		provider.complete(request(['Some text here.'], 10, 1)),
		(e: unknown) => e instanceof ProviderError && !e.retryable,
	);
});

test('empty input gives empty output', async () => {
	const result = await new ExtractiveProvider().complete(request(['', '  \n\n '], 50, 100));
	assert.equal(result.text, '');
	assert.equal(result.finishReason, 'stop');
});

test('clean returns the first text unchanged', async () => {
	const dirty = '  Summary: The keeper   watched the harbor\n\nand the storm came  ';
	const deltas: string[] = [];
	const result = await new ExtractiveProvider().complete(
		request([dirty, 'ignored'], 3, 5, { onDelta: (d) => deltas.push(d) }, 'clean'),
	);
	assert.equal(result.text, dirty);
	assert.equal(deltas.join(''), dirty);
});

test('annotate is refused with a non-retryable error that names the fix', async () => {
	await assert.rejects(
		new ExtractiveProvider().complete(request(['A summary.'], 50, 100, {}, 'annotate')),
		(e: unknown) => {
			assert.ok(e instanceof ProviderError);
			assert.equal(e.retryable, false);
			assert.match(e.message, /--provider openai or anthropic/u);
			return true;
		},
	);
});

test('deltas arrive in several pieces that concatenate to the result, and usage is counted', async () => {
	const deltas: string[] = [];
	const texts = [CENTRAL.slice(0, 3).join(' '), CENTRAL.slice(3).join(' ')];
	const provider = new ExtractiveProvider();
	let sawYield = false;
	const result = await provider.complete(
		request(texts, 40, 1000, {
			onDelta: (d) => {
				// A piece that arrives after a macrotask has run proves the provider yields in between.
				if (deltas.length === 1) setImmediate(() => (sawYield = deltas.length < 3));
				deltas.push(d);
			},
		}),
	);
	assert.ok(deltas.length >= 3, `${deltas.length} deltas`);
	assert.equal(deltas.join(''), result.text);
	assert.ok(sawYield, 'the event loop ran between pieces');
	assert.equal(result.finishReason, 'stop');
	assert.deepEqual(result.usage, {
		input: countTokens(texts[0]!) + countTokens(texts[1]!),
		output: countTokens(result.text),
		cached: 0,
	});
});

test('an aborted signal rejects with an AbortError, before or during streaming', async () => {
	const provider = new ExtractiveProvider();
	const isAbort = (e: unknown) => e instanceof Error && e.name === 'AbortError';

	await assert.rejects(
		provider.complete(request([CENTRAL.join(' ')], 40, 1000, { signal: AbortSignal.abort() })),
		isAbort,
	);

	const controller = new AbortController();
	const deltas: string[] = [];
	const during = provider.complete(
		request([CENTRAL.join(' ')], 40, 1000, {
			signal: controller.signal,
			onDelta: (d) => {
				deltas.push(d);
				controller.abort();
			},
		}),
	);
	await assert.rejects(during, isAbort);
	assert.equal(deltas.length, 1, 'no piece after the abort');

	// Aborting while the provider waits between pieces.
	const slow = new ExtractiveProvider({ deltaDelayMs: 20 });
	const later = new AbortController();
	const seen: string[] = [];
	const pending = slow.complete(
		request([CENTRAL.join(' ')], 40, 1000, {
			signal: later.signal,
			onDelta: (d) => seen.push(d) === 1 && setImmediate(() => later.abort()),
		}),
	);
	await assert.rejects(pending, isAbort);
	assert.equal(seen.length, 1);
});

test('a 10 000-token input is handled', async (t) => {
	const rnd = prng(3);
	let text = '';
	while (countTokens(text) < 10_000) text += `${randomText(rnd)}\n`;
	const start = performance.now();
	const result = await new ExtractiveProvider().complete(request([text], 500, 700));
	t.diagnostic(
		`${countTokens(text)} input tokens, ${splitSentences(text).length} sentences: ${(performance.now() - start).toFixed(0)} ms`,
	);
	assert.ok(countWords(result.text) <= 500 && countTokens(result.text) <= 700);
	assert.ok(countWords(result.text) > 400, 'a long input fills most of the word budget');
});

test('provider identity says it is not an LLM', () => {
	const p = new ExtractiveProvider({ encoding: 'o200k_base' });
	assert.equal(p.name, 'extractive');
	assert.equal(p.model, 'textrank');
	assert.equal(p.isLLM, false);
});

test('lines without a final mark (a salutation, a heading) are not picked while whole sentences fit', () => {
	const text =
		'Letter 4\n\nMy dear Victor,\n\nI have received your letter with great joy. The ship sails at dawn tomorrow. We shall write again soon.';
	const result = extractSummary([text], { words: 30, maxTokens: 60 });
	assert.ok(!/Victor,\./u.test(result.text) && !result.text.includes('Letter 4'), result.text);
	assert.match(result.text, /received your letter/u);
	// With nothing else, such a line is still better than nothing: it gets a full stop for its comma.
	assert.equal(extractSummary(['My dear Victor,'], { words: 10, maxTokens: 20 }).text, 'My dear Victor.');
});

test('whole narrative sentences are chosen over exclamations and lines cut out of a quotation', () => {
	// Short lines full of the central name rank high; a reader cannot follow them out of the book.
	const text = [
		'"Mr. Darcy! Oh, Mr. Darcy!',
		'Mr. Darcy is here, and Mr. Darcy is staying for dinner with all of us tonight.',
		'Mr. Darcy!" cried Mrs. Bennet.',
		'Elizabeth saw that Mr. Darcy had come into the room with his friend at last.',
		'"Mr. Darcy?" said Jane.',
	].join(' ');
	const result = extractSummary([text], { words: 20, maxTokens: 200 });
	assert.equal(result.text, 'Elizabeth saw that Mr. Darcy had come into the room with his friend at last.');
	// With room for more, speech that stands on its own follows; the fragments still do not.
	const more = extractSummary([text], { words: 40, maxTokens: 200 });
	assert.deepEqual(
		splitSentences(more.text).map((s) => s.slice(0, 20)),
		['Mr. Darcy is here, a', 'Elizabeth saw that M'],
	);
});

test('a text with no sentence a reader can follow still gives its best fragment', () => {
	const result = extractSummary(['"Oh! Mr. Darcy! Darcy!" Oh!'], { words: 10, maxTokens: 50 });
	assert.equal(result.cut, false);
	assert.ok(result.text.length > 0);
});

/** `n` sentences about `topic`, numbered so none repeats, each 10 words besides the topic's. */
function about(topic: string, n = 10): string {
	return Array.from(
		{ length: n },
		(_, i) => `The ${topic} was seen again on day number ${i + 1} by everyone.`,
	).join(' ');
}

test('merge inputs share the budget by the chunks each stands for, whatever TextRank prefers', async () => {
	// The second input repeats itself, so TextRank alone would fill the summary from it.
	const texts = [about('harbor lamp', 6), about('storm storm', 12)];
	const from = (text: string) => ({
		harbor: (text.match(/harbor/gu) ?? []).length,
		storm: (text.match(/storm storm/gu) ?? []).length,
	});
	const provider = new ExtractiveProvider();
	// Sentences of 12 words: 24 words each, or 12 and 36.
	const equal = await provider.complete(request(texts, 48, 1000, {}, 'merge'));
	assert.deepEqual(from(equal.text), { harbor: 2, storm: 2 });
	const task = { kind: 'merge' as const, texts, words: 48, covers: [1, 3] };
	const weighted = await provider.complete({ ...request(texts, 40, 1000), task });
	assert.deepEqual(from(weighted.text), { harbor: 1, storm: 3 });
});

test("an update keeps the running summary and adds the chunk's best sentence only when it fits the room", async () => {
	const previous = about('harbor lamp', 3);
	const chunk = `${about('storm', 4)} Quiet penguins juggle seventeen old violins.`;
	const provider = new ExtractiveProvider();
	// 36 words kept and room for 8: the chunk's best sentence has 11, so the room waits for a later
	// step instead of going to the least central line, which would fit.
	const held = await provider.complete(request([previous, chunk], 44, 1000, {}, 'update'));
	assert.equal(held.text, previous);
	const added = await provider.complete(request([previous, chunk], 47, 1000, {}, 'update'));
	assert.equal(splitSentences(added.text).length, 4);
	assert.ok(added.text.startsWith(previous) && /storm/u.test(added.text), added.text);
});
