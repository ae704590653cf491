import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens, countWords } from '../../source/text/tokens.ts';
import {
	levelLimits,
	compressionTarget,
	expectedWords,
	regenerationWords,
	withinCompressionTolerance,
} from '../../source/summarize/budget.ts';
import { activeVersion, getNode } from '../../source/summarize/graph.ts';
import { endsWithTerminal, summaryProblem } from '../../source/summarize/validity.ts';
import { plannerFor } from '../../source/summarize/run.ts';
import { FakeModel, prng } from '../support/fake-model.ts';
import { randomBook, setUp } from '../support/run-harness.ts';

test('level limits shrink by 0.65 per level below the top, which gets G_n', () => {
	// 100 chunks of 2048 in 8192: 3 chunk-sized items fit, then 17 of 450 -> 100 -> 34 -> 2 -> 1.
	const limits = levelLimits({
		chunks: 100,
		contextWindow: 8192,
		chunkSize: 2048,
		maxSummary: 900,
		mergeTemplateTokens: 200,
	});
	assert.deepEqual(limits, [380, 585, 900]);
	assert.deepEqual(
		levelLimits({
			chunks: 1,
			contextWindow: 8192,
			chunkSize: 2048,
			maxSummary: 900,
			mergeTemplateTokens: 200,
		}),
		[900],
	);
	// An estimate that cannot fit two items still terminates (the real check is made per level).
	assert.deepEqual(
		levelLimits({
			chunks: 5,
			contextWindow: 3000,
			chunkSize: 2048,
			maxSummary: 900,
			mergeTemplateTokens: 200,
		}),
		[585, 900],
	);
});

/** The authors' `estimate_levels` (summ.py), transcribed line by line; it needs fit >= 1 to end. */
function authorsLimits(
	numChunks: number,
	chunkSize: number,
	maxContext: number,
	templateTokens: number,
	maxSummary: number,
): number[] {
	let chunkLimit = chunkSize;
	let levels = 0;
	while (numChunks > 1) {
		const chunksThatFit = Math.floor((maxContext - templateTokens - 20) / chunkLimit);
		numChunks = Math.ceil(numChunks / chunksThatFit);
		chunkLimit = 450;
		levels += 1;
	}
	const limits = [maxSummary];
	for (let i = 0; i < levels - 1; i++) limits.push(Math.trunc(limits[limits.length - 1]! * 0.65));
	return limits.reverse();
}

test("level limits match the authors' estimate for every chunk count, chunk size, window and G_n", () => {
	let cases = 0;
	for (const [chunkSize, contextWindow] of [
		[2048, 4096],
		[2048, 8192],
		[4096, 8192],
		[1024, 4096],
		[3000, 4096],
		[88000, 100000],
		[2048, 2600],
	]) {
		for (const maxSummary of [300, 900, 1200]) {
			for (let chunks = 1; chunks <= 400; chunks++) {
				const expected = authorsLimits(chunks, chunkSize!, contextWindow!, 31, maxSummary);
				assert.deepEqual(
					levelLimits({
						chunks,
						contextWindow: contextWindow!,
						chunkSize: chunkSize!,
						maxSummary,
						mergeTemplateTokens: 31,
					}),
					expected,
					`${chunks} chunks, C ${chunkSize}, W ${contextWindow}, G ${maxSummary}`,
				);
				cases++;
			}
		}
	}
	assert.equal(cases, 7 * 3 * 400);
	// The case: Pride and Prejudice at C 2048, W 4096, G_n 900 has level 0 at 247 tokens.
	assert.deepEqual(
		levelLimits({
			chunks: 80,
			contextWindow: 4096,
			chunkSize: 2048,
			maxSummary: 900,
			mergeTemplateTokens: 31,
		}),
		[247, 380, 585, 900],
	);
});

test('word budgets follow the authors: 0.65 words per token, a cumulative 10% more off per regeneration', () => {
	assert.deepEqual(
		[0, 1, 2, 3, 4, 5, 6].map((a) => regenerationWords(1000, a)),
		[1000, 1000, 900, 720, 504, 302, 151],
	);
	// Incremental: after chunk j of n the summary should have floor(585 * (j+1) / n) words.
	assert.equal(expectedWords(900, 0, 10), 58);
	assert.equal(expectedWords(900, 9, 10), 585);
	// The 3rd compression before step 5 of 10 aims 10% under floor(585*5/10) = 292.
	assert.equal(compressionTarget(900, 5, 10, 2), Math.floor(292 * 0.9));
	assert.ok(withinCompressionTolerance(240, 262));
	assert.ok(!withinCompressionTolerance(330, 262));
});

test('validity: non-empty, terminal punctuation (closing quotes count), within the token limit', () => {
	assert.equal(summaryProblem('', 0, 10), 'empty');
	assert.match(summaryProblem('It ended', 2, 10)!, /terminal/);
	assert.equal(summaryProblem('He said "go."', 5, 10), null);
	assert.equal(summaryProblem('She wept.\u201D', 5, 10), null);
	assert.match(summaryProblem('Too long.', 11, 10)!, /over the limit/);
	assert.match(summaryProblem('Exactly.', 10, 10, true)!, /over the limit/);
	assert.ok(endsWithTerminal('Why?  \n'));
});

for (const method of ['hier', 'inc'] as const) {
	test(`${method}: every prompt plus its allowed output fits the window, on random books and settings`, async () => {
		const random = prng(method === 'hier' ? 7 : 11);
		for (let trial = 0; trial < 6; trial++) {
			const chunkSize = [256, 512, 1024, 2048][Math.floor(random() * 4)]!;
			const maxSummary = [128, 300, 600, 900][Math.floor(random() * 4)]!;
			const slack = method === 'inc' ? chunkSize + 2 * maxSummary + 400 : chunkSize + maxSummary + 300;
			const contextWindow = slack + Math.floor(random() * 3000);
			const book = randomBook(trial * 31 + 1, 40 + Math.floor(random() * 260));
			const model = new FakeModel({ seed: trial, faultRate: 0.25, verbosity: 0.7 + random() * 0.6 });
			const { run, engine, config, store } = await setUp(
				book,
				{ method, chunkSize, maxSummary, contextWindow, clean: random() < 0.5 },
				model,
			);
			const status = await engine.start();
			const label = `trial ${trial} (C=${chunkSize}, W=${contextWindow}, G=${maxSummary}, ${run.chunks.length} chunks)`;
			assert.equal(status, 'done', `${label}: ${run.error}`);
			for (const request of model.requests) {
				assert.ok(
					countTokens(request.prompt) + request.maxTokens <= config.contextWindow,
					`${label}: a prompt overflows the window`,
				);
			}
			// Bounded: at most 7 calls per node, and every call was logged once.
			assert.equal(store.log.length, model.requests.length);
			for (const node of run.nodes) {
				const v = activeVersion(node)!;
				assert.ok(v.attempts.length <= 7, `${label}: ${node.id} made ${v.attempts.length} calls`);
				if (!v.overBudget)
					assert.equal(
						summaryProblem(
							v.text,
							countTokens(v.text),
							node.budget.summaryTokens,
							method === 'inc' && node.kind !== 'clean',
						),
						null,
					);
			}
			const root = getNode(run, run.root!);
			assert.ok(activeVersion(root)!.text.length > 0);
			if (run.config.clean) assert.equal(root.kind, 'clean');
		}
	});
}

test('hier: level 0 summarizes each chunk, merges take consecutive summaries in order and shrink every level', async () => {
	const book = randomBook(3, 400);
	const { run, engine } = await setUp(
		book,
		{ method: 'hier', chunkSize: 512, maxSummary: 300, contextWindow: 2400, clean: false },
		new FakeModel({ seed: 3 }),
	);
	assert.equal(await engine.start(), 'done');
	const levels = new Map<number, typeof run.nodes>();
	for (const n of run.nodes) levels.set(n.level, [...(levels.get(n.level) ?? []), n]);
	const level0 = levels.get(0)!;
	assert.deepEqual(
		level0.map((n) => n.inputs[0]),
		run.chunks.map((c) => `c${c.index}`),
	);
	for (let level = 1; levels.has(level); level++) {
		const below = levels.get(level - 1)!.map((n) => n.id);
		const merged = levels.get(level)!.flatMap((n) => n.inputs);
		assert.deepEqual(merged, below, `level ${level} covers the level below once, in order`);
		assert.ok(levels.get(level)!.length < below.length, `level ${level} shrinks`);
		const nodes = levels.get(level)!;
		nodes.forEach((n, k) =>
			assert.equal(
				n.context,
				k === 0 ? null : nodes[k - 1]!.id,
				'context is the previous merge of the level',
			),
		);
	}
	assert.ok(levels.size >= 3, 'this book needs at least two merge levels');
	assert.equal(run.root, levels.get(levels.size - 1)![0]!.id);
});

test('hier: a level that cannot shrink is refused instead of recursing', async () => {
	const book = randomBook(5, 20);
	// A few chunks, so one level is estimated and level 0 gets G_n = 600 tokens; merges cannot hold
	// two such summaries next to the template and a 600-token output.
	const { run, engine } = await setUp(
		book,
		{ method: 'hier', chunkSize: 600, maxSummary: 600, contextWindow: 1400, clean: false },
		new FakeModel({ seed: 5, verbosity: 1.6 }),
	);
	const status = await engine.start();
	assert.equal(status, 'failed');
	assert.match(run.error!, /level (\d+) cannot merge the (\d+) summaries/);
	const failedLevel = Number(/level (\d+)/u.exec(run.error!)![1]);
	assert.ok(
		run.nodes.every((n) => n.level < failedLevel),
		'nothing was planned at the refused level',
	);
	assert.ok(run.nodes.every((n) => n.status === 'done'));
});

test('hier: invalid summaries are regenerated with cumulatively fewer words at temperature 1, then the best is kept', async () => {
	const book = randomBook(9, 30);
	// A model that never stops in time: every answer is cut at max tokens mid-sentence.
	const model = new FakeModel({ seed: 9 });
	const complete = model.complete.bind(model);
	model.complete = async (request) => {
		const r = await complete({ ...request, task: { ...request.task, words: request.maxTokens * 2 } });
		return { ...r, text: r.text.replace(/[.?!]\s*$/u, ' and') };
	};
	const { run, engine } = await setUp(
		book,
		{ method: 'hier', chunkSize: 4096, maxSummary: 200, contextWindow: 8192, clean: false },
		model,
	);
	assert.equal(run.chunks.length, 1);
	await engine.start();
	const node = run.nodes[0]!;
	const v = activeVersion(node)!;
	assert.equal(v.attempts.length, 7);
	assert.ok(v.overBudget);
	// The authors' cumulative schedule: x1, x1, x.9, x.72, x.504, x.3024, x.1512 of 130 words.
	assert.deepEqual(
		v.attempts.map((a) => a.params.words),
		[130, 130, 117, 94, 66, 39, 20],
	);
	assert.deepEqual(
		v.attempts.map((a) => a.params.temperature),
		[0.5, 1, 1, 1, 1, 1, 1],
	);
	assert.ok(v.attempts.every((a) => a.rejected));
});

test('inc: the running summary grows with the expected-words schedule; an overlong update triggers compression and a redo', async () => {
	const book = randomBook(13, 200);
	const model = new FakeModel({ seed: 13, verbosity: 1 });
	const { run, engine } = await setUp(
		book,
		{ method: 'inc', chunkSize: 512, maxSummary: 300, contextWindow: 4096, clean: false },
		model,
	);
	// Make the update at step 3 too long once, as a model that ignores the budget would.
	const complete = model.complete.bind(model);
	let spoiled = false;
	model.complete = async (request) => {
		if (
			!spoiled &&
			request.task.kind === 'update' &&
			request.prompt.includes(book.slice(run.chunks[3]!.start, run.chunks[3]!.start + 40))
		) {
			spoiled = true;
			return complete({ ...request, task: { ...request.task, words: request.maxTokens * 2 } });
		}
		return complete(request);
	};
	assert.equal(await engine.start(), 'done', run.error ?? '');
	const steps = run.chunks.length;
	const updates = run.nodes.filter((n) => n.kind !== 'compress');
	for (const n of updates) assert.equal(n.budget.words, expectedWords(300, Number(n.meta.step), steps));
	const step3 = run.nodes.filter((n) => n.meta.step === 3);
	assert.deepEqual(
		step3.map((n) => n.kind),
		['update', 'compress', 'update'],
	);
	const [first, compress, redo] = step3 as [(typeof step3)[0], (typeof step3)[0], (typeof step3)[0]];
	assert.ok(activeVersion(first)!.overBudget);
	assert.equal(compress.inputs[0], first.inputs[1], 'the previous running summary is compressed');
	assert.equal(compress.budget.words, compressionTarget(300, 3, steps, 0));
	assert.equal(redo.inputs[1], compress.id, 'the update is made again from the compressed summary');
	const step4 = run.nodes.find((n) => n.meta.step === 4)!;
	assert.equal(step4.inputs[1], redo.id);
	assert.ok(countWords(activeVersion(getNode(run, run.root!))!.text) <= 300);
});

test("the window check takes the real worst case: the paper's ChatGPT setting is accepted for both methods", async () => {
	const book = randomBook(11, 400);
	for (const method of ['inc', 'hier'] as const) {
		const { run, ctx } = await setUp(
			book,
			{ method, chunkSize: 2048, contextWindow: 4096, maxSummary: 900 },
			new FakeModel({ seed: 1 }),
		);
		assert.ok(run.chunks.length > 3);
		assert.equal(plannerFor(run.config.method).windowProblem(run, ctx), null, method);
	}
	// A chunk, the update prompt, a running summary and its output that cannot fit are refused, naming the sizes.
	const { run, ctx } = await setUp(
		book,
		{ method: 'inc', chunkSize: 2048, contextWindow: 3600, maxSummary: 900 },
		new FakeModel({ seed: 1 }),
	);
	assert.match(
		plannerFor(run.config.method).windowProblem(run, ctx) ?? '',
		/--context-window 3600 is too small for an incremental update: a 20\d\d-token chunk/,
	);
});

test("the clean step is the authors' J.3 call: temperature 0, output limit the summary's own token count", async () => {
	const { run, engine } = await setUp(
		randomBook(3, 60),
		{ method: 'hier', chunkSize: 600, contextWindow: 4096, maxSummary: 300, temperature: 0.5, clean: true },
		new FakeModel({ seed: 3 }),
	);
	assert.equal(await engine.start(), 'done');
	const clean = run.nodes.find((n) => n.kind === 'clean')!;
	const final = getNode(run, clean.inputs[0]!);
	const first = activeVersion(clean)!.attempts[0]!;
	assert.equal(first.params.temperature, 0);
	assert.equal(first.params.maxTokens, countTokens(activeVersion(final)!.text));
});

test("plan's incremental rows say why the first step's output is small: the words its prompt asks for, the running summary's share after one chunk", async () => {
	const { booook } = await import('../support/cli.ts');
	const { FRANKENSTEIN } = await import('../support/repo-data.ts');
	const { expectedWords } = await import('../../source/summarize/budget.ts');
	const r = await booook(['plan', FRANKENSTEIN, '--method', 'inc', '--max-summary', '900']);
	assert.equal(r.code, 0, r.stderr);
	const chunks = Number(/, ([\d,]+) chunks of at most/u.exec(r.stdout)![1]!.replace(/,/gu, ''));
	const first = r.stdout.split('\n').find((l) => l.includes('step 1 (summarize)'))!;
	assert.match(
		first,
		new RegExp(
			`~\\d+ out \\(asked for ${expectedWords(900, 0, chunks)} words: the running summary's share after 1 of ${chunks} chunks, growing to ${expectedWords(900, chunks - 1, chunks)} words at the last\\)$`,
			'u',
		),
	);
	assert.match(r.stdout, /steps 2-\d+ \(update\) .* out \(each rewrites the whole running summary/u);
});
