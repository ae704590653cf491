import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryQuestion, MemoryScene } from '../../source/domain.ts';
import { answerMemory, type MemoryReaderOptions } from '../../source/engine/memory-reader.ts';
import { writeScenes, type SceneWriterOptions } from '../../source/engine/scene-writer.ts';
import { scenePieces } from '../../source/memory/scenes.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import type { Provider } from '../../source/llm/provider.ts';
import { Session } from '../../source/store/session.ts';
import { modelPassBench } from '../support/model-pass.ts';
import { fakeChoice, memoryQuestion, memoryReply, sceneStretch } from '../support/memory-reply.ts';

const ANN = 'Ann sails her boat to Dover harbour at dawn.';
const BOB = 'Bob sells the old boat to Carl for gold.';
const WAR = 'The war ends and soldiers march home singing.';
/** Another book's scene, its hero renamed Ann. */
const WHALE = 'Ann hunts a white whale across the cold ocean.';
/** The summary the reader is shown: it kept Ann's voyage, and of the war only that it ends. */
const SUMMARY = 'Ann sails to Dover harbour at dawn in her boat. The war ends.';

function question(
	id: string,
	options: [MemoryQuestion['options'][0]['kind'], string][],
	answer: number,
): MemoryQuestion {
	return {
		id,
		target: { node: 'n9', step: null },
		read: { chars: 1000, tokens: 250, fraction: 1 },
		type: options.some(([kind]) => kind === 'other-book') ? 'other-book' : 'lookahead',
		options: options.map(([kind, text], i) => ({
			kind,
			scene: `s${i}`,
			book: kind === 'other-book' ? 'whaling' : 'voyage',
			text,
		})),
		answer,
		demand: answer === options.length ? null : { fraction: 0.5, tokens: 100 },
		seed: 1,
	};
}

const QUESTIONS = [
	// Remembered: the true scene's words are all in the summary.
	question(
		'q0',
		[
			['true', ANN],
			['lookahead', BOB],
		],
		0,
	),
	// No true scene: the right answer is "None of the above".
	question(
		'q1',
		[
			['other-book', WHALE],
			['lookahead', BOB],
		],
		2,
	),
	// Forgotten: the summary keeps too few of the war scene's words.
	question(
		'q2',
		[
			['lookahead', BOB],
			['true', WAR],
		],
		1,
	),
];

async function setup(t: TestContext, name: string, respond: (prompt: string) => string) {
	const { prompts, dir, session, provider, costOf } = await modelPassBench(t, name, 'voyage', respond);
	await session.append('memoryQuestions', ...QUESTIONS);
	const templates = await loadTemplates();
	const reading = (store: MemoryReaderOptions['store']): MemoryReaderOptions => ({
		store,
		provider,
		templates,
		questions: QUESTIONS,
		shownFor: () => SUMMARY,
		shown: 'summary',
		concurrency: 2,
		costOf,
	});
	const writing = (store: SceneWriterOptions['store'], book: string): SceneWriterOptions => ({
		store,
		provider,
		templates,
		book: { title: 'voyage', text: book },
		pieces: scenePieces(book, 20),
		words: 20,
		concurrency: 2,
		costOf,
	});
	return { prompts, dir, session, reading, writing };
}

type Store = MemoryReaderOptions['store'] & SceneWriterOptions['store'];

/** The session as a store that stops the pass once `after` calls are logged. */
function stoppingAt(session: Session, after: number, stop: AbortController): Store {
	let logged = 0;
	return {
		data: session.data,
		append: ((list: 'memoryAnswers' | 'memoryScenes', ...items: never[]) =>
			session.append(list, ...items)) as Store['append'],
		calls: () => session.calls(),
		appendCall: async (record) => {
			await session.appendCall(record);
			if (++logged === after) stop.abort();
		},
	};
}

/**
 * Runs `pass` one call at a time on a store that stops it once `after` calls are logged, then closes
 * the session and opens it again, as a restart after a kill would.
 */
async function stoppedThenReopened(
	t: TestContext,
	bench: { dir: string; session: Session },
	after: number,
	pass: (store: Store, signal: AbortSignal) => Promise<{ status: string }>,
): Promise<Session> {
	const stop = new AbortController();
	const stopped = await pass(stoppingAt(bench.session, after, stop), stop.signal);
	assert.equal(stopped.status, 'cancelled');
	await bench.session.close();
	const reopened = await Session.open(bench.dir, bench.session.id);
	t.after(() => reopened.close());
	return reopened;
}

test('the fake reader recognizes a scene when the text shown holds a sentence of it, else answers "None of the above"', () => {
	assert.equal(fakeChoice(SUMMARY, [BOB, ANN]), 1);
	// The whale scene shares Ann with the summary, and nothing it tells.
	assert.equal(fakeChoice(SUMMARY, [WHALE, BOB]), 2);
	// The war scene's six content words are held only when the summary tells its end too.
	assert.equal(fakeChoice(`${SUMMARY} Soldiers march home singing.`, [BOB, WAR]), 1);
	assert.equal(fakeChoice(SUMMARY, [BOB, WAR]), 2);
});

test('openai SDK: each question is asked once, shown only the summary, and its answer stored with the reader and whether it was right', async (t) => {
	const { prompts, session, reading } = await setup(t, 'memory-read', (prompt) => memoryReply(prompt)!);
	t.after(() => session.close());
	const progress: [number, number][] = [];
	const result = await answerMemory({
		...reading(session),
		onProgress: (done, total) => progress.push([done, total]),
	});
	assert.equal(result.status, 'done', result.error ?? '');
	assert.deepEqual([result.answered, result.unreadable], [3, 0]);
	assert.deepEqual(progress, [
		[0, 3],
		[1, 3],
		[2, 3],
		[3, 3],
	]);
	const asked = prompts.map(memoryQuestion);
	assert.equal(asked.length, 3);
	assert.ok(
		asked.every((q) => q?.shown === SUMMARY),
		'the reader is shown the summary, nothing else',
	);
	assert.deepEqual(
		asked.map((q) => q!.options).sort(),
		QUESTIONS.map((q) => q.options.map((o) => o.text)).sort(),
	);
	const answers = new Map(session.data.memoryAnswers!.map((a) => [a.question, a]));
	assert.deepEqual(
		QUESTIONS.map((q) => [answers.get(q.id)!.choice, answers.get(q.id)!.correct]),
		[
			[0, true],
			[2, true],
			[2, false],
		],
	);
	assert.ok(
		session.data.memoryAnswers!.every((a) => a.reader === 'openai/gpt-4o-mini' && a.shown === 'summary'),
	);
	const calls = await session.calls();
	assert.equal(calls.length, 3, 'every call is in calls.jsonl');
	assert.ok(calls.every((c) => c.params.template === 'memory-question' && c.cost > 0));
	assert.equal(result.totals.calls, 3);

	// Asking again asks nothing; the ceiling (shown the scene's chunk) is another reading, asked anew.
	const again = await answerMemory(reading(session));
	assert.deepEqual([again.answered, prompts.length], [0, 3]);
	const ceiling = await answerMemory({
		...reading(session),
		shown: 'chunk',
		shownFor: (q) => q.options[0]!.text,
	});
	assert.deepEqual([ceiling.answered, prompts.length], [3, 6]);
	assert.equal(session.data.memoryAnswers!.filter((a) => a.shown === 'chunk').length, 3);
});

test('an unreadable answer is asked again at a higher temperature, then stored with no choice, and wrong', async (t) => {
	const seen = new Set<string>();
	const { prompts, session, reading } = await setup(t, 'memory-unread', (prompt) => {
		const options = memoryQuestion(prompt)!.options;
		if (options.includes(WAR)) return 'It could be either.';
		// Ann's question: unreadable the first time only.
		if (options.includes(ANN) && !seen.has(prompt)) {
			seen.add(prompt);
			return 'The first one, I believe.';
		}
		return memoryReply(prompt)!;
	});
	t.after(() => session.close());
	const result = await answerMemory({ ...reading(session), maxRetries: 1 });
	assert.equal(result.status, 'done', result.error ?? '');
	assert.deepEqual([result.answered, result.unreadable], [3, 1]);
	const answers = new Map(session.data.memoryAnswers!.map((a) => [a.question, a]));
	assert.deepEqual([answers.get('q0')!.choice, answers.get('q0')!.correct], [0, true]);
	assert.deepEqual([answers.get('q2')!.choice, answers.get('q2')!.correct], [null, false]);
	// Asked twice each (maxRetries 1): Ann's and the war's; the other once.
	assert.equal(prompts.length, 5);
	const retries = (await session.calls()).filter((c) => c.attempt === 1);
	assert.equal(retries.length, 2);
	assert.ok(retries.every((c) => c.params.temperature > 0));
});

test('answering stopped midway resumes from the call log without asking any question twice', async (t) => {
	const { prompts, dir, session, reading } = await setup(t, 'memory-resume', (prompt) =>
		memoryReply(prompt)!,
	);
	// Stopped once two calls are logged: the first answer stored, the second logged but not stored.
	const reopened = await stoppedThenReopened(t, { dir, session }, 2, async (store, signal) => {
		const stopped = await answerMemory({ ...reading(store), concurrency: 1, signal });
		assert.deepEqual([prompts.length, session.data.memoryAnswers!.length], [2, 1]);
		return stopped;
	});
	const rest = await answerMemory(reading(reopened));
	assert.equal(rest.status, 'done', rest.error ?? '');
	assert.equal(rest.answered, 2);
	assert.deepEqual(reopened.data.memoryAnswers!.map((a) => a.question).sort(), ['q0', 'q1', 'q2']);
	assert.equal(prompts.length, 3, 'no question asked twice');
	// The answer taken from the log is billed in the resumed totals, as the one asked anew.
	assert.equal(rest.totals.calls, 2);
});

const BOOK = [
	'Ann woke before the sun. She packed bread and rope into her boat. The harbour was silent and grey.',
	'Bob met Carl at the market. He sold him the old boat for a bag of gold. Carl laughed and paid him.',
	'News came that the war had ended. Soldiers marched home through the town. Everyone sang in the square.',
].join('\n');

test('openai SDK: a scene is written of each stretch, a paraphrase keeping its names, ids after the highest stored; written again, nothing is asked', async (t) => {
	const { prompts, session, writing } = await setup(t, 'memory-scenes', (prompt) => memoryReply(prompt)!);
	t.after(() => session.close());
	const earlier: MemoryScene = {
		id: 's4',
		book: 'voyage',
		source: 'node',
		node: 'n0',
		start: 0,
		end: 5,
		text: 'Ann wakes.',
	};
	await session.append('memoryScenes', earlier);
	const options = writing(session, BOOK);
	assert.equal(options.pieces.length, 3);
	const result = await writeScenes(options);
	assert.equal(result.status, 'done', result.error ?? '');
	assert.deepEqual([result.written, result.unreadable], [3, 0]);
	assert.deepEqual(
		prompts.map((p) => sceneStretch(p)),
		options.pieces.map((p) => ({ text: BOOK.slice(p.start, p.end), words: 20 })),
	);
	const written = session.data.memoryScenes!.filter((s) => s.source === 'written');
	assert.deepEqual(
		written.map((s) => [s.id, s.book, s.start, s.end]).sort(),
		options.pieces.map((p, i) => [`s${5 + i}`, 'voyage', p.start, p.end]).sort(),
	);
	for (const scene of written) {
		assert.ok(!BOOK.includes(scene.text), `not a copy: ${scene.text}`);
		const names = BOOK.slice(scene.start, scene.end).match(/\b(?:Ann|Bob|Carl)\b/gu) ?? [];
		if (names.length > 0)
			assert.ok(
				names.some((name) => scene.text.includes(name)),
				`one of ${names.join(', ')} kept in: ${scene.text}`,
			);
	}
	assert.equal((await session.calls()).filter((c) => c.params.template === 'memory-scene').length, 3);

	const again = await writeScenes(options);
	assert.deepEqual([again.written, prompts.length], [0, 3]);
});

test('scene writing stopped midway resumes from the call log without asking any stretch twice, ids continuing', async (t) => {
	const { prompts, dir, session, writing } = await setup(t, 'memory-scenes-resume', (prompt) =>
		memoryReply(prompt)!,
	);
	const reopened = await stoppedThenReopened(t, { dir, session }, 2, async (store, signal) => {
		const stopped = await writeScenes({ ...writing(store, BOOK), concurrency: 1, signal });
		assert.deepEqual([prompts.length, session.data.memoryScenes!.length], [2, 1]);
		return stopped;
	});
	const rest = await writeScenes(writing(reopened, BOOK));
	assert.equal(rest.status, 'done', rest.error ?? '');
	assert.equal(rest.written, 2);
	assert.deepEqual(reopened.data.memoryScenes!.map((s) => s.id).sort(), ['s0', 's1', 's2']);
	assert.equal(prompts.length, 3, 'no stretch asked twice');
});

test('a call aborted from elsewhere (a provider batch closed under the pass) fails the pass: it is never a pass done with answers missing', async (t) => {
	const { session, reading } = await setup(t, 'memory-aborted', (prompt) => memoryReply(prompt)!);
	t.after(() => session.close());
	const options = reading(session);
	const aborting: Provider = {
		name: 'openai',
		model: 'gpt-4o-mini',
		isLLM: true,
		complete: () => Promise.reject(Object.assign(new Error('the batcher closed'), { name: 'AbortError' })),
	};
	const result = await answerMemory({ ...options, provider: aborting });
	assert.equal(result.status, 'failed');
	assert.match(result.error ?? '', /the batcher closed/u);
	assert.deepEqual(session.data.memoryAnswers ?? [], []);
	// Its own cancel still ends it quietly, as cancelled.
	const stop = new AbortController();
	stop.abort();
	const cancelled = await answerMemory({ ...options, provider: aborting, signal: stop.signal });
	assert.equal(cancelled.status, 'cancelled');
	assert.equal(cancelled.error, null);
});
