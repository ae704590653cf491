import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readBook } from '../../source/book/read.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { sentenceSpans } from '../../source/text/sentences.ts';
import { BOOKS_DIR as BOOKS } from '../support/repo-data.ts';

/** The public-domain example books: two hard-wrapped at ~72 columns, one with a line per paragraph. */
const NAMES = ['pride-and-prejudice', 'war-and-peace', 'frankenstein'];

for (const name of NAMES) {
	test(`${name}: every chunk ends where a sentence of the book ends (paper footnote 3)`, async () => {
		const book = await readBook(join(BOOKS, `${name}.txt`));
		const ends = new Set(sentenceSpans(book.text).map((s) => s.end));
		const chunks = chunkText(book.text, 2048);
		assert.ok(chunks.length > 20);
		const cuts = chunks.slice(0, -1).map((c) => book.text.slice(c.start, c.end).trimEnd());
		const inside = chunks.slice(0, -1).filter((c, i) => !ends.has(c.start + cuts[i]!.length));
		assert.deepEqual(
			inside.map((c) => JSON.stringify(book.text.slice(c.end - 60, c.end))),
			[],
			`${inside.length} of ${cuts.length} chunks end inside a sentence`,
		);
		// And those ends are real sentence ends, not line breaks of the wrapped file: a final mark, or
		// the end of a paragraph that has none (a heading).
		const midParagraph = chunks
			.slice(0, -1)
			.filter(
				(c, i) =>
					!/[.?!…]["'”’)\]]*$/u.test(cuts[i]!) &&
					!/^[ \t]*\n[ \t]*\n/u.test(book.text.slice(c.start + cuts[i]!.length)),
			);
		assert.deepEqual(
			midParagraph.map((c) => JSON.stringify(book.text.slice(c.end - 60, c.end + 20))),
			[],
			"chunks end at a final mark or a paragraph's end",
		);
	});
}
