import type { Budget, CallParams, Node, NodeKind, NodeRef, Run, RunConfig } from '../domain.ts';
import { callsMade } from './graph.ts';
import type { Templates } from './templates.ts';

/** What a planner reads besides the run: everything fixed for the run's lifetime. */
export interface PlanContext {
	config: RunConfig;
	templates: Templates;
	book: string;
	tokens: (text: string) => number;
}

/**
 * What a call asks, as data: the form the extractive baseline reads, since it cannot read a prompt.
 * (Providers take it as `CallRequest.task`.)
 */
export interface Task {
	kind: NodeKind;
	/** The texts the operation reads, in narrative order (chunk, running summary, summaries...). */
	texts: string[];
	/** The word budget of the output. */
	words: number;
	/** How many chunks of the book each text stands for, where they differ (merges, updates). */
	covers?: number[];
}

/** One model call of a node: the prompt, the same operation as data, and its parameters. */
export interface CallSpec {
	prompt: string;
	task: Task;
	params: CallParams;
}

/**
 * What `reconcile` found: the plan's next nodes, and its verdict on nodes that wait for a plan check
 * (`PLAN_CHECK` in graph.ts). The engine applies it (see engine/edits.ts) and asks again until
 * nothing changes.
 */
export interface PlanUpdate {
	/** New nodes; ids continue from the run's (superseded nodes included, so ids are never reused). */
	add: Node[];
	/** Nodes whose planned inputs changed: they, and every node reading them, become `superseded`. */
	supersede: NodeRef[];
	/**
	 * Nodes whose planned inputs still hold. `budget` is set when only the budget changed (the node
	 * keeps its place but must be made again).
	 */
	confirm: { id: NodeRef; budget: Budget | null }[];
}

export function emptyUpdate(): PlanUpdate {
	return { add: [], supersede: [], confirm: [] };
}

export function isEmptyUpdate(update: PlanUpdate): boolean {
	return update.add.length === 0 && update.supersede.length === 0 && update.confirm.length === 0;
}

/**
 * A summarization method as a plan: pure functions of the run's state. The engine asks for new
 * nodes whenever something finishes, builds each call through `call`, and keeps an attempt only
 * when `judge` finds nothing wrong with it.
 *
 * After a node's text changes (edit, re-run, another active version), the nodes that read it go
 * stale, and the nodes `replans` names wait for `reconcile` to check them against a fresh plan: the
 * plan of what comes after depends on the lengths and outcomes of what came before.
 */
export interface Planner {
	/**
	 * New nodes that can be planned now, given what is done, and the verdict on nodes waiting for a
	 * plan check whose inputs are now known. Superseded nodes count as absent.
	 */
	reconcile(run: Run, ctx: PlanContext): PlanUpdate;
	/** The new nodes of `reconcile` alone: what a run without edits plans next (used by `plan`). */
	expand(run: Run, ctx: PlanContext): Node[];
	/** Live nodes whose plan may depend on the text of `id` (not `id` itself). */
	replans(run: Run, id: NodeRef): NodeRef[];
	/** The call for `attempt` (0 = first) of `node`. */
	call(run: Run, node: Node, ctx: PlanContext, attempt: number): CallSpec;
	/** Why `text` is not acceptable for `node`, or null. */
	judge(run: Run, node: Node, text: string, ctx: PlanContext): string | null;
	/** Most calls one node may make (first call plus regenerations). */
	maxAttempts(node: Node): number;
	/** Whether an output rejected for `problem` is answered by calling again (else the best attempt is kept). */
	regenerates(node: Node, problem: string): boolean;
	/** The node holding the final summary, once the run is complete. */
	root(run: Run, ctx: PlanContext): NodeRef | null;
	/** Calls the whole run is expected to make (planned ones plus an estimate of the rest). */
	estimateCalls(run: Run, ctx: PlanContext): number;
	/**
	 * The nodes each level is expected to have in the end, level 0 first, by the estimate behind
	 * `estimateCalls` (a hierarchical run's levels; an incremental run's steps are counted as its calls).
	 */
	expectedNodes(run: Run, ctx: PlanContext): number[];
	/**
	 * Why the run's calls cannot fit its context window, or null: checked on the real worst case
	 * (the largest chunk, the prompt as filled, what it reads and the output limit) before a run starts.
	 */
	windowProblem(run: Run, ctx: PlanContext): string | null;
}

export function sameBudget(a: Budget, b: Budget): boolean {
	return a.promptTokens === b.promptTokens && a.summaryTokens === b.summaryTokens && a.words === b.words;
}

/** Whether `node` is what the planner would plan in its place now (ids and budgets aside). */
export function samePlan(node: Node, expected: Node): boolean {
	return (
		node.kind === expected.kind &&
		node.context === expected.context &&
		node.inputs.length === expected.inputs.length &&
		node.inputs.every((ref, i) => ref === expected.inputs[i]) &&
		Object.keys(expected.meta).every((key) => node.meta[key] === expected.meta[key])
	);
}

/**
 * Calls a run is expected to make in all, for progress and ETA wherever they are shown (the engine's
 * events, `booook sessions`, the home screen): the planner's estimate for the live plan plus the
 * calls already spent outside it (superseded nodes, dropped attempts), never fewer than `calls`, the
 * calls made so far.
 */
export function expectedCalls(planner: Planner, run: Run, ctx: PlanContext, calls: number): number {
	const outside = Math.max(0, calls - callsMade(run));
	return Math.max(planner.estimateCalls(run, ctx) + outside, calls);
}
