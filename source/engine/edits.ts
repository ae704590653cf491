import type { Node, NodeRef, Run, Version } from '../domain.ts';
import type { NodePatch, RunPatch } from '../store/changes.ts';
import { PLAN_CHECK, awaitsCheck, dependents, findNode, getNode, isLive } from '../summarize/graph.ts';
import type { PlanUpdate, Planner } from '../summarize/planner.ts';
import { moved } from './node-status.ts';
import { textVersion } from '../summarize/version.ts';

/**
 * A person's control over a run, apart from the engine's events: checking a request, the version an
 * edit adds, which nodes go stale, and applying a planner's re-plan, each change made through the
 * session's operations.
 */

/** The session's operations on a run, as a change makes them; the engine keeps their writes. */
export interface RunWriter {
	updateNode(id: NodeRef, patch: NodePatch): void;
	addNodes(...nodes: Node[]): void;
	updateRun(patch: RunPatch): void;
}

export type Change = 'edit' | 'rerun' | 'setActive';

/** The node `id` if `change` may be made to it now; otherwise an Error saying why not. */
export function changeable(run: Run, id: NodeRef, change: Change, running: boolean): Node {
	const node = findNode(run, id);
	if (!node) throw new Error(`no node ${id} in this run`);
	const what = change === 'edit' ? 'edited' : change === 'rerun' ? 're-run' : 'switched to another version';
	if (running || node.status === 'running')
		throw new Error(
			`${id} is being made right now and cannot be ${what}; wait for it to finish, or cancel the run`,
		);
	if (node.status === 'superseded')
		throw new Error(`${id} was replaced by a re-plan and is kept only for the record; it cannot be ${what}`);
	// Re-running is fine: the node is checked first and either runs or is replaced. An edit or a
	// chosen version would be lost if the node were replaced, so they wait for the check.
	if (change !== 'rerun' && awaitsCheck(node)) {
		throw new Error(
			`${id} may be re-planned after an earlier change; run the plan (it is checked before it runs) ` +
				`and then ${change === 'edit' ? 'edit it' : 'choose its version'}`,
		);
	}
	return node;
}

/** The version an edit adds: the person's text, made by no model and no call. */
export function editVersion(text: string, now: Date): Version {
	return textVersion(text, 'edit', now);
}

/**
 * The text of `id` changed (or, with `self`, will change: a re-run): every live node that reads it
 * goes stale, and (with `replan`) the nodes whose plan may depend on it wait for a plan check.
 * Nodes that never ran stay pending. Returns the nodes that are stale now (`id` first, with `self`).
 */
export function invalidate(
	run: Run,
	planner: Planner,
	store: RunWriter,
	id: NodeRef,
	self: boolean,
	replan = true,
): Node[] {
	const node = getNode(run, id);
	const affected = [...(self ? [node] : []), ...dependents(run, id)];
	const stale = affected.filter((n) => n.status !== 'pending' && n.status !== 'superseded');
	for (const n of stale) store.updateNode(n.id, moved(n, 'stale'));
	const checked = (replan ? planner.replans(run, id) : []).filter((ref) => isLive(getNode(run, ref)));
	for (const ref of checked) {
		const n = getNode(run, ref);
		store.updateNode(n.id, { meta: { ...n.meta, [PLAN_CHECK]: true } });
	}
	// The final summary stays final unless it is itself to be made again or re-planned: an edit of
	// the root gives it a new version, which is the new final summary (nothing reads it).
	const root = run.root;
	if (root !== null && (stale.some((n) => n.id === root) || checked.includes(root)))
		store.updateRun({ root: null });
	return stale;
}

export interface Applied {
	added: Node[];
	superseded: NodeRef[];
	stale: NodeRef[];
}

/**
 * Applies what `reconcile` found: confirmed nodes lose their check mark (a changed budget makes the
 * node stale, since its text was made for another one), superseded nodes and everything that reads
 * them leave the plan (kept, with their versions), and new nodes join it.
 */
export function applyPlan(run: Run, planner: Planner, store: RunWriter, update: PlanUpdate): Applied {
	const stale: NodeRef[] = [];
	for (const { id, budget } of update.confirm) {
		const node = getNode(run, id);
		if (!budget) {
			if (PLAN_CHECK in node.meta) store.updateNode(id, { meta: unchecked(node) });
			continue;
		}
		// Attempts of a call in progress were made for the old budget.
		store.updateNode(id, { meta: unchecked(node), budget, pending: [] });
		for (const n of invalidate(run, planner, store, id, true)) stale.push(n.id);
	}
	const superseded: NodeRef[] = [];
	for (const id of update.supersede) {
		const node = getNode(run, id);
		if (!isLive(node)) continue;
		for (const n of [node, ...dependents(run, id)]) {
			store.updateNode(n.id, { ...moved(n, 'superseded'), meta: unchecked(n) });
			superseded.push(n.id);
		}
	}
	if (update.add.length > 0) store.addNodes(...update.add);
	if ((superseded.length > 0 || update.add.length > 0) && run.root !== null) store.updateRun({ root: null });
	return { added: update.add, superseded, stale: stale.filter((id) => !superseded.includes(id)) };
}

/** A node's facts without the mark that it waits for a plan check. */
function unchecked(node: Node): Node['meta'] {
	const { [PLAN_CHECK]: _checked, ...meta } = node.meta;
	return meta;
}
