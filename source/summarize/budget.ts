/**
 * Length budgets of the two methods, as in the authors' code (lilakk/BooookScore `summ.py`).
 */

/** Words asked for per token of budget. */
export const WORD_RATIO = 0.65;
/** Tokens kept free in every prompt for the tokenizer's disagreements at joins (authors: 20). */
export const PROMPT_MARGIN = 20;
/** Share of a merge's input budget that the previous merge of the level may take as context. */
export const CONTEXT_SHARE = 0.2;
/** Regenerations of an invalid summary after the first call (authors: 6). */
export const MAX_REGENERATIONS = 6;
/** Compressions tried for one incremental step before the closest is kept (authors: 6). */
export const MAX_COMPRESSIONS = 6;
/** The summary size the authors assume for merged levels when estimating the number of levels. */
const ESTIMATED_SUMMARY_TOKENS = 450;

export function wordLimit(tokens: number): number {
	return Math.round(tokens * WORD_RATIO);
}

/** The word limit of regeneration `attempt` (0 = the first call): 10% lower per attempt. */
export function regenerationWords(words: number, attempt: number): number {
	return Math.max(1, Math.round(words * (1 - 0.1 * attempt)));
}

export class PlanError extends Error {
	override name = 'PlanError';
}

/**
 * Per-level summary token limits G_l, lowest level first: the top level gets G_n and each level
 * below it 0.65 times the one above. The number of levels is the authors' estimate: how many times
 * the number of summaries must be divided by what fits in one prompt until one is left.
 */
export function levelLimits(opts: { chunks: number; contextWindow: number; chunkSize: number; maxSummary: number; mergeTemplateTokens: number }): number[] {
	let remaining = opts.chunks;
	let itemTokens = opts.chunkSize;
	let levels = 0;
	while (remaining > 1) {
		// Only an estimate (the authors divide by the chunk size first): whether a level really
		// shrinks is checked when it is planned, so a poor fit here must not stop anything.
		const fit = Math.max(2, Math.floor((opts.contextWindow - opts.mergeTemplateTokens - PROMPT_MARGIN) / itemTokens));
		remaining = Math.ceil(remaining / fit);
		itemTokens = ESTIMATED_SUMMARY_TOKENS;
		levels++;
	}
	const limits = [opts.maxSummary];
	for (let i = 1; i < levels; i++) limits.push(Math.floor(limits[limits.length - 1]! * WORD_RATIO));
	return limits.reverse();
}

/** Expected words of the incremental running summary after `step` of `steps` chunks (0-based). */
export function expectedWords(maxSummary: number, step: number, steps: number): number {
	return Math.floor((Math.floor(maxSummary * WORD_RATIO) * (step + 1)) / steps);
}

/**
 * Target words of compression `trim` (0-based) of the running summary before `step`: the words
 * expected after the previous step, lowered 5% per failed trim. A compression is accepted within
 * 20% of its target.
 */
export function compressionTarget(maxSummary: number, step: number, steps: number, trim: number): number {
	const original = Math.floor((Math.floor(maxSummary * WORD_RATIO) * step) / steps);
	return Math.max(1, Math.floor(original * (1 - 0.05 * trim)));
}

export function withinCompressionTolerance(words: number, target: number): boolean {
	return words >= Math.floor(target * 0.8) && words <= Math.floor(target * 1.2);
}
