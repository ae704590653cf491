import type { Node, NodeKind, NodeRef, Run, Version } from '../domain.ts';

/** Read-only questions about a run's node graph. */

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

/** Every node reference a node reads: its inputs and its context. */
export function dependencies(node: Node): NodeRef[] {
	const deps = node.inputs.filter((r) => !isChunkRef(r));
	if (node.context) deps.push(node.context);
	return deps;
}

/** A node can start when everything it reads is done. */
export function isReady(run: Run, node: Node): boolean {
	return node.status === 'pending' && dependencies(node).every((ref) => isDone(getNode(run, ref)));
}

/** Nodes that read `id`, directly or through other nodes, in graph order. */
export function dependents(run: Run, id: NodeRef): Node[] {
	const hit = new Set<NodeRef>([id]);
	const out: Node[] = [];
	for (const node of run.nodes) {
		if (dependencies(node).some((d) => hit.has(d))) {
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

export function newNode(id: NodeRef, fields: { kind: NodeKind; level: number; index: number; inputs: NodeRef[]; context?: NodeRef | null; budget: Node['budget']; meta?: Node['meta'] }): Node {
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

/** Calls made so far (every attempt of every version, and attempts of calls in progress). */
export function callsMade(run: Run): number {
	let n = 0;
	for (const node of run.nodes) {
		n += node.pending.length;
		for (const v of node.versions) n += v.attempts.length;
	}
	return n;
}
