import { setMaxListeners } from 'node:events';
import type { Timings, Usage } from '../domain.ts';
import type { BatchLane } from '../llm/batcher.ts';
import { abortError } from '../llm/abort.ts';
import type { CallRequest, CallResult, FailedAttempt, Provider } from '../llm/provider.ts';
import type { CallRecord } from '../store/schema.ts';
import type { CallSpec } from '../summarize/planner.ts';
import PQueue from 'p-queue';
import { CacheWarmup, type Warming } from './cache-warmup.ts';
import { addToTotals, atBatchPrice, cacheSaving, emptyTotals, type Totals } from '../summarize/totals.ts';
import type { UsageReport } from './events.ts';
import type { Gate } from './gate.ts';

/** The call log: written before the session, read back after a kill. */
export interface CallLogStore {
	appendCall(record: CallRecord): Promise<void>;
	/** The call log as written so far. */
	calls(): Promise<CallRecord[]>;
}

export interface CallRunnerOptions {
	provider: Provider;
	log: CallLogStore;
	costOf: (usage: Usage) => number;
	/** Most calls in progress at once (ignored with `queue`: the shared queue's limit holds). */
	concurrency: number;
	/**
	 * A queue shared with other runners (a study's cells), so one limit holds for calls in flight
	 * across all of them; none: the runner makes its own of `concurrency` places.
	 */
	queue?: PQueue;
	/** Holds calls while paused or stepping (the engine's); none: calls start when they have a place. */
	gate?: Gate;
	/** What earlier sessions of this work already cost (a resumed run); default nothing. */
	totals?: Totals;
	/** A place was given back: a caller that launches work as places free up may launch more. */
	onPlaceFree?: () => void;
	/** Where the calls marked `batched` go (a provider batch API); none: every call is streamed. */
	batch?: BatchLane;
	now?: () => Date;
}

/** A call once made, billed and logged: what its owner takes into the session. */
export interface Made {
	spec: CallSpec;
	result: CallResult;
	cost: number;
	timings: Timings;
	/** The provider batch that answered it, when one did. */
	batch?: string;
}

/** A billed attempt, as the owner's `usage` event reports it, with its timings. */
export interface Billed extends UsageReport {
	timings: Timings;
}

/** One model call, as its owner (an engine node, an annotation unit) describes it; `commit` resolves T. */
export interface CallJob<T> {
	/** The owner's id, written to the log as the record's `node`. */
	owner: string;
	/** The owner's version and attempt numbers this call is for. */
	version: number;
	attempt: number;
	signal: AbortSignal;
	/** The leading part of the prompt shared with other calls (see CacheWarmup). */
	cacheablePrefix?: string;
	/** Send it in a provider batch when the runner has one (see `callInBatch`). */
	batched?: boolean;
	/** Builds the call once it is let through, from the inputs as they are then; null: it is not made. */
	build(): CallSpec | null;
	/** The call is going to the provider. */
	onStart?(spec: CallSpec): void;
	onDelta?(text: string): void;
	/** The provider is retrying the call (a broken stream, an error response): what streamed of it so far is void. */
	onStreamRetry?(reason: string): void;
	/** The call failed; called before its place goes to the next waiting call. */
	onError?(error: unknown): void;
	/** Each billed attempt: failed ones as they end, the call's own once `commit` has saved it. */
	onUsage(billed: Billed): void;
	/** Takes the call's answer into the session and saves it; runs after the call is logged. */
	commit(made: Made): Promise<T>;
}

/** An answer a session holds (a kept attempt): the log's record of it has the same text and timings. */
export interface HeldAnswer {
	text: string;
	timings: Timings;
}

/** Something that makes calls and may take back calls a killed process logged but never saved. */
export interface Recoverable {
	/** Its id in the log (the records' `node`). */
	readonly id: string;
	/** The version and attempt numbers of the call it would make next; null when it makes none. */
	next(): { version: number; attempt: number } | null;
	/** Whether a logged answer with the right numbers is the call it would make now. */
	matches(call: CallRecord): boolean;
	/** Takes a logged answer back, as if the call had just been made. */
	take(call: CallRecord): void;
	/** Takes back a logged attempt that failed; false when it already has it (it is then not billed again). */
	takeFailed?(call: CallRecord): boolean;
}

/**
 * Everything a model call needs around it, for runs and for scoring alike: a place among
 * `concurrency` (held until the call is answered and logged, not while its owner saves it), the
 * pause/step gate, the prompt-cache warm-up, the request with its signal and callbacks, timing,
 * billing and totals, the call log (written before the owner saves the session, failed attempts
 * too), the provider's stream retries, and taking back calls logged but never saved.
 */
export class CallRunner {
	readonly totals: Totals;
	private readonly queue: PQueue;
	private readonly warmup = new CacheWarmup();
	private readonly jobs = new WeakMap<object, CallJob<unknown>>();
	private readonly now: () => Date;
	/** Logged answers no one holds, by what they answer (see `recover`); each is taken once. */
	private spares = new Map<string, CallRecord[]>();
	private readonly unsubscribe: () => void;

	constructor(private readonly opts: CallRunnerOptions) {
		this.unsubscribe =
			opts.provider.onRetry?.((reason, request) => this.streamRetried(reason, request)) ?? (() => {});
		this.queue = opts.queue ?? new PQueue({ concurrency: Math.max(1, opts.concurrency) });
		if (opts.onPlaceFree) this.queue.on('next', opts.onPlaceFree);
		this.totals = opts.totals ? { ...opts.totals } : emptyTotals();
		this.now = opts.now ?? (() => new Date());
	}

	/** Places free for a call launched now without waiting. */
	get idlePlaces(): number {
		return Math.max(0, this.queue.concurrency - this.queue.pending - this.queue.size);
	}

	/**
	 * Stops hearing of freed places and of the provider's retries: a shared queue, or a provider,
	 * outlives the runner and would keep calling it.
	 */
	detach(): void {
		if (this.opts.onPlaceFree) this.queue.off('next', this.opts.onPlaceFree);
		this.unsubscribe();
	}

	/** The provider is retrying `request` (it tells the runner so through its `onRetry` subscription). */
	streamRetried(reason: string, request: object): void {
		this.jobs.get(request)?.onStreamRetry?.(reason);
	}

	/**
	 * Makes one call: waits for a warm cache (calls with a cacheable prefix), a place and the gate,
	 * builds it, calls the provider, logs and bills it, gives its place up, lets the owner commit it
	 * (the next call starts meanwhile), then reports its usage. Resolves what `commit` did, or null
	 * when `build` declined; rejects with the provider's error or an AbortError.
	 */
	async call<T>(job: CallJob<T>): Promise<T | null> {
		if (job.batched && this.opts.batch) return this.callInBatch(job, this.opts.batch);
		const warming =
			job.cacheablePrefix && this.opts.provider.isLLM
				? await this.warmup.enter(job.cacheablePrefix, job.signal)
				: null;
		try {
			const answered = await this.inPlace(job.signal, () => this.answer(job, warming));
			if (answered === null) return null;
			const { made, billed } = answered;
			const committed = await job.commit(made);
			job.onUsage({ ...billed, timings: made.timings });
			return committed;
		} finally {
			warming?.cold();
		}
	}

	/**
	 * Runs `work` in a place. p-queue drops a call still waiting once its signal aborts, but lets go
	 * of a running one's place at once too; that call still ends its own way (it may have been
	 * answered and logged), so its own outcome is the one that counts.
	 */
	private async inPlace<R>(signal: AbortSignal, work: () => Promise<R>): Promise<R> {
		let running: Promise<R> | undefined;
		try {
			return await this.queue.add(() => (running = work()), { signal });
		} catch (error) {
			if (running) return await running;
			throw error;
		}
	}

	/** The part of a call that holds a place: gate, build, the provider's answer, the log line. */
	private async answer<T>(
		job: CallJob<T>,
		warming: Warming | null,
	): Promise<{ made: Made; billed: UsageReport } | null> {
		const begun = await this.begin(job);
		if (begun === null) return null;
		const { spec } = begun;
		if (begun.spare) return this.reuse(spec, begun.spare);
		const logged: Promise<void>[] = [];
		const request: CallRequest = {
			...begun.request,
			onDelta: (text) => {
				// A response has begun, so the cache holds its prefix (a failed attempt's too).
				warming?.warmed();
				job.onDelta?.(text);
			},
			onAttemptFailed: (failed) => logged.push(this.logFailed(job, spec, failed)),
		};
		this.jobs.set(request, job);
		const start = this.now();
		let result: CallResult;
		try {
			result = await this.opts.provider.complete(request);
			warming?.warmed();
		} catch (error) {
			// Before the place is given up: an owner that stops on a failure stops the next call.
			job.onError?.(error);
			throw error;
		} finally {
			warming?.cold();
			// Failed attempts are logged before the call's own record (or its failure).
			await Promise.all(logged);
		}
		const timings = timingsOf(start, this.now());
		const cost = this.opts.costOf(result.usage);
		// The log first: a process killed after this line loses nothing (see `recover`). The
		// place is held until then, so a kill loses at most the calls that hold places.
		await this.opts.log.appendCall(
			this.record(job, spec, {
				response: result.text,
				finishReason: result.finishReason,
				usage: result.usage,
				cost,
				timings,
			}),
		);
		return { made: { spec, result, cost, timings }, billed: this.bill(result.usage, cost) };
	}

	/**
	 * A call let through the gate and built (null: `build` declined), with its request as the
	 * provider takes it, and the logged answer to exactly that call when one is spare (see `recover`).
	 */
	private async begin<T>(
		job: CallJob<T>,
	): Promise<{ spec: CallSpec; request: CallRequest; spare: CallRecord | null } | null> {
		await this.opts.gate?.pass(job.signal);
		if (job.signal.aborted) throw abortError();
		const spec = job.build();
		if (spec === null) return null;
		const spare =
			this.spares.get(askedKey(this.opts.provider.name, this.opts.provider.model, spec))?.shift() ?? null;
		job.onStart?.(spec);
		const request: CallRequest = {
			prompt: spec.prompt,
			...(job.cacheablePrefix === undefined ? {} : { cacheablePrefix: job.cacheablePrefix }),
			task: spec.task,
			maxTokens: spec.params.maxTokens,
			temperature: spec.params.temperature,
			signal: job.signal,
		};
		return { spec, request, spare };
	}

	/** A logged answer taken instead of a call: billed as it was made, and not logged again (the log holds it). */
	private reuse(spec: CallSpec, spare: CallRecord): { made: Made; billed: UsageReport } {
		const made: Made = {
			spec,
			result: { text: spare.response, finishReason: spare.finishReason, usage: spare.usage },
			cost: spare.cost,
			timings: spare.timings,
		};
		if (spare.batch !== undefined) made.batch = spare.batch;
		return {
			made,
			billed: this.bill(spare.usage, spare.cost, spare.batch === undefined ? undefined : this.batchCostOf),
		};
	}

	/**
	 * Makes one call through a provider batch: no place is held (a batch of as many calls as places
	 * would defeat it) and no cache is warmed first (a lone warming call costs a whole batch round);
	 * the gate still holds it. Logged with its batch and billed at the batch price, then committed
	 * as any call.
	 */
	private async callInBatch<T>(job: CallJob<T>, lane: BatchLane): Promise<T | null> {
		const begun = await this.begin(job);
		if (begun === null) return null;
		const { spec, request } = begun;
		if (begun.spare) {
			const { made, billed } = this.reuse(spec, begun.spare);
			const committed = await job.commit(made);
			job.onUsage({ ...billed, timings: made.timings });
			return committed;
		}
		const start = this.now();
		let answered;
		try {
			answered = await lane.complete(
				{ owner: job.owner, version: job.version, attempt: job.attempt },
				request,
			);
		} catch (error) {
			job.onError?.(error);
			throw error;
		}
		const { batch, ...result } = answered;
		const timings = timingsOf(start, this.now());
		const costOf = this.batchCostOf;
		const cost = costOf(result.usage);
		await this.opts.log.appendCall({
			...this.record(job, spec, {
				response: result.text,
				finishReason: result.finishReason,
				usage: result.usage,
				cost,
				timings,
			}),
			batch,
		});
		const billed = this.bill(result.usage, cost, costOf);
		const committed = await job.commit({ spec, result, cost, timings, batch });
		job.onUsage({ ...billed, timings });
		return committed;
	}

	/**
	 * The call log is written before the session, so a process killed between the two leaves calls
	 * the session does not know of. Each owner takes back, in order, the logged answers numbered as
	 * its next call and matching it (its own rule), and the failed attempts it does not have; what
	 * it takes is billed again here. Resolves the number of answers taken back.
	 *
	 * With `held`, the answers the session holds, every other logged answer is kept spare: a call
	 * asking exactly what one answered (prompt, parameters, provider and model) takes it instead of
	 * going to the provider, whatever node and numbers it was logged under. That is what saves a run
	 * whose journal was lost: its nodes are planned again, maybe under other ids, and their calls are
	 * the ones already answered.
	 */
	async recover(owners: Iterable<Recoverable>, held?: Iterable<HeldAnswer>): Promise<number> {
		const logged = await this.opts.log.calls();
		const taken = new Set<CallRecord>();
		const byOwner = new Map<string, CallRecord[]>();
		for (const call of logged) {
			const list = byOwner.get(call.node) ?? [];
			list.push(call);
			byOwner.set(call.node, list);
		}
		let recovered = 0;
		for (const owner of owners) {
			const logged = byOwner.get(owner.id) ?? [];
			for (const call of logged) {
				if (call.error !== undefined && owner.takeFailed?.(call))
					this.bill(call.usage, call.cost, this.opts.costOf, false);
			}
			const answered = logged
				.filter((c) => c.error === undefined)
				.sort((a, b) => a.version - b.version || a.attempt - b.attempt);
			for (const call of answered) {
				const next = owner.next();
				if (next === null) break;
				if (call.version !== next.version || call.attempt !== next.attempt || !owner.matches(call)) continue;
				owner.take(call);
				taken.add(call);
				this.bill(call.usage, call.cost, call.batch === undefined ? undefined : this.batchCostOf);
				recovered += 1;
			}
		}
		this.spares = held
			? sparesOf(
					logged.filter((call) => !taken.has(call)),
					held,
				)
			: new Map();
		return recovered;
	}

	/** What a call costs in a provider batch. */
	private get batchCostOf(): (usage: Usage) => number {
		return atBatchPrice(this.opts.costOf);
	}

	/** Whether a logged call was made by this runner's provider and model. */
	sameModel(call: CallRecord): boolean {
		return call.provider === this.opts.provider.name && call.model === this.opts.provider.model;
	}

	/** Logs and bills an attempt that gave no result; its owner hears of it at once. */
	private async logFailed<T>(job: CallJob<T>, spec: CallSpec, failed: FailedAttempt): Promise<void> {
		const cost = this.opts.costOf(failed.usage);
		const timings = timingsOf(failed.start, failed.end);
		job.onUsage({
			...this.bill(failed.usage, cost, this.opts.costOf, false),
			timings,
			failed: failed.reason,
		});
		await this.opts.log.appendCall(
			this.record(job, spec, {
				response: failed.text,
				finishReason: '',
				usage: failed.usage,
				cost,
				timings,
				error: failed.reason,
			}),
		);
	}

	/** The one shape of a call.jsonl record, for answers and failed attempts alike. */
	private record<T>(
		job: CallJob<T>,
		spec: CallSpec,
		what: Pick<CallRecord, 'response' | 'finishReason' | 'usage' | 'cost' | 'timings' | 'error'>,
	): CallRecord {
		const { provider } = this.opts;
		const { response, finishReason, usage, cost, timings, error } = what;
		const record: CallRecord = {
			node: job.owner,
			version: job.version,
			attempt: job.attempt,
			provider: provider.name,
			model: provider.model,
			prompt: spec.prompt,
			response,
			finishReason,
			params: spec.params,
			usage,
			cost,
			timings,
		};
		if (error !== undefined) record.error = error;
		return record;
	}

	/**
	 * Adds a billed attempt to the totals (`costOf` prices it as it was made; one not `answered` is
	 * no call done); returns what its owner's usage event reports: the attempt, what the cache saved
	 * on it, the totals as they now stand.
	 */
	private bill(usage: Usage, cost: number, costOf = this.opts.costOf, answered = true): UsageReport {
		const saved = cacheSaving(costOf, usage, cost);
		addToTotals(this.totals, usage, cost, saved, answered);
		return { usage, cost, saved, totals: { ...this.totals } };
	}
}

/**
 * The controller that cancels a whole run or scoring. Every call in flight listens on its signal
 * (twice, in the stream watchdog), and so does every call waiting for a place or a warm cache (one a
 * sentence of a summary being scored): their number is the work's, so Node's warning about more
 * than 10 listeners would only ever be a false alarm here.
 */
export function cancelAll(): AbortController {
	const controller = new AbortController();
	setMaxListeners(0, controller.signal);
	return controller;
}

/** The fields a `usage` event reports of a billed attempt (its timings are the owner's to keep). */
export function usageReport({ usage, cost, saved, totals, failed }: Billed): UsageReport {
	return failed === undefined ? { usage, cost, saved, totals } : { usage, cost, saved, totals, failed };
}

/** What a call asks, as a key: a logged answer to the same key answers it. */
function askedKey(provider: string, model: string, spec: Pick<CallSpec, 'prompt' | 'params'>): string {
	const { temperature, maxTokens, words, template } = spec.params;
	return JSON.stringify([provider, model, temperature, maxTokens, words, template, spec.prompt]);
}

/** A logged answer or a held one, as a key: the same answer has the same text and timings. */
function answerKey(text: string, timings: Timings): string {
	return JSON.stringify([timings.start, timings.end, timings.ms, text]);
}

/**
 * The logged answers (no error) not among `held`, by what they asked, in log order. Each held
 * answer stands for one logged record, so an answer logged twice (it never is) is not spare twice.
 */
function sparesOf(logged: readonly CallRecord[], held: Iterable<HeldAnswer>): Map<string, CallRecord[]> {
	const holds = new Map<string, number>();
	for (const answer of held) {
		const key = answerKey(answer.text, answer.timings);
		holds.set(key, (holds.get(key) ?? 0) + 1);
	}
	const spares = new Map<string, CallRecord[]>();
	for (const call of logged) {
		if (call.error !== undefined) continue;
		const key = answerKey(call.response, call.timings);
		const count = holds.get(key) ?? 0;
		if (count > 0) {
			holds.set(key, count - 1);
			continue;
		}
		const asked = askedKey(call.provider, call.model, call);
		const same = spares.get(asked);
		if (same) same.push(call);
		else spares.set(asked, [call]);
	}
	return spares;
}

function timingsOf(start: Date, end: Date): Timings {
	return { start: start.toISOString(), end: end.toISOString(), ms: end.getTime() - start.getTime() };
}
