import type { Method, NodeKind, NodeRef, Run } from '../domain.ts';
import { findNode, isChunkRef } from './graph.ts';
import { chunkPlace } from '../format/places.ts';

/**
 * Where a chunk or a node is, as a person reads it. Every position a person reads counts from 1:
 * chunk 1 of 77, level 1 (the chunk summaries), #1 (a level's first node), step 1, as `--sentence 1`
 * does. Ids stored on disk (n0, c0) are names, not positions: a node is shown as "node n0", a chunk by
 * its number only, so an id never stands beside a number counted another way. JSON keeps the stored
 * values (0-based indices and levels), for programs.
 */

const KIND_NAMES: Record<string, string> = {
	summarize: 'summary',
	merge: 'merge',
	update: 'update',
	compress: 'compression',
	clean: 'clean-up',
	annotate: 'annotation',
};

export function kindName(kind: string): string {
	return KIND_NAMES[kind] ?? kind;
}

/** "level 1" for the chunk summaries (stored as level 0). */
export function levelName(level: number): string {
	return `level ${level + 1}`;
}

/** The tree's short row label: "L1" for the chunk summaries. */
export function levelLabel(level: number): string {
	return `L${level + 1}`;
}

export interface Placed {
	id: NodeRef;
	kind: NodeKind;
	level: number;
	index: number;
	inputs: readonly NodeRef[];
}

/** Where a node sits in its run: "level 2 #3", "step 12 of 40", "final clean-up". */
export function nodePlace(
	node: Pick<Placed, 'kind' | 'level' | 'index'>,
	method: Method,
	chunks: number,
): string {
	if (node.kind === 'clean') return 'final clean-up';
	return method === 'hier'
		? `${levelName(node.level)} #${node.index + 1}`
		: `step ${node.index + 1} of ${chunks}`;
}

/** The chunk a node reads, named as everywhere else ("chunk 3 of 77"); null for a node that reads summaries only. */
export function chunkRead(node: Pick<Placed, 'inputs'>, chunks: number): string | null {
	const ref = node.inputs.find(isChunkRef);
	return ref ? chunkPlace(Number(ref.slice(1)), chunks) : null;
}

/** A node named whole, for failure and retry lines: "node n1 (summary, level 1 #2, chunk 2 of 77)". */
export function nodeName(node: Placed, method: Method, chunks: number): string {
	const chunk = chunkRead(node, chunks);
	return `node ${node.id} (${kindName(node.kind)}, ${nodePlace(node, method, chunks)}${chunk ? `, ${chunk}` : ''})`;
}

/** `nodeName` of node `id` of the run, or "node ID" when the run has no such node. */
export function nodeNameIn(run: Run, id: NodeRef): string {
	const node = findNode(run, id);
	return node ? nodeName(node, run.config.method, run.chunks.length) : `node ${id}`;
}
