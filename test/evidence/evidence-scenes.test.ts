import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Chunk } from '../../source/domain.ts';
import type { Passage } from '../../source/evidence/passages.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { sceneWindows } from '../../source/evidence/scene-windows.ts';

/** `n` lines of a text that shares no word with the queries below. */
const filler = (n: number) =>
	Array.from(
		{ length: n },
		() => 'The miller counted the sacks of grain while the carter watched the road.',
	).join('\n');

const whole = (book: string): Chunk[] => [{ index: 0, start: 0, end: book.length, tokens: 1 }];

/** Passages of the given lengths, one character apart. */
function passagesOf(lengths: readonly number[]): Passage[] {
	let at = 0;
	return lengths.map((length, index) => {
		const p = { index, chunk: 0, start: at, end: at + length };
		at += length + 1;
		return p;
	});
}

test('scene windows cover every passage, stay within their size, and overlap by half', () => {
	const passages = passagesOf(Array.from({ length: 60 }, (_, i) => 50 + ((i * 37) % 90)));
	const windows = sceneWindows(passages, 600);
	assert.equal(windows[0]!.from, 0);
	assert.equal(windows.at(-1)!.to, passages.length);
	for (const [k, w] of windows.entries()) {
		assert.ok(w.to > w.from);
		if (w.to - w.from > 1) assert.ok(passages[w.to - 1]!.end - passages[w.from]!.start <= 600);
		if (k > 0) {
			const before = windows[k - 1]!;
			// Starts inside the window before it, past its first passage: halfway, give or take one.
			assert.ok(w.from > before.from && w.from < before.to, `window ${k} does not overlap the one before`);
			assert.ok(Math.abs(w.from - before.from - Math.floor((before.to - before.from) / 2)) <= 1);
		}
	}
	// Every passage but the first and last has a neighbour on either side in one window.
	for (let p = 1; p < passages.length - 1; p++)
		assert.ok(
			windows.some((w) => w.from < p && w.to > p + 1),
			`passage ${p} has no window around it`,
		);
});

test('a passage longer than a scene is a window of its own, and a short book is one window', () => {
	assert.deepEqual(sceneWindows(passagesOf([100, 5000, 100]), 4000), [
		{ from: 0, to: 1 },
		{ from: 1, to: 2 },
		{ from: 2, to: 3 },
	]);
	assert.deepEqual(sceneWindows(passagesOf([100, 100, 100]), 4000), [{ from: 0, to: 3 }]);
	assert.deepEqual(sceneWindows([], 4000), []);
});

test('a paraphrase is placed in the scene that holds all its parts, before a passage elsewhere that holds more of them alone', () => {
	// The scene tells who, where and what in three one-line paragraphs (three passages).
	const scene = [
		'Margaret rose at dawn.',
		'The orchard lay silent under frost.',
		'In the grass glinted a lantern, broken.',
	];
	const decoy = 'Margaret hung the lantern by the orchard gate.';
	const book = `${filler(60)}\n${decoy}\n${filler(60)}\n${scene.join('\n')}\n${filler(60)}\n`;
	const index = new PassageIndex(book, whole(book));
	const sceneStart = book.indexOf(scene[0]!);
	const sceneEnd = book.indexOf(scene[2]!) + scene[2]!.length;
	const inScene = (p: { start: number }) => p.start >= sceneStart && p.start < sceneEnd;
	const query = 'At dawn Margaret finds a broken lantern in the silent orchard.';

	// By passages alone the decoy wins: it holds three of the sentence's words, each scene line two.
	const alone = index.rank(query, 4, { scenes: false });
	assert.equal(index.text(alone[0]!), decoy);
	assert.ok(alone.slice(1).every(inScene));
	assert.ok(alone.slice(1).every((h) => h.score < alone[0]!.score));

	// With scene windows, a line of the scene comes first; the decoy is still shown, with its score.
	const hits = index.rank(query, 4);
	assert.ok(inScene(hits[0]!), `first: ${index.text(hits[0]!)}`);
	assert.ok(hits.some((h) => index.text(h) === decoy));
	assert.equal(hits.find((h) => index.text(h) === decoy)!.score, alone[0]!.score);
});

test('a sentence copied from the book stays first, whatever its scene', () => {
	const copied = 'Margaret hung the lantern by the orchard gate.';
	const book = `${filler(60)}\n${copied}\n${filler(60)}\nMargaret rose at dawn.\nThe lantern in the orchard was lit.\nThe gate of the orchard creaked.\n${filler(60)}\n`;
	const index = new PassageIndex(book, whole(book));
	const [first] = index.rank(copied, 3);
	assert.ok(first!.verbatim);
	assert.equal(index.text(first!), copied);
});
