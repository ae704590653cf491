import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasQuotes, quotesBalanced, startsQuoted } from '../../source/text/quotes.ts';
import { sentenceSpans } from '../../source/text/sentences.ts';

test('a sentence balances its quotes when it closes every quotation it opens', () => {
	for (const s of [
		'"Oh, Lydia!" said she.',
		'“Yes,” said he.',
		"'Who is there?' said the old man.",
		'She read ‘Ode to Joy’ aloud.',
		'No quotes at all.',
	]) {
		assert.equal(quotesBalanced(s), true, s);
	}
	// The first or last line of a longer quotation, and speech cut at a mark inside it.
	for (const s of [
		'"How strange this is!',
		'Oh, Lydia!"',
		'said he.” And',
		"'Let me go,' he cried; 'monster!",
		'He said "no.',
	]) {
		assert.equal(quotesBalanced(s), false, s);
	}
});

test('apostrophes are not quotation marks', () => {
	for (const s of ["I didn't know.", "The Bennets' house was old.", 'Anne’s letter came.']) {
		assert.equal(quotesBalanced(s), true, s);
		assert.equal(hasQuotes(s), false, s);
	}
	assert.equal(hasQuotes("'Who is there?' said he."), true);
	assert.equal(hasQuotes('He said “no”.'), true);
});

test('a sentence inside a quotation opened earlier in its paragraph starts quoted; a new paragraph does not', () => {
	const text =
		'"How strange this is! And for this we are to be thankful. Oh, Lydia!" She left. Then more.\nNext one. “Yes. No.” Done.';
	assert.deepEqual(startsQuoted(text, sentenceSpans(text)), [
		false,
		true,
		true,
		false,
		false,
		false,
		false,
		true,
		false,
	]);
	// A quotation left open at a paragraph's end (a long told story) does not reach into the next.
	const open = '"It was dark. I slept.\n"I woke. The sun rose.';
	assert.deepEqual(startsQuoted(open, sentenceSpans(open)), [false, true, false, true]);
});
