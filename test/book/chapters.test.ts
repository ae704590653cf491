import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { chapterAt, chaptersOf, OPENING } from '../../source/text/chapters.ts';
import { readBook } from '../../source/book/read.ts';
import { BOOKS_DIR } from '../support/repo-data.ts';

const titles = (book: string) => chaptersOf(book).map((c) => c.title);

test('chapters start at their headings and end where the next starts; text before the first is the opening', () => {
	const book = 'A Title\n\nChapter 1\n\nIt began.\n\nChapter 2\n\nIt went on, and a letter to Murat: came.\n';
	const chapters = chaptersOf(book);
	assert.deepEqual(titles(book), [OPENING, 'Chapter 1', 'Chapter 2']);
	assert.equal(book.slice(chapters[1]!.start, chapters[1]!.end), 'Chapter 1\n\nIt began.\n\n');
	assert.equal(chapters[2]!.end, book.length);
	assert.deepEqual(
		chapters.map((c) => c.index),
		[0, 1, 2],
	);
	assert.equal(chapterAt(chapters, book.indexOf('began'))!.title, 'Chapter 1');
	assert.equal(chapterAt(chapters, book.length - 1)!.title, 'Chapter 2');
	assert.deepEqual(chaptersOf('No headings at all.\n'), []);
	assert.equal(chapterAt([], 5), null);
});

test("a book's or part's heading names the chapters under it; one with text of its own is a chapter", () => {
	const book = [
		'BOOK ONE: 1805',
		'CHAPTER I',
		'Well, Prince.',
		'CHAPTER II',
		'Anna Pavlovna.',
		'FIRST EPILOGUE: 1813 - 20',
		'CHAPTER I',
		'Seven years.',
		'PART TWO',
		'This part opens with a long preface of its own, more than a heading: '.repeat(4),
		'Chapter 1',
		'Then.',
	].join('\n');
	assert.deepEqual(titles(book), [
		'BOOK ONE: 1805 · CHAPTER I',
		'BOOK ONE: 1805 · CHAPTER II',
		'FIRST EPILOGUE: 1813 - 20 · CHAPTER I',
		'PART TWO',
		'PART TWO · Chapter 1',
	]);
	// The first chapter of a book starts at the book's heading, so no line falls between chapters.
	assert.equal(chaptersOf(book)[0]!.start, 0);
});

test('a chapter number broken over two lines ("Chapter 1" then "0") is one heading', () => {
	assert.deepEqual(titles('Chapter 9\n\nNine.\n\nChapter 1\n\n0\n\nTen.\n\nChapter 1\n\n1\n\nEleven.\n'), [
		'Chapter 9',
		'Chapter 10',
		'Chapter 11',
	]);
});

test('the example books: their letters, chapters, books and epilogues', async () => {
	const chapters = async (name: string) => chaptersOf((await readBook(join(BOOKS_DIR, name))).text);
	const frankenstein = await chapters('frankenstein.txt');
	assert.deepEqual(
		frankenstein.map((c) => c.title),
		[...[1, 2, 3, 4].map((n) => `Letter ${n}`), ...Array.from({ length: 24 }, (_, i) => `Chapter ${i + 1}`)],
	);
	const pride = await chapters('pride-and-prejudice.txt');
	assert.equal(pride.length, 61);
	const war = await chapters('war-and-peace.txt');
	assert.equal(war[0]!.title, 'BOOK ONE: 1805 · CHAPTER I');
	assert.equal(war.at(-1)!.title, 'SECOND EPILOGUE · CHAPTER XII');
	assert.equal(
		new Set(war.map((c) => c.title)).size,
		war.length,
		'every chapter of War and Peace is named apart',
	);
});
