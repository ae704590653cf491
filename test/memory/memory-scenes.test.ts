import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readScene, SCENE_STRETCH_WORDS, sceneWords, scenePieces } from '../../source/memory/scenes.ts';
import { sentenceSpans } from '../../source/text/sentences.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

const words = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

/** A paragraph of `n` sentences of five words each, numbered so every sentence differs. */
const paragraph = (n: number, tag: string) =>
	Array.from({ length: n }, (_, i) => `The ${tag} walked home ${i}.`).join(' ');

test('scenePieces cuts a book in order into stretches of about the words asked, each ending at a sentence end, covering every word', () => {
	const book = readFileSync(FRANKENSTEIN, 'utf8');
	const pieces = scenePieces(book);
	assert.ok(pieces.length > 100, `${pieces.length} pieces`);
	const ends = new Set(sentenceSpans(book).map((s) => s.end));
	const starts = new Set(sentenceSpans(book).map((s) => s.start));
	for (const [i, piece] of pieces.entries()) {
		assert.ok(starts.has(piece.start) && ends.has(piece.end), `piece ${i} starts and ends at a sentence`);
		const between = book.slice(i === 0 ? 0 : pieces[i - 1]!.end, piece.start);
		assert.match(between, /^\s*$/u, `only whitespace before piece ${i}`);
	}
	assert.match(book.slice(pieces.at(-1)!.end), /^\s*$/u);
	// About the words asked: the mean is near it, and the middle half is within a sentence or two of it.
	const sizes = pieces.map((p) => words(book.slice(p.start, p.end))).sort((a, b) => a - b);
	const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
	assert.ok(Math.abs(mean - SCENE_STRETCH_WORDS) < 0.1 * SCENE_STRETCH_WORDS, `mean ${mean}`);
	const quarter = sizes[Math.floor(sizes.length / 4)]!;
	const third = sizes[Math.floor((3 * sizes.length) / 4)]!;
	assert.ok(quarter > 0.8 * SCENE_STRETCH_WORDS && third < 1.2 * SCENE_STRETCH_WORDS, `${quarter}..${third}`);
});

test('a stretch ends at the sentence end nearer the words asked; a long sentence stands alone; a short tail joins the stretch before', () => {
	// Sentences of 5 words: 20 words asked end after 4 sentences exactly.
	const book = `${paragraph(4, 'cat')}\n${paragraph(4, 'dog')}\n${paragraph(1, 'owl')}`;
	const pieces = scenePieces(book, 20);
	assert.deepEqual(
		pieces.map((p) => book.slice(p.start, p.end)),
		[paragraph(4, 'cat'), `${paragraph(4, 'dog')}\n${paragraph(1, 'owl')}`],
	);
	// 12 words asked: ending after two sentences (10) is nearer than after three (15).
	assert.deepEqual(
		scenePieces(paragraph(4, 'cat'), 12).map((p) => words(paragraph(4, 'cat').slice(p.start, p.end))),
		[10, 10],
	);
	const long = `${'word '.repeat(30).trim()}. ${paragraph(2, 'cat')}`;
	assert.deepEqual(
		scenePieces(long, 10).map((p) => long.slice(p.start, p.end)),
		[`${'word '.repeat(30).trim()}.`, paragraph(2, 'cat')],
	);
	assert.deepEqual(scenePieces(''), []);
	assert.throws(() => scenePieces('A cat.', 0), /positive whole number/u);
});

test('a scene summary is a fifth of its stretch, at least a sentence; an empty one is refused', () => {
	assert.equal(sceneWords(500), 100);
	assert.equal(sceneWords(40), 20);
	assert.deepEqual(readScene('  Ann sails.\n'), { ok: true, value: 'Ann sails.' });
	assert.deepEqual(readScene(' \n '), { ok: false, reason: 'an empty scene' });
});
