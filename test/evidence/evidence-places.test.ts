import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readBook } from '../../source/book/read.ts';
import { DEFAULTS } from '../../source/config.ts';
import type { Chunk } from '../../source/domain.ts';
import { bookPlaces } from '../../source/evidence/places.ts';
import { splitPassages } from '../../source/evidence/passages.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { chapterAt, chaptersOf } from '../../source/text/chapters.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { BOOKS_DIR, DEV_DIR, readEvidenceSet, SET_DIR } from '../support/evidence-set.ts';

/** `n` lines that share no word with the queries below. */
const filler = (
	n: number,
	line = 'The miller counted the sacks of grain while the carter watched the road.',
) => Array.from({ length: n }, () => line).join('\n');

const whole = (book: string): Chunk[] => [{ index: 0, start: 0, end: book.length, tokens: 1 }];

/** A book of headed chapters, each its heading line and then its text. */
const chaptered = (texts: readonly string[]) =>
	texts.map((text, k) => `Chapter ${k + 1}\n\n${text}\n`).join('\n');

test('places are the chapters, a long one cut into equal parts, and every passage is in exactly one, in order', () => {
	const book = chaptered([filler(10), filler(400), filler(10)]);
	const passages = splitPassages(book, whole(book));
	const places = bookPlaces(book, passages, 10_000);
	const chapters = chaptersOf(book);
	// Chapter 2 is about 29,000 characters: three parts under 10,000.
	assert.equal(places.length, 5);
	assert.equal(places[0]!.from, 0);
	assert.equal(places.at(-1)!.to, passages.length);
	for (const [k, place] of places.entries()) {
		assert.ok(place.to > place.from, `place ${k} is empty`);
		if (k > 0)
			assert.equal(place.from, places[k - 1]!.to, `place ${k} does not start where the one before ends`);
		const titles = new Set(
			passages.slice(place.from, place.to).map((p) => chapterAt(chapters, p.start)!.title),
		);
		assert.equal(titles.size, 1, `place ${k} crosses a chapter: ${[...titles].join(', ')}`);
		const span = passages[place.to - 1]!.end - passages[place.from]!.start;
		assert.ok(span <= 10_000 + 200, `place ${k} spans ${span} characters`);
	}
});

test('a book without headings is cut into places of equal length', () => {
	const book = `${filler(300)}\n`;
	const passages = splitPassages(book, whole(book));
	const places = bookPlaces(book, passages, 8_000);
	assert.equal(places.length, Math.ceil(book.length / 8_000));
	assert.equal(places[0]!.from, 0);
	assert.equal(places.at(-1)!.to, passages.length);
	for (const [k, place] of places.entries()) if (k > 0) assert.equal(place.from, places[k - 1]!.to);
});

test('the first passages are as many different places: the best passage of each, the best place first', () => {
	// Chapter 2 tells the scene over many lines, each holding some of the sentence's words; chapters
	// 4 and 6 hold a little of it. By passages alone, chapter 2 would fill the first three.
	const scene = Array.from(
		{ length: 12 },
		(_, k) =>
			`Margaret carried the broken lantern through the frozen orchard ${k % 2 === 0 ? 'at dawn' : 'alone'}.`,
	).join('\n');
	const book = chaptered([
		filler(40),
		`${filler(10)}\n${scene}\n${filler(10)}`,
		filler(40),
		`${filler(10)}\nThe orchard was frozen that winter.\n${filler(10)}`,
		filler(40),
		`${filler(10)}\nA lantern hung by the door.\n${filler(10)}`,
	]);
	const index = new PassageIndex(book, whole(book));
	const chapters = chaptersOf(book);
	const chapterOf = (h: { start: number }) => chapterAt(chapters, h.start)!.title;
	const query = 'At dawn Margaret carries a broken lantern through the frozen orchard.';

	const alone = index.rank(query, 3, { scenes: false });
	assert.deepEqual(alone.map(chapterOf), ['Chapter 2', 'Chapter 2', 'Chapter 2']);

	const hits = index.rank(query, 5);
	assert.deepEqual(hits.slice(0, 3).map(chapterOf), ['Chapter 2', 'Chapter 4', 'Chapter 6']);
	// Then each place's second best: chapter 2's, the others having one passage each.
	assert.equal(chapterOf(hits[3]!), 'Chapter 2');
});

test('a chapter that tells the scene over several passages outranks one whose single passage recalls it', () => {
	// Chapter 2 recalls the scene in one passage that holds its names and objects; chapter 4 tells it
	// over three passages, each holding a part. By its best passage alone chapter 2 would come first.
	const telling = [
		'At dawn Margaret crossed the orchard, which was frozen hard.',
		filler(3, 'The carter whistled to his horses on the road.'),
		'The lantern was broken, so she carried it unlit.',
		filler(3, 'The carter whistled to his horses on the road.'),
		'She buried a silver key beneath the old well.',
	].join('\n');
	const book = chaptered([
		filler(30),
		`${filler(10)}\nYears after, Margaret remembered the broken lantern, the silver key, the old well and the frozen orchard.\n${filler(10)}`,
		filler(30),
		`${filler(10)}\n${telling}\n${filler(10)}`,
	]);
	const index = new PassageIndex(book, whole(book));
	const chapters = chaptersOf(book);
	const chapterOf = (h: { start: number }) => chapterAt(chapters, h.start)!.title;
	const query =
		'At dawn Margaret buries a silver key beneath the old well after crossing the frozen orchard with a broken lantern.';

	const [best] = index.rank(query, 1, { scenes: false });
	assert.equal(chapterOf(best!), 'Chapter 2', 'the recall is the best single passage');
	assert.deepEqual(index.rank(query, 2).map(chapterOf), ['Chapter 4', 'Chapter 2']);
});

test('a passage that holds the sentence word for word still comes first', () => {
	const copied = 'Margaret hung the lantern by the orchard gate.';
	const book = chaptered([
		filler(30),
		`${filler(5)}\n${Array.from({ length: 8 }, () => 'Margaret lit the lantern in the orchard by the gate.').join('\n')}`,
		`${filler(5)}\n${copied}\n${filler(5)}`,
	]);
	const index = new PassageIndex(book, whole(book));
	const [first] = index.rank(copied, 3);
	assert.ok(first!.verbatim);
	assert.equal(index.text(first!), copied);
});

/**
 * The labelled set's figures as bench/evidence.ts measures them, for the single-event and two-chapter
 * sentences of each book ranked over the whole book (chunked at the defaults).
 */
const indexes = new Map<string, Promise<{ index: PassageIndex; chapters: ReturnType<typeof chaptersOf> }>>();

/** A book's index over its chunks at the defaults, and its chapters, made once for both sets. */
function indexOf(book: string) {
	let made = indexes.get(book);
	if (!made) {
		made = readBook(join(BOOKS_DIR, book)).then(({ text }) => ({
			index: new PassageIndex(text, chunkText(text, DEFAULTS.chunkSize, DEFAULTS.encoding)),
			chapters: chaptersOf(text),
		}));
		indexes.set(book, made);
	}
	return made;
}

async function measured(dir: string) {
	let single = 0;
	let top1 = 0;
	let top3 = 0;
	let two = 0;
	let both = 0;
	for (const labelled of readEvidenceSet(dir)) {
		const { index, chapters } = await indexOf(labelled.book);
		for (const s of labelled.sentences) {
			if (s.kind === 'invented') continue;
			const first = index.rank(s.text, 3).map((h) => chapterAt(chapters, h.start)!.title);
			if (s.kind === 'single') {
				single++;
				if (first[0] === s.chapters[0]) top1++;
				if (first.includes(s.chapters[0]!)) top3++;
			} else {
				two++;
				if (s.chapters.every((c) => first.includes(c))) both++;
			}
		}
	}
	return { top1: top1 / single, top3: top3 / single, both: both / two, single, two };
}

// Issue 37's goal, on held-out paraphrases: the right chapter first for 65% of single-event
// sentences and among the first three for 85%, both chapters of a two-chapter sentence among the
// first three for half. The held-out set is test/fixtures/evidence-set/ (ranking was worked out on
// test/fixtures/evidence-dev/ only). Measured at this change (places by their three best passages,
// bench/results/2026-11-28-evidence-places-sum.md): first for 22 of 46, among the first three for 39
// of 46 (84.8%, a sentence short of the goal), both of a two-chapter sentence for 4 of 18. Before it
// (places by their best passage): 23, 36 and 3. The floors hold what was reached.
test('on the held-out labelled set, the right chapter is among the first three places for at least 39 of 46 single-event sentences', async (t) => {
	const held = await measured(SET_DIR);
	const dev = await measured(DEV_DIR);
	const shown = (m: typeof held) =>
		`top-1 ${(m.top1 * 100).toFixed(0)}%, top-3 ${(m.top3 * 100).toFixed(0)}% of ${m.single}; both of two in top-3 ${(m.both * 100).toFixed(0)}% of ${m.two}`;
	t.diagnostic(`held out: ${shown(held)}`);
	t.diagnostic(`development: ${shown(dev)}`);
	assert.equal(held.single, 46);
	assert.equal(held.two, 18);
	assert.ok(held.top3 >= 39 / 46, `top-3 ${held.top3}`);
	assert.ok(held.top1 >= 22 / 46, `top-1 ${held.top1}`);
	assert.ok(held.both >= 4 / 18, `both ${held.both}`);
});
