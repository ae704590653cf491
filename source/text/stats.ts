import { ngramCounts, ngramsFoundIn, words as wordsOf } from './ngrams.ts';
import { countTokens, DEFAULT_ENCODING, type EncodingName } from './tokens.ts';

/** The per-summary columns of Table 2 of the BooookScore paper (besides the score itself). */
export interface SummaryStats {
	/** Tokens of the summary in the run's encoding. */
	tokens: number;
	/** Word tokens of the summary (see `source/text/ngrams.ts` for what a word is). */
	words: number;
	/** Percent of the summary's 3-gram occurrences that repeat a 3-gram seen earlier in the summary. */
	repeated3gramPct: number;
	/** Percent of the summary's distinct 3-grams that never occur in the book. */
	novel3gramPct: number;
}

/**
 * Length and n-gram statistics of a summary against its book, as reported in Table 2 of the
 * BooookScore paper ("% of repeated trigrams" in the summary, "% of novel trigrams" compared to
 * the source). Both are computed over lowercase word tokens (letters, digits, inner apostrophes):
 * - repeated3gramPct = 100 × (3-gram occurrences in the summary that repeat a 3-gram already seen
 *   earlier in the summary) / (all 3-gram occurrences in the summary). A 3-gram written k times
 *   contributes k − 1 repeats, so this is 100 × (occurrences − distinct) / occurrences.
 * - novel3gramPct = 100 × (distinct 3-grams of the summary that occur nowhere in the book) /
 *   (distinct 3-grams of the summary).
 * 3-grams run across sentence boundaries. A summary with fewer than three words has no 3-grams;
 * both percentages are then 0.
 */
export function summaryStats(
	summary: string,
	bookText: string,
	encoding: EncodingName = DEFAULT_ENCODING,
): SummaryStats {
	const words = wordsOf(summary);
	const counts = ngramCounts(words, 3);
	const occurrences = Math.max(0, words.length - 2);
	const distinct = counts.size;
	const inBook = distinct === 0 ? 0 : ngramsFoundIn(bookText, new Set(counts.keys()), 3).size;
	return {
		tokens: countTokens(summary, encoding),
		words: words.length,
		repeated3gramPct: occurrences === 0 ? 0 : (100 * (occurrences - distinct)) / occurrences,
		novel3gramPct: distinct === 0 ? 0 : (100 * (distinct - inBook)) / distinct,
	};
}
