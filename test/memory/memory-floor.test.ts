import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryAnswer, MemoryQuestion } from '../../source/domain.ts';
import { finalRows, likeTables } from '../../source/memory/compare.ts';
import { floorPromptValues } from '../../source/memory/prompt.ts';
import { finalMemory, resultsByReader } from '../../source/memory/results.ts';

/**
 * The floor (each question asked with the summary hidden: NarrativeXL's no-context baseline), what
 * the options alone give away, and the side-by-side rows compared like with like.
 */

/** An option of `words` words, one character each: the same length in words and in characters. */
const text = (words: number, word = 'w') => Array.from({ length: words }, () => word).join(' ');

interface Spec {
	id: string;
	/** Words of each option, the true one marked by `truth` (or none: "None of the above"). */
	words: number[];
	truth: number | null;
	demand?: number;
	step?: number | null;
	seed?: number;
	scenes?: MemoryQuestion['scenes'];
	/** Other books of the other-book options, and whether they are other sessions' level-0 summaries (`oh/s1`) or scenes written here. */
	others?: string[];
	otherIds?: 'level-0' | 'written';
	renamed?: boolean;
}

function question(spec: Spec): MemoryQuestion {
	const others = spec.others ?? ['Emma'];
	return {
		id: spec.id,
		target: { node: 'n9', step: spec.step ?? null },
		read: { chars: 1000, tokens: 250, fraction: spec.step == null ? 1 : 0.5 },
		type: 'other-book',
		options: spec.words.map((w, i) =>
			i === spec.truth
				? { kind: 'true', scene: `s${i}`, book: 'Frankenstein', text: text(w, 't') }
				: {
						kind: 'other-book',
						scene: spec.otherIds === 'written' ? `s${i + 100}` : `oh/s${i}`,
						book: others[i % others.length]!,
						text: text(w),
					},
		),
		answer: spec.truth ?? spec.words.length,
		demand:
			spec.truth === null ? null : { fraction: spec.demand ?? 0.1, tokens: 1000 * (spec.demand ?? 0.1) },
		seed: spec.seed ?? 1,
		...(spec.scenes ? { scenes: spec.scenes } : {}),
		...(spec.renamed ? { renamed: true } : {}),
	};
}

function answer(
	q: MemoryQuestion,
	choice: number,
	shown: MemoryAnswer['shown'] = 'summary',
	reader = 'openai/m',
): MemoryAnswer {
	return {
		question: q.id,
		reader,
		shown,
		choice,
		correct: choice === q.answer,
		at: '2026-01-01T00:00:00.000Z',
	};
}

test("the floor beside each accuracy: the same reader's answers with the summary hidden, on the same questions, per retention bin", () => {
	const qs = [
		question({ id: 'q1', words: [9, 9, 9, 9, 9], truth: 0, demand: 0.05 }),
		question({ id: 'q2', words: [9, 9, 9, 9, 9], truth: 1, demand: 0.1 }),
		question({ id: 'q3', words: [9, 9, 9, 9, 9], truth: 2, demand: 0.9 }),
		question({ id: 'q4', words: [9, 9, 9, 9, 9], truth: null }),
		// Answered with the summary hidden only: not among the summary's questions, so not in its floor.
		question({ id: 'q5', words: [9, 9, 9, 9, 9], truth: 3, demand: 0.5 }),
	];
	const [q1, q2, q3, q4, q5] = qs as [
		MemoryQuestion,
		MemoryQuestion,
		MemoryQuestion,
		MemoryQuestion,
		MemoryQuestion,
	];
	const answers = [
		answer(q1, 0),
		answer(q2, 1),
		answer(q3, 0),
		answer(q4, 5),
		// The floor: right on q1 only near the start, and on q3 far back; q4's "None" missed.
		answer(q1, 0, 'none'),
		answer(q2, 4, 'none'),
		answer(q3, 2, 'none'),
		answer(q4, 1, 'none'),
		answer(q5, 3, 'none'),
		// Another reader's floor is not this reader's.
		answer(q2, 1, 'none', 'anthropic/m'),
		answer(q1, 0, 'chunk'),
	];
	const readers = resultsByReader(qs, answers);
	assert.deepEqual(
		readers.map((r) => [r.reader, r.shown, r.results.n, r.floor?.n ?? null]),
		[
			['openai/m', 'summary', 4, 4],
			// The ceiling's floor is on the ceiling's one question.
			['openai/m', 'chunk', 1, 1],
			// A floor whose reader has nothing else is listed on its own.
			['anthropic/m', 'none', 1, null],
		],
	);
	const { results, floor } = readers[0]!;
	assert.deepEqual(
		results.bins.map((b) => [b.n, b.correct]),
		[
			[2, 2],
			[0, 0],
			[0, 0],
			[0, 0],
			[1, 0],
		],
	);
	assert.deepEqual(
		floor!.bins.map((b) => [b.n, b.correct]),
		[
			[2, 1],
			[0, 0],
			[0, 0],
			[0, 0],
			[1, 1],
		],
	);
	assert.deepEqual([floor!.none.n, floor!.none.correct], [1, 0]);
	assert.deepEqual([floor!.overall.n, floor!.overall.correct], [4, 2]);
	// Every option of the same length: each picker guesses among five, a fifth of the three scene questions.
	assert.ok(Math.abs(results.shortcuts.longest - 3 / 5 / 4) < 1e-12);

	const final = finalMemory(qs, answers)!;
	assert.equal(final.accuracy, 3 / 4);
	assert.equal(final.floor, 2 / 4);
	assert.equal(final.shortcuts.n, 4);
	assert.equal(
		finalMemory(
			qs,
			answers.filter((a) => a.shown !== 'none'),
		)!.floor,
		null,
	);
	assert.equal(finalMemory(qs, []), null);
});

test("the floor's prompt shows how much of the book was read and the same numbered options, never a summary", () => {
	const q = question({ id: 'q1', words: [3, 4], truth: 0 });
	assert.deepEqual(floorPromptValues(q), {
		read: 'the whole book',
		options: '1) t t t\n2) w w w w\n3) None of the above.',
	});
	assert.equal(
		floorPromptValues({ ...q, read: { ...q.read, fraction: 0.996 } }).read,
		'the first 99% of the book',
	);
});

test('like with like: final summaries only, one row per question set, the floor and ceiling on the row own questions; unlike sets never share a table', () => {
	const scenesOf = (q: MemoryQuestion) => q.scenes ?? null;
	const set = (prefix: string, extra: Partial<Spec>) =>
		[0, 1, 2, 3].map((i) =>
			question({ id: `${prefix}${i}`, words: [9, 12, 15, 10, 11], truth: i === 3 ? null : i, ...extra }),
		);
	const written = set('w', { scenes: 'written' });
	const nodes = set('n', { scenes: 'node' });
	const seed2 = set('x', { scenes: 'written', seed: 2 });
	const folder = set('f', { scenes: 'written', otherIds: 'written', others: ['Emma', 'Dracula'] });
	// The same questions but for this book's names, randomized: a set of its own.
	const renamed = set('m', { scenes: 'written', renamed: true });
	const running = set('r', { scenes: 'written', step: 3 });
	const all = [...written, ...nodes, ...seed2, ...folder, ...renamed, ...running];
	const answers = [
		...all.map((q) => answer(q, q.answer)),
		...written.slice(0, 2).map((q) => answer(q, 4, 'none')),
		// A ceiling asked on another question set (seed 2) only: no ceiling for the seed-1 rows.
		...seed2.map((q) => answer(q, q.answer, 'chunk')),
	];
	const rows = finalRows(all, answers, scenesOf);
	assert.equal(rows.length, 5, 'the running summary questions are left out');
	const of = (seed: number, scenes: string, from: string, named = false) =>
		rows.find(
			(r) => r.seed === seed && r.scenes === scenes && r.distractors.from === from && r.renamed === named,
		)!;
	const w = of(1, 'written', 'level-0');
	assert.deepEqual([w.accuracy.n, w.floor?.n, w.floor?.correct, w.ceiling], [4, 2, 0, null]);
	assert.equal(of(2, 'written', 'level-0').ceiling?.n, 4);
	assert.equal(of(1, 'node', 'level-0').floor, null);
	assert.deepEqual(of(1, 'written', 'written').distractors.books, ['Dracula', 'Emma']);
	assert.equal(of(1, 'written', 'level-0', true).accuracy.n, 4);
	assert.equal(new Set(rows.map((r) => r.key)).size, 5, 'five question sets, five keys');
	// Rows of two sessions: alike only where seed, scenes and the other books agree.
	const other = finalRows(
		written.map((q) => ({ ...q, id: `o${q.id}` })),
		written.map((q) => ({ ...answer(q, 0), question: `o${q.id}` })),
		scenesOf,
	);
	const tables = likeTables([...rows, ...other], (r) => r.key);
	assert.deepEqual(
		tables.map((t) => t.length),
		[2, 1, 1, 1, 1],
	);
	assert.ok(tables.every((t) => t.every((r) => r.key === t[0]!.key)));
	assert.equal(tables[0]![1]!.accuracy.correct, 1, "the other session's own answers");
});
