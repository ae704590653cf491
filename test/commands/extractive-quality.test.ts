import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readBook } from '../../source/book/read.ts';
import { quotesBalanced } from '../../source/text/quotes.ts';
import { splitSentences } from '../../source/text/sentences.ts';
import { countWords } from '../../source/text/tokens.ts';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { BOOKS_DIR as BOOKS } from '../support/repo-data.ts';

/**
 * The first thing a new user sees: `booook run BOOK` without a key summarizes offline. Its
 * sentences must be ones a reader can follow, spread over the whole book, by both methods.
 */
const NAMES = ['pride-and-prejudice', 'frankenstein', 'war-and-peace'];
const norm = (s: string) => s.replace(/\s+/gu, ' ').trim();

for (const name of NAMES) {
	for (const method of ['hier', 'inc']) {
		test(`${name}, ${method}: the offline summary is whole narrative sentences from all over the book`, async () => {
			const dir = tempDir('quality');
			const r = await booook([
				'run',
				join(BOOKS, `${name}.txt`),
				'--headless',
				'--method',
				method,
				'--sessions-dir',
				dir,
			]);
			assert.equal(r.code, 0, r.stderr);
			assert.ok(!/\n/u.test(r.stdout.trim()), 'one paragraph');

			const book = await readBook(join(BOOKS, `${name}.txt`));
			const bookSentences = splitSentences(book.text).map(norm);
			const at = new Map<string, number>();
			bookSentences.forEach((s, i) => at.has(s) || at.set(s, i));
			const sentences = splitSentences(r.stdout).map(norm);
			assert.ok(sentences.length >= 15, `${sentences.length} sentences`);

			const share = (bad: string[]) => bad.length / sentences.length;
			const show = (bad: string[]) => `${bad.length} of ${sentences.length}: ${bad.slice(0, 5).join(' | ')}`;
			const notInBook = sentences.filter((s) => !at.has(s));
			assert.ok(share(notInBook) <= 0.1, `not sentences of the book: ${show(notInBook)}`);
			const short = sentences.filter((s) => countWords(s) < 6);
			assert.ok(share(short) <= 0.05, `fewer than 6 words: ${show(short)}`);
			// Odd straight double quotes, or marks the project's own reading of quotations finds open.
			const unbalanced = sentences.filter(
				(s) => (s.match(/"/gu)?.length ?? 0) % 2 === 1 || !quotesBalanced(s),
			);
			assert.ok(share(unbalanced) <= 0.05, `unbalanced quotes: ${show(unbalanced)}`);

			// The arc: every fifth of the book gives the summary a sentence, and none gives 40%.
			const fifths = new Array<number>(5).fill(0);
			for (const s of sentences)
				if (at.has(s)) fifths[Math.floor((5 * at.get(s)!) / bookSentences.length)]!++;
			const fair = fifths.every((n) => n > 0 && n < 0.4 * sentences.length);
			assert.ok(fair, `sentences per fifth of the book: ${fifths.join(' ')}`);
		});
	}
}
