import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ngramCounts, ngramsFoundIn, words } from '../../source/text/ngrams.ts';
import { summaryStats } from '../../source/text/stats.ts';
import { countTokens } from '../../source/text/tokens.ts';

const close = (actual: number, expected: number): void =>
	assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

test('words are lowercase runs of letters and digits with inner apostrophes', () => {
	assert.deepEqual(words("'Don’t PANIC,' said Anna's friend in 1805 — twice!"), [
		"don't",
		'panic',
		'said',
		"anna's",
		'friend',
		'in',
		'1805',
		'twice',
	]);
	assert.deepEqual(words('Наташа любит Пьера; café naïve'), ['наташа', 'любит', 'пьера', 'café', 'naïve']);
	assert.deepEqual(words(' ... -- !! '), []);
});

test('n-gram counts key each window by its words', () => {
	const counts = ngramCounts(['a', 'b', 'c', 'a', 'b', 'c'], 3);
	// Windows: abc, bca, cab, abc.
	assert.deepEqual([...counts.entries()].sort(), [
		['a b c', 2],
		['b c a', 1],
		['c a b', 1],
	]);
	assert.equal(ngramCounts(['a', 'b'], 3).size, 0);
});

test('n-grams are found in a text only as consecutive words', () => {
	const wanted = new Set(['the cat sat', 'cat sat down']);
	assert.deepEqual([...ngramsFoundIn('X y. The cat sat, then stood.', wanted, 3)], ['the cat sat']);
	assert.equal(ngramsFoundIn('the cat big sat down', wanted, 3).size, 0);
});

test('summary stats: repeated and novel 3-grams worked by hand', () => {
	const summary = 'The cat sat on the mat; the cat sat.';
	const book = 'The cat sat on the mat.';
	// Summary words: the cat sat on the mat the cat sat (9).
	// 3-grams (7): the-cat-sat, cat-sat-on, sat-on-the, on-the-mat, the-mat-the, mat-the-cat, the-cat-sat.
	// Distinct: 6; one occurrence repeats an earlier one -> 1/7.
	// Book 3-grams: the-cat-sat, cat-sat-on, sat-on-the, on-the-mat -> novel: the-mat-the, mat-the-cat -> 2/6.
	const stats = summaryStats(summary, book);
	assert.equal(stats.words, 9);
	assert.equal(stats.tokens, countTokens(summary));
	close(stats.repeated3gramPct, (100 * 1) / 7);
	close(stats.novel3gramPct, (100 * 2) / 6);
});

test('summary stats: a summary repeating itself', () => {
	// a b c a b c a b c: 7 occurrences of 3 distinct 3-grams -> 4 repeats; the book has abc and bca only.
	const stats = summaryStats('A b c. A b c. A b c.', 'a b c a');
	assert.equal(stats.words, 9);
	close(stats.repeated3gramPct, (100 * 4) / 7);
	close(stats.novel3gramPct, (100 * 1) / 3);
});

test('summary stats: case, typographic apostrophes and punctuation do not make 3-grams novel', () => {
	const stats = summaryStats('Don’t PANIC, Anna’s friend said.', "'Don't panic!' Anna's friend said to him.");
	assert.equal(stats.words, 5);
	assert.equal(stats.repeated3gramPct, 0);
	assert.equal(stats.novel3gramPct, 0);
});

test('summary stats: 3-grams run across sentence ends, in the summary and in the book', () => {
	// he-left-she, left-she-stayed: both in the first book, neither in the second.
	assert.equal(summaryStats('He left. She stayed.', 'He left. She stayed.').novel3gramPct, 0);
	assert.equal(summaryStats('He left. She stayed.', 'He left her. She stayed.').novel3gramPct, 100);
});

test('summary stats: fewer than three words give 0 percent, not NaN', () => {
	const stats = summaryStats('Hello there.', 'Nothing alike.');
	assert.equal(stats.words, 2);
	assert.equal(stats.repeated3gramPct, 0);
	assert.equal(stats.novel3gramPct, 0);
	const empty = summaryStats('', 'book');
	assert.deepEqual(empty, { tokens: 0, words: 0, repeated3gramPct: 0, novel3gramPct: 0 });
});

test('summary stats: non-Latin words', () => {
	// наташа-любит-пьера is in the book; любит-пьера-пьер is not -> 1 of 2 novel.
	const stats = summaryStats('Наташа любит Пьера. Пьер', 'Все знали: Наташа любит Пьера.');
	assert.equal(stats.words, 4);
	close(stats.novel3gramPct, 50);
});
