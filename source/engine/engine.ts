import { counted } from '../format/count.ts';
import type PQueue from 'p-queue';
import type { Attempt, Node, NodeRef, Run, RunStatus, Usage, Version } from '../domain.ts';
import { errorMessage } from '../errors.ts';
import { isAbortError } from '../llm/abort.ts';
import { ProviderError, type Provider } from '../llm/provider.ts';
import { PlanError } from '../summarize/budget.ts';
import { tokensOf, versionTokens } from '../summarize/counts.ts';
import { activeVersion, dependencies, getNode, isDone, isReady } from '../summarize/graph.ts';
import { nodeName } from '../summarize/places.ts';
import { expectedCalls, isEmptyUpdate, type PlanContext, type Planner } from '../summarize/planner.ts';
import { totalsOf, type Totals } from '../summarize/totals.ts';
import { bestAttempt } from '../summarize/validity.ts';
import { countWords } from '../text/tokens.ts';
import type { CallRecord } from '../store/schema.ts';
import type { NodePatch, RunPatch } from '../store/changes.ts';
import type { BatchLane } from '../llm/batcher.ts';
import { goesInBatch } from '../summarize/run.ts';
import {
	cancelAll,
	CallRunner,
	usageReport,
	type CallLogStore,
	type HeldAnswer,
	type Recoverable,
} from './call-runner.ts';
import { applyPlan, changeable, editVersion, invalidate, type Applied, type RunWriter } from './edits.ts';
import type { EngineEvent, EngineListener } from './events.ts';
import { Gate } from './gate.ts';
import { moved } from './node-status.ts';

/**
 * What the engine needs of a session: its run, and the operations that change it, each of which
 * applies its change at once and resolves once the change is durable (the call log among them).
 */
export interface RunStore extends CallLogStore {
	readonly id: string;
	readonly data: { run: Run };
	updateNode(id: NodeRef, patch: NodePatch): Promise<void>;
	addNodes(...nodes: Node[]): Promise<void>;
	updateRun(patch: RunPatch): Promise<void>;
	/** Makes the changes `make` asks for as one durable write (a kill keeps all or none); what `make` throws, it throws. */
	together(make: () => void): Promise<void>;
}

export interface EngineOptions {
	store: RunStore;
	provider: Provider;
	planner: Planner;
	ctx: PlanContext;
	costOf: (usage: Usage) => number;
	/** Start holding calls until `step()` or `resume()`. */
	stepping?: boolean;
	/** Call places shared with other engines (a study): their limit replaces the run's concurrency. */
	queue?: PQueue;
	/** A provider batch for the calls `goesInBatch` picks; they hold no call place and all start at once. */
	batch?: BatchLane;
	now?: () => Date;
}

/**
 * Runs a plan: asks the planner for nodes as their inputs finish, runs ready nodes concurrently up
 * to the run's concurrency, makes each node's calls (regenerating while the planner rejects the
 * output), writes the session after every finished call, and reports everything as events.
 *
 * A person may edit a node's text, re-run a node or switch its active version at any time the node
 * itself is not being made (`edit`, `rerun`, `setActive`): what reads it goes stale, the plan after
 * it is checked again (`Planner.reconcile`), and the next `start()` makes what is missing.
 */
export class Engine {
	readonly gate: Gate;
	private readonly listeners = new Set<EngineListener>();
	private abort: AbortController;
	private readonly inFlight = new Map<NodeRef, Promise<void>>();
	/** Per node in flight: aborted when the node goes stale or is superseded under it. */
	private readonly nodeAborts = new Map<NodeRef, AbortController>();
	private readonly calls: CallRunner;
	private failure: string | null = null;
	private running: Promise<RunStatus> | null = null;
	/** Wakes the run loop when a change made from outside gives it something new to plan or run. */
	private wake: () => void = () => {};
	private readonly now: () => Date;
	/** Session writes under way that nothing waits for, and the first of them that failed. */
	private readonly writes = new Set<Promise<void>>();
	private writeError: unknown = null;

	constructor(private readonly opts: EngineOptions) {
		this.gate = new Gate(opts.stepping ? 'stepping' : 'running');
		this.now = opts.now ?? (() => new Date());
		const run = opts.store.data.run;
		this.abort = cancelAll();
		this.calls = new CallRunner({
			provider: opts.provider,
			// A call is logged only once the plan it was made for is saved, so a kill between the two
			// never leaves a logged call whose node the session does not hold.
			log: {
				appendCall: (record) => this.written().then(() => opts.store.appendCall(record)),
				calls: () => opts.store.calls(),
			},
			costOf: opts.costOf,
			concurrency: run.config.concurrency,
			...(opts.queue ? { queue: opts.queue } : {}),
			...(opts.batch ? { batch: opts.batch } : {}),
			gate: this.gate,
			totals: totalsOf(run, opts.costOf),
			// A call that ends gives its place to the next ready node while it writes its result.
			onPlaceFree: () => this.wake(),
			now: this.now,
		});
	}

	/** Lets go of a shared call queue (see `EngineOptions.queue`) once the engine is done with. */
	dispose(): void {
		this.calls.detach();
	}

	/** Usage and calls of the run so far, this process's and the saved run's. */
	get totals(): Totals {
		return this.calls.totals;
	}

	get run(): Run {
		return this.opts.store.data.run;
	}

	on(listener: EngineListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	pause(): void {
		this.gate.pause();
		this.emit({ type: 'run-paused' });
	}

	resume(): void {
		this.gate.resume();
		this.emit({ type: 'run-resumed', stepping: false });
	}

	step(): void {
		this.gate.step();
		this.emit({ type: 'run-resumed', stepping: true });
	}

	/** Cancels calls in flight; `start()` then saves and returns 'cancelled'. */
	cancel(): void {
		this.abort.abort();
		this.wake();
	}

	/** Calls the run is expected to make in all, for progress and ETA (see `expectedCalls`). */
	plannedCalls(): number {
		return expectedCalls(this.opts.planner, this.run, this.opts.ctx, this.totals.calls);
	}

	/** What the events say of the run's size: the calls expected, and the nodes expected per level (see `Planner.expectedNodes`). */
	private expected(): { planned: number; levels: number[] } {
		return { planned: this.plannedCalls(), levels: this.opts.planner.expectedNodes(this.run, this.opts.ctx) };
	}

	/**
	 * Saves `text` as a new version of `id` (origin 'edit') and makes it the active one. Everything
	 * that reads it goes stale and the plan after it is checked again. Resolves the nodes now stale.
	 */
	async edit(id: NodeRef, text: string): Promise<NodeRef[]> {
		const node = changeable(this.run, id, 'edit', this.inFlight.has(id));
		if (text.trim() === '')
			throw new Error(`the text of node ${id} cannot be empty; to make it again from its inputs, re-run it`);
		const current = activeVersion(node);
		if (node.status === 'done' && current?.text === text) return [];
		const versions = [...node.versions, editVersion(text, this.now())];
		const active = versions.length - 1;
		// Attempts of an unfinished call are void: the person's text replaces what they would make.
		return this.changed(id, false, { type: 'node-edited', node: id, version: active }, (store) =>
			store.updateNode(id, { ...moved(node, 'done'), versions, active, pending: [], error: undefined }),
		);
	}

	/**
	 * Marks `id` to be made again from the same inputs on the next `start()` (a new version; the old
	 * ones are kept); what reads it goes stale too. Resolves the nodes now stale, `id` first.
	 */
	async rerun(id: NodeRef): Promise<NodeRef[]> {
		const node = changeable(this.run, id, 'rerun', this.inFlight.has(id));
		// A node that never ran is made anyway.
		if (node.status === 'pending') return [];
		return this.changed(id, true, null);
	}

	/**
	 * Makes version `version` of `id` the active one (a person's choice, so the node counts as done);
	 * what reads it goes stale. A no-op when that version is already active.
	 */
	async setActive(id: NodeRef, version: number): Promise<NodeRef[]> {
		const node = changeable(this.run, id, 'setActive', this.inFlight.has(id));
		if (!Number.isInteger(version) || version < 0 || version >= node.versions.length) {
			throw new Error(
				`${id} has no version ${version}; it has ${node.versions.length === 0 ? 'none yet' : `versions 0 to ${node.versions.length - 1}`}`,
			);
		}
		if (node.active === version) return [];
		return this.changed(id, false, { type: 'node-active', node: id, version }, (store) =>
			store.updateNode(id, { ...moved(node, 'done'), active: version, pending: [], error: undefined }),
		);
	}

	/**
	 * Marks every node that reads `id` (directly or not) stale, so the next `start()` makes new
	 * versions of them from the changed text, keeping the plan as it is: for a caller that changed
	 * the text itself and wants exactly its readers made again. `edit`, `rerun` and `setActive`
	 * also re-plan what follows (a changed length can change how later merges are grouped).
	 */
	async markStale(id: NodeRef): Promise<NodeRef[]> {
		return this.changed(id, false, null, undefined, false);
	}

	/**
	 * The text of `id` changed (or will, with `self`): makes the change itself (`change`), stales its
	 * readers and re-plans what can be re-planned now (the rest is checked as the run gets there),
	 * all as one durable write, waits for it, and reports.
	 */
	private async changed(
		id: NodeRef,
		self: boolean,
		event: EngineEvent | null,
		change?: (store: RunWriter) => void,
		replan = true,
	): Promise<NodeRef[]> {
		const writes: Promise<void>[] = [];
		const store = this.writer(writes);
		let stale: NodeRef[] = [];
		let applied: Applied = { added: [], superseded: [], stale: [] };
		// One write: a kill between the text changed and its readers staled would leave them done
		// from the old text, and the run would end without making them again.
		const made = this.opts.store.together(() => {
			change?.(store);
			stale = invalidate(this.run, this.opts.planner, store, id, self, replan).map((n) => n.id);
			try {
				applied = this.replan(store);
			} catch (error) {
				// A plan that cannot be made (a level that does not shrink) is reported by the next start().
				if (!(error instanceof PlanError)) throw error;
			}
		});
		writes.push(made);
		const now = [...new Set([...stale, ...applied.stale])].filter(
			(ref) => getNode(this.run, ref).status === 'stale',
		);
		this.stopInvalidated(now);
		await Promise.all(writes);
		if (event) this.emit(event);
		this.report({ ...applied, stale: now });
		this.wake();
		return now;
	}

	/** Asks the planner for changes until the plan holds, applying each through `store`. Throws PlanError. */
	private replan(store: RunWriter): Applied {
		const { planner, ctx } = this.opts;
		const total: Applied = { added: [], superseded: [], stale: [] };
		for (let round = 0; ; round++) {
			const update = planner.reconcile(this.run, ctx);
			if (isEmptyUpdate(update)) break;
			if (round > 4 * this.run.nodes.length + 100) throw new Error('internal: the re-plan does not settle');
			const applied = applyPlan(this.run, planner, store, update);
			total.added.push(...applied.added);
			total.superseded.push(...applied.superseded);
			total.stale.push(...applied.stale);
		}
		total.stale = total.stale.filter((ref) => getNode(this.run, ref).status === 'stale');
		this.stopInvalidated([...total.stale, ...total.superseded]);
		return total;
	}

	/**
	 * Nodes in flight that went stale or were superseded are stopped: a held call never starts and
	 * a call in progress is aborted, so nothing is made from the old input (see `runNode`).
	 */
	private stopInvalidated(ids: NodeRef[]): void {
		for (const id of ids) this.nodeAborts.get(id)?.abort();
	}

	private report(applied: Applied): void {
		if (applied.superseded.length > 0) this.emit({ type: 'node-superseded', nodes: applied.superseded });
		if (applied.added.length > 0) {
			this.emit({
				type: 'node-planned',
				nodes: applied.added.map((n) => ({
					id: n.id,
					kind: n.kind,
					level: n.level,
					index: n.index,
					inputs: n.inputs,
				})),
				...this.expected(),
			});
		}
		if (applied.stale.length > 0) this.emit({ type: 'node-stale', nodes: applied.stale, ...this.expected() });
	}

	/**
	 * Runs what is left of the plan: after a crash, a cancel or a failure, and after `done` too (the
	 * stale nodes an edit left). A second call while running returns the same promise.
	 */
	start(): Promise<RunStatus> {
		this.running ??= this.runPlan().finally(() => {
			this.running = null;
		});
		return this.running;
	}

	private async runPlan(): Promise<RunStatus> {
		const { store, provider } = this.opts;
		const run = this.run;
		if (this.abort.signal.aborted) this.abort = cancelAll();
		this.failure = null;
		// A killed process leaves nodes running; a failed run leaves nodes failed. Both run again,
		// keeping the attempts they had finished.
		await Promise.all(
			run.nodes
				.filter((n) => n.status === 'running' || n.status === 'failed')
				.map((n) => store.updateNode(n.id, moved(n, 'pending'))),
		);
		// Logged answers no node holds are kept spare too: a node planned again after the journal was
		// lost makes the calls already answered, under whatever id it has now. What is taken back is
		// written as it is taken, after the call log's one read.
		const taken: Promise<void>[] = [];
		await this.calls.recover(
			run.nodes.map((node) => this.recoverable(node, taken)),
			heldAnswers(run),
		);
		await Promise.all([...taken, store.updateRun({ status: 'running', error: null })]);
		this.emit({
			type: 'run-started',
			session: store.id,
			method: run.config.method,
			provider: provider.name,
			model: provider.model,
			isLLM: provider.isLLM,
			...this.expected(),
			done: this.totals.calls,
		});
		const unheard = provider.limiter?.subscribe((state) => this.emit({ type: 'rate-limit', ...state }));
		try {
			for (;;) {
				if (this.abort.signal.aborted || this.writeError !== null) break;
				// Nodes ready but no call place free: with a queue shared with other engines, theirs
				// may hold every place while this run has nothing in flight; a freed place wakes it.
				let starved = false;
				if (this.failure === null) {
					const replanned: Promise<void>[] = [];
					let applied: Applied = { added: [], superseded: [], stale: [] };
					// A plan changed in one write, as an edit's (see `changed`).
					replanned.push(
						this.opts.store.together(() => {
							applied = this.replan(this.writer(replanned));
						}),
					);
					this.saveInBackground(replanned);
					if (applied.added.length > 0 || applied.superseded.length > 0 || applied.stale.length > 0) {
						this.report(applied);
						continue;
					}
					const root = this.inFlight.size === 0 ? this.opts.planner.root(run, this.opts.ctx) : null;
					if (root) {
						this.saveInBackground([store.updateRun({ root })]);
						break;
					}
					starved = this.launchReady();
				}
				if (this.inFlight.size === 0 && !starved) {
					this.failure ??= 'internal: the plan has nothing left to run but no final summary';
					break;
				}
				const woken = new Promise<void>((resolve) => {
					this.wake = resolve;
				});
				await Promise.race([...this.inFlight.values(), woken]);
			}
		} catch (error) {
			if (!(error instanceof PlanError)) throw error;
			this.failure = error.message;
		} finally {
			unheard?.();
		}
		await Promise.allSettled(this.inFlight.values());
		await this.written();
		// The disk refused a write: the run stops there, and the caller says how to continue.
		if (this.writeError !== null) throw this.writeError;
		const status = this.abort.signal.aborted ? 'cancelled' : this.failure !== null ? 'failed' : 'done';
		await store.updateRun({ status, error: status === 'failed' ? this.failure : null });
		this.emit({
			type: 'run-finished',
			status: run.status,
			root: run.root,
			error: run.error,
			totals: { ...this.totals },
		});
		return run.status;
	}

	/**
	 * What `node` takes back of the calls logged but not saved (a process killed between the two):
	 * answers for its current version that are exactly the calls it would make now, and failed
	 * attempts it has not kept (they were billed all the same).
	 */
	private recoverable(node: Node, writes: Promise<void>[]): Recoverable {
		const { planner, ctx, store } = this.opts;
		return {
			id: node.id,
			next: () =>
				node.status === 'done' || node.status === 'superseded'
					? null
					: { version: node.versions.length, attempt: node.pending.length },
			matches: (call) => this.isCurrentCall(node, call),
			take: (call) => {
				const attempt: Attempt = {
					text: call.response,
					finishReason: call.finishReason,
					params: call.params,
					usage: call.usage,
					cost: call.cost,
					timings: call.timings,
				};
				if (call.batch !== undefined) attempt.batch = call.batch;
				const rejected = planner.judge(this.run, node, call.response, ctx);
				if (rejected) attempt.rejected = rejected;
				writes.push(store.updateNode(node.id, { pending: [...node.pending, attempt] }));
			},
			takeFailed: (call) => {
				const failed = node.failed ?? [];
				if (failed.some((f) => f.timings.start === call.timings.start && f.reason === call.error))
					return false;
				const taken = { reason: call.error ?? '', usage: call.usage, cost: call.cost, timings: call.timings };
				writes.push(store.updateNode(node.id, { failed: [...failed, taken] }));
				return true;
			},
		};
	}

	/**
	 * Whether a logged call is the one `node` would make now. Attempts dropped because the node's
	 * inputs changed under it stay in the log with the same version and attempt numbers as the calls
	 * made again after the change, so the numbers alone could take back a call made from old text.
	 */
	private isCurrentCall(node: Node, call: CallRecord): boolean {
		if (!dependencies(node).every((ref) => isDone(getNode(this.run, ref)))) return false;
		try {
			return this.opts.planner.call(this.run, node, this.opts.ctx, call.attempt).prompt === call.prompt;
		} catch {
			return false;
		}
	}

	/**
	 * Starts ready nodes into the call places left free, higher levels first: a hierarchical run's
	 * merges form chains (each reads the one before it), so they set the pace while the summaries
	 * below them, all independent, fill the remaining places. Which node starts first changes no
	 * prompt. A node writing its result holds no place, so the next call starts meanwhile. Nodes whose
	 * calls go in a provider batch need no place: all of them start at once. True when nodes are
	 * ready but no place is free.
	 */
	private launchReady(): boolean {
		const free = this.calls.idlePlaces;
		const isLaunchable = (node: Node) => !this.inFlight.has(node.id) && isReady(this.run, node);
		const ready = this.run.nodes.filter(isLaunchable);
		// Batched calls hold no place: every one ready starts now, to go out in one batch.
		const batched = ready.filter((node) => this.batched(node));
		const live = ready.filter((node) => !this.batched(node));
		for (const node of batched) this.launch(node);
		// With nothing of its own in flight, only a freed place would wake the run.
		if (free === 0) return this.inFlight.size === 0 && live.length > 0;
		live.sort((a, b) => b.level - a.level);
		// Each node takes its place as it starts (before runNode first awaits), so `free` holds.
		for (const node of live.slice(0, free)) this.launch(node);
		return false;
	}

	private launch(node: Node): void {
		const job = this.runNode(node).finally(() => this.inFlight.delete(node.id));
		this.inFlight.set(node.id, job);
	}

	/** Whether `node`'s calls go in the provider batch. */
	private batched(node: Node): boolean {
		return this.opts.batch !== undefined && goesInBatch(this.run.config.method, node);
	}

	/**
	 * Makes one version of `node`. If the node goes stale or is superseded while it is in flight (a
	 * person changed an input, possibly while the run is paused), it is cancelled and requeued rather
	 * than left to finish: a call held at the gate never starts, a call in progress is aborted, and
	 * attempts already made from the old input are dropped (they stay in the call log). Each await is
	 * followed by a check, so no version is made from an input that changed during it. The version
	 * is saved in the background: what reads it may start at once.
	 */
	private async runNode(node: Node): Promise<void> {
		const { store, planner, ctx, provider } = this.opts;
		const run = this.run;
		const stop = new AbortController();
		this.nodeAborts.set(node.id, stop);
		const signal = AbortSignal.any([this.abort.signal, stop.signal]);
		this.saveInBackground([store.updateNode(node.id, { ...moved(node, 'running'), error: undefined })]);
		const max = planner.maxAttempts(node);
		let accepted: Attempt | null = node.pending.find((a) => !a.rejected) ?? null;
		let settled = node.pending.some((a) => a.rejected && !planner.regenerates(node, a.rejected));
		try {
			for (let attempt = node.pending.length; attempt < max && !accepted && !settled; attempt++) {
				const made = await this.calls.call({
					owner: node.id,
					version: node.versions.length,
					attempt,
					signal,
					batched: this.batched(node),
					// Built once the call is let through, from the inputs as they are then.
					build: () => planner.call(run, node, ctx, attempt),
					onStart: () =>
						this.emit({
							type: 'node-started',
							node: node.id,
							kind: node.kind,
							level: node.level,
							index: node.index,
							attempt,
						}),
					onDelta: (text) => this.emit({ type: 'delta', node: node.id, attempt, text }),
					onStreamRetry: (reason) => this.emit({ type: 'retry', node: node.id, attempt, reason }),
					onUsage: (billed) => {
						// A failed attempt is kept with the node; its text is in the log only.
						if (billed.failed !== undefined) {
							const failed = {
								reason: billed.failed,
								usage: billed.usage,
								cost: billed.cost,
								timings: billed.timings,
							};
							this.saveInBackground([
								store.updateNode(node.id, { failed: [...(node.failed ?? []), failed] }),
							]);
						}
						this.emit({ type: 'usage', node: node.id, ...usageReport(billed) });
					},
					commit: async ({ spec, result, cost, timings, batch }) => {
						const record: Attempt = {
							text: result.text,
							finishReason: result.finishReason,
							params: spec.params,
							usage: result.usage,
							cost,
							timings,
						};
						if (batch !== undefined) record.batch = batch;
						const rejected = planner.judge(run, node, result.text, ctx);
						if (rejected) record.rejected = rejected;
						// The call log already holds it; the run goes on while this is written.
						this.saveInBackground([store.updateNode(node.id, { pending: [...node.pending, record] })]);
						return record;
					},
				});
				signal.throwIfAborted();
				if (!made) throw new Error('internal: a node call was not made');
				if (!made.rejected) accepted = made;
				else if (!planner.regenerates(node, made.rejected)) settled = true;
				else if (attempt + 1 < max)
					this.emit({ type: 'retry', node: node.id, attempt: attempt + 1, reason: made.rejected });
			}
			const keep =
				accepted ?? bestAttempt(node.pending, (text) => tokensOf(ctx, text), node.budget.summaryTokens);
			if (!keep)
				throw new Error(
					`no usable text after ${counted(node.pending.length, 'call')} (${node.pending.at(-1)?.rejected ?? 'no output'})`,
				);
			const version = versionOf(
				keep,
				node.pending,
				keep !== accepted,
				`${provider.name}/${provider.model}`,
				this.now(),
			);
			this.saveInBackground([
				store.updateNode(node.id, {
					...moved(node, 'done'),
					versions: [...node.versions, version],
					active: node.versions.length,
					pending: [],
				}),
			]);
			const tokens = versionTokens(ctx, version);
			this.emit({
				type: 'node-finished',
				node: node.id,
				kind: node.kind,
				level: node.level,
				index: node.index,
				words: countWords(version.text),
				tokens,
				attempts: version.attempts.length,
				overBudget: version.overBudget,
			});
		} catch (error) {
			if (stop.signal.aborted) {
				// Stale or superseded under it: the status says which; what it made is void.
				await store.updateNode(node.id, { pending: [] });
				return;
			}
			if (isAbortError(error) || this.abort.signal.aborted) {
				await store.updateNode(node.id, moved(node, 'pending'));
				return;
			}
			const message =
				error instanceof ProviderError || error instanceof PlanError ? error.message : errorMessage(error);
			this.failure ??= `${nodeName(node, this.run.config.method, this.run.chunks.length)}: ${message}`;
			await store.updateNode(node.id, { ...moved(node, 'failed'), error: message });
			this.emit({ type: 'node-failed', node: node.id, error: message });
		} finally {
			this.nodeAborts.delete(node.id);
		}
	}

	/** The session's operations for one change, each write kept in `writes` for the change to wait for. */
	private writer(writes: Promise<void>[]): RunWriter {
		const { store } = this.opts;
		return {
			updateNode: (id, patch) => writes.push(store.updateNode(id, patch)),
			addNodes: (...nodes) => writes.push(store.addNodes(...nodes)),
			updateRun: (patch) => writes.push(store.updateRun(patch)),
		};
	}

	/**
	 * Waits for `writes` without holding up the run: the next call starts while this one writes. The
	 * session writes in the order they are asked for; a write that fails stops the run (see runPlan)
	 * and cancels the calls in flight, whose answers could not be kept, so the user hears of it at once.
	 */
	private saveInBackground(writes: Promise<void>[]): void {
		if (writes.length === 0) return;
		const write = Promise.all(writes).then(
			() => {},
			(error: unknown) => {
				this.writeError ??= error;
				this.abort.abort();
				this.wake();
			},
		);
		this.writes.add(write);
		void write.finally(() => this.writes.delete(write));
	}

	/** Resolves once every background save asked for so far is written (or failed). */
	private async written(): Promise<void> {
		await Promise.all(this.writes);
	}

	private emit(event: EngineEvent): void {
		for (const listener of this.listeners) listener(event);
	}
}

/** Every answer the run holds: the attempts of its versions and of the calls in progress, superseded nodes' too. */
function heldAnswers(run: Run): HeldAnswer[] {
	return run.nodes.flatMap((node) => [...node.versions.flatMap((v) => v.attempts), ...node.pending]);
}

function versionOf(
	keep: Attempt,
	attempts: Attempt[],
	overBudget: boolean,
	model: string,
	now: Date,
): Version {
	const usage = { input: 0, output: 0, cached: 0 };
	let cost = 0;
	for (const a of attempts) {
		usage.input += a.usage.input;
		usage.output += a.usage.output;
		usage.cached += a.usage.cached;
		cost += a.cost;
	}
	const first = attempts[0]!.timings;
	const last = attempts[attempts.length - 1]!.timings;
	return {
		text: keep.text,
		origin: 'model',
		template: keep.params.template,
		params: keep.params,
		usage,
		cost,
		attempts: [...attempts],
		timings: { start: first.start, end: last.end, ms: Date.parse(last.end) - Date.parse(first.start) },
		overBudget,
		model,
		createdAt: now.toISOString(),
	};
}
