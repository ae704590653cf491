import type { z } from 'zod';
import {
	annotationSchema,
	faithfulnessRatingSchema,
	faithfulnessVerdictSchema,
	memoryAnswerSchema,
	memoryQuestionSchema,
	memorySceneSchema,
	judgmentSchema,
	nodeSchema,
	scoredSummarySchema,
	type Node,
	type Run,
} from '../domain.ts';
import { firstIssue, sessionSchema, type SessionData } from './schema.ts';

/**
 * The records of the change journal: each operation on a session (session.ts: `updateNode`,
 * `addNodes`, `updateRun`, `append`) writes one, holding what it changed, so a save costs the
 * change and not the session (a run of War and Peace changes its state after each of hundreds of
 * calls). A changed node is written whole, so every field of it reaches the journal, whatever
 * fields the node schema comes to have.
 */

/** The fields of a node an operation may set; `undefined` removes an optional one. */
export type NodePatch = { [K in Exclude<keyof Node, 'id'>]?: Node[K] | undefined };

/** The fields of a run an operation may set (its chunks are fixed; its nodes have their own operations). */
export type RunPatch = Partial<Pick<Run, 'config' | 'status' | 'root' | 'error'>>;

/** `node` with `patch` set, as a new object (`node` is left as it is). */
export function patchedNode(node: Node, patch: NodePatch): Node {
	const next: Record<string, unknown> = { ...node, ...patch };
	for (const [key, value] of Object.entries(patch)) if (value === undefined) delete next[key];
	return next as Node;
}

/** Makes `node` hold what `next` holds, in place, so whoever holds the node sees the change. */
export function assignNode(node: Node, next: Node): void {
	for (const key of Object.keys(node)) if (!(key in next)) delete (node as Record<string, unknown>)[key];
	Object.assign(node, next);
}

/** The lists a change record can append to. */
const LISTS = [
	'summaries',
	'annotations',
	'judgments',
	'faithfulness',
	'faithfulnessRatings',
	'memoryScenes',
	'memoryQuestions',
	'memoryAnswers',
] as const;
export type ListName = (typeof LISTS)[number];

/** One operation's change: the small fields (when they changed), changed nodes, appended items. */
export interface Change {
	/** The state without its lists, nodes and chunks (see `headOf`), when it changed. */
	head?: Record<string, unknown>;
	/** Nodes added or changed, whole. */
	nodes?: Node[];
	summaries?: SessionData['summaries'];
	annotations?: SessionData['annotations'];
	judgments?: SessionData['judgments'];
	faithfulness?: NonNullable<SessionData['faithfulness']>;
	faithfulnessRatings?: NonNullable<SessionData['faithfulnessRatings']>;
	memoryScenes?: NonNullable<SessionData['memoryScenes']>;
	memoryQuestions?: NonNullable<SessionData['memoryQuestions']>;
	memoryAnswers?: NonNullable<SessionData['memoryAnswers']>;
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

/**
 * Applies journal records as `replay` does, each checked first against the state it changes
 * (`changeProblem`): a record that cannot be applied (one naming a summary no record before it
 * added) is left out, with why, by its index among `changes`, so one bad record never hides the
 * session. The state it starts from is session.json, checked whole when it was written.
 */
export function replayChecked(
	raw: Record<string, unknown>,
	changes: readonly (Change & { at?: string })[],
): { state: Record<string, unknown>; skipped: { index: number; problem: string }[] } {
	let state = raw;
	const skipped: { index: number; problem: string }[] = [];
	changes.forEach((change, index) => {
		let problem: string | null;
		try {
			problem = changeProblem(state as unknown as SessionData, change);
		} catch (error) {
			// A record of the wrong shape (a list that is not one): it cannot be applied either.
			problem = (error as Error).message;
		}
		if (problem === null) state = replay(state, [change]);
		else skipped.push({ index, problem });
	});
	return { state, skipped };
}

/** The state without what grows with the session: small, so a change of it is recorded whole. */
export function headOf(data: SessionData): Record<string, unknown> {
	const {
		summaries: _s,
		annotations: _a,
		judgments: _j,
		faithfulness: _f,
		faithfulnessRatings: _fr,
		memoryScenes: _ms,
		memoryQuestions: _mq,
		memoryAnswers: _ma,
		updatedAt: _u,
		...rest
	} = data;
	if (rest.kind === 'book') {
		const { nodes: _n, chunks: _c, ...run } = rest.run;
		return { ...rest, run };
	}
	const { runs: _r, ...collection } = rest;
	return collection;
}

/**
 * Why a journal record must not be written, or null: the same checks a whole save makes, on what
 * the record holds (the small fields, the changed nodes, the appended items and what they refer to),
 * made before the change is: `data` is the state it changes.
 */
export function changeProblem(data: SessionData, change: Change): string | null {
	if (change.head) {
		// The new small fields, with the lists left empty: checking them costs nothing as the session grows.
		const head = change.head as { kind?: unknown; run?: object };
		const light = {
			...head,
			updatedAt: data.updatedAt,
			summaries: [],
			annotations: [],
			judgments: [],
			faithfulness: [],
			...(head.kind === 'book' ? { run: { ...head.run, nodes: [], chunks: [] } } : { runs: [] }),
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
		each('faithfulness', faithfulnessVerdictSchema, change.faithfulness) ??
		each('faithfulnessRatings', faithfulnessRatingSchema, change.faithfulnessRatings) ??
		each('memoryScenes', memorySceneSchema, change.memoryScenes) ??
		each('memoryQuestions', memoryQuestionSchema, change.memoryQuestions) ??
		each('memoryAnswers', memoryAnswerSchema, change.memoryAnswers);
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
	if (change.faithfulnessRatings) {
		const summaries = new Set(data.summaries.map((s) => s.id));
		const orphan = change.faithfulnessRatings.find((r) => !summaries.has(r.summary));
		if (orphan) return `faithfulnessRatings: no summary ${orphan.summary}`;
	}
	if (change.memoryAnswers) {
		const questions = new Set((data.memoryQuestions ?? []).map((q) => q.id));
		const orphan = change.memoryAnswers.find((a) => !questions.has(a.question));
		if (orphan) return `memoryAnswers: no question ${orphan.question}`;
	}
	return null;
}
