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

/**
 * The word limit of regeneration `attempt` (0 = the first call). The authors shrink it cumulatively,
 * by 10% more each time: x1, x1, x.9, x.72, x.504, x.3024, x.1512 for attempts 0 to 6.
 */
export function regenerationWords(words: number, attempt: number): number {
	let factor = 1;
	for (let i = 1; i < attempt; i++) factor *= 1 - 0.1 * i;
	return Math.max(1, Math.round(words * factor));
}

export class PlanError extends Error {
	override name = 'PlanError';
}

/**
 * Per-level summary token limits G_l, lowest level first: the top level gets G_n and each level
 * below it 0.65 times the one above. The number of levels is the authors' estimate
 * (`estimate_levels`): how many times the number of summaries must be divided by what fits in one
 * prompt until one is left, counting chunks of C tokens at the first level and summaries of 450
 * tokens above it. When only one chunk fits (C close to W) the first level does not shrink the
 * count, and it still counts as a level, so level 0 gets a smaller budget, as in the authors' runs.
 * The only guards: at least one item fits (the authors would divide by zero), and a level of
 * summaries that cannot shrink ends the estimate (theirs would loop for ever); whether a level
 * really shrinks is checked when it is planned.
 */
export function levelLimits(opts: {
	chunks: number;
	contextWindow: number;
	chunkSize: number;
	maxSummary: number;
	mergeTemplateTokens: number;
}): number[] {
	let remaining = opts.chunks;
	let itemTokens = opts.chunkSize;
	let levels = 0;
	while (remaining > 1) {
		const fit = Math.max(
			1,
			Math.floor((opts.contextWindow - opts.mergeTemplateTokens - PROMPT_MARGIN) / itemTokens),
		);
		if (fit === 1 && levels > 0) break;
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
