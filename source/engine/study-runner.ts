import { join } from 'node:path';
import type { RateLimitState } from '../llm/rate-limit.ts';
import PQueue from 'p-queue';
import type { Book, Chunk, Run, RunConfig, RunStatus } from '../domain.ts';
import { errorMessage } from '../errors.ts';
import { cellCost } from '../format/cost.ts';
import { storedScore } from '../score/session-score.ts';
import type { Cell } from '../study/grid.ts';
import { finalWords, liveNodes, runFinished } from '../summarize/graph.ts';
import { levelName } from '../summarize/places.ts';
import { newRun } from '../summarize/run.ts';
import { totalsOf as runTotalsOf } from '../summarize/totals.ts';
import { scoringTotals } from '../store/calls.ts';
import { folderState } from '../store/leftover.ts';
import { bookSession, Session, type BookSessionData } from '../store/session.ts';
import { StudyRecord } from '../store/study-record.ts';
import type { Annotator } from './annotator.ts';
import type { BatchPool } from './batch-pool.ts';
import type { BatchChange, BatchState } from '../llm/batcher.ts';
import type { Engine } from './engine.ts';

/**
 * Runs a study's cells, each an ordinary session, with one limit on calls in flight across them,
 * and keeps where every cell stands from its engine's (and annotator's) events: the terminal
 * screen draws that state, the headless lines are written from the events.
 */

/** A cell as the runner needs it: its grid place, what makes its session, and the plan's estimate. */
export interface StudyCell extends Cell {
	config: RunConfig;
	chunks: Chunk[];
	book: Cell['book'] & { info: Book; loaded: { text: string } };
	/** Calls and cost the plan expects. */
	calls: number;
	cost: number;
	priced: boolean;
}

/** What the command supplies: the pieces that need providers, prompts and prices. */
export interface CellWork<C extends StudyCell> {
	/** The engine of a cell's session, its calls on the study's `queue`. */
	engine(cell: C, session: Session<BookSessionData>, queue: PQueue): Promise<Engine>;
	/**
	 * BooookScore of a cell done: the annotator (null when nothing is left to annotate) and who
	 * annotates ("openai/gpt-4o-mini"). Absent: the study is not scored.
	 */
	scoring?(
		cell: C,
		session: Session<BookSessionData>,
		queue: PQueue,
	): Promise<{ annotator: Annotator | null; scorer: string }>;
}

/** 'skipped': done before this study started (nothing to run). */
export type CellStatus = 'queued' | 'running' | 'scoring' | 'done' | 'failed' | 'cancelled' | 'skipped';

export interface CellState {
	key: string;
	session: string;
	status: CellStatus;
	/** Calls of the cell's run so far (a resumed run's earlier ones included), and the estimate of all it will make. */
	calls: number;
	expected: number;
	/** The run's cost so far; scoring's is `scoring.cost`, and the cell's cost is both (format/cost.ts `cellCost`). */
	cost: number;
	/** Words of the final summary, once there is one. */
	words: number | null;
	/** BooookScore in percent, once scored. */
	score: number | null;
	/** What the cell is making now ("level 1, 3/5 merges", "step 12/40", "scoring 4/20 calls"). */
	activity: string | null;
	/**
	 * Calls and cost of annotating the final summary, once scoring started or was found done: every
	 * annotation call its session logged, earlier runs' included, so a restart shows the same.
	 */
	scoring: { calls: number; planned: number; cost: number } | null;
	error: string | null;
	/** A provider batch the cell waits on ("batch b_12 in_progress 40/120"), when there is one. */
	batch: string | null;
}

export type StudyStatus = 'idle' | 'running' | 'done' | 'failed' | 'cancelled';

export interface StudyTotals {
	cells: number;
	/** Cells done (skipped ones included), failed, and running or scoring now. */
	done: number;
	failed: number;
	active: number;
	calls: number;
	expected: number;
	/** Runs' and scorings' cost. */
	cost: number;
}

export interface StudyState {
	status: StudyStatus;
	cells: readonly CellState[];
	totals: StudyTotals;
	/** When start() was called, and when the study ended (ms since the epoch). */
	startedAt: number | null;
	endedAt: number | null;
	/** With batches: those not ended yet, and their requests answered of all (null: the study streams every call). */
	batches: { waiting: number; answered: number; requests: number } | null;
	/** The rate limits as a cell's calls last reported them (one account's limits hold every cell of its model). */
	rateLimit: RateLimitState | null;
}

/** Everything the runner reports, in the order it happens; `cell` is the cell's state after the change. */
export type StudyEvent =
	| { type: 'study-started' }
	/** Done before this study started: nothing to run. */
	| { type: 'cell-skipped'; index: number; cell: CellState }
	| { type: 'cell-started'; index: number; cell: CellState; resumed: boolean }
	/** Calls, cost or activity moved. */
	| { type: 'cell-progress'; index: number; cell: CellState }
	/** The cell's run ended: done, failed or cancelled. */
	| { type: 'cell-ran'; index: number; cell: CellState; status: RunStatus }
	| { type: 'cell-scoring'; index: number; cell: CellState; scorer: string }
	/** `already`: it had a score, no call was made; `annotated`: the annotator ran (else nothing was left to annotate). */
	| {
			type: 'cell-scored';
			index: number;
			cell: CellState;
			scorer: string;
			already: boolean;
			annotated: boolean;
	  }
	| { type: 'cell-scoring-failed'; index: number; cell: CellState; error: string }
	/** Something other than the run failed the cell (a session that cannot be opened, a disk error). */
	| { type: 'cell-error'; index: number; cell: CellState; error: string }
	/** The account's rate limits hold calls back, or no longer do. */
	| ({ type: 'rate-limit' } & RateLimitState)
	| { type: 'study-finished'; status: 'done' | 'failed' | 'cancelled' };

export type StudyListener = (event: StudyEvent) => void;

/** A cell running now, for a screen that shows its run live. */
export interface LiveCell {
	engine: Engine;
	session: Session<BookSessionData>;
}

export interface StudyRunnerOptions<C extends StudyCell> {
	name: string;
	cells: readonly C[];
	concurrency: number;
	sessionsDir: string;
	work: CellWork<C>;
	/**
	 * The provider batches the cells' work sends calls through (`"batch"` in the study file): each
	 * cell shows the batch it waits on, and every cell is open at once so that their calls meet in
	 * the same batches (batched calls hold no place among `concurrency`).
	 */
	batches?: BatchPool | null;
	now?: () => number;
}

export class StudyRunner<C extends StudyCell = StudyCell> {
	readonly cells: readonly C[];
	private readonly listeners = new Set<StudyListener>();
	private readonly now: () => number;
	/** The calls in flight across cells, and the cells open (a cell holds its session while it runs). */
	private readonly queue: PQueue;
	private readonly cellQueue: PQueue;
	/** What a cancel stops: the engines running and the annotators scoring. */
	private readonly stoppable = new Set<{ cancel(): void }>();
	private readonly live = new Map<string, LiveCell>();
	private readonly indexByKey: Map<string, number>;
	/** The batches not ended, as they last stood. */
	private readonly openBatches = new Map<string, BatchState>();
	/** Per cell key, the batches it waits on (id → what to show), latest last. */
	private readonly batchesOf = new Map<string, Map<string, string>>();
	private current: StudyState;
	private cancelled = false;
	private failed = false;
	private running: Promise<'done' | 'failed' | 'cancelled'> | null = null;

	constructor(private readonly opts: StudyRunnerOptions<C>) {
		this.cells = opts.cells;
		this.indexByKey = new Map(opts.cells.map((c, i) => [c.key, i]));
		this.now = opts.now ?? Date.now;
		this.queue = new PQueue({ concurrency: opts.concurrency });
		this.cellQueue = new PQueue({
			concurrency: opts.batches ? Math.max(1, opts.cells.length) : opts.concurrency,
		});
		const cells = opts.cells.map((c): CellState => ({
			key: c.key,
			session: c.sessionId,
			status: 'queued',
			calls: 0,
			expected: c.calls,
			cost: 0,
			words: null,
			score: null,
			activity: null,
			scoring: null,
			error: null,
			batch: null,
		}));
		this.current = {
			status: 'idle',
			cells,
			totals: studyTotals(cells),
			startedAt: null,
			endedAt: null,
			batches: opts.batches ? { waiting: 0, answered: 0, requests: 0 } : null,
			rateLimit: null,
		};
	}

	/** Where the study stands: a new object after every change, so a screen can compare snapshots. */
	get state(): StudyState {
		return this.current;
	}

	on(listener: StudyListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** The engine and session of a cell whose run is in progress, or null. */
	liveCell(key: string): LiveCell | null {
		return this.live.get(key) ?? null;
	}

	/**
	 * A batch changed: each of its cells shows the latest batch it still waits on. A cell may wait
	 * on two at once (a run's last chunks and a retry going out again), so each cell keeps its own.
	 */
	private batchChanged(state: BatchState, change: BatchChange): void {
		const over = change === 'ended' || change === 'failed';
		if (over) this.openBatches.delete(state.id);
		else this.openBatches.set(state.id, state);
		const open = [...this.openBatches.values()];
		this.current = {
			...this.current,
			batches: {
				waiting: open.length,
				answered: open.reduce((n, b) => n + b.done, 0),
				requests: open.reduce((n, b) => n + b.total, 0),
			},
		};
		for (const key of state.cells) {
			const index = this.indexByKey.get(key);
			if (index === undefined) continue;
			const waiting = this.batchesOf.get(key) ?? new Map<string, string>();
			waiting.delete(state.id);
			if (!over)
				waiting.set(
					state.id,
					`batch ${state.id} ${state.status.replace(/_/gu, ' ')} ${state.done}/${state.total}`,
				);
			this.batchesOf.set(key, waiting);
			this.update(index, { batch: [...waiting.values()].at(-1) ?? null });
			this.emit({ type: 'cell-progress', index, cell: this.current.cells[index]! });
		}
	}

	/**
	 * Cancels the calls in flight; cells not started do not start. `start()` then resolves
	 * 'cancelled' once every session is saved.
	 */
	cancel(): void {
		this.cancelled = true;
		for (const s of this.stoppable) s.cancel();
	}

	/** Runs every cell not done yet; a second call returns the same promise. Throws when the study's record cannot be opened. */
	start(): Promise<'done' | 'failed' | 'cancelled'> {
		this.running ??= this.runAll();
		return this.running;
	}

	private async runAll(): Promise<'done' | 'failed' | 'cancelled'> {
		const record = await StudyRecord.open(this.opts.sessionsDir, this.opts.name);
		this.current = { ...this.current, status: 'running', startedAt: this.now() };
		this.emit({ type: 'study-started' });
		const { batches } = this.opts;
		const unfollow = batches?.on((state, change) => this.batchChanged(state, change));
		try {
			// A cell queued when a cancel comes returns at once (a cleared p-queue task would never settle).
			await Promise.all(
				this.cells.map((cell, index) => this.cellQueue.add(() => this.runCell(cell, index, record))),
			);
		} finally {
			unfollow?.();
			// Batches still running stay recorded in their sessions, for the next run to wait for.
			batches?.close();
			await record.close();
		}
		const status = this.cancelled ? 'cancelled' : this.failed ? 'failed' : 'done';
		const cells = this.current.cells.map((c) =>
			c.status === 'queued' && this.cancelled ? { ...c, status: 'cancelled' as const } : c,
		);
		this.current = { ...this.current, cells, totals: studyTotals(cells), status, endedAt: this.now() };
		this.emit({ type: 'study-finished', status });
		return status;
	}

	private async runCell(cell: C, index: number, record: StudyRecord): Promise<void> {
		if (this.cancelled) return;
		try {
			const ran = await this.runSession(cell, index, record);
			if (ran === 'done' && this.opts.work.scoring && !this.cancelled) await this.scoreCell(cell, index);
			else if (ran === 'failed') this.failed = true;
		} catch (error) {
			this.failed = true;
			const message = errorMessage(error);
			this.update(index, { status: 'failed', error: message, activity: null });
			this.emit({ type: 'cell-error', index, cell: this.current.cells[index]!, error: message });
			await record.set(cell.key, cell.sessionId, 'failed').catch(() => {});
		}
	}

	private async runSession(cell: C, index: number, record: StudyRecord): Promise<RunStatus> {
		const { sessionsDir } = this.opts;
		const exists = (await folderState(join(sessionsDir, cell.sessionId))).kind === 'session';
		if (exists) {
			const { data } = await Session.snapshot(sessionsDir, cell.sessionId);
			if (data.kind === 'book' && runFinished(data.run)) {
				const totals = runTotalsOf(data.run);
				const scoring = await this.loggedScoring(cell);
				this.update(index, {
					status: 'skipped',
					calls: totals.calls,
					expected: totals.calls,
					cost: totals.cost,
					words: finalWords(data.run),
					scoring,
				});
				this.emit({ type: 'cell-skipped', index, cell: this.current.cells[index]! });
				await record.set(cell.key, cell.sessionId, 'done');
				return 'done';
			}
		}
		const session = exists
			? bookSession(await Session.open(sessionsDir, cell.sessionId))
			: await Session.create(sessionsDir, {
					id: cell.sessionId,
					book: cell.book.info,
					text: cell.book.loaded.text,
					run: newRun(cell.config, cell.chunks),
				});
		try {
			await record.set(cell.key, cell.sessionId, 'running');
			const engine = await this.opts.work.engine(cell, session, this.queue);
			// The engine's estimate as its events last reported it (asking the planner on every call would cost more than the call).
			let expected = engine.plannedCalls();
			const progress = () => {
				const totals = engine.totals;
				this.update(index, {
					calls: totals.calls,
					cost: totals.cost,
					expected: Math.max(expected, totals.calls),
					activity: activityOf(engine.run),
				});
				this.emit({ type: 'cell-progress', index, cell: this.current.cells[index]! });
			};
			const off = engine.on((event) => {
				if (event.type === 'rate-limit') this.rateLimited(event);
				if (event.type === 'run-started' || event.type === 'node-planned') expected = event.planned;
				if (
					event.type === 'usage' ||
					event.type === 'node-finished' ||
					event.type === 'node-planned' ||
					event.type === 'node-started' ||
					event.type === 'run-started'
				)
					progress();
				else if (event.type === 'node-failed') {
					this.update(index, { error: event.error });
					progress();
				}
			});
			const totals = engine.totals;
			this.update(index, {
				status: 'running',
				calls: totals.calls,
				cost: totals.cost,
				expected,
				activity: activityOf(engine.run),
				error: null,
			});
			this.emit({ type: 'cell-started', index, cell: this.current.cells[index]!, resumed: exists });
			this.stoppable.add(engine);
			this.live.set(cell.key, { engine, session });
			// A cell that starts after a cancel stops at once.
			if (this.cancelled) engine.cancel();
			let status: RunStatus;
			try {
				status = await engine.start();
			} finally {
				off();
				this.stoppable.delete(engine);
				this.live.delete(cell.key);
				engine.dispose();
			}
			await record.set(cell.key, cell.sessionId, status);
			const end = engine.totals;
			const done = status === 'done';
			this.update(index, {
				status: done
					? this.opts.work.scoring && !this.cancelled
						? 'scoring'
						: 'done'
					: status === 'failed'
						? 'failed'
						: 'cancelled',
				calls: end.calls,
				cost: end.cost,
				expected: done ? end.calls : Math.max(engine.plannedCalls(), end.calls),
				words: finalWords(session.data.run),
				activity: null,
				error: status === 'failed' ? (session.data.run.error ?? 'unknown error') : null,
			});
			this.emit({ type: 'cell-ran', index, cell: this.current.cells[index]!, status });
			return status;
		} finally {
			await session.close();
		}
	}

	/** BooookScore of a cell done, as `booook score ID` makes it; a cell scored already makes no call. */
	private async scoreCell(cell: C, index: number): Promise<void> {
		const { sessionsDir, work } = this.opts;
		const { data } = await Session.snapshot(sessionsDir, cell.sessionId);
		const stored = data.kind === 'book' ? storedScore(data.summaries, data.annotations, data.run) : null;
		// What earlier runs spent scoring this session: the annotator below counts only its own calls.
		const before = await this.loggedScoring(cell);
		if (stored !== null) {
			this.update(index, {
				status: this.current.cells[index]!.status === 'skipped' ? 'skipped' : 'done',
				score: stored,
				scoring: before,
			});
			this.emit({
				type: 'cell-scored',
				index,
				cell: this.current.cells[index]!,
				scorer: '',
				already: true,
				annotated: false,
			});
			return;
		}
		const session = bookSession(await Session.open(sessionsDir, cell.sessionId));
		try {
			const { annotator, scorer } = await work.scoring!(cell, session, this.queue);
			this.update(index, { status: 'scoring', activity: 'scoring' });
			this.emit({ type: 'cell-scoring', index, cell: this.current.cells[index]!, scorer });
			if (annotator) {
				// Answers taken back from the log are billed again when the annotator starts, and the log holds them already.
				let recovered = { calls: 0, cost: 0 };
				const spent = (t: { calls: number; cost: number }) => ({
					calls: (before?.calls ?? 0) + t.calls - recovered.calls,
					cost: (before?.cost ?? 0) + t.cost - recovered.cost,
				});
				const off = annotator.on((event) => {
					if (event.type === 'rate-limit') this.rateLimited(event);
					if (event.type === 'annotate-started')
						recovered = { calls: annotator.totals.calls, cost: annotator.totals.cost };
					if (event.type !== 'usage' && event.type !== 'annotate-started') return;
					const t = annotator.totals;
					const planned = event.type === 'usage' ? event.planned : t.calls + event.units;
					const scoring = { ...spent(t), planned: spent({ calls: planned, cost: 0 }).calls };
					this.update(index, { scoring, activity: `scoring ${t.calls}/${planned} calls` });
					this.emit({ type: 'cell-progress', index, cell: this.current.cells[index]! });
				});
				this.stoppable.add(annotator);
				if (this.cancelled) annotator.cancel();
				let status;
				try {
					status = await annotator.start();
				} finally {
					off();
					this.stoppable.delete(annotator);
				}
				const made = spent(annotator.totals);
				const scoring = { ...made, planned: made.calls };
				if (status === 'failed') {
					this.failed = true;
					const error = annotator.error ?? 'unknown error';
					this.update(index, { status: 'failed', scoring, activity: null, error: `scoring: ${error}` });
					this.emit({ type: 'cell-scoring-failed', index, cell: this.current.cells[index]!, error });
					return;
				}
				if (status === 'cancelled') {
					this.update(index, { status: 'cancelled', scoring, activity: null });
					return;
				}
				this.update(index, { scoring });
			}
			const score = storedScore(session.data.summaries, session.data.annotations, session.data.run);
			this.update(index, { status: 'done', score, activity: null });
			this.emit({
				type: 'cell-scored',
				index,
				cell: this.current.cells[index]!,
				scorer,
				already: false,
				annotated: annotator !== null,
			});
		} finally {
			await session.close();
		}
	}

	/** The annotation calls the cell's session has logged (null: none). */
	private async loggedScoring(cell: C): Promise<CellState['scoring']> {
		const logged = await scoringTotals(this.opts.sessionsDir, cell.sessionId);
		return logged.calls > 0 ? { ...logged, planned: logged.calls } : null;
	}

	private rateLimited({ type: _, ...state }: { type: 'rate-limit' } & RateLimitState): void {
		this.current = { ...this.current, rateLimit: state };
		this.emit({ type: 'rate-limit', ...state });
	}

	private update(index: number, change: Partial<CellState>): void {
		const cells = this.current.cells.slice();
		cells[index] = { ...cells[index]!, ...change };
		this.current = { ...this.current, cells, totals: studyTotals(cells) };
	}

	private emit(event: StudyEvent): void {
		for (const listener of this.listeners) listener(event);
	}
}

function studyTotals(cells: readonly CellState[]): StudyTotals {
	const totals: StudyTotals = {
		cells: cells.length,
		done: 0,
		failed: 0,
		active: 0,
		calls: 0,
		expected: 0,
		cost: 0,
	};
	for (const c of cells) {
		if (c.status === 'done' || c.status === 'skipped') totals.done++;
		else if (c.status === 'failed') totals.failed++;
		else if (c.status === 'running' || c.status === 'scoring') totals.active++;
		totals.calls += c.calls;
		totals.expected += Math.max(c.expected, c.calls);
		totals.cost += cellCost(c);
	}
	return totals;
}

/**
 * What a run is making, in its method's terms: the lowest level not finished of a hierarchical
 * run ("level 1, 3/5 merges"), the step of an incremental one ("step 12/40"). Null when done.
 */
export function activityOf(run: Run): string | null {
	const nodes = liveNodes(run).filter((n) => n.kind !== 'clean');
	if (nodes.length === 0) return null;
	const finished = (n: (typeof nodes)[number]) => n.status === 'done';
	if (run.config.method === 'inc') {
		// A step reads one chunk (its compressions and redos are calls of the same step).
		const read = new Set(
			nodes
				.filter((n) => finished(n) && (n.kind === 'summarize' || n.kind === 'update'))
				.map((n) => n.meta.step),
		);
		const steps = run.chunks.length;
		return nodes.every(finished) && read.size >= steps
			? null
			: `step ${Math.min(read.size + 1, steps)}/${steps}`;
	}
	const levels = [...new Set(nodes.map((n) => n.level))].sort((a, b) => a - b);
	const level = levels.find((l) => nodes.some((n) => n.level === l && !finished(n)));
	if (level === undefined) return null;
	const at = nodes.filter((n) => n.level === level);
	return `${levelName(level)}, ${at.filter(finished).length}/${at.length} ${level === 0 ? 'chunks' : 'merges'}`;
}
