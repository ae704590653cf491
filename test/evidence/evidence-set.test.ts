import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readBook } from '../../source/book/read.ts';
import { chaptersOf } from '../../source/text/chapters.ts';
import { words } from '../../source/text/ngrams.ts';
import { BOOKS_DIR, copiedPhrases, DEV_DIR, readEvidenceSet, type Kind } from '../support/evidence-set.ts';

/**
 * The labelled set that bench/evidence.ts measures retrieval on (issue 27): enough sentences of each
 * kind, every label a chapter of its book as booook reads it, and every sentence a paraphrase.
 */
const set = readEvidenceSet();

test('the set has at least 60 sentences: 40 single-event, 10 two-chapter, 10 invented', () => {
	const count = (kind?: Kind) =>
		set.flatMap((b) => b.sentences).filter((s) => kind === undefined || s.kind === kind).length;
	assert.ok(count() >= 60, `${count()} sentences`);
	assert.ok(count('single') >= 40, `${count('single')} single-event`);
	assert.ok(count('two') >= 10, `${count('two')} two-chapter`);
	assert.ok(count('invented') >= 10, `${count('invented')} invented`);
});

test('the set covers the three example books, each file naming its own book', () => {
	assert.deepEqual(
		set.map((b) => [b.file, b.book]),
		[
			['frankenstein.json', 'frankenstein.txt'],
			['pride-and-prejudice.json', 'pride-and-prejudice.txt'],
			['war-and-peace.json', 'war-and-peace.txt'],
		],
	);
});

for (const labelled of [...set, ...readEvidenceSet(DEV_DIR).map((b) => ({ ...b, dev: true }))]) {
	test(`${labelled.book}${'dev' in labelled ? ' (development set)' : ''}: every label is a chapter of the book, two-chapter ones distant, and no sentence shares a 5-gram with it`, async () => {
		const { text } = await readBook(join(BOOKS_DIR, labelled.book));
		const chapters = new Map(chaptersOf(text).map((c) => [c.title, c.index]));
		for (const s of labelled.sentences) {
			const indices = s.chapters.map((title) => {
				const index = chapters.get(title);
				assert.ok(index !== undefined, `"${title}" is no chapter of ${labelled.book} (for: ${s.text})`);
				return index;
			});
			// Adjacent chapters are one stretch of the book: a sentence joining them tests nothing new.
			if (s.kind === 'two')
				assert.ok(Math.abs(indices[0]! - indices[1]!) >= 2, `chapters too close for: ${s.text}`);
		}
		const copied = copiedPhrases(
			labelled.sentences.map((s) => s.text),
			text,
		);
		const copies = labelled.sentences.flatMap((s, i) =>
			copied[i]!.length > 0 ? [`${s.text} -> ${copied[i]!.join(' | ')}`] : [],
		);
		assert.deepEqual(copies, [], 'sentences that copy the book rather than paraphrase it');
	});
}

// The labelled set stays held out: retrieval is worked on with the development set, which must not
// be the same chapters written again.
test('the development set labels no chapter that the labelled set labels', () => {
	for (const dev of readEvidenceSet(DEV_DIR)) {
		const held = new Set(set.find((b) => b.book === dev.book)!.sentences.flatMap((s) => s.chapters));
		const shared = dev.sentences.flatMap((s) => s.chapters).filter((c) => held.has(c));
		assert.deepEqual(shared, [], `${dev.book}: chapters of the held-out set`);
	}
});

// A score that merely prefers short sentences (fewer words to find) would separate invented from
// true ones if invented ones were shorter: they are written as long as the true ones, within a quarter.
test('invented sentences are as long as true ones in each book, so length cannot tell them apart', () => {
	for (const labelled of set) {
		const mean = (invented: boolean) => {
			const lengths = labelled.sentences
				.filter((s) => (s.kind === 'invented') === invented)
				.map((s) => words(s.text).length);
			return lengths.reduce((a, b) => a + b, 0) / lengths.length;
		};
		const ratio = mean(true) / mean(false);
		assert.ok(
			ratio >= 0.8 && ratio <= 1.25,
			`${labelled.book}: invented/true mean length ${ratio.toFixed(2)}`,
		);
	}
});

test('the 5-gram check catches a copy, accents dropped, and passes a paraphrase', () => {
	const book = 'Pierre looked at Dólokhov and fired, not at all expecting so loud a report.';
	assert.deepEqual(
		copiedPhrases(['He looked at Dolokhov and fired at him.', 'Pierre shot his rival in the snow.'], book),
		[['looked at dolokhov and fired'], []],
	);
});
