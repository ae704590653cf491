import { counted } from '../format/count.ts';
import type { Node, Run } from '../domain.ts';
import {
	CONTEXT_SHARE,
	MAX_REGENERATIONS,
	PROMPT_MARGIN,
	PlanError,
	levelLimits,
	regenerationWords,
	wordLimit,
} from './budget.ts';
import {
	activeVersion,
	awaitsCheck,
	callsMade,
	chunksUnder,
	getNode,
	nodesAwaitingCalls,
	isDone,
	isLive,
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
	type PlanUpdate,
	type Planner,
} from './planner.ts';
import { cleanCall, cleanRoot, planClean } from './clean.ts';
import { refTokens, tokensOf, versionTokens } from './counts.ts';
import { assertFits, fitPrompt, lastSentenceEndWithin } from './shared.ts';
import { levelName } from './places.ts';
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
	 * next missing merge of each level is planned as soon as what decides it is done.
	 *
	 * Levels do not wait for the level below to finish. A merge is decided by the previous merge of
	 * its level (its context, and where its inputs start), the summaries below that it takes, and
	 * the first one it does not take (the authors' greedy packing stops there). So a merge starts as
	 * soon as those are done, with exactly the inputs, context and budget a level-by-level run gives.
	 */
	reconcile(run, ctx) {
		const update = emptyUpdate();
		const level0 = levelNodes(run, 0);
		if (level0.length === 0) {
			update.add = planLevelZero(run, ctx);
			return update;
		}
		// The level below as far as it is known, and whether all of it is.
		let below = level0;
		let complete = true;
		for (let level = 1; below.length > 0; level++) {
			const nodes = levelNodes(run, level);
			if (complete && below.length === 1) {
				// The level below is the top: nothing belongs above it but the clean step.
				const above = liveNodes(run).filter((n) => n.kind !== 'clean' && n.level >= level);
				if (above.length > 0) update.supersede.push(...above.map((n) => n.id));
				else if (isDone(below[0]!)) planClean(run, ctx, below[0]!, update);
				return update;
			}
			const position = new Map(below.map((n, i) => [n.id, i]));
			const known: Node[] = [];
			let from = 0;
			let previous: Node | null = null;
			let k = 0;
			for (; from < below.length; k++) {
				const existing = nodes[k];
				const contiguous =
					existing !== undefined &&
					existing.context === (previous?.id ?? null) &&
					existing.inputs.every((ref, j) => position.get(ref) === from + j);
				if (!existing || !contiguous || awaitsCheck(existing)) {
					const expected =
						previous === null || isDone(previous)
							? planMerge(run, ctx, level, below, complete, from, previous)
							: null;
					// Not decided yet: the level is known this far.
					if (!expected) break;
					if (!existing) return withoutClean(run, { ...update, add: [expected] });
					if (!samePlan(existing, expected)) {
						update.supersede.push(...nodes.slice(k).map((n) => n.id));
						return withoutClean(run, { ...update, add: [expected] });
					}
					const budget = sameBudget(existing.budget, expected.budget) ? null : expected.budget;
					update.confirm.push({ id: existing.id, budget });
					if (budget) return update;
				}
				known.push(existing);
				from += existing.inputs.length;
				previous = existing;
			}
			const levelComplete: boolean = complete && from === below.length;
			if (levelComplete && k < nodes.length) {
				// The level ends sooner than it did: what was planned after its end goes.
				update.supersede.push(...nodes.slice(k).map((n) => n.id));
				return update;
			}
			below = known;
			complete = levelComplete;
		}
		return update;
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
			.filter(
				(n) =>
					n.level > node.level ||
					(n.level === node.level && node.level > 0 && n.kind !== 'clean' && n.index > node.index),
			)
			.map((n) => n.id);
	},

	call(run, node, ctx, attempt) {
		if (node.kind === 'clean') return cleanCall(run, node, ctx, attempt);
		const { config, templates } = ctx;
		const words = regenerationWords(node.budget.words, attempt);
		const temperature = attempt === 0 ? config.temperature : 1;
		const texts = node.inputs.map((ref) => refText(run, ref, ctx.book));
		let spec: CallSpec;
		// A bound on the prompt without counting it: a chunk's prompt is its template plus its text,
		// and joining them costs at most a token at each of the two seams.
		let atMost = Infinity;
		if (node.kind === 'summarize') {
			spec = {
				prompt: fill(templates['hier-init'], [texts[0]!, words]),
				task: { kind: 'summarize', texts, words },
				params: { temperature, maxTokens: node.budget.summaryTokens, words, template: 'hier-init' },
			};
			atMost =
				tokensOf(ctx, fill(templates['hier-init'], ['', words])) + refTokens(run, node.inputs[0]!, ctx) + 2;
		} else {
			const context = node.context
				? contextText(refText(run, node.context, ctx.book), node.budget.promptTokens, ctx)
				: '';
			const template = node.context ? 'hier-merge-context' : 'hier-merge';
			const prompt = fitPrompt(ctx, node.budget.summaryTokens, mergeBody(texts), (body) =>
				node.context
					? fill(templates['hier-merge-context'], [context, body, words])
					: fill(templates['hier-merge'], [body, words]),
			);
			spec = {
				prompt,
				task: { kind: 'merge', texts, words, covers: node.inputs.map((ref) => chunksUnder(run, ref).size) },
				params: { temperature, maxTokens: node.budget.summaryTokens, words, template },
			};
		}
		assertFits(spec, ctx, atMost);
		return spec;
	},

	judge(_run, node, text, ctx) {
		return summaryProblem(text, tokensOf(ctx, text), node.budget.summaryTokens);
	},

	maxAttempts() {
		return 1 + MAX_REGENERATIONS;
	},

	windowProblem(run, ctx) {
		// Level 0 is where a chunk meets the window; merges are checked as they are planned.
		try {
			planLevelZero(run, ctx);
		} catch (error) {
			if (error instanceof PlanError) return error.message;
			throw error;
		}
		return mergeRoomProblem(run.chunks.length, ctx);
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
		const sizes = expectedLevelSizes(run, ctx);
		// Levels' nodes still to plan; the planned ones count as the calls they made or await.
		let planned = callsMade(run) + nodesAwaitingCalls(run);
		sizes.forEach((size, level) => (planned += Math.max(0, size - levelNodes(run, level).length)));
		if (run.config.clean && !cleanNodeOf(run)) planned += 1;
		return planned;
	},

	expectedNodes(run, ctx) {
		return expectedLevelSizes(run, ctx);
	},
};

/**
 * The nodes each level is expected to have in the end, level 0 first (the clean step aside): a
 * level's real count once it is planned to its end (its last node reads the last of the level
 * below, itself complete), else the expected packing of the level below. So the progress of a level,
 * of the run and of its ETA are one estimate, which changes only when a level's count becomes known.
 */
export function expectedLevelSizes(run: Run, ctx: PlanContext): number[] {
	// Counted only for levels not planned to the end: the guess counts the templates' tokens, and
	// a finished run (all `booook sessions` lists, mostly) needs no tokenizer to be counted.
	let guess: ReturnType<typeof expectedMerges> | null = null;
	// Levels are walked upwards with their real sizes as far as they are planned to the end, and
	// with the expected packing above that: a level planned to one merge is the top, so the
	// levels the first guess foresaw above it are not counted (a finished run expects no more).
	let below = levelNodes(run, 0);
	// Before the first plan there are no level-0 nodes yet, but one node per chunk is certain.
	let count = Math.max(run.chunks.length, below.length);
	const sizes = [count];
	let known = below.length === run.chunks.length;
	for (let level = 1; count > 1; level++) {
		const nodes = levelNodes(run, level);
		const last = nodes.at(-1);
		if (known && last !== undefined && last.inputs.at(-1) === below.at(-1)!.id) {
			below = nodes;
			count = nodes.length;
			sizes.push(count);
			continue;
		}
		const expected = (guess ??= expectedMerges(run.chunks.length, ctx));
		const fit = expected[level - 1]?.fit ?? expected.at(-1)?.fit ?? 2;
		count = Math.max(nodes.length, Math.ceil(count / fit));
		sizes.push(count);
		known = false;
	}
	return sizes;
}

/**
 * The merges each level above 0 is expected to need, before summary lengths are known: summaries
 * are assumed to come out at their limits and merges to carry the largest context, so this
 * over-estimates a little. `plan` and progress both use it.
 */
export function expectedMerges(
	chunks: number,
	ctx: PlanContext,
): { level: number; merges: number; fit: number; limit: number; below: number; inputBudget: number }[] {
	const { config } = ctx;
	const limits = limitsFor(chunks, ctx);
	const template = mergeTemplateTokens(ctx, true);
	const out = [];
	let count = chunks;
	let below = chunks === 1 ? config.maxSummary : (limits[0] ?? config.maxSummary);
	for (let level = 1; count > 1; level++) {
		const limit =
			count * below + config.maxSummary + template + PROMPT_MARGIN <= config.contextWindow
				? config.maxSummary
				: (limits[level] ?? config.maxSummary);
		const inputBudget = config.contextWindow - limit - template - PROMPT_MARGIN;
		const fit = Math.max(2, Math.floor((inputBudget * (1 - CONTEXT_SHARE)) / (below + 8)));
		const merges = Math.ceil(count / fit);
		out.push({ level, merges, fit, limit, below, inputBudget });
		count = merges;
		below = limit;
	}
	return out;
}

/**
 * The last merge of a book of several chunks takes two summaries at least, with G_n output tokens.
 * When the window leaves no room for two summaries of a token each, that merge can never be made,
 * and the run would only find out once every summary below it was paid for. Windows that merely
 * may be too small (it depends on how long the summaries come out) are found as levels are planned.
 */
function mergeRoomProblem(chunks: number, ctx: PlanContext): string | null {
	if (chunks < 2) return null;
	const { config } = ctx;
	const template = mergeTemplateTokens(ctx, false);
	const room = config.contextWindow - config.maxSummary - template - PROMPT_MARGIN;
	if (room >= 2 * (SUMMARY_HEADER + 1)) return null;
	return (
		`--max-summary ${config.maxSummary} leaves the last merge no room for the two summaries it ` +
		`takes in a ${config.contextWindow}-token context window (its prompt takes ${counted(template, 'token')} ` +
		`and ${PROMPT_MARGIN} are kept free); raise --context-window or lower --max-summary`
	);
}

/** The live nodes of `level`, in order. */
function levelNodes(run: Run, level: number): Node[] {
	return run.nodes
		.filter((n) => n.level === level && n.kind !== 'clean' && isLive(n))
		.sort((a, b) => a.index - b.index);
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
	return tokensOf(
		ctx,
		withContext ? fill(t['hier-merge-context'], ['', '', 0]) : fill(t['hier-merge'], ['', 0]),
	);
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

/** G_0: the estimated limit of level 0, or G_n when the book is a single chunk. */
function levelZeroLimit(run: Run, ctx: PlanContext): number {
	return run.chunks.length === 1
		? ctx.config.maxSummary
		: (limitsFor(run.chunks.length, ctx)[0] ?? ctx.config.maxSummary);
}

function planLevelZero(run: Run, ctx: PlanContext): Node[] {
	const limit = levelZeroLimit(run, ctx);
	const promptTokens = ctx.config.contextWindow - limit;
	const initTokens = ctx.tokens(fill(ctx.templates['hier-init'], ['', wordLimit(limit)]));
	const largest = Math.max(...run.chunks.map((c) => c.tokens));
	if (initTokens + largest + limit + PROMPT_MARGIN > ctx.config.contextWindow) {
		throw new PlanError(
			`a chunk of ${counted(largest, 'token')} and a ${limit}-token summary do not fit a ${ctx.config.contextWindow}-token ` +
				`context window; lower --chunk-size or raise --context-window`,
		);
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

/**
 * G_l for a merge of `level` (≥ 1), as the authors decide it: G_n when everything below fits one
 * merge (this is the last level), else the level's estimated limit. Null while that cannot be told
 * yet: the summaries below that are done so far fit, and more are to come.
 */
function mergeLimit(
	run: Run,
	ctx: PlanContext,
	level: number,
	below: Node[],
	complete: boolean,
): number | null {
	const { config } = ctx;
	const room = config.contextWindow - config.maxSummary - mergeTemplateTokens(ctx, true) - PROMPT_MARGIN;
	const estimated = limitsFor(run.chunks.length, ctx)[level] ?? config.maxSummary;
	// Joining texts costs at most a token or two at each seam (a full stop and the blank line after
	// it can become one token), so this bound settles a long level without tokenizing it whole.
	let atLeast = 0;
	let done = 0;
	for (; done < below.length && isDone(below[done]!); done++) {
		atLeast += nodeTokens(ctx, below[done]!) - 2;
		if (atLeast > room) return estimated;
	}
	if (!complete || done < below.length) return null;
	return ctx.tokens(below.map(textOf).join('\n\n')) <= room ? config.maxSummary : estimated;
}

/**
 * The merge `index` of `level` (`level` ≥ 1), over summaries of the level below starting at `from`:
 * as many consecutive ones as fit next to the context, at least one. Null while that is not decided:
 * the summaries it would read are not done, or all of them fit and the level below has more to come.
 */
function planMerge(
	run: Run,
	ctx: PlanContext,
	level: number,
	below: Node[],
	complete: boolean,
	from: number,
	previous: Node | null,
): Node | null {
	const limit = mergeLimit(run, ctx, level, below, complete);
	if (limit === null) return null;
	const withContext = previous !== null;
	const inputBudget =
		ctx.config.contextWindow - limit - mergeTemplateTokens(ctx, withContext) - PROMPT_MARGIN;
	const budget = { promptTokens: inputBudget, summaryTokens: limit, words: wordLimit(limit) };
	const context = previous ? contextText(activeVersion(previous)!.text, inputBudget, ctx) : '';
	const done = doneRun(below, from);
	if (done === 0) return null;
	const nodes = below.slice(from, from + done);
	const last = complete && from + done === below.length;
	// All that is done fits, by far: the next summary decides, unless there is none.
	if (!last && estimatedPrompt(ctx, context, nodes) + PACK_SLACK <= inputBudget) return null;
	const take = pack(ctx, nodes, context, inputBudget);
	if (take === done && !last) return null;
	if (previous === null && take === 1) {
		// Merging one summary at a time never ends; that is only known with the whole level below.
		if (!complete || doneRun(below, 0) < below.length) return null;
		assertShrinks(ctx, level, below, inputBudget);
	}
	return newNode(nextNodeId(run), {
		kind: 'merge',
		level,
		index: previous ? previous.index + 1 : 0,
		inputs: below.slice(from, from + take).map((n) => n.id),
		context: previous?.id ?? null,
		budget,
	});
}

/** How many summaries from `from` in a row are done. */
function doneRun(nodes: Node[], from: number): number {
	let i = from;
	while (i < nodes.length && isDone(nodes[i]!)) i++;
	return i - from;
}

function textOf(node: Node): string {
	return activeVersion(node)!.text;
}

function nodeTokens(ctx: PlanContext, node: Node): number {
	return versionTokens(ctx, activeVersion(node)!);
}

/**
 * How many of `texts` fit with `context` in `budget` tokens: the authors' greedy rule (take the next
 * summary while the prompt still fits, at least one), counted on the prompt as it would be filled.
 * The texts' own counts say about where the end is; the prompt is then counted whole only there,
 * since counting it for every candidate made planning quadratic in the level's length.
 */
function pack(ctx: PlanContext, nodes: Node[], context: string, budget: number): number {
	const texts = nodes.map(textOf);
	const fits = (take: number) =>
		ctx.tokens(context + mergeBody(texts.slice(0, take))) + PROMPT_MARGIN <= budget;
	let estimate = tokensOf(ctx, context) + PROMPT_MARGIN;
	let take = 1;
	for (; take < texts.length; take++) {
		estimate += nodeTokens(ctx, nodes[take - 1]!) + SUMMARY_HEADER;
		if (estimate + nodeTokens(ctx, nodes[take]!) + SUMMARY_HEADER > budget) break;
	}
	// The filled prompt grows with each summary it takes, so the first one that does not fit ends it.
	while (take > 1 && !fits(take)) take--;
	while (take < texts.length && fits(take + 1)) take++;
	return take;
}

/** About the tokens `Summary N:` and the blank lines around it add to each summary in a merge. */
const SUMMARY_HEADER = 6;
/** Far more than the estimate below can be off by, for the few summaries a merge takes. */
const PACK_SLACK = 64;

/** About the tokens of the merge prompt's body over `nodes` with `context`, from counts already made. */
function estimatedPrompt(ctx: PlanContext, context: string, nodes: Node[]): number {
	return nodes.reduce(
		(sum, n) => sum + nodeTokens(ctx, n) + SUMMARY_HEADER,
		tokensOf(ctx, context) + PROMPT_MARGIN,
	);
}

/**
 * Refuses a level that would not have fewer summaries than the one below (the recursion would not
 * end). Packed with the largest context a merge may carry, so the real plan can only shrink more.
 */
function assertShrinks(ctx: PlanContext, level: number, below: Node[], inputBudget: number): void {
	const reserve = ' x'.repeat(Math.floor(CONTEXT_SHARE * inputBudget));
	for (let i = 0; i < below.length;) {
		const take = pack(ctx, below.slice(i), i === 0 ? '' : reserve, inputBudget);
		if (take > 1) return;
		i += take;
	}
	throw new PlanError(
		`${levelName(level)} cannot merge the ${counted(below.length, 'summary', 'summaries')} below ` +
			`it into fewer within a ${ctx.config.contextWindow}-token context window; raise --context-window or lower --max-summary`,
	);
}
