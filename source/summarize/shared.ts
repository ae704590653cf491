import { counted } from '../format/count.ts';
import { truncateToTokens } from '../text/tokens.ts';
import { sentenceSpans } from '../text/sentences.ts';
import type { CallSpec, PlanContext } from './planner.ts';
import { endsWithTerminal } from './validity.ts';

/** Pieces both methods use: fitting prompts to the window, cutting at sentence ends. */

/** The longest prefix of `text` within `limit` tokens that ends a sentence (or the raw cut if none does). */
export function lastSentenceEndWithin(text: string, limit: number, ctx: PlanContext): string {
	const cut = truncateToTokens(text, Math.max(0, limit), ctx.config.encoding);
	const spans = sentenceSpans(cut);
	for (let i = spans.length - 1; i >= 0; i--) {
		const prefix = cut.slice(0, spans[i]!.end);
		if (endsWithTerminal(prefix)) return prefix;
	}
	return cut;
}

/**
 * Builds a prompt around `body` and, if prompt plus output would not fit the window (only an
 * edited text far over its budget can cause that), cuts the body at a sentence end until it does.
 * `atMost`, a bound on the prompt's tokens known without counting it, spares counting one that fits.
 */
export function fitPrompt(
	ctx: PlanContext,
	maxTokens: number,
	body: string,
	build: (body: string) => string,
	atMost = Infinity,
): string {
	let prompt = build(body);
	if (atMost + maxTokens <= ctx.config.contextWindow) return prompt;
	for (let round = 0; round < 4; round++) {
		const excess = promptTokens(ctx, prompt) + maxTokens - ctx.config.contextWindow;
		if (excess <= 0) return prompt;
		body = lastSentenceEndWithin(body, ctx.tokens(body) - excess - 8 * (round + 1), ctx);
		prompt = build(body);
	}
	return prompt;
}

/**
 * Refuses a call whose prompt and output would not fit the window. `atMost`, a bound on the
 * prompt's tokens known without counting it, spares counting a prompt that fits by far.
 */
export function assertFits(spec: CallSpec, ctx: PlanContext, atMost = Infinity): void {
	if (atMost + spec.params.maxTokens <= ctx.config.contextWindow) return;
	const total = promptTokens(ctx, spec.prompt) + spec.params.maxTokens;
	if (total > ctx.config.contextWindow) {
		throw new Error(
			`internal: a ${spec.params.template} prompt with its output needs ${counted(total, 'token')}, over the ${ctx.config.contextWindow}-token window`,
		);
	}
}

/** The last prompt counted, per run context: a prompt is fitted, then checked, and counting it twice cost a run a second. */
const lastPrompt = new WeakMap<PlanContext, { text: string; tokens: number }>();

function promptTokens(ctx: PlanContext, prompt: string): number {
	const last = lastPrompt.get(ctx);
	if (last?.text === prompt) return last.tokens;
	const tokens = ctx.tokens(prompt);
	lastPrompt.set(ctx, { text: prompt, tokens });
	return tokens;
}
