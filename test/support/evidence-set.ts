/**
 * The labelled evidence set (test/fixtures/evidence-set/): summary sentences paraphrased by hand
 * from the example books, each labelled with the chapters it comes from. Read by its format test
 * (test/evidence/evidence-set.test.ts) and by the evidence benchmark (bench/evidence.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ngramCounts, ngramsFoundIn, words } from '../../source/text/ngrams.ts';

export const SET_DIR = fileURLToPath(new URL('../fixtures/evidence-set/', import.meta.url));
/**
 * The development set (test/fixtures/evidence-dev/): paraphrases written the same way, of other
 * chapters of the same books, for working on retrieval; the labelled set above stays held out.
 */
export const DEV_DIR = fileURLToPath(new URL('../fixtures/evidence-dev/', import.meta.url));
export { BOOKS_DIR } from './repo-data.ts';

/**
 * single: one event, one chapter; two: a sentence that joins two distant chapters; invented:
 * plausible, in the book's names and setting, but not in the book (no chapter).
 */
export const CHAPTERS_OF_KIND = { single: 1, two: 2, invented: 0 } as const;
export type Kind = keyof typeof CHAPTERS_OF_KIND;

const LabelledSentence = z
	.object({
		text: z.string().trim().min(1),
		kind: z.enum(Object.keys(CHAPTERS_OF_KIND) as [Kind, ...Kind[]]),
		// Titles as `chaptersOf` gives them for the book as booook reads it.
		chapters: z.array(z.string().min(1)),
	})
	.strict()
	.refine(
		(s) => s.chapters.length === CHAPTERS_OF_KIND[s.kind] && new Set(s.chapters).size === s.chapters.length,
		{
			message:
				'a single sentence names 1 chapter, a two-chapter sentence 2 different ones, an invented one none',
		},
	);

const LabelledBook = z
	.object({ book: z.string().min(1), sentences: z.array(LabelledSentence).min(1) })
	.strict();

export type LabelledSentence = z.infer<typeof LabelledSentence>;
export type LabelledBook = z.infer<typeof LabelledBook> & { file: string };

/** Every book's labels in `dir`, in file-name order; a malformed file throws, naming it and the problem. */
export function readEvidenceSet(dir = SET_DIR): LabelledBook[] {
	return readdirSync(dir)
		.filter((name) => name.endsWith('.json'))
		.sort()
		.map((file) => {
			const parsed = LabelledBook.safeParse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
			if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
			return { ...parsed.data, file };
		});
}

/** Word n-gram length at which a shared phrase means a sentence was copied, not paraphrased. */
export const COPY_NGRAM = 5;

/**
 * For each sentence, its word 5-grams that also occur in `book` (empty for a genuine paraphrase).
 * Accents are dropped on both sides first, so "Dolokhov" written plain still matches the book's
 * "Dólokhov": the check is meant to be strict.
 */
export function copiedPhrases(sentences: readonly string[], book: string): string[][] {
	const grams = sentences.map((s) => [...ngramCounts(words(plain(s)), COPY_NGRAM).keys()]);
	const found = ngramsFoundIn(plain(book), new Set(grams.flat()), COPY_NGRAM);
	return grams.map((keys) => keys.filter((key) => found.has(key)));
}

function plain(text: string): string {
	return text.normalize('NFD').replace(/\p{M}/gu, '');
}
