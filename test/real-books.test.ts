import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBook } from '../source/book/read.ts';
import { chunkText } from '../source/text/chunk.ts';
import { sentenceSpans, splitSentences } from '../source/text/sentences.ts';
import { booook } from './support/cli.ts';

/** The shared public-domain books: two hard-wrapped at ~72 columns, one with a line per paragraph. */
const BOOKS = fileURLToPath(new URL('../../shared/books/', import.meta.url));
const NAMES = ['pride-and-prejudice', 'war-and-peace', 'frankenstein'];

for (const name of NAMES) {
	test(`${name}: every chunk ends where a sentence of the book ends (paper footnote 3)`, async () => {
		const book = await readBook(join(BOOKS, `${name}.txt`));
		const ends = new Set(sentenceSpans(book.text).map((s) => s.end));
		const chunks = chunkText(book.text, 2048);
		assert.ok(chunks.length > 20);
		const cuts = chunks.slice(0, -1).map((c) => book.text.slice(c.start, c.end).trimEnd());
		const inside = chunks.slice(0, -1).filter((c, i) => !ends.has(c.start + cuts[i]!.length));
		assert.deepEqual(inside.map((c) => JSON.stringify(book.text.slice(c.end - 60, c.end))), [], `${inside.length} of ${cuts.length} chunks end inside a sentence`);
		// And those ends are real sentence ends, not line breaks of the wrapped file: a final mark, or
		// the end of a paragraph that has none (a heading).
		const midParagraph = chunks.slice(0, -1).filter((c, i) => !/[.?!…]["'”’)\]]*$/u.test(cuts[i]!) && !/^[ \t]*\n[ \t]*\n/u.test(book.text.slice(c.start + cuts[i]!.length)));
		assert.deepEqual(midParagraph.map((c) => JSON.stringify(book.text.slice(c.end - 60, c.end + 20))), [], 'chunks end at a final mark or a paragraph\'s end');
	});
}

test('the offline summary of Pride and Prejudice (hard-wrapped) is made of whole sentences of the book', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'booook-real-'));
	try {
		const r = await booook(['run', join(BOOKS, 'pride-and-prejudice.txt'), '--headless', '--sessions-dir', dir]);
		assert.equal(r.code, 0, r.stderr);
		const book = await readBook(join(BOOKS, 'pride-and-prejudice.txt'));
		const norm = (s: string) => s.replace(/\s+/gu, ' ').trim();
		const inBook = new Set(splitSentences(book.text).map(norm));
		const sentences = splitSentences(r.stdout).map(norm);
		const whole = sentences.filter((s) => inBook.has(s));
		assert.ok(sentences.length >= 20, `${sentences.length} sentences`);
		assert.ok(whole.length >= 0.9 * sentences.length, `${whole.length} of ${sentences.length} are whole sentences of the book: ${sentences.filter((s) => !inBook.has(s)).slice(0, 5).join(' | ')}`);
		// No line-break fragments: a sentence of the summary never ends on a bare name, as wrapped lines did.
		assert.ok(!/\n/u.test(r.stdout.trim()));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
