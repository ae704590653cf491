import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Chunk } from '../../source/domain.ts';
import { boundedPieces, MAX_PASSAGE_CHARS, splitPassages } from '../../source/evidence/passages.ts';
import { NAME_BOOST, PassageIndex } from '../../source/evidence/rank.ts';
import { supportOf, WEAK_SUPPORT } from '../../source/evidence/support.ts';
import { contentStems, properNames } from '../../source/text/stems.ts';

const whole = (book: string): Chunk[] => [{ index: 0, start: 0, end: book.length, tokens: 1 }];

test('passages stay within the bound where a chapter has almost no sentence breaks', () => {
	// One "sentence" of 8,000 characters with commas every few words, then ordinary prose.
	const endless = Array.from({ length: 400 }, (_, i) => `the river ran past mill ${i}`).join(', ');
	const book = `${endless}.\nMary walked to the market. She bought bread. She went home.\n`;
	const passages = splitPassages(book, whole(book));
	for (const p of passages) {
		assert.ok(p.end - p.start <= MAX_PASSAGE_CHARS, `${p.end - p.start} characters`);
		// Each piece of the long sentence ends at a comma or at the sentence's end.
		const text = book.slice(p.start, p.end);
		if (p.end <= endless.length + 1) assert.match(text, /[,.]$/u);
	}
	// The pieces cover the long sentence without overlap, in order.
	for (let i = 1; i < passages.length; i++) assert.ok(passages[i]!.start >= passages[i - 1]!.end);
	assert.ok(passages.length > 8000 / MAX_PASSAGE_CHARS);
	// Ordinary prose is grouped as before: three sentences of one paragraph.
	assert.equal(
		book.slice(passages.at(-1)!.start, passages.at(-1)!.end),
		'Mary walked to the market. She bought bread. She went home.',
	);
});

test('an overlong run without clause marks is cut at whitespace, and a word longer than the bound at the bound', () => {
	const words = Array.from({ length: 300 }, () => 'word').join(' ');
	for (const [start, end] of boundedPieces(words, 0, words.length, 100)) {
		assert.ok(end - start <= 100);
		assert.equal(words.slice(start, end).trim(), words.slice(start, end));
		assert.ok(!words.slice(start, end).endsWith('wor'));
	}
	const long = 'x'.repeat(250);
	assert.deepEqual(boundedPieces(long, 0, 250, 100), [
		[0, 100],
		[100, 200],
		[200, 250],
	]);
});

test('a word longer than the bound is cut between characters, never inside a surrogate pair', () => {
	// Emoji (two UTF-16 units each) after one ASCII letter: a cut at the bound fell inside a pair, and
	// both passages showed a replacement character where the emoji was.
	const text = `a${'😀'.repeat(200)}`;
	const pieces = boundedPieces(text, 0, text.length, 100);
	for (const [start, end] of pieces) {
		assert.ok(end - start <= 100, `${end - start} units`);
		// encodeURIComponent refuses a lone surrogate.
		const piece = text.slice(start, end);
		assert.doesNotThrow(() => encodeURIComponent(piece), `piece [${start}, ${end}) splits a character`);
	}
	assert.equal(pieces.map(([start, end]) => text.slice(start, end)).join(''), text);
});

test('stems meet across inflections, and proper names are the words capitalized inside sentences', () => {
	assert.deepEqual(contentStems('The creatures walked'), contentStems('the creature walks'));
	assert.deepEqual(contentStems("Victor's"), ['victor']);
	const names = properNames(
		'Victor left. He saw the Creature and Henry. The creature wept, but Henry did not. The End.',
	);
	assert.ok(names.has('victor') === false, 'only seen first in a sentence');
	assert.ok(names.has('henri'));
	assert.ok(!names.has('creatur'), 'lowercase once as often as capitalized: not a name');
	assert.ok(!names.has('the'));
});

test('ranking matches stems, and a shared proper name outweighs a shared common word of the same rarity', () => {
	const book = [
		'The bell rang loudly.',
		'Then Anna sang loudly.',
		'The boats were pulled onto the sand.',
	].join('\n');
	const index = new PassageIndex(book, whole(book), 1);
	// "boat" finds the passage that says "boats".
	assert.deepEqual(
		index.rank('A boat', 2).map((h) => index.text(h)),
		['The boats were pulled onto the sand.'],
	);
	// "rang" and "Anna" are each in one passage of the same length: without the boost the two would tie
	// and the earlier passage would lead; the name's passage leads.
	assert.deepEqual(
		index.rank('Anna rang', 2).map((h) => index.text(h)),
		['Then Anna sang loudly.', 'The bell rang loudly.'],
	);
	const [name, word] = index.rank('Anna rang', 2);
	assert.ok(Math.abs(name!.score / word!.score - NAME_BOOST) < 0.01);
	// A word the book never uses weighs more than any it does.
	assert.ok(index.weight('zebra') > index.weight('anna'));
});

test("support: a copied sentence is fully supported, a paraphrase more than an invented sentence with the book's names", () => {
	const book = [
		'Margaret inherited the mill at Thornfield when her uncle died in the spring.',
		'The workers at the mill had not been paid for three months, and they threatened to strike.',
		"Margaret sold her mother's pearls to pay their wages before the harvest.",
		'In the autumn her cousin Edmund returned from India with a fortune.',
		'Edmund asked Margaret to marry him, but she refused and kept the mill.',
		'The river flooded the lower fields in November, and the grain was lost.',
	].join('\n');
	const index = new PassageIndex(book, whole(book), 1);
	const support = (sentence: string) => supportOf(sentence, index.rank(sentence, 3), index);
	const copied = support("Margaret sold her mother's pearls to pay their wages before the harvest.");
	assert.equal(copied.support, 1);
	assert.equal(copied.weak, false);
	const paraphrase = support(
		'To pay the unpaid workers, Margaret sells the pearls that belonged to her mother.',
	);
	const invented = support('Margaret and Edmund sail to America and open a school for orphans.');
	assert.ok(paraphrase.support > invented.support, `${paraphrase.support} vs ${invented.support}`);
	assert.equal(paraphrase.weak, false);
	assert.equal(invented.weak, true);
	assert.ok(invented.support < WEAK_SUPPORT);
	// No passage: nothing supports it. Function words only: supported only word for word.
	assert.deepEqual(supportOf('Margaret sold the pearls.', [], index), { support: 0, weak: true });
	assert.equal(support('and they').support, 1);
	assert.equal(supportOf('It was so.', index.rank('It was so.', 3), index).support, 0);
});

test('a name a translation spells with accents meets it spelled plain; a word of another script keeps its marks', () => {
	assert.deepEqual(contentStems('Natásha and Dólokhov'), contentStems('Natasha and Dolokhov'));
	assert.deepEqual(contentStems('café'), contentStems('cafe'));
	// Devanagari vowel signs are marks that are letters of the word: dropping them would merge words.
	assert.notDeepEqual(contentStems('किताब'), contentStems('कतब'));
	const { book, chunks } = {
		book: 'Natásha dances at the ball. Pierre reads in the study.',
		chunks: [{ index: 0, start: 0, end: 54, tokens: 12 }] as Chunk[],
	};
	const index = new PassageIndex(book, chunks, 1);
	assert.equal(index.rank('Natasha dances', 1)[0]?.start, 0);
});
