import type { Method, Node, NodeKind, NodeRef, NodeStatus, Run, RunStatus } from '../../domain.ts';
import type { EngineEvent } from '../../engine/events.ts';
import { nodesAwaitingCalls } from '../../summarize/graph.ts';
import { levelLabel, nodeName } from '../../summarize/places.ts';
import { totalsOf, type Totals } from '../../summarize/totals.ts';
import { countTokens, countWords } from '../../text/tokens.ts';
import {
	etaUnderLimits,
	limitedEtaSeconds,
	remainingSeconds,
	type RateLimitFigures,
} from '../../format/progress.ts';

/**
 * The run screen's view model: engine events folded into plain immutable data. Pure: the clock
 * and (for events that reshape the graph) the run are passed in, so every fold is reproducible.
 */

export type Gate = 'running' | 'paused' | 'stepping';
export type Phase = 'idle' | 'running' | 'paused' | 'stepping' | 'done' | 'failed' | 'cancelled';

export interface NodeView {
	id: NodeRef;
	kind: NodeKind;
	level: number;
	index: number;
	/** The chunk an incremental node reads (its step), or null. */
	step: number | null;
	inputs: readonly NodeRef[];
	context: NodeRef | null;
	status: NodeStatus;
	/** The attempt in progress (0 = first call), while running. */
	attempt: number;
	/** Calls made for the version in progress or, once done, for the active version. */
	calls: number;
	words: number | null;
	tokens: number | null;
	overBudget: boolean;
	versions: number;
	/** Index of the active version, or null before the first. */
	active: number | null;
	error: string | null;
}

/** Text streaming into a running node; only the tail is kept, so memory stays bounded. */
export interface Live {
	attempt: number;
	text: string;
	/** Characters received in all, including those dropped from the front of `text`. */
	chars: number;
}

export interface LogLine {
	seq: number;
	level: 'info' | 'warn' | 'error';
	text: string;
}

/** A finished run's final summary, printed once above the live area. */
export interface FinalItem {
	seq: number;
	root: NodeRef;
}

export interface ViewState {
	method: Method;
	/** True between run-started and run-finished: the engine is making calls or waiting to. */
	active: boolean;
	gate: Gate;
	/** The run's status as last reported (or read) when no run is active. */
	outcome: RunStatus;
	nodes: Readonly<Record<NodeRef, NodeView>>;
	/** Node ids in the run's order. */
	order: readonly NodeRef[];
	live: Readonly<Record<NodeRef, Live>>;
	/** Calls the run is expected to make in all: the engine's estimate, which changes only when a level's count becomes known. */
	planned: number;
	/** Nodes expected at each level in the end, by the same estimate (hierarchical; none known before the run starts). */
	levels: readonly number[];
	totals: Totals;
	/** Calls already made when the current start began (for the ETA: only calls made here count). */
	callsAtStart: number;
	chunks: number;
	startedAt: number | null;
	endedAt: number | null;
	/**
	 * When the current pause began (null while not paused), and the time spent paused before it, since
	 * the start. Stepping with no call in progress (waiting for the next s) counts as paused.
	 */
	pausedAt: number | null;
	pausedMs: number;
	/** Nodes whose call is in progress: started and not yet answered. */
	calling: readonly NodeRef[];
	root: NodeRef | null;
	error: string | null;
	log: readonly LogLine[];
	finals: readonly FinalItem[];
	/** The account's rate limits as last reported: whether they hold calls back, the limits known. */
	rateLimit: RateLimitFigures | null;
	seq: number;
}

/** Most characters of streaming text kept per node: more than any screen shows. */
export const LIVE_LIMIT = 8000;
/** Most log lines kept. */
export const LOG_LIMIT = 50;

export interface FoldContext {
	now: number;
	/** The run, for events that reshape the graph (edits, re-plans, versions). */
	run?: Run;
}

/** The view of a run before any event: what the session holds (a resumed run shows its past). */
export function initialView(run: Run, opts: { stepping?: boolean } = {}): ViewState {
	const { nodes, order } = nodesOf(run, {});
	const totals = totalsOf(run);
	return {
		method: run.config.method,
		active: false,
		gate: opts.stepping ? 'stepping' : 'running',
		outcome: run.status,
		nodes,
		order,
		live: {},
		// What the session holds: the calls made, and one more for each node still to be made (the
		// engine's estimate replaces it when the run starts). A finished run expects nothing more.
		planned: totals.calls + nodesAwaitingCalls(run),
		levels: [],
		totals,
		callsAtStart: totals.calls,
		chunks: run.chunks.length,
		startedAt: null,
		endedAt: null,
		pausedAt: null,
		pausedMs: 0,
		calling: [],
		root: run.root,
		error: run.error,
		log: [],
		finals: [],
		rateLimit: null,
		seq: 0,
	};
}

export function reduce(state: ViewState, event: EngineEvent, ctx: FoldContext): ViewState {
	return steppingClock(callingOf(fold(state, event, ctx), event), ctx.now);
}

function fold(state: ViewState, event: EngineEvent, ctx: FoldContext): ViewState {
	const s = { ...state, seq: state.seq + 1 };
	switch (event.type) {
		case 'run-started': {
			const synced = ctx.run ? nodesOf(ctx.run, state.nodes) : { nodes: state.nodes, order: state.order };
			return {
				...s,
				...synced,
				active: true,
				outcome: 'running',
				planned: event.planned,
				levels: event.levels,
				callsAtStart: event.done,
				startedAt: ctx.now,
				endedAt: null,
				pausedAt: state.gate === 'paused' ? ctx.now : null,
				pausedMs: 0,
				error: null,
				live: {},
			};
		}
		case 'node-planned': {
			const nodes = { ...state.nodes };
			const order = [...state.order];
			for (const n of event.nodes) {
				if (!nodes[n.id]) order.push(n.id);
				nodes[n.id] = {
					id: n.id,
					kind: n.kind,
					level: n.level,
					index: n.index,
					step: stepOf(state.method, n.kind, n.index),
					inputs: n.inputs,
					context: ctx.run?.nodes.find((m) => m.id === n.id)?.context ?? null,
					status: 'pending',
					attempt: 0,
					calls: 0,
					words: null,
					tokens: null,
					overBudget: false,
					versions: nodes[n.id]?.versions ?? 0,
					active: nodes[n.id]?.active ?? null,
					error: null,
				};
			}
			return { ...s, nodes, order, planned: event.planned, levels: event.levels };
		}
		case 'node-started':
			return {
				...s,
				nodes: patch(state.nodes, event.node, { status: 'running', attempt: event.attempt, error: null }),
				live: { ...state.live, [event.node]: { attempt: event.attempt, text: '', chars: 0 } },
			};
		case 'delta': {
			const prev = state.live[event.node];
			const live =
				prev && prev.attempt === event.attempt ? prev : { attempt: event.attempt, text: '', chars: 0 };
			const text = live.text + event.text;
			return {
				...s,
				live: {
					...state.live,
					[event.node]: {
						attempt: event.attempt,
						text: text.length > LIVE_LIMIT ? text.slice(text.length - LIVE_LIMIT) : text,
						chars: live.chars + event.text.length,
					},
				},
			};
		}
		case 'retry': {
			// What streamed for the attempt is void: the screen starts the attempt's text afresh.
			const live = { ...state.live };
			delete live[event.node];
			return {
				...s,
				live,
				log: addLog(
					state,
					'warn',
					`${named(state, event.node)}: retrying, attempt ${event.attempt + 1} (${event.reason})`,
				),
			};
		}
		case 'usage': {
			const node = state.nodes[event.node];
			// A failed attempt is billed but is no call the node made.
			const calls =
				node && event.failed === undefined
					? patch(state.nodes, event.node, { calls: node.calls + 1 })
					: state.nodes;
			return { ...s, totals: event.totals, nodes: calls };
		}
		case 'node-finished': {
			const live = { ...state.live };
			delete live[event.node];
			const node = state.nodes[event.node];
			return {
				...s,
				live,
				nodes: patch(state.nodes, event.node, {
					status: 'done',
					words: event.words,
					tokens: event.tokens,
					calls: event.attempts,
					overBudget: event.overBudget,
					versions: (node?.versions ?? 0) + 1,
					active: node?.versions ?? 0,
				}),
			};
		}
		case 'node-failed': {
			const live = { ...state.live };
			delete live[event.node];
			return {
				...s,
				live,
				nodes: patch(state.nodes, event.node, { status: 'failed', error: event.error }),
				log: addLog(state, 'error', `${named(state, event.node)} failed: ${event.error}`),
			};
		}
		case 'node-stale': {
			let nodes = state.nodes;
			for (const id of event.nodes) nodes = patch(nodes, id, { status: 'stale' });
			const synced = ctx.run ? nodesOf(ctx.run, nodes) : { nodes, order: state.order };
			// Stale nodes are calls still to make: a finished run's full bar is full no more.
			return {
				...s,
				...synced,
				root: ctx.run ? ctx.run.root : null,
				planned: event.planned,
				levels: event.levels,
			};
		}
		case 'rate-limit':
			return {
				...s,
				rateLimit: { wait: event.wait, answered: event.answered, asked: event.asked, limits: event.limits },
			};
		case 'run-paused':
			return { ...s, gate: 'paused', pausedAt: state.pausedAt ?? ctx.now };
		case 'run-resumed':
			return { ...s, gate: event.stepping ? 'stepping' : 'running', ...resumedClock(state, ctx.now) };
		case 'run-finished': {
			const finals =
				event.status === 'done' && event.root
					? [...state.finals, { seq: s.seq, root: event.root }]
					: state.finals;
			const synced = ctx.run ? nodesOf(ctx.run, state.nodes) : { nodes: state.nodes, order: state.order };
			const log =
				event.status === 'failed' && event.error
					? addLog(state, 'error', `run failed: ${event.error}`)
					: state.log;
			// A finished run made every call it needed: what was an estimate is now the count.
			const planned = event.status === 'done' ? event.totals.calls : state.planned;
			const rateLimit = state.rateLimit && { ...state.rateLimit, wait: null };
			return {
				...s,
				...synced,
				active: false,
				outcome: event.status,
				root: event.root,
				error: event.error,
				totals: event.totals,
				planned,
				endedAt: ctx.now,
				...resumedClock(state, ctx.now),
				live: {},
				finals,
				log,
				rateLimit,
			};
		}
		default:
			// Edits, new active versions and re-plans (node-edited, node-active, node-superseded and
			// whatever else reshapes the graph) are read back from the run, which the engine has
			// already changed when it reports them.
			return ctx.run ? { ...s, ...nodesOf(ctx.run, state.nodes), root: ctx.run.root } : s;
	}
}

/** What the header shows as the run's state. */
export function phaseOf(state: ViewState): Phase {
	if (state.active) return state.gate;
	// A finished run whose nodes went stale (an edit) is done no more until it is run again.
	if (state.outcome === 'done' && state.root === null) return 'idle';
	if (state.outcome === 'done' || state.outcome === 'failed' || state.outcome === 'cancelled')
		return state.outcome;
	return 'idle';
}

export function progressOf(state: ViewState): { calls: number; planned: number; ratio: number } {
	const calls = state.totals.calls;
	const planned = Math.max(state.planned, calls);
	return { calls, planned, ratio: planned === 0 ? 0 : calls / planned };
}

/** Chunks whose text has been summarized or folded into the running summary. */
export function chunksRead(state: ViewState): number {
	const read = new Set<number>();
	for (const id of state.order) {
		const n = state.nodes[id]!;
		if (n.status !== 'done' && n.status !== 'stale') continue;
		if (state.method === 'hier' && n.kind === 'summarize' && n.level === 0) read.add(n.index);
		if (state.method === 'inc' && (n.kind === 'summarize' || n.kind === 'update') && n.step !== null)
			read.add(n.step);
	}
	return read.size;
}

export function elapsedMs(state: ViewState, now: number): number {
	if (state.startedAt === null) return 0;
	return (state.endedAt ?? now) - state.startedAt;
}

/** Time since this start that the run was not paused: the pace of its calls is measured over it. */
export function workingMs(state: ViewState, now: number): number {
	const end = state.pausedAt ?? state.endedAt ?? now;
	return Math.max(0, elapsedMs(state, end) - state.pausedMs);
}

/**
 * Seconds left at the pace of the calls made since this start, or null before there is a pace.
 * Time paused is not part of the pace, so the estimate holds still while the run is paused.
 */
export function etaSeconds(state: ViewState, now: number): number | null {
	const { calls, planned } = progressOf(state);
	if (!state.active || planned <= calls) return null;
	const pace = remainingSeconds(planned, calls, calls - state.callsAtStart, workingMs(state, now) / 1000);
	return etaUnderLimits(pace, limitedEtaSeconds(planned - calls, state.rateLimit));
}

/** The calls in progress after `event`: a call starts with its node and ends with its answer or its node. */
function callingOf(state: ViewState, event: EngineEvent): ViewState {
	const without = (ids: readonly NodeRef[]) => ({
		...state,
		calling: state.calling.filter((id) => !ids.includes(id)),
	});
	switch (event.type) {
		case 'run-started':
		case 'run-finished':
			return { ...state, calling: [] };
		case 'node-started':
			return { ...state, calling: [...state.calling.filter((id) => id !== event.node), event.node] };
		case 'usage':
			// A failed attempt is retried within the same call.
			return event.failed === undefined ? without([event.node]) : state;
		case 'node-finished':
		case 'node-failed':
			return without([event.node]);
		case 'node-stale':
		case 'node-superseded':
			return without(event.nodes);
		default:
			return state;
	}
}

/**
 * While stepping, the run waits for the next s between calls: that wait is no part of the pace the
 * ETA is measured by, as a pause is not. The clock stops when no call is in progress and goes on
 * when one starts.
 */
function steppingClock(state: ViewState, now: number): ViewState {
	if (!state.active || state.gate === 'paused') return state;
	const held = state.gate === 'stepping' && state.calling.length === 0;
	if (held && state.pausedAt === null) return { ...state, pausedAt: now };
	if (!held && state.pausedAt !== null) return { ...state, ...resumedClock(state, now) };
	return state;
}

/** The pause clock once the run goes on (or ends): the pause just over joins the time paused. */
function resumedClock(state: ViewState, now: number): { pausedAt: null; pausedMs: number } {
	return { pausedAt: null, pausedMs: state.pausedMs + (state.pausedAt === null ? 0 : now - state.pausedAt) };
}

/** Nodes shown in views: a node superseded by a re-plan is history, not part of the run. */
export function visible(state: ViewState): NodeView[] {
	return state.order.map((id) => state.nodes[id]!).filter((n) => n.status !== 'superseded');
}

/** Hierarchical levels as rows of nodes in index order; the clean step is a row of its own. */
export function levelsOf(state: ViewState): { level: number; label: string; nodes: NodeView[] }[] {
	const rows = new Map<string, NodeView[]>();
	for (const n of visible(state)) {
		const key = n.kind === 'clean' ? 'clean' : levelLabel(n.level);
		rows.set(key, [...(rows.get(key) ?? []), n]);
	}
	return [...rows]
		.map(([label, nodes]) => ({
			label,
			level: nodes[0]!.level,
			nodes: nodes.sort((a, b) => a.index - b.index),
		}))
		.sort((a, b) => a.level - b.level || (a.label === 'clean' ? 1 : -1));
}

/** Incremental steps in the order they were made: every update, compression and clean. */
export function stepsOf(state: ViewState): NodeView[] {
	return visible(state);
}

/**
 * The steps an incremental run is expected to have in the end: those planned, and the calls the
 * estimate still expects beyond them. It agrees with the header's calls (`progressOf`), which count
 * a step's regenerations too.
 */
export function stepsTotal(state: ViewState): number {
	const steps = stepsOf(state);
	const awaiting = steps.filter((step) => step.status !== 'done').length;
	// The estimate is the calls made, one for each step planned and not done, and the steps not planned yet.
	return steps.length + Math.max(0, progressOf(state).planned - state.totals.calls - awaiting);
}

/** The nodes a level of the tree is expected to have in the end: those planned, or the estimate's count when it is larger. */
export function levelTotal(state: ViewState, level: number, planned: number): number {
	return Math.max(planned, state.levels[level] ?? 0);
}

/** Running nodes, oldest first. */
export function runningOf(state: ViewState): NodeView[] {
	return visible(state).filter((n) => n.status === 'running');
}

function stepOf(method: Method, kind: NodeKind, index: number): number | null {
	return method === 'inc' && kind !== 'clean' ? index : null;
}

function patch(
	nodes: Readonly<Record<NodeRef, NodeView>>,
	id: NodeRef,
	fields: Partial<NodeView>,
): Readonly<Record<NodeRef, NodeView>> {
	const node = nodes[id];
	if (!node) return nodes;
	return { ...nodes, [id]: { ...node, ...fields } };
}

/** A node as the failure and retry lines name it (summarize/places.ts): the headless lines and the run's error say the same. */
function named(state: ViewState, id: NodeRef): string {
	const node = state.nodes[id];
	return node ? nodeName(node, state.method, state.chunks) : `node ${id}`;
}

function addLog(state: ViewState, level: LogLine['level'], text: string): readonly LogLine[] {
	const log = [...state.log, { seq: state.seq + 1, level, text }];
	return log.length > LOG_LIMIT ? log.slice(log.length - LOG_LIMIT) : log;
}

/**
 * Node views read from the run. Views whose active version did not change keep their measured
 * words and tokens, so re-reading a long run does not re-tokenize every summary.
 */
function nodesOf(
	run: Run,
	previous: Readonly<Record<NodeRef, NodeView>>,
): { nodes: Record<NodeRef, NodeView>; order: NodeRef[] } {
	const nodes: Record<NodeRef, NodeView> = {};
	const order: NodeRef[] = [];
	for (const n of run.nodes) {
		order.push(n.id);
		nodes[n.id] = viewOf(run, n, previous[n.id]);
	}
	return { nodes, order };
}

function viewOf(run: Run, n: Node, prev: NodeView | undefined): NodeView {
	const version = n.active === null ? null : (n.versions[n.active] ?? null);
	const same =
		prev &&
		prev.versions === n.versions.length &&
		prev.active === n.active &&
		prev.words !== null &&
		version !== null;
	// The engine marks a node running before the gate admits its call; until node-started is
	// reported it is waiting (for example while the run is paused), not running.
	const running = n.status === 'running' && prev?.status === 'running';
	return {
		id: n.id,
		kind: n.kind,
		level: n.level,
		index: n.index,
		step: stepOf(run.config.method, n.kind, n.index),
		inputs: n.inputs,
		context: n.context,
		status: n.status === 'running' && !running ? 'pending' : n.status,
		attempt: running ? n.pending.length : 0,
		calls: running || !version ? n.pending.length : version.attempts.length,
		words: version ? (same ? prev.words : countWords(version.text)) : null,
		tokens: version ? (same ? prev.tokens : countTokens(version.text, run.config.encoding)) : null,
		overBudget: version?.overBudget ?? false,
		versions: n.versions.length,
		active: n.active,
		error: n.error ?? null,
	};
}
