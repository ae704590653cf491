import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Chunk, MemoryQuestion, MemoryScene } from '../../source/domain.ts';
import {
	buildQuestions,
	chanceOf,
	type OtherScene,
	type QuestionTarget,
	retentionDemand,
	tokensAt,
} from '../../source/memory/questions.ts';
import { optionLength, shortcutAccuracy } from '../../source/memory/shortcuts.ts';
import { prng } from '../support/prng.ts';

// A book of 1,000 characters in ten chunks of 100, the k-th of 10·(k+1) tokens, and a scene per 50 characters.
const BOOK_CHARS = 1000;
const chunks: Chunk[] = Array.from({ length: 10 }, (_, k) => ({
	index: k,
	start: 100 * k,
	end: 100 * (k + 1),
	tokens: 10 * (k + 1),
}));
const scenes: MemoryScene[] = Array.from({ length: 20 }, (_, i) => ({
	id: `s${i + 1}`,
	book: 'This Book',
	source: 'written',
	start: 50 * i,
	end: 50 * (i + 1),
	text: `Scene ${i + 1} of this book.`,
}));
const others: OtherScene[] = Array.from({ length: 30 }, (_, i) => ({
	scene: `other/s${i + 1}`,
	book: i % 2 ? 'Other Book' : 'Third Book',
	text: `Scene ${i + 1} of another book.`,
}));
/** An incremental run's running summary after each step, then its final summary. */
const targets: QuestionTarget[] = [
	...chunks.map((c): QuestionTarget => ({ node: `n${c.index + 1}`, step: c.index, readChars: c.end })),
	{ node: 'n10', step: null, readChars: BOOK_CHARS },
];

const ask = (target: QuestionTarget, extra: Partial<Parameters<typeof buildQuestions>[0]> = {}) =>
	buildQuestions({
		target,
		scenes,
		others,
		chunks,
		bookChars: BOOK_CHARS,
		count: 12,
		seed: 7,
		firstId: 1,
		...extra,
	});

const sceneOf = (id: string) => scenes.find((s) => s.id === id)!;

test('tokens up to an offset: the chunks before it and the share of the one it falls in', () => {
	assert.equal(tokensAt(chunks, 0), 0);
	assert.equal(tokensAt(chunks, 150), 10 + 10);
	assert.equal(tokensAt(chunks, 400), 10 + 20 + 30 + 40);
	assert.equal(tokensAt(chunks, BOOK_CHARS), 550);
	assert.deepEqual(retentionDemand({ end: 150 }, 400, BOOK_CHARS, chunks), { fraction: 0.25, tokens: 80 });
	assert.deepEqual(retentionDemand({ end: 400 }, 400, BOOK_CHARS, chunks), { fraction: 0, tokens: 0 });
});

test('every question has exactly one right answer and no option twice, at every step and at the end', () => {
	let nones = 0;
	let total = 0;
	for (const target of targets) {
		const questions = ask(target);
		assert.ok(questions.length > 0, `questions at step ${target.step}`);
		for (const q of questions) {
			total++;
			const truths = q.options.filter((o) => o.kind === 'true');
			assert.ok(truths.length <= 1, 'at most one true option');
			assert.equal(new Set(q.options.map((o) => o.scene)).size, q.options.length, 'no scene twice');
			assert.equal(new Set(q.options.map((o) => o.text)).size, q.options.length, 'no text twice');
			assert.equal(q.options.length, 5);
			assert.deepEqual(q.target, { node: target.node, step: target.step });
			if (truths.length === 0) {
				nones++;
				assert.equal(q.answer, q.options.length, '"None of the above" when no option is true');
				assert.equal(q.demand, null);
			} else {
				assert.equal(q.options[q.answer]!.kind, 'true');
				assert.ok(sceneOf(q.options[q.answer]!.scene).end <= target.readChars, 'a true scene was read');
			}
			for (const o of q.options) {
				if (o.kind === 'lookahead')
					assert.ok(sceneOf(o.scene).start >= target.readChars, 'lookahead is unread');
				if (o.kind !== 'true') assert.equal(o.kind, q.type, 'wrong options are of the question type');
			}
		}
		if (target.step === null)
			assert.ok(
				questions.every((q) => q.type === 'other-book'),
				'no lookahead in the final summary',
			);
	}
	// One question of six per type is "None of the above": always answering it scores chance.
	assert.ok(Math.abs(nones / total - 1 / 6) < 0.05, `${nones} of ${total}`);
});

test('retention demand is right for each step of an incremental run', () => {
	for (const target of targets) {
		for (const q of ask(target)) {
			assert.deepEqual(q.read, {
				chars: target.readChars,
				tokens: tokensAt(chunks, target.readChars),
				fraction: target.readChars / BOOK_CHARS,
			});
			if (q.demand === null) continue;
			const truth = sceneOf(q.options[q.answer]!.scene);
			// By hand: the characters from the scene's end to the step's end; the tokens of the chunks between.
			const chunkTokens = (offset: number) =>
				chunks.reduce(
					(sum, c) =>
						sum + (c.end <= offset ? c.tokens : c.start < offset ? (c.tokens * (offset - c.start)) / 100 : 0),
					0,
				);
			assert.equal(q.demand.fraction, (target.readChars - truth.end) / BOOK_CHARS);
			assert.equal(q.demand.tokens, chunkTokens(target.readChars) - chunkTokens(truth.end));
		}
	}
});

test('true scenes are spread over the part read', () => {
	const questions = ask(targets.at(-1)!, { count: 24, types: ['other-book'] });
	const demands = questions.flatMap((q) => (q.demand ? [q.demand.fraction] : []));
	assert.equal(demands.length, 20);
	assert.ok(Math.min(...demands) < 0.1 && Math.max(...demands) > 0.85, demands.join(' '));
	// Each fifth of the book holds about a fifth of them.
	for (let i = 0; i < 5; i++) {
		const inFifth = demands.filter((d) => d >= i / 5 && d < (i + 1) / 5 + (i === 4 ? 1e-9 : 0)).length;
		assert.ok(inFifth >= 3 && inFifth <= 5, `fifth ${i}: ${inFifth}`);
	}
});

test('the same seed gives the same questions, another seed another order; ids run on', () => {
	const target = targets[6]!;
	assert.deepEqual(ask(target), ask(target));
	const other = ask(target, { seed: 8 });
	assert.notDeepEqual(
		other.map((q) => q.options.map((o) => o.scene)),
		ask(target).map((q) => q.options.map((o) => o.scene)),
	);
	assert.ok(other.every((q) => q.seed === 8));
	assert.deepEqual(
		ask(target, { firstId: 40 }).map((q) => q.id),
		Array.from({ length: 12 }, (_, i) => `q${40 + i}`),
	);
});

test('too few scenes make fewer questions, never a short or doubled one; nothing read makes none', () => {
	// Three other-book scenes cannot fill five options: only lookahead questions are made.
	const few = ask(targets[4]!, { others: others.slice(0, 3) });
	assert.ok(few.length > 0 && few.every((q) => q.type === 'lookahead'));
	// After the last step but one, two scenes are unread: four wrong options cannot be drawn.
	const late = ask(targets[8]!, { others: [] });
	assert.deepEqual(late, []);
	assert.deepEqual(ask({ node: 'n1', step: 0, readChars: 30 }), []);
	// Fewer options asked: each question has that many, and "None" questions keep their share.
	const three = ask(targets[9]!, { choices: 3 });
	assert.ok(three.length > 0 && three.every((q) => q.options.length === 3));
	assert.throws(() => ask(targets[9]!, { choices: 0 }), /choices/u);
});

test('chance accuracy is 1/6 for five options and "None", and the mean for mixed shapes', () => {
	const shaped = (n: number) => ({
		options: Array.from({ length: n }, () => ({}) as MemoryQuestion['options'][number]),
	});
	assert.equal(chanceOf(ask(targets.at(-1)!)), 1 / 6);
	assert.equal(chanceOf([shaped(5)]), 1 / 6);
	assert.equal(chanceOf([shaped(3)]), 1 / 4);
	assert.equal(chanceOf([shaped(5), shaped(3)]), (1 / 6 + 1 / 4) / 2);
	assert.ok(Number.isNaN(chanceOf([])));
});

test("a true scene's length tells nothing: the longest, shortest and middle option each find it about as often as a guess", () => {
	// This book's scenes sit in the short part of the shared range and the other books' spread over
	// it (a small book against long ones): the shortest option was the true one in most questions.
	const random = prng(5);
	const words = (n: number, tag: string) =>
		[tag, ...Array.from({ length: n }, () => 'word'.slice(0, 1 + Math.floor(random() * 4)))].join(' ');
	const own = scenes.map((s) => ({ ...s, text: words(14 + Math.floor(random() * 8), `Scene ${s.id}`) }));
	const spread = Array.from({ length: 300 }, (_, i) => ({
		scene: `other/s${i + 1}`,
		book: ['Second Book', 'Third Book', 'Fourth Book', 'Fifth Book', 'Sixth Book'][i % 5]!,
		text: words(8 + Math.floor(random() * 50), `Other ${i + 1}`),
	}));
	// As a probe asks: one count of how often each scene was shown, over all its targets.
	const questions = [3, 7, 11].flatMap((seed) => {
		const uses = new Map<string, number>();
		return targets.flatMap((target) =>
			ask(target, { scenes: own, others: spread, seed, uses, types: ['other-book'] }),
		);
	});
	const withTruth = questions.filter((q) => q.answer < q.options.length);
	assert.ok(withTruth.length >= 300, `${withTruth.length} questions with a true scene`);
	// Among the questions with a true scene a guess finds it 1 in 5 times.
	const { longest, shortest } = shortcutAccuracy(withTruth);
	const middle =
		withTruth.filter((q) => {
			const lengths = q.options.map((o) => optionLength(o.text));
			return [...lengths].sort((a, b) => a - b)[2] === lengths[q.answer];
		}).length / withTruth.length;
	for (const [reader, share] of Object.entries({ longest, shortest, middle }))
		assert.ok(
			share > 0.12 && share < 0.28,
			`the ${reader} option is the true one in ${Math.round(share * 100)}%`,
		);
	// Each other-book option still comes from another book.
	for (const q of withTruth) {
		const books = q.options.filter((o) => o.kind !== 'true').map((o) => o.book);
		assert.equal(new Set(books).size, books.length, JSON.stringify(q.options));
	}
});
