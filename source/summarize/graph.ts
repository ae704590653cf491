import type { Node, NodeKind, NodeRef, Run, Version } from '../domain.ts';
import { countWords } from '../text/tokens.ts';

/**
 * Read-only questions about a run's node graph.
 *
 * A `superseded` node (replaced by a re-plan after an edit) is kept with its versions for the
 * record but is no longer part of the run: nothing here counts it, waits for it or runs it.
 */

/**
 * `meta` key set on a node whose plan may have changed with an earlier node's text (after an edit,
 * a re-run or a switch of versions). It runs only after the planner has checked its inputs against
 * a fresh plan (`Planner.reconcile` confirms or supersedes it), since it may be replaced.
 */
export const PLAN_CHECK = 'replan';

export function isLive(node: Node): boolean {
	return node.status !== 'superseded';
}

export function liveNodes(run: Run): Node[] {
	return run.nodes.filter(isLive);
}

export function awaitsCheck(node: Node): boolean {
	return node.meta[PLAN_CHECK] === true;
}

/** Every live node is done and none waits for a plan check: the plan, as it stands, is complete. */
export function settled(run: Run): boolean {
	return run.nodes.every((n) => !isLive(n) || (isDone(n) && !awaitsCheck(n)));
}

export function findNode(run: Run, id: NodeRef): Node | undefined {
	return run.nodes.find((n) => n.id === id);
}

export function getNode(run: Run, id: NodeRef): Node {
	const node = findNode(run, id);
	if (!node) throw new Error(`no node ${id} in this run`);
	return node;
}

export function activeVersion(node: Node): Version | null {
	return node.active === null ? null : (node.versions[node.active] ?? null);
}

/** The final summary's text, or null before the run has one. */
export function finalSummary(run: Run): string | null {
	const root = run.root ? findNode(run, run.root) : undefined;
	return root ? (activeVersion(root)?.text ?? null) : null;
}

/** Words of the final summary; null before there is one. */
export function finalWords(run: Run): number | null {
	const text = finalSummary(run);
	return text === null ? null : countWords(text);
}

/** A run finished with a final summary (a run 'done' but left with stale nodes by an edit has none). */
export function runFinished(run: Run): boolean {
	return run.status === 'done' && run.root !== null;
}

export function isDone(node: Node): boolean {
	return node.status === 'done' && activeVersion(node) !== null;
}

export function isChunkRef(ref: NodeRef): ref is `c${number}` {
	return ref.startsWith('c');
}

/** The text an input reference stands for: a chunk of the book or a node's active version. */
export function refText(run: Run, ref: NodeRef, book: string): string {
	if (isChunkRef(ref)) {
		const chunk = run.chunks[Number(ref.slice(1))];
		if (!chunk) throw new Error(`no chunk ${ref}`);
		return book.slice(chunk.start, chunk.end);
	}
	const version = activeVersion(getNode(run, ref));
	if (!version) throw new Error(`node ${ref} has no text yet`);
	return version.text;
}

/**
 * The chunks a reference stands for: itself for a chunk, else every chunk under the node's inputs,
 * at any depth. `memo` keeps each node's set across calls (a tracer walking a whole tree passes
 * one); the sets are shared, read and never changed.
 */
export function chunksUnder(
	run: Run,
	ref: NodeRef,
	memo: Map<NodeRef, ReadonlySet<number>> = new Map(),
): ReadonlySet<number> {
	if (isChunkRef(ref)) return new Set([Number(ref.slice(1))]);
	let under = memo.get(ref);
	if (!under) {
		const set = new Set<number>();
		// Marked first: a malformed run that loops back ends here instead of recursing forever.
		memo.set(ref, set);
		for (const input of findNode(run, ref)?.inputs ?? [])
			for (const c of chunksUnder(run, input, memo)) set.add(c);
		under = set;
	}
	return under;
}

/** Every node reference a node reads: its inputs and its context. */
export function dependencies(node: Node): NodeRef[] {
	const deps = node.inputs.filter((r) => !isChunkRef(r));
	if (node.context) deps.push(node.context);
	return deps;
}

/**
 * A node can start when it waits to be made (pending, or stale: a new version from the same
 * inputs), its plan needs no check, and everything it reads is done.
 */
export function isReady(run: Run, node: Node): boolean {
	return (
		(node.status === 'pending' || node.status === 'stale') &&
		!awaitsCheck(node) &&
		dependencies(node).every((ref) => isDone(getNode(run, ref)))
	);
}

/** Live nodes that read `id`, directly or through other nodes, in graph order. */
export function dependents(run: Run, id: NodeRef): Node[] {
	const hit = new Set<NodeRef>([id]);
	const out: Node[] = [];
	for (const node of run.nodes) {
		if (isLive(node) && dependencies(node).some((d) => hit.has(d))) {
			hit.add(node.id);
			out.push(node);
		}
	}
	return out;
}

export function nextNodeId(run: Run, offset = 0): NodeRef {
	let max = -1;
	for (const n of run.nodes) max = Math.max(max, Number(n.id.slice(1)));
	return `n${max + 1 + offset}`;
}

export function newNode(
	id: NodeRef,
	fields: {
		kind: NodeKind;
		level: number;
		index: number;
		inputs: NodeRef[];
		context?: NodeRef | null;
		budget: Node['budget'];
		meta?: Node['meta'];
	},
): Node {
	return {
		id,
		kind: fields.kind,
		level: fields.level,
		index: fields.index,
		inputs: fields.inputs,
		context: fields.context ?? null,
		budget: fields.budget,
		status: 'pending',
		versions: [],
		active: null,
		pending: [],
		meta: fields.meta ?? {},
	};
}

/**
 * Calls made so far for the live plan (every attempt of every version, and attempts of calls in
 * progress); calls of superseded nodes are history and not counted.
 */
export function callsMade(run: Run): number {
	let n = 0;
	for (const node of run.nodes) {
		if (!isLive(node)) continue;
		n += node.pending.length;
		for (const v of node.versions) n += v.attempts.length;
	}
	return n;
}

/**
 * Live nodes that still need a call of their own: not done, and without an answer already kept
 * for them (a resumed run takes back answers a cancel or a kill left pending, and makes their
 * versions without calling again).
 */
export function nodesAwaitingCalls(run: Run): number {
	return run.nodes.filter((n) => isLive(n) && !isDone(n) && !n.pending.some((a) => !a.rejected)).length;
}
