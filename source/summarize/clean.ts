import type { Node, NodeRef, Run } from '../domain.ts';
import { countWords } from '../text/tokens.ts';
import { activeVersion, awaitsCheck, isDone, isLive, newNode, nextNodeId, refText } from './graph.ts';
import { sameBudget, type CallSpec, type PlanContext, type PlanUpdate } from './planner.ts';
import { assertFits, fitPrompt } from './shared.ts';
import { fill } from './templates.ts';

/** The artifact-removal step (paper J.3) over the final summary, the same for both methods. */

/**
 * Plans the clean step once the final summary is done, checks it against a fresh plan when it waits
 * for one (its budget follows the final summary's length), and replaces it when the final summary
 * is another node now.
 */
export function planClean(run: Run, ctx: PlanContext, final: Node, update: PlanUpdate): void {
	const clean = run.nodes.find((n) => n.kind === 'clean' && isLive(n));
	if (!run.config.clean) return;
	const expected = cleanNode(run, final, ctx);
	if (!clean) update.add.push(expected);
	else if (clean.inputs[0] !== final.id) {
		update.supersede.push(clean.id);
		update.add.push(expected);
	} else if (awaitsCheck(clean)) {
		update.confirm.push({
			id: clean.id,
			budget: sameBudget(clean.budget, expected.budget) ? null : expected.budget,
		});
	}
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
		budget: {
			promptTokens: ctx.config.contextWindow - summaryTokens,
			summaryTokens,
			words: countWords(text),
		},
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
