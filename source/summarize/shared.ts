import type { Node, NodeRef, Run } from '../domain.ts';
import { countWords, truncateToTokens } from '../text/tokens.ts';
import { sentenceSpans } from '../text/sentences.ts';
import { activeVersion, isDone, newNode, nextNodeId, refText } from './graph.ts';
import type { CallSpec, PlanContext } from './planner.ts';
import { fill } from './templates.ts';
import { endsWithTerminal } from './validity.ts';

/** Pieces both methods use: the artifact-removal step, fitting prompts, cutting at sentence ends. */

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
export function fitPrompt(ctx: PlanContext, maxTokens: number, body: string, build: (body: string) => string, atMost = Infinity): string {
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
		throw new Error(`internal: a ${spec.params.template} prompt with its output needs ${total} tokens, over the ${ctx.config.contextWindow}-token window`);
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

/** The artifact-removal node (paper J.3) over the final summary. */
export function cleanNode(run: Run, final: Node, ctx: PlanContext): Node {
	const text = activeVersion(final)!.text;
	// What a regeneration may write; the first call gets the authors' limit (see cleanCall).
	const summaryTokens = Math.max(ctx.config.maxSummary, ctx.tokens(text) + 16);
	return newNode(nextNodeId(run), {
		kind: 'clean',
		level: final.level + 1,
		index: 0,
		inputs: [final.id],
		budget: { promptTokens: ctx.config.contextWindow - summaryTokens, summaryTokens, words: countWords(text) },
	});
}

export function cleanCall(run: Run, node: Node, ctx: PlanContext, attempt: number): CallSpec {
	const text = refText(run, node.inputs[0]!, ctx.book);
	const words = countWords(text);
	// The authors' J.3 call: temperature 0 and an output limit of the summary's own length
	// (cleaning only removes). An answer cut short at that limit is made again at temperature 1
	// with room to finish, as other regenerations are.
	const maxTokens = attempt === 0 ? Math.max(1, ctx.tokens(text)) : node.budget.summaryTokens;
	const spec: CallSpec = {
		prompt: fitPrompt(ctx, maxTokens, text, (body) => fill(ctx.templates.clean, [body])),
		task: { kind: 'clean', texts: [text], words },
		params: { temperature: attempt === 0 ? 0 : 1, maxTokens, words, template: 'clean' },
	};
	assertFits(spec, ctx);
	return spec;
}

/** The root once the final summary exists: the cleaned one when cleaning is on. */
export function cleanRoot(run: Run, final: Node, clean: Node | undefined): NodeRef | null {
	if (!run.config.clean) return final.id;
	return clean && isDone(clean) ? clean.id : null;
}
