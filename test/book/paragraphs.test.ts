import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unwrapParagraphs } from '../../source/book/paragraphs.ts';

test('a line break inside a paragraph becomes a space; blank lines stay paragraph breaks', () => {
	const wrapped =
		'It is a truth universally acknowledged, that a single man in possession\nof a good fortune, must be in want of a wife.\n\n"Bingley."\n\nHowever little known the feelings\nor views of such a man may be.';
	assert.equal(
		unwrapParagraphs(wrapped),
		'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.\n\n"Bingley."\n\nHowever little known the feelings or views of such a man may be.',
	);
});

test('headings and deeper-indented lines start paragraphs; a block indented alike is one paragraph', () => {
	const text =
		'CHAPTER IV.\nWhen Jane and Elizabeth\nwere alone.\nChapter 5\nWithin a short walk\n    of Longbourn.\n    She lived\n    there.\nBOOK ONE: 1805\nWell, Prince.';
	assert.deepEqual(unwrapParagraphs(text).split('\n'), [
		'CHAPTER IV.',
		'When Jane and Elizabeth were alone.',
		'Chapter 5',
		'Within a short walk',
		'    of Longbourn. She lived there.',
		'BOOK ONE: 1805',
		'Well, Prince.',
	]);
});

test('first-line indents mark paragraphs; a dash at a line end joins without a space', () => {
	assert.equal(unwrapParagraphs('  One para\nruns on--\nhere.\n  Two.'), '  One para runs on--here.\n  Two.');
});

test('text with one line per paragraph is left as it is', () => {
	const text =
		'Letter 1\n\nSt. Petersburgh, Dec. 11th, 17--\n\nYou will rejoice to hear that no disaster has accompanied the commencement.\n\nI am already far north of London.';
	assert.equal(unwrapParagraphs(text), text);
	assert.equal(unwrapParagraphs(unwrapParagraphs('a\nb\n\nc')), unwrapParagraphs('a\nb\n\nc'));
});

test('a wrapped line that starts with a section word is prose, not a heading', () => {
	assert.equal(
		unwrapParagraphs('he wrote the following\nletter to Murat:\n\nLetter 2\nDear sir,'),
		'he wrote the following letter to Murat:\n\nLetter 2\nDear sir,',
	);
});
