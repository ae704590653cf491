import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryQuestion } from '../../source/domain.ts';
import { shortcutAccuracy } from '../../source/memory/shortcuts.ts';

type Q = Pick<MemoryQuestion, 'options' | 'answer'>;
const option = (text: string, kind: MemoryQuestion['options'][number]['kind'] = 'other-book') => ({
	kind,
	scene: text,
	book: 'B',
	text,
});
/** A question whose options have these lengths in characters; `answer` an index, or the count for None. */
const question = (lengths: number[], answer: number): Q => ({
	options: lengths.map((l, i) =>
		option(`${String.fromCharCode(97 + i)}`.repeat(l), i === answer ? 'true' : 'other-book'),
	),
	answer,
});

test('the longest and the shortest readers counted on hand-made questions, None questions counted as missed, ties shared', () => {
	const questions = [
		question([10, 20, 30, 40, 50], 4), // longest right
		question([10, 20, 30, 40, 50], 0), // shortest right
		question([10, 20, 30, 40, 50], 2), // neither
		question([50, 50, 30, 40, 10], 0), // tied longest with one other: half
		question([10, 20, 30, 40, 50], 5), // None: the length readers always pick a scene, so missed
	];
	const got = shortcutAccuracy(questions);
	assert.equal(got.n, 5);
	assert.equal(got.longest, 1.5 / 5);
	assert.equal(got.shortest, 1 / 5);
	// Whitespace counts as the prompt shows it: runs of it are one space.
	const spaced: Q = { options: [option('a     b', 'true'), option('abcd')], answer: 0 };
	assert.deepEqual(shortcutAccuracy([spaced]), { longest: 0, shortest: 1, n: 1 });
	assert.deepEqual(shortcutAccuracy([question([1, 2], 2)]), { longest: 0, shortest: 0, n: 1 });
	const none = shortcutAccuracy([]);
	assert.equal(none.n, 0);
	assert.ok(Number.isNaN(none.longest) && Number.isNaN(none.shortest));
});
