import type { Node, Run } from '../domain.ts';
import { CONTEXT_SHARE, MAX_REGENERATIONS, PROMPT_MARGIN, PlanError, levelLimits, regenerationWords, wordLimit } from './budget.ts';
import { activeVersion, awaitsCheck, callsMade, getNode, isDone, isLive, liveNodes, newNode, nextNodeId, refText, settled } from './graph.ts';
import { emptyUpdate, planClean, sameBudget, samePlan, type CallSpec, type PlanContext, type PlanUpdate, type Planner } from './planner.ts';
import { assertFits, cleanCall, cleanRoot, fitPrompt, lastSentenceEndWithin } from './shared.ts';
import { fill } from './templates.ts';
import { summaryProblem } from './validity.ts';

/**
 * Hierarchical merging (paper Appendix A.1, authors' `summ.py`): one summary per chunk, then
 * levels of merges, each taking as many consecutive summaries of the level below as fit with the
 * previous merge of its own level as context, until one summary is left.
 *
 * A level is planned one merge at a time, when the merge before it is done, because how many
 * summaries fit depends on the length of that merge's text, which is the next one's context.
 */
export const hierarchical: Planner = {
	/**
	 * Walks the plan level by level, as it would be made afresh from the texts that are done: each
	 * merge that waits for a plan check is compared with the merge that would be planned in its
	 * place (same inputs and context: it stays; otherwise it and everything after it goes), and the
	 * first missing merge is planned. The walk stops where a text it needs is not done yet.
	 */
	reconcile(run, ctx) {
		const update = emptyUpdate();
		const level0 = levelNodes(run, 0);
		if (level0.length === 0) {
			update.add = planLevelZero(run, ctx);
			return update;
		}
		if (!level0.every(isDone)) return update;
		for (let level = 1; ; level++) {
			const below = levelNodes(run, level - 1);
			const nodes = levelNodes(run, level);
			if (below.length === 1) {
				// The level below is the top: nothing belongs above it but the clean step.
				const above = liveNodes(run).filter((n) => n.kind !== 'clean' && n.level >= level);
				if (above.length > 0) update.supersede.push(...above.map((n) => n.id));
				else planClean(run, ctx, below[0]!, update);
				return update;
			}
			const position = new Map(below.map((n, i) => [n.id, i]));
			let facts: LevelFacts | null = null;
			let from = 0;
			let previous: Node | null = null;
			let k = 0;
			for (; from < below.length; k++) {
				const existing = nodes[k];
				const contiguous = existing !== undefined && existing.context === (previous?.id ?? null) && existing.inputs.every((ref, j) => position.get(ref) === from + j);
				if (!existing || !contiguous || awaitsCheck(existing)) {
					facts ??= levelFacts(run, ctx, level, below);
					const expected = planMerge(run, ctx, level, below, facts, from, previous);
					if (!existing) return withoutClean(run, { ...update, add: [expected] });
					if (!samePlan(existing, expected)) {
						update.supersede.push(...nodes.slice(k).map((n) => n.id));
						return withoutClean(run, { ...update, add: [expected] });
					}
					const budget = sameBudget(existing.budget, expected.budget) ? null : expected.budget;
					update.confirm.push({ id: existing.id, budget });
					if (budget) return update;
				}
				if (!isDone(existing)) return update;
				from += existing.inputs.length;
				previous = existing;
			}
			if (k < nodes.length) {
				// The level ends sooner than it did: what was planned after its end goes.
				update.supersede.push(...nodes.slice(k).map((n) => n.id));
				return update;
			}
		}
	},

	expand(run, ctx) {
		return this.reconcile(run, ctx).add;
	},

	replans(run, id) {
		const node = getNode(run, id);
		if (node.kind === 'clean') return [];
		// Higher levels are packed by the lengths of the level below; later merges of the node's own
		// level read it as context, which decides how many summaries they take.
		return liveNodes(run)
			.filter((n) => n.level > node.level || (n.level === node.level && node.level > 0 && n.kind !== 'clean' && n.index > node.index))
			.map((n) => n.id);
	},

	call(run, node, ctx, attempt) {
		if (node.kind === 'clean') return cleanCall(run, node, ctx, attempt);
		const { config, templates } = ctx;
		const words = regenerationWords(node.budget.words, attempt);
		const temperature = attempt === 0 ? config.temperature : 1;
		const texts = node.inputs.map((ref) => refText(run, ref, ctx.book));
		let spec: CallSpec;
		if (node.kind === 'summarize') {
			spec = {
				prompt: fill(templates['hier-init'], [texts[0]!, words]),
				task: { kind: 'summarize', texts, words },
				params: { temperature, maxTokens: node.budget.summaryTokens, words, template: 'hier-init' },
			};
		} else {
			const context = node.context ? contextText(refText(run, node.context, ctx.book), node.budget.promptTokens, ctx) : '';
			const template = node.context ? 'hier-merge-context' : 'hier-merge';
			const prompt = fitPrompt(ctx, node.budget.summaryTokens, mergeBody(texts), (body) =>
				node.context ? fill(templates['hier-merge-context'], [context, body, words]) : fill(templates['hier-merge'], [body, words]),
			);
			spec = {
				prompt,
				task: { kind: 'merge', texts, words },
				params: { temperature, maxTokens: node.budget.summaryTokens, words, template },
			};
		}
		assertFits(spec, ctx);
		return spec;
	},

	judge(_run, node, text, ctx) {
		return summaryProblem(text, ctx.tokens(text), node.budget.summaryTokens);
	},

	maxAttempts() {
		return 1 + MAX_REGENERATIONS;
	},

	windowProblem(run, ctx) {
		// Level 0 is where a chunk meets the window; merges are checked as they are planned.
		try {
			planLevelZero(run, ctx);
			return null;
		} catch (error) {
			if (error instanceof PlanError) return error.message;
			throw error;
		}
	},

	regenerates() {
		return true;
	},

	root(run) {
		if (!settled(run)) return null;
		const top = topLevel(run);
		const nodes = levelNodes(run, top);
		if (nodes.length !== 1) return null;
		if (top > 0) {
			const below = levelNodes(run, top - 1);
			if (nodes[0]!.inputs.at(-1) !== below[below.length - 1]!.id) return null;
		}
		return cleanRoot(run, nodes[0]!, cleanNodeOf(run));
	},

	estimateCalls(run, ctx) {
		const live = liveNodes(run);
		let planned = callsMade(run) + live.filter((n) => !isDone(n)).length;
		for (const { level, merges } of expectedMerges(run.chunks.length, ctx)) planned += Math.max(0, merges - levelNodes(run, level).length);
		if (run.config.clean && !cleanNodeOf(run)) planned += 1;
		return planned;
	},
};

/**
 * The merges each level above 0 is expected to need, before summary lengths are known: summaries
 * are assumed to come out at their limits and merges to carry the largest context, so this
 * over-estimates a little. `plan` and progress both use it.
 */
export function expectedMerges(chunks: number, ctx: PlanContext): { level: number; merges: number; limit: number; below: number; inputBudget: number }[] {
	const { config } = ctx;
	const limits = limitsFor(chunks, ctx);
	const template = mergeTemplateTokens(ctx, true);
	const out = [];
	let count = chunks;
	let below = chunks === 1 ? config.maxSummary : (limits[0] ?? config.maxSummary);
	for (let level = 1; count > 1; level++) {
		const limit = count * below + config.maxSummary + template + PROMPT_MARGIN <= config.contextWindow ? config.maxSummary : (limits[level] ?? config.maxSummary);
		const inputBudget = config.contextWindow - limit - template - PROMPT_MARGIN;
		const fit = Math.max(2, Math.floor((inputBudget * (1 - CONTEXT_SHARE)) / (below + 8)));
		const merges = Math.ceil(count / fit);
		out.push({ level, merges, limit, below, inputBudget });
		count = merges;
		below = limit;
	}
	return out;
}

/** The live nodes of `level`, in order. */
function levelNodes(run: Run, level: number): Node[] {
	return run.nodes.filter((n) => n.level === level && n.kind !== 'clean' && isLive(n)).sort((a, b) => a.index - b.index);
}

function topLevel(run: Run): number {
	let top = 0;
	for (const n of run.nodes) if (n.kind !== 'clean' && isLive(n)) top = Math.max(top, n.level);
	return top;
}

function cleanNodeOf(run: Run): Node | undefined {
	return run.nodes.find((n) => n.kind === 'clean' && isLive(n));
}

/** A clean step over a final summary that is no longer final goes when the plan grows again. */
function withoutClean(run: Run, update: PlanUpdate): PlanUpdate {
	const clean = cleanNodeOf(run);
	if (clean && !update.supersede.includes(clean.id)) update.supersede.push(clean.id);
	return update;
}

function mergeTemplateTokens(ctx: PlanContext, withContext: boolean): number {
	const t = ctx.templates;
	return ctx.tokens(withContext ? fill(t['hier-merge-context'], ['', '', 0]) : fill(t['hier-merge'], ['', 0]));
}

function limitsFor(chunks: number, ctx: PlanContext): number[] {
	const { config } = ctx;
	return levelLimits({
		chunks,
		contextWindow: config.contextWindow,
		chunkSize: config.chunkSize,
		maxSummary: config.maxSummary,
		mergeTemplateTokens: mergeTemplateTokens(ctx, false),
	});
}

/**
 * G_l: the estimated limit of the level, or G_n when the level is the last one (a single chunk, or
 * everything below fits one merge), as the authors decide it.
 */
function levelLimit(run: Run, ctx: PlanContext, level: number, belowTexts: string[]): number {
	const { config } = ctx;
	if (level === 0 && run.chunks.length === 1) return config.maxSummary;
	if (level > 0) {
		const all = ctx.tokens(belowTexts.join('\n\n'));
		if (all + config.maxSummary + mergeTemplateTokens(ctx, true) + PROMPT_MARGIN <= config.contextWindow) return config.maxSummary;
	}
	return limitsFor(run.chunks.length, ctx)[level] ?? config.maxSummary;
}

function planLevelZero(run: Run, ctx: PlanContext): Node[] {
	const limit = levelLimit(run, ctx, 0, []);
	const promptTokens = ctx.config.contextWindow - limit;
	const initTokens = ctx.tokens(fill(ctx.templates['hier-init'], ['', wordLimit(limit)]));
	const largest = Math.max(...run.chunks.map((c) => c.tokens));
	if (initTokens + largest + limit + PROMPT_MARGIN > ctx.config.contextWindow) {
		throw new PlanError(`a chunk of ${largest} tokens and a ${limit}-token summary do not fit a ${ctx.config.contextWindow}-token context window; lower --chunk-size or raise --context-window`);
	}
	return run.chunks.map((chunk, i) =>
		newNode(nextNodeId(run, i), {
			kind: 'summarize',
			level: 0,
			index: i,
			inputs: [`c${chunk.index}`],
			budget: { promptTokens, summaryTokens: limit, words: wordLimit(limit) },
		}),
	);
}

export function mergeBody(texts: readonly string[]): string {
	return texts.map((t, j) => `Summary ${j + 1}:\n\n${t}`).join('\n\n');
}

/** The previous merge cut to at most 20% of the merge's input budget, at a sentence end. */
function contextText(text: string, inputBudget: number, ctx: PlanContext): string {
	const limit = Math.floor(CONTEXT_SHARE * inputBudget);
	return ctx.tokens(text) <= limit ? text : lastSentenceEndWithin(text, limit, ctx);
}

/** What every merge of a level is planned from: the texts of the level below and the level's limit. */
interface LevelFacts {
	texts: string[];
	limit: number;
}

function levelFacts(run: Run, ctx: PlanContext, level: number, below: Node[]): LevelFacts {
	const texts = below.map((n) => activeVersion(n)!.text);
	return { texts, limit: levelLimit(run, ctx, level, texts) };
}

/**
 * The merge `index` of `level` (`level` ≥ 1), over summaries of the level below starting at `from`:
 * as many consecutive ones as fit next to the context, at least one.
 */
function planMerge(run: Run, ctx: PlanContext, level: number, below: Node[], facts: LevelFacts, from: number, previous: Node | null): Node {
	const { texts, limit } = facts;
	const withContext = previous !== null;
	const inputBudget = ctx.config.contextWindow - limit - mergeTemplateTokens(ctx, withContext) - PROMPT_MARGIN;
	if (previous === null) assertShrinks(ctx, level, texts, inputBudget);
	const budget = { promptTokens: inputBudget, summaryTokens: limit, words: wordLimit(limit) };
	const context = previous ? contextText(activeVersion(previous)!.text, inputBudget, ctx) : '';
	const take = pack(ctx, texts, from, context, inputBudget);
	return newNode(nextNodeId(run), {
		kind: 'merge',
		level,
		index: previous ? previous.index + 1 : 0,
		inputs: below.slice(from, from + take).map((n) => n.id),
		context: previous?.id ?? null,
		budget,
	});
}

/** How many summaries from `from` fit with `context` in `budget` tokens (the authors' greedy rule). */
function pack(ctx: PlanContext, texts: string[], from: number, context: string, budget: number): number {
	let take = 1;
	while (from + take < texts.length && ctx.tokens(context + mergeBody(texts.slice(from, from + take + 1))) + PROMPT_MARGIN <= budget) take++;
	return take;
}

/**
 * Refuses a level that would not have fewer summaries than the one below (the recursion would not
 * end). Packed with the largest context a merge may carry, so the real plan can only shrink more.
 */
function assertShrinks(ctx: PlanContext, level: number, texts: string[], inputBudget: number): void {
	const reserve = ' x'.repeat(Math.floor(CONTEXT_SHARE * inputBudget));
	let merges = 0;
	for (let i = 0; i < texts.length; merges++) i += pack(ctx, texts, i, i === 0 ? '' : reserve, inputBudget);
	if (merges >= texts.length) {
		throw new PlanError(
			`level ${level} cannot merge the ${texts.length} summaries below it into fewer within a ${ctx.config.contextWindow}-token context window; raise --context-window or lower --max-summary`,
		);
	}
}

