import { counted } from '../format/count.ts';
import type { Node, NodeRef, Run } from '../domain.ts';
import { countWords } from '../text/tokens.ts';
import {
	MAX_COMPRESSIONS,
	MAX_REGENERATIONS,
	compressionTarget,
	expectedWords,
	regenerationWords,
	withinCompressionTolerance,
} from './budget.ts';
import {
	activeVersion,
	awaitsCheck,
	callsMade,
	getNode,
	nodesAwaitingCalls,
	isDone,
	liveNodes,
	newNode,
	nextNodeId,
	refText,
	settled,
} from './graph.ts';
import {
	emptyUpdate,
	sameBudget,
	samePlan,
	type CallSpec,
	type PlanContext,
	type Planner,
} from './planner.ts';
import { cleanCall, cleanRoot, planClean } from './clean.ts';
import { refTokens, tokensOf } from './counts.ts';
import { assertFits, fitPrompt } from './shared.ts';
import { fill } from './templates.ts';
import { summaryProblem } from './validity.ts';

/**
 * Incremental updating (paper Appendix A.2, authors' `summ.py`): a running summary started from
 * chunk 1 and updated with each later chunk. An update that comes out too long (or cut off) makes
 * the previous running summary be compressed and the update be made again from the compressed one,
 * up to six times (Appendix A.2.1). Every call is its own node, so compressions show as steps.
 *
 * Nodes carry `meta.step` (the chunk index) and, for compressions, `meta.trim` and `meta.original`
 * (the words of the first target, which `closestUpdate` measures against).
 */
export const incremental: Planner = {
	/**
	 * Walks the chain from its start, as it would be planned afresh from the outcomes of the nodes
	 * that are done: each node is compared with the one that would be planned in its place (same
	 * kind, step, trim and inputs: it stays; otherwise it and everything after it goes), and the
	 * first missing node is planned. The walk stops at the first node that is not done yet.
	 */
	reconcile(run, ctx) {
		const update = emptyUpdate();
		const live = liveNodes(run);
		const chain = live.filter((n) => n.kind !== 'clean');
		const clean = live.find((n) => n.kind === 'clean');
		const rest = (i: number) => [...chain.slice(i), ...(clean ? [clean] : [])].map((n) => n.id);
		let step: Node[] = [];
		for (let i = 0; ; i++) {
			const next = i === 0 ? { node: stepNode(run, ctx, 0, null) } : following(run, ctx, step);
			const existing = chain[i];
			if ('final' in next) {
				if (existing) update.supersede.push(...rest(i));
				else planClean(run, ctx, getNode(run, next.final), update);
				return update;
			}
			if (!existing || !samePlan(existing, next.node)) {
				update.supersede.push(...rest(i));
				update.add.push({ ...next.node, id: nextNodeId(run) });
				return update;
			}
			const budget = sameBudget(existing.budget, next.node.budget) ? null : next.node.budget;
			if (budget || awaitsCheck(existing)) update.confirm.push({ id: existing.id, budget });
			if (budget || !isDone(existing)) return update;
			if (step.length > 0 && step[0]!.meta.step !== existing.meta.step) step = [];
			step.push(existing);
		}
	},

	expand(run, ctx) {
		return this.reconcile(run, ctx).add;
	},

	replans(run, id) {
		// Every later node follows from the outcome of the ones before it (the running summary it
		// reads, and whether compressions are needed).
		const live = liveNodes(run);
		const at = live.findIndex((n) => n.id === id);
		return at < 0 ? [] : live.slice(at + 1).map((n) => n.id);
	},

	call(run, node, ctx, attempt) {
		if (node.kind === 'clean') return cleanCall(run, node, ctx, attempt);
		const { config, templates } = ctx;
		const maxTokens = node.budget.summaryTokens;
		let spec: CallSpec;
		let atMost = Infinity;
		if (node.kind === 'compress') {
			const summary = refText(run, node.inputs[0]!, ctx.book);
			const target = node.budget.words;
			spec = {
				prompt: fill(templates['inc-compress'], [summary, countWords(summary), target, target]),
				task: { kind: 'compress', texts: [summary], words: target },
				// The authors compress at temperature 1: a compression that missed is tried again differently.
				params: { temperature: 1, maxTokens, words: target, template: 'inc-compress' },
			};
		} else {
			const words = regenerationWords(node.budget.words, attempt);
			const temperature = attempt === 0 ? config.temperature : 1;
			const chunk = refText(run, node.inputs[0]!, ctx.book);
			if (node.kind === 'summarize') {
				spec = {
					prompt: fill(templates['inc-init'], [chunk, words, words]),
					task: { kind: 'summarize', texts: [chunk], words },
					params: { temperature, maxTokens, words, template: 'inc-init' },
				};
			} else {
				const previous = refText(run, node.inputs[1]!, ctx.book);
				// Template, chunk and summary, each counted once, and a token at each of the seams.
				atMost =
					tokensOf(ctx, fill(templates['inc-update'], ['', '', words, words])) +
					refTokens(run, node.inputs[0]!, ctx) +
					refTokens(run, node.inputs[1]!, ctx) +
					4;
				spec = {
					prompt: fitPrompt(
						ctx,
						maxTokens,
						previous,
						(summary) => fill(templates['inc-update'], [chunk, summary, words, words]),
						atMost,
					),
					task: { kind: 'update', texts: [previous, chunk], words },
					params: { temperature, maxTokens, words, template: 'inc-update' },
				};
			}
		}
		assertFits(spec, ctx, atMost);
		return spec;
	},

	judge(_run, node, text, ctx) {
		// Kept: the next update's prompt reads this text, and its bound counts it.
		const tokens = tokensOf(ctx, text);
		if (node.kind === 'clean') return summaryProblem(text, tokens, node.budget.summaryTokens);
		// The authors accept incremental summaries strictly below G_n.
		const problem = summaryProblem(text, tokens, node.budget.summaryTokens, true);
		if (problem || node.kind !== 'compress') return problem;
		const words = countWords(text);
		const target = node.budget.words;
		return withinCompressionTolerance(words, target)
			? null
			: `${counted(words, 'word')}, not within 20% of the ${target} asked for`;
	},

	maxAttempts() {
		return 1 + MAX_REGENERATIONS;
	},

	// The worst update holds the largest chunk, the update prompt, a running summary just under G_n
	// (a longer one is compressed first) and room for G_n output tokens.
	windowProblem(run, ctx) {
		const { config, templates } = ctx;
		const words = expectedWords(config.maxSummary, run.chunks.length - 1, run.chunks.length);
		const largest = Math.max(...run.chunks.map((c) => c.tokens));
		const template = ctx.tokens(fill(templates['inc-update'], ['', '', words, words]));
		const need = largest + template + (config.maxSummary - 1) + config.maxSummary;
		if (need <= config.contextWindow) return null;
		return (
			`--context-window ${config.contextWindow} is too small for an incremental update: a ${largest}-token ` +
			`chunk, the ${template}-token prompt, a running summary of up to ${counted(config.maxSummary - 1, 'token')} ` +
			`and ${counted(config.maxSummary, 'output token')} need ${need}; raise --context-window or lower --chunk-size or --max-summary`
		);
	},

	regenerates(node, problem) {
		// An update or compression that misses its budget is answered by the next compression, not a
		// regeneration; only an empty answer is asked for again.
		return (node.kind !== 'update' && node.kind !== 'compress') || problem === 'empty';
	},

	root(run) {
		if (!settled(run)) return null;
		const live = liveNodes(run);
		const last = live[live.length - 1];
		if (!last) return null;
		if (last.kind === 'clean') return last.id;
		const step = live.filter((n) => n.meta.step === last.meta.step);
		if (Number(last.meta.step) !== run.chunks.length - 1) return null;
		const outcome = stepOutcome(step);
		if (outcome.kind !== 'done') return null;
		return cleanRoot(run, getNode(run, outcome.result), undefined);
	},

	estimateCalls(run) {
		const steps = run.chunks.length;
		const live = liveNodes(run);
		const last = live.filter((n) => n.kind !== 'clean').at(-1);
		const doneSteps = last ? Number(last.meta.step) + 1 : 0;
		const cleaning = run.config.clean && !live.some((n) => n.kind === 'clean') ? 1 : 0;
		return callsMade(run) + nodesAwaitingCalls(run) + Math.max(0, steps - doneSteps) + cleaning;
	},

	expectedNodes() {
		return [];
	},
};

/** Stands for the id of a node planned only to be compared (`reconcile` gives added nodes fresh ids). */
const PROBE: NodeRef = 'n-1';

/**
 * What the planner makes after `step`, the nodes of the current step so far (all done): the step's
 * next compression or redo, the next step, or nothing but the final summary `final`.
 */
function following(run: Run, ctx: PlanContext, step: Node[]): { node: Node } | { final: NodeRef } {
	const index = Number(step[0]!.meta.step);
	const outcome = stepOutcome(step);
	if (outcome.kind === 'compress') return { node: compressNode(run, ctx, step, outcome.trim) };
	if (outcome.kind === 'update') return { node: stepNode(run, ctx, index, outcome.from) };
	if (index + 1 < run.chunks.length) return { node: stepNode(run, ctx, index + 1, outcome.result) };
	return { final: outcome.result };
}

type Outcome =
	{ kind: 'done'; result: NodeRef } | { kind: 'compress'; trim: number } | { kind: 'update'; from: NodeRef };

/**
 * Where a step stands, from its nodes alone (`nodes`: the step's live nodes so far, all done): done
 * (and which node holds its running summary), or waiting for the next compression or the update
 * made from the last compression.
 */
function stepOutcome(nodes: Node[]): Outcome {
	const step = Number(nodes[0]!.meta.step);
	const last = nodes[nodes.length - 1]!;
	const accepted = (n: Node) => isDone(n) && !activeVersion(n)!.overBudget;
	if (last.kind !== 'compress' && (accepted(last) || step === 0)) return { kind: 'done', result: last.id };
	const trims = nodes.filter((n) => n.kind === 'compress').length;
	if (last.kind === 'compress' && accepted(last)) return { kind: 'update', from: last.id };
	if (trims < MAX_COMPRESSIONS) return { kind: 'compress', trim: trims };
	return { kind: 'done', result: closestUpdate(nodes) };
}

/**
 * After six compressions without a valid update: the update made from the compression whose length
 * came closest to its target, preferring updates that were valid (the authors' rule); without any
 * accepted compression, the first update.
 */
function closestUpdate(nodes: Node[]): NodeRef {
	let best: { id: NodeRef; valid: boolean; distance: number } | null = null;
	for (let i = 0; i < nodes.length; i++) {
		const k = nodes[i]!;
		const u = nodes[i + 1];
		if (k.kind !== 'compress' || !u || u.kind !== 'update' || activeVersion(k)!.overBudget) continue;
		const distance = Math.abs(countWords(activeVersion(k)!.text) - Number(k.meta.original));
		const valid = !activeVersion(u)!.overBudget;
		if (!best || (valid && !best.valid) || (valid === best.valid && distance < best.distance))
			best = { id: u.id, valid, distance };
	}
	return best?.id ?? nodes[0]!.id;
}

/** The summarize (step 0) or update node of `step`, reading the running summary `previous`. */
function stepNode(run: Run, ctx: PlanContext, step: number, previous: NodeRef | null): Node {
	const { config } = ctx;
	const words = expectedWords(config.maxSummary, step, run.chunks.length);
	return newNode(PROBE, {
		kind: step === 0 ? 'summarize' : 'update',
		level: 0,
		index: step,
		inputs: previous ? [`c${step}`, previous] : [`c${step}`],
		budget: {
			promptTokens: config.contextWindow - config.maxSummary,
			summaryTokens: config.maxSummary,
			words,
		},
		meta: { step },
	});
}

/** Compression `trim` of the running summary that the step of `nodes` (its nodes so far) updates. */
function compressNode(run: Run, ctx: PlanContext, nodes: Node[], trim: number): Node {
	const { config } = ctx;
	const step = Number(nodes[0]!.meta.step);
	const first = nodes.find((n) => n.kind === 'update')!;
	const target = compressionTarget(config.maxSummary, step, run.chunks.length, trim);
	return newNode(PROBE, {
		kind: 'compress',
		level: 0,
		index: step,
		inputs: [first.inputs[1]!],
		budget: {
			promptTokens: config.contextWindow - config.maxSummary,
			summaryTokens: config.maxSummary,
			words: target,
		},
		meta: { step, trim, original: compressionTarget(config.maxSummary, step, run.chunks.length, 0) },
	});
}

/**
 * The running summary after each step that is done, in step order: the node the planner settled on
 * for the step (an accepted update, or after six compressions the closest one), by the rule that
 * plans the next step from it. Stops at the first step not done yet; a clean-up is no step.
 */
export function stepSummaries(run: Run): { step: number; node: NodeRef }[] {
	const byStep = new Map<number, Node[]>();
	for (const n of liveNodes(run)) {
		if (n.kind === 'clean') continue;
		const step = Number(n.meta.step);
		const nodes = byStep.get(step);
		if (nodes) nodes.push(n);
		else byStep.set(step, [n]);
	}
	const out: { step: number; node: NodeRef }[] = [];
	for (let step = 0; step < run.chunks.length; step++) {
		const nodes = byStep.get(step);
		if (!nodes?.every(isDone)) break;
		const outcome = stepOutcome(nodes);
		if (outcome.kind !== 'done') break;
		out.push({ step, node: outcome.result });
	}
	return out;
}
