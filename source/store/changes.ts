import type { z } from 'zod';
import {
	annotationSchema,
	faithfulnessVerdictSchema,
	judgmentSchema,
	nodeSchema,
	scoredSummarySchema,
	type Node,
} from '../domain.ts';
import { firstIssue, sessionSchema, type SessionData } from './schema.ts';

/**
 * What changed in a session's state since the last save, found without serializing what did not:
 * a run of War and Peace saves after each of its hundreds of calls, and writing (or even
 * stringifying) the whole state each time made saving quadratic in the session's size.
 *
 * The state is plain data that the engine, annotator and validation walk mutate in place, under
 * two rules the domain keeps (DESIGN.md, "nothing is overwritten"): lists only grow (versions,
 * attempts, nodes, annotations), and an object in a list is not changed once it is there, except a
 * node, whose own fields (status, active version, budget, plan flags) do change. So a node is
 * compared by those fields and by the identity and length of its lists, and every other list by the
 * identity of its items. Anything else (an item removed, as an undone judgment is) asks for a
 * whole snapshot instead.
 */

/** The lists a change record can append to. */
const LISTS = ['summaries', 'annotations', 'judgments', 'faithfulness'] as const;
type ListName = (typeof LISTS)[number];

/** A list as it stands; `faithfulness` is absent from sessions made before it. */
const listOf = (data: SessionData, name: ListName): readonly unknown[] => data[name] ?? [];

/** One save's worth of change: the small fields (when they changed), changed nodes, appended items. */
export interface Change {
	/** The state without its lists, nodes and chunks (see `headOf`), when it changed. */
	head?: Record<string, unknown>;
	/** Nodes added or changed, whole. */
	nodes?: Node[];
	summaries?: SessionData['summaries'];
	annotations?: SessionData['annotations'];
	judgments?: SessionData['judgments'];
	faithfulness?: NonNullable<SessionData['faithfulness']>;
}

export class ChangeTracker {
	#head = '';
	#nodes = new Map<string, unknown[]>();
	#nodeList: readonly Node[] = [];
	#lists = new Map<ListName, readonly unknown[]>();
	/** Lists that only a snapshot writes (the chunks of a run, the imported runs of a collection). */
	#fixed: readonly unknown[] = [];
	#stale = true;

	/** Takes `data` as saved whole: later changes are measured from it. */
	baseline(data: SessionData): void {
		this.#head = JSON.stringify(headOf(data));
		this.#nodeList = data.kind === 'book' ? [...data.run.nodes] : [];
		this.#nodes = new Map(this.#nodeList.map((n) => [n.id, printOf(n)]));
		for (const name of LISTS) this.#lists.set(name, [...listOf(data, name)]);
		this.#fixed = fixedOf(data);
		this.#stale = false;
	}

	/** The next save must be a snapshot (a write failed, so the changes it held never reached the disk). */
	invalidate(): void {
		this.#stale = true;
	}

	/**
	 * What changed since the last call (or baseline), taken as the new baseline; null when nothing
	 * did, 'snapshot' when the change is not a growth the journal can record.
	 */
	take(data: SessionData): Change | 'snapshot' | null {
		if (this.#stale) return 'snapshot';
		const fixed = fixedOf(data);
		if (fixed.length !== this.#fixed.length || fixed.some((list, i) => list !== this.#fixed[i]))
			return 'snapshot';
		const change: Change = {};
		const lists: [ListName, unknown[]][] = [];
		for (const name of LISTS) {
			const added = appended(this.#lists.get(name)!, listOf(data, name));
			if (added === null) return 'snapshot';
			if (added.length > 0) lists.push([name, added]);
		}
		const nodes = data.kind === 'book' ? data.run.nodes : [];
		if (appended(this.#nodeList, nodes) === null) return 'snapshot';
		const changed: Node[] = [];
		const prints = new Map<string, unknown[]>();
		for (const node of nodes) {
			const print = printOf(node);
			const before = this.#nodes.get(node.id);
			if (!before || print.some((value, i) => value !== before[i])) {
				changed.push(node);
				prints.set(node.id, print);
			}
		}
		const head = JSON.stringify(headOf(data));
		if (head !== this.#head) change.head = JSON.parse(head) as Record<string, unknown>;
		if (changed.length > 0) change.nodes = changed;
		for (const [name, added] of lists) (change as Record<ListName, unknown[]>)[name] = added;
		if (Object.keys(change).length === 0) return null;
		// Taken: the baseline moves now, so the next save records only what comes after.
		this.#head = head;
		for (const [id, print] of prints) this.#nodes.set(id, print);
		if (nodes.length !== this.#nodeList.length) this.#nodeList = [...nodes];
		for (const [name] of lists) this.#lists.set(name, [...listOf(data, name)]);
		return change;
	}
}

/**
 * Applies journal records to a state read from session.json (not yet checked: the caller checks
 * the result against the schema). Nodes are replaced by id or appended; list items appended.
 */
export function replay(
	raw: Record<string, unknown>,
	changes: readonly (Change & { at?: string })[],
): Record<string, unknown> {
	if (changes.length === 0) return raw;
	let state = raw;
	const run = state.run as { nodes?: Node[]; chunks?: unknown } | undefined;
	const nodes = Array.isArray(run?.nodes) ? run.nodes : [];
	const index = new Map(nodes.map((n, i) => [n.id, i]));
	// A list the state lacks (faithfulness, in an older session) is added only when a record appends to it.
	const present = LISTS.filter(
		(name) => Array.isArray(state[name]) || changes.some((c) => c[name] !== undefined),
	);
	const lists = Object.fromEntries(
		present.map((name) => [name, Array.isArray(state[name]) ? (state[name] as unknown[]) : []]),
	);
	for (const change of changes) {
		if (change.at !== undefined) state = { ...state, updatedAt: change.at };
		if (change.head) {
			state = { ...state, ...change.head };
			if (change.head.run !== undefined)
				state.run = { ...(change.head.run as object), nodes, chunks: run?.chunks };
		}
		for (const node of change.nodes ?? []) {
			const at = index.get(node.id);
			if (at === undefined) {
				index.set(node.id, nodes.length);
				nodes.push(node);
			} else nodes[at] = node;
		}
		for (const name of present) lists[name]!.push(...(change[name] ?? []));
	}
	return { ...state, ...lists };
}

/** The state without what grows with the session: small, so it is compared as text. */
function headOf(data: SessionData): Record<string, unknown> {
	const { summaries: _s, annotations: _a, judgments: _j, faithfulness: _f, updatedAt: _u, ...rest } = data;
	if (rest.kind === 'book') {
		const { nodes: _n, chunks: _c, ...run } = rest.run;
		return { ...rest, run };
	}
	const { runs: _r, ...collection } = rest;
	return collection;
}

function fixedOf(data: SessionData): readonly unknown[] {
	return data.kind === 'book' ? [data.run.chunks, data.run.chunks.length] : [data.runs, data.runs.length];
}

/** The items of `now` after `before`, or null when `now` does not start with `before`'s items. */
function appended<T>(before: readonly T[], now: readonly T[]): T[] | null {
	if (now.length < before.length) return null;
	for (let i = 0; i < before.length; i++) if (now[i] !== before[i]) return null;
	return now.slice(before.length);
}

/** A node's own fields, and the identity and length of its lists (whose items do not change). */
function printOf(n: Node): unknown[] {
	let meta = '';
	for (const key in n.meta) meta += `${key}=${String(n.meta[key])};`;
	return [
		n.status,
		n.active,
		n.error,
		n.kind,
		n.level,
		n.index,
		n.context,
		n.budget,
		n.budget.promptTokens,
		n.budget.summaryTokens,
		n.budget.words,
		meta,
		n.inputs,
		n.inputs.length,
		n.versions,
		n.versions.length,
		n.pending,
		n.pending.length,
		n.failed,
		n.failed?.length,
	];
}

/**
 * Why a journal record must not be written, or null: the same checks a whole save makes, on what
 * the record holds (the small fields, the changed nodes, the appended items and what they refer to).
 */
export function changeProblem(data: SessionData, change: Change): string | null {
	if (change.head) {
		const light = {
			...data,
			summaries: [],
			annotations: [],
			judgments: [],
			faithfulness: [],
			...(data.kind === 'book' ? { run: { ...data.run, nodes: [], chunks: [] } } : { runs: [] }),
		};
		const checked = sessionSchema.safeParse(light);
		if (!checked.success) return firstIssue(checked.error);
	}
	const each = (name: string, schema: z.ZodType, items: readonly object[] | undefined): string | null => {
		for (const [i, item] of (items ?? []).entries()) {
			const checked = schema.safeParse(item);
			if (!checked.success)
				return `${name}.${(item as { id?: string }).id ?? i}: ${firstIssue(checked.error)}`;
		}
		return null;
	};
	const problem =
		each('run.nodes', nodeSchema, change.nodes) ??
		each('summaries', scoredSummarySchema, change.summaries) ??
		each('annotations', annotationSchema, change.annotations) ??
		each('judgments', judgmentSchema, change.judgments) ??
		each('faithfulness', faithfulnessVerdictSchema, change.faithfulness);
	if (problem) return problem;
	if (change.annotations) {
		const summaries = new Set(data.summaries.map((s) => s.id));
		const orphan = change.annotations.find((a) => !summaries.has(a.summary));
		if (orphan) return `annotations.${orphan.id}.summary: no summary ${orphan.summary}`;
	}
	if (change.judgments) {
		const annotations = new Set(data.annotations.map((a) => a.id));
		const orphan = change.judgments.find((j) => !annotations.has(j.annotation));
		if (orphan) return `judgments: no annotation ${orphan.annotation}`;
	}
	if (change.faithfulness) {
		const summaries = new Set(data.summaries.map((s) => s.id));
		const orphan = change.faithfulness.find((f) => !summaries.has(f.summary));
		if (orphan) return `faithfulness: no summary ${orphan.summary}`;
	}
	return null;
}
