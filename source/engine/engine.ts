import type { Attempt, Node, NodeRef, Run, RunStatus, Usage, Version } from '../domain.ts';
import { errorMessage } from '../errors.ts';
import { ProviderError, type Provider } from '../llm/provider.ts';
import { PlanError } from '../summarize/budget.ts';
import { callsMade, dependents, isReady } from '../summarize/graph.ts';
import type { PlanContext, Planner } from '../summarize/planner.ts';
import { bestAttempt } from '../summarize/validity.ts';
import { countWords } from '../text/tokens.ts';
import type { CallRecord } from '../store/schema.ts';
import type { EngineEvent, EngineListener, Totals } from './events.ts';
import { Gate, isAbortError } from './gate.ts';

/** What the engine needs of a session: its run, and durable writes. */
export interface RunStore {
	readonly id: string;
	readonly data: { run: Run };
	save(): Promise<void>;
	appendCall(record: CallRecord): Promise<void>;
	/** The call log as written so far. */
	calls(): Promise<CallRecord[]>;
}


export interface EngineOptions {
	store: RunStore;
	provider: Provider;
	planner: Planner;
	ctx: PlanContext;
	costOf: (usage: Usage) => number;
	/** Start holding calls until `step()` or `resume()`. */
	stepping?: boolean;
	now?: () => Date;
}

/**
 * Runs a plan: asks the planner for nodes as their inputs finish, runs ready nodes concurrently up
 * to the run's concurrency, makes each node's calls (regenerating while the planner rejects the
 * output), writes the session after every finished call, and reports everything as events.
 */
export class Engine {
	readonly gate: Gate;
	private readonly listeners = new Set<EngineListener>();
	private readonly abort = new AbortController();
	private readonly inFlight = new Map<NodeRef, Promise<void>>();
	private readonly requests = new WeakMap<object, { node: NodeRef; attempt: number }>();
	private failure: string | null = null;
	private readonly now: () => Date;
	readonly totals: Totals;

	constructor(private readonly opts: EngineOptions) {
		this.gate = new Gate(opts.stepping ? 'stepping' : 'running');
		this.now = opts.now ?? (() => new Date());
		this.totals = totalsOf(opts.store.data.run);
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
	}

	/** The provider is retrying a broken stream of `request`: what streamed of it so far is void. */
	streamRetried(reason: string, request: object): void {
		const call = this.requests.get(request);
		if (call) this.emit({ type: 'retry', node: call.node, attempt: call.attempt, reason: `stream ${reason}` });
	}

	/** Calls the run is expected to make in all, for progress and ETA. */
	plannedCalls(): number {
		return Math.max(this.opts.planner.estimateCalls(this.run, this.opts.ctx), callsMade(this.run));
	}

	/**
	 * Marks every node that reads `id` (directly or not) stale, so the next `start()` makes new
	 * versions of them from the changed text.
	 */
	async markStale(id: NodeRef): Promise<NodeRef[]> {
		const stale = dependents(this.run, id).filter((n) => n.status !== 'pending');
		for (const n of stale) n.status = 'stale';
		if (stale.length > 0) {
			this.run.root = null;
			await this.opts.store.save();
			this.emit({ type: 'node-stale', nodes: stale.map((n) => n.id) });
		}
		return stale.map((n) => n.id);
	}

	async start(): Promise<RunStatus> {
		const { store, planner, ctx, provider } = this.opts;
		const run = this.run;
		// A killed process leaves nodes running; a failed run leaves nodes failed. Both run again,
		// keeping the attempts they had finished.
		for (const n of run.nodes) if (n.status === 'running' || n.status === 'failed') n.status = 'pending';
		this.recoverLoggedCalls(await store.calls());
		run.status = 'running';
		run.error = null;
		await store.save();
		this.emit({ type: 'run-started', session: store.id, method: run.config.method, provider: provider.name, model: provider.model, isLLM: provider.isLLM, planned: this.plannedCalls(), done: callsMade(run) });
		try {
			for (;;) {
				if (this.abort.signal.aborted) break;
				if (this.failure === null) {
					const added = planner.expand(run, ctx);
					if (added.length > 0) {
						run.nodes.push(...added);
						await store.save();
						this.emit({ type: 'node-planned', nodes: added.map((n) => ({ id: n.id, kind: n.kind, level: n.level, index: n.index, inputs: n.inputs })), planned: this.plannedCalls() });
					}
					const root = this.inFlight.size === 0 ? planner.root(run, ctx) : null;
					if (root) {
						run.root = root;
						break;
					}
					this.launchReady();
				}
				if (this.inFlight.size === 0) {
					this.failure ??= 'internal: the plan has nothing left to run but no final summary';
					break;
				}
				await Promise.race(this.inFlight.values());
			}
		} catch (error) {
			if (!(error instanceof PlanError)) throw error;
			this.failure = error.message;
		}
		await Promise.allSettled(this.inFlight.values());
		run.status = this.abort.signal.aborted ? 'cancelled' : this.failure !== null ? 'failed' : 'done';
		run.error = run.status === 'failed' ? this.failure : null;
		await store.save();
		this.emit({ type: 'run-finished', status: run.status, root: run.root, error: run.error, totals: { ...this.totals } });
		return run.status;
	}

	/**
	 * The call log is written before the session, so a process killed between the two leaves calls
	 * the session does not know of. They are taken back from the log rather than made again.
	 */
	private recoverLoggedCalls(calls: CallRecord[]): void {
		const { planner, ctx } = this.opts;
		for (const call of calls) {
			const node = this.run.nodes.find((n) => n.id === call.node);
			if (!node || node.status === 'done' || call.version !== node.versions.length || call.attempt !== node.pending.length) continue;
			const attempt: Attempt = { text: call.response, finishReason: call.finishReason, params: call.params, usage: call.usage, cost: call.cost, timings: call.timings };
			const rejected = planner.judge(this.run, node, call.response, ctx);
			if (rejected) attempt.rejected = rejected;
			node.pending.push(attempt);
			this.count(call.usage, call.cost);
		}
	}

	private launchReady(): void {
		const limit = Math.max(1, this.run.config.concurrency);
		for (const node of this.run.nodes) {
			if (this.inFlight.size >= limit) return;
			if (this.inFlight.has(node.id)) continue;
			if (node.status === 'stale') node.status = 'pending';
			if (!isReady(this.run, node)) continue;
			const job = this.runNode(node).finally(() => this.inFlight.delete(node.id));
			this.inFlight.set(node.id, job);
		}
	}

	private async runNode(node: Node): Promise<void> {
		const { store, planner, ctx, provider, costOf } = this.opts;
		const run = this.run;
		node.status = 'running';
		delete node.error;
		const max = planner.maxAttempts(node);
		let accepted: Attempt | null = node.pending.find((a) => !a.rejected) ?? null;
		let settled = node.pending.some((a) => a.rejected && !planner.regenerates(node, a.rejected));
		try {
			for (let attempt = node.pending.length; attempt < max && !accepted && !settled; attempt++) {
				const spec = planner.call(run, node, ctx, attempt);
				await this.gate.pass(this.abort.signal);
				this.emit({ type: 'node-started', node: node.id, kind: node.kind, level: node.level, index: node.index, attempt });
				const start = this.now();
				const request = {
					prompt: spec.prompt,
					task: spec.task,
					maxTokens: spec.params.maxTokens,
					temperature: spec.params.temperature,
					signal: this.abort.signal,
					onDelta: (text: string) => this.emit({ type: 'delta', node: node.id, attempt, text }),
				};
				this.requests.set(request, { node: node.id, attempt });
				const result = await provider.complete(request);
				const end = this.now();
				const rejected = planner.judge(run, node, result.text, ctx);
				const cost = costOf(result.usage);
				const timings = { start: start.toISOString(), end: end.toISOString(), ms: end.getTime() - start.getTime() };
				const record: Attempt = { text: result.text, finishReason: result.finishReason, params: spec.params, usage: result.usage, cost, timings };
				if (rejected) record.rejected = rejected;
				node.pending.push(record);
				this.count(result.usage, cost);
				const totals = { ...this.totals };
				await store.appendCall({ node: node.id, version: node.versions.length, attempt, provider: provider.name, model: provider.model, prompt: spec.prompt, response: result.text, finishReason: result.finishReason, params: spec.params, usage: result.usage, cost, timings });
				await store.save();
				this.emit({ type: 'usage', node: node.id, usage: result.usage, cost, totals });
				if (!rejected) accepted = record;
				else if (!planner.regenerates(node, rejected)) settled = true;
				else if (attempt + 1 < max) this.emit({ type: 'retry', node: node.id, attempt: attempt + 1, reason: rejected });
			}
			const keep = accepted ?? bestAttempt(node.pending, ctx.tokens, node.budget.summaryTokens);
			if (!keep) throw new Error(`no usable text after ${node.pending.length} calls (${node.pending.at(-1)?.rejected ?? 'no output'})`);
			const version = versionOf(keep, node.pending, keep !== accepted, `${provider.name}/${provider.model}`, this.now());
			node.versions.push(version);
			node.active = node.versions.length - 1;
			node.pending = [];
			node.status = 'done';
			await store.save();
			const tokens = ctx.tokens(version.text);
			this.emit({ type: 'node-finished', node: node.id, kind: node.kind, level: node.level, index: node.index, words: countWords(version.text), tokens, attempts: version.attempts.length, overBudget: version.overBudget });
		} catch (error) {
			if (isAbortError(error) || this.abort.signal.aborted) {
				node.status = 'pending';
				await store.save();
				return;
			}
			const message = error instanceof ProviderError || error instanceof PlanError ? error.message : errorMessage(error);
			node.status = 'failed';
			node.error = message;
			this.failure ??= `${node.id} (${node.kind}, level ${node.level}, #${node.index}): ${message}`;
			await store.save();
			this.emit({ type: 'node-failed', node: node.id, error: message });
		}
	}

	private count(usage: Usage, cost: number): void {
		this.totals.input += usage.input;
		this.totals.output += usage.output;
		this.totals.cached += usage.cached;
		this.totals.cost += cost;
		this.totals.calls += 1;
	}

	private emit(event: EngineEvent): void {
		for (const listener of this.listeners) listener(event);
	}
}

function versionOf(keep: Attempt, attempts: Attempt[], overBudget: boolean, model: string, now: Date): Version {
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

/** Usage and calls recorded in a run so far (a resumed run continues counting from here). */
export function totalsOf(run: Run): Totals {
	const totals: Totals = { input: 0, output: 0, cached: 0, cost: 0, calls: 0 };
	for (const node of run.nodes) {
		const attempts = [...node.pending, ...node.versions.flatMap((v) => v.attempts)];
		for (const a of attempts) {
			totals.input += a.usage.input;
			totals.output += a.usage.output;
			totals.cached += a.usage.cached;
			totals.cost += a.cost;
			totals.calls += 1;
		}
	}
	return totals;
}

