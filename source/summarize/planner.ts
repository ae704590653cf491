import type { CallParams, Node, NodeRef, Run, RunConfig } from '../domain.ts';
import type { Task } from '../llm/provider.ts';
import type { Templates } from './templates.ts';

/** What a planner reads besides the run: everything fixed for the run's lifetime. */
export interface PlanContext {
	config: RunConfig;
	templates: Templates;
	book: string;
	tokens: (text: string) => number;
}

/** One model call of a node: the prompt, the same operation as data, and its parameters. */
export interface CallSpec {
	prompt: string;
	task: Task;
	params: CallParams;
}

/**
 * A summarization method as a plan: pure functions of the run's state. The engine asks for new
 * nodes whenever something finishes, builds each call through `call`, and keeps an attempt only
 * when `judge` finds nothing wrong with it.
 */
export interface Planner {
	/** Nodes that can be planned now, given what is done (ids continue from the run's). */
	expand(run: Run, ctx: PlanContext): Node[];
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
}
