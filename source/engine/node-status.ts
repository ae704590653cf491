import type { Node, NodeStatus } from '../domain.ts';

/**
 * Every change of a node's status is asked of `moved`, and the moves a run may make are all in
 * this table: a move not in it is a bug in the engine, thrown rather than saved. New nodes start
 * `pending` (`newNode`); `superseded` is for the record only and never left.
 */
const MOVES: Readonly<Record<NodeStatus, readonly NodeStatus[]>> = {
	// Started; given a person's text or chosen version; replaced by a re-plan. (A node that never
	// ran has no text made from old inputs, so it does not go stale.)
	pending: ['running', 'done', 'superseded'],
	// Made; failed; cancelled (run again later); an input changed or the plan replaced it mid-call.
	running: ['done', 'failed', 'pending', 'stale', 'superseded'],
	// Edited again or another version chosen; an input changed; replaced by a re-plan.
	done: ['done', 'stale', 'superseded'],
	// Run again on the next start; edited or a version chosen; an input changed; replaced.
	failed: ['pending', 'done', 'stale', 'superseded'],
	// Made again; edited or a version chosen; another input changed; replaced.
	stale: ['running', 'done', 'stale', 'superseded'],
	superseded: [],
};

/** Whether a node may go from `from` to `to`. */
export function canMove(from: NodeStatus, to: NodeStatus): boolean {
	return MOVES[from].includes(to);
}

/** The change that moves `node` to `to`, for `updateNode`; throws if the table has no such move. */
export function moved(node: Node, to: NodeStatus): { status: NodeStatus } {
	if (!canMove(node.status, to))
		throw new Error(`internal: node ${node.id} cannot go from ${node.status} to ${to}`);
	return { status: to };
}
