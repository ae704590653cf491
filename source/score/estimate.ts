import type { Usage } from '../domain.ts';

/**
 * What BooookScore's annotation of a summary not written yet would take: one call per sentence
 * with the authors' full prompt (`get_annotations`), as `booook score` asks by default. Pure: the
 * caller counts the prompt's tokens and estimates the summary's.
 */

/**
 * Tokens per summary sentence: the authors' GPT-4 hierarchical release (2048-token chunks) has
 * 778.6 tokens per summary over 2818 sentences of 100 summaries, 27.6 a sentence.
 */
export const SENTENCE_TOKENS = 28;

/**
 * Tokens of an answer: "Questions: no confusion / Types: no confusion" is about 10, a confusing
 * sentence's question and types some 30, and most sentences confuse no one (85 to 90% in Table 2).
 */
export const ANSWER_TOKENS = 15;

/**
 * A final summary's length over the length its run allows: the authors' releases have 778.6 tokens
 * (hierarchical) and 805.4 (incremental) per summary under a limit of 900, 0.87 and 0.89.
 */
export const SUMMARY_SHARE = 0.87;

export interface ScoringEstimate {
	sentences: number;
	calls: number;
	/** `cached`: the prompt's start (instructions, examples, the summary) read from the provider's cache. */
	usage: Usage;
}

/**
 * The annotation calls of a summary allowed `summaryTokens` (it is expected at SUMMARY_SHARE of
 * them), with a prompt of `promptTokens` around it
 * (the template filled with nothing). Every call after a summary's first reads its prefix from the
 * prompt cache when `cached` (the annotator sends the first alone so that the rest can; a batch
 * skips that warm-up, so a batched scoring is priced without it).
 */
export function estimateScoring(opts: {
	summaryTokens: number;
	promptTokens: number;
	cached: boolean;
}): ScoringEstimate {
	const summary = Math.round(opts.summaryTokens * SUMMARY_SHARE);
	const sentences = Math.max(1, Math.round(summary / SENTENCE_TOKENS));
	const prefix = opts.promptTokens + summary;
	return {
		sentences,
		calls: sentences,
		usage: {
			input: sentences * (prefix + SENTENCE_TOKENS),
			output: sentences * ANSWER_TOKENS,
			cached: opts.cached ? (sentences - 1) * prefix : 0,
		},
	};
}
