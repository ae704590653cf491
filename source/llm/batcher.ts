import { counted } from '../format/count.ts';
import { createHash } from 'node:crypto';
import { errorMessage } from '../errors.ts';
import { abortError } from './abort.ts';
import { ProviderError, type CallRequest, type CallResult } from './provider.ts';

/**
 * Provider batch APIs (OpenAI Batch, Anthropic Message Batches): half the price, answered within
 * hours instead of seconds. A Batcher is shared by every run and scoring of a study that uses one
 * provider, model and server: calls gather until none has come for a short while (or there are
 * `maxSize`), go out as one batch, and the batch is polled until it ends; each call then settles
 * with its own result or error. Which batch each call went out in is written to its session first,
 * so a process killed meanwhile waits for the same batch when it is run again.
 */

/** What a batched call is for: its session, its owner (node or unit) and the numbers of its try. */
export interface BatchKey {
	owner: string;
	version: number;
	attempt: number;
}

export interface BatchItem {
	customId: string;
	request: CallRequest;
}

/** A batch as the provider reports it. */
export interface BatchStatus {
	id: string;
	/** The provider's own word: validating, in_progress, finalizing, completed, ended, expired, … */
	status: string;
	/** Whether its results can be fetched (or it failed as a whole: then `failure` says why). */
	ended: boolean;
	/** Requests finished (answered or failed) and in all. */
	done: number;
	total: number;
	failure?: string;
	/** It failed as a whole for a reason that passes (the account's queue of batches was full): its requests may go out again later. */
	retry?: boolean;
}

/** One request's outcome in an ended batch; `retry`: worth sending again in another batch (expired, cancelled, overloaded). */
export type ItemResult = { ok: true; result: CallResult } | { ok: false; reason: string; retry: boolean };

/**
 * An ended batch's outcomes as read from its results, one per custom id. The results come from the
 * provider as they are: a line may repeat an id, or name one never sent.
 */
export class BatchResults extends Map<string, ItemResult> {
	/** Lines of the results that could not be read (see `SdkBatchApi.readResults`): their requests have no result. */
	unreadable = 0;

	/** The most ids kept (see the constructor). */
	private readonly most: number;

	/**
	 * `requests`: how many the batch holds, when known. Ids beyond twice that (and a margin) are
	 * not kept: the file is mostly ids never sent, and a file of made-up ids must not fill memory.
	 * Not at `requests` itself: made-up ids early in an output file would crowd out the error
	 * file's real results, and those requests would be paid for again.
	 */
	constructor(requests?: number) {
		super();
		this.most = requests ? 2 * requests + 1000 : Number.POSITIVE_INFINITY;
	}

	/** Keeps a request's answer once it has one: a later line (an error, a repeat) does not undo it. */
	add(customId: string, result: ItemResult): void {
		const kept = this.get(customId);
		if (kept && (kept.ok || !result.ok)) return;
		if (!kept && this.size >= this.most) return;
		this.set(customId, result);
	}
}

/** A vendor's batch API, as the Batcher uses it (`openai-batch.ts`, `anthropic-batch.ts`). */
export interface BatchApi {
	readonly provider: 'openai' | 'anthropic';
	readonly model: string;
	/** Creates a batch of these requests; rejects with a ProviderError. */
	submit(items: BatchItem[]): Promise<BatchStatus>;
	/** `signal` ends a poll when the batcher closes (a submit is never cut: its batch must be recorded). */
	status(id: string, signal?: AbortSignal): Promise<BatchStatus>;
	/** Every request's outcome in an ended batch, by custom id (a BatchResults also says how many lines were unreadable). */
	results(id: string, signal?: AbortSignal): Promise<Map<string, ItemResult>>;
}

/** One batch as a screen shows it. */
export interface BatchState {
	id: string;
	provider: 'openai' | 'anthropic';
	model: string;
	/** The provider's word for where it stands (see BatchStatus). */
	status: string;
	done: number;
	total: number;
	/** The cells (or sessions) with requests in it. */
	cells: string[];
	/** Whether this process submitted it, or found it recorded by an earlier one (a restart). */
	origin: 'submitted' | 'attached';
	/** Once it ended: requests answered, and those that were not (they fail, or go out again). */
	succeeded: number | null;
	errored: number | null;
}

export type BatchChange = 'submitted' | 'attached' | 'progress' | 'ended' | 'failed';
export type BatchListener = (state: BatchState, change: BatchChange, detail?: string) => void;

export interface BatcherOptions {
	api: BatchApi;
	/**
	 * How long no new call must come before the gathered ones go out. Gathering never lasts more
	 * than GATHER_LIMIT times this from its first call, so calls that keep coming still go out.
	 */
	gatherMs?: number;
	/** How often a batch in progress is asked how it stands. */
	pollMs?: number;
	/** Most requests in one batch (at most the vendor's VENDOR_MAX_BATCH). */
	maxSize?: number;
	/** Most bytes of prompts in one batch (the vendors refuse input files and batches beyond 200 or 256 MB). */
	maxBytes?: number;
	/** Times a request that came back expired, cancelled or with a transient error goes out again. */
	resubmits?: number;
	now?: () => Date;
}

export const DEFAULT_GATHER_MS = 2000;
/** A study whose cells keep adding calls a little apart would otherwise gather for as long as it runs. */
export const GATHER_LIMIT = 5;
export const DEFAULT_POLL_MS = 30_000;
/** Both vendors take more; a smaller batch ends sooner and loses less to one bad request. */
export const DEFAULT_MAX_BATCH = 10_000;
/** The most requests a vendor takes in one batch: it refuses a larger one as a whole. */
export const VENDOR_MAX_BATCH = { openai: 50_000, anthropic: 100_000 } as const;
export const DEFAULT_MAX_BYTES = 100_000_000;
/** Polls in a row that may fail (each after the SDK's own retries) before the calls waiting on a batch fail. */
const POLL_FAILURES = 20;

interface Waiter {
	customId: string;
	hash: string;
	request: CallRequest;
	lane: Lane;
	/** What it adds to a batch's input, near enough (its prompt's bytes), counted once. */
	bytes: number;
	tries: number;
	resolve(result: BatchedResult): void;
	reject(error: unknown): void;
	/** Stops listening to the caller's signal. */
	release(): void;
}

interface GivenUp {
	entry: BatchEntry;
	waiter: Waiter;
	error: unknown;
}

interface Track {
	state: BatchState;
	waiters: Map<string, Waiter>;
	timer: NodeJS.Timeout | null;
	polling: boolean;
	/** Polls in a row that failed. */
	failures: number;
	/** The custom ids sent in the batch, until it ended; null for a batch an earlier process submitted. */
	sent: Set<string> | null;
}

/** One line of a session's record of its batched requests (batches.jsonl, `source/store/batch-journal.ts`). */
export interface BatchEntry {
	customId: string;
	batch: string;
	hash: string;
	provider: string;
	model: string;
	at: string;
	/** The batch answered it with an error, or failed: it is asked again rather than waited for. */
	settled?: 'errored';
}

/** Where a session records which batch each of its requests went out in, written before it is relied on. */
export interface BatchRecords {
	/** The batch `customId` is waiting in, when it asked the same (`hash`) and was not given up on. */
	find(customId: string, hash: string): string | null;
	/** Appends durably (synced) before resolving. */
	append(entries: BatchEntry[]): Promise<void>;
}

interface Lane {
	session: string;
	cell: string;
	journal: BatchRecords;
}

/** A batched call's result: as a call's, with the batch it came in. */
export interface BatchedResult extends CallResult {
	batch: string;
}

/** What a run or a scoring of one session hands its calls to (see `Batcher.lane`). */
export interface BatchLane {
	complete(key: BatchKey, request: CallRequest): Promise<BatchedResult>;
}

export class Batcher {
	readonly api: BatchApi;
	private readonly gatherMs: number;
	private readonly pollMs: number;
	private readonly maxSize: number;
	private readonly maxBytes: number;
	private pendingBytes = 0;
	private readonly resubmits: number;
	private readonly now: () => Date;
	private pending: Waiter[] = [];
	private gatherTimer: NodeJS.Timeout | null = null;
	/** When the oldest call now gathered came (ms since the epoch). */
	private gatherStarted = 0;
	/** Calls given up on in this tick, per session, to be recorded together (see `giveUp`). */
	private readonly givingUp = new Map<BatchRecords, GivenUp[]>();
	/** Calls waiting to go out again (see `sendAgain`). */
	private readonly later = new Map<Waiter, NodeJS.Timeout>();
	private readonly tracks = new Map<string, Track>();
	private readonly listeners = new Set<BatchListener>();
	private closed = false;
	/** Aborts the polls in flight on close: a provider that hangs would keep the process alive for the SDK's timeout. */
	private readonly polls = new AbortController();

	constructor(opts: BatcherOptions) {
		this.api = opts.api;
		this.gatherMs = opts.gatherMs ?? DEFAULT_GATHER_MS;
		this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
		// A study's `size` beyond the vendor's limit would have every batch refused.
		this.maxSize = Math.min(opts.maxSize ?? DEFAULT_MAX_BATCH, VENDOR_MAX_BATCH[opts.api.provider]);
		this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
		this.resubmits = opts.resubmits ?? 2;
		this.now = opts.now ?? (() => new Date());
	}

	/** Hears of every batch's changes: submitted or re-attached, progress, ended. */
	on(listener: BatchListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Every batch this process has submitted or waited for, as it last stood. */
	states(): BatchState[] {
		return [...this.tracks.values()].map((t) => ({ ...t.state, cells: [...t.state.cells] }));
	}

	/** The lane of one session's calls: `cell` names it in the batch states; `journal` is its batches.jsonl. */
	lane(lane: Lane): BatchLane {
		return { complete: (key, request) => this.complete(lane, key, request) };
	}

	/** Stops polling and gathering; calls still waiting reject as cancelled (their batches are recorded). */
	close(): void {
		this.closed = true;
		this.polls.abort();
		if (this.gatherTimer) clearTimeout(this.gatherTimer);
		for (const waiter of this.pending.splice(0)) waiter.reject(abortError());
		this.pendingBytes = 0;
		for (const [waiter, timer] of this.later) {
			clearTimeout(timer);
			waiter.reject(abortError());
		}
		this.later.clear();
		for (const track of this.tracks.values()) {
			if (track.timer) clearTimeout(track.timer);
			for (const waiter of track.waiters.values()) waiter.reject(abortError());
			track.waiters.clear();
		}
	}

	private complete(lane: Lane, key: BatchKey, request: CallRequest): Promise<BatchedResult> {
		const { signal } = request;
		if (this.closed || signal?.aborted) return Promise.reject(abortError('cancelled', signal));
		const customId = customIdOf(lane.session, key);
		const hash = requestHash(this.api, request);
		return new Promise<BatchedResult>((resolve, reject) => {
			const onAbort = () => {
				this.drop(waiter);
				reject(abortError('cancelled', signal));
			};
			const waiter: Waiter = {
				customId,
				hash,
				request,
				lane,
				bytes: Buffer.byteLength(request.prompt) + 200,
				tries: 0,
				resolve: (r) => {
					waiter.release();
					resolve(r);
				},
				reject: (e) => {
					waiter.release();
					reject(e);
				},
				release: () => signal?.removeEventListener('abort', onAbort),
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			const recorded = lane.journal.find(customId, hash);
			if (recorded) this.attach(recorded, waiter);
			else this.enqueue(waiter);
		});
	}

	/** A cancelled call leaves its batch (the batch goes on; a later run finds it in the session). */
	private drop(waiter: Waiter): void {
		const timer = this.later.get(waiter);
		if (timer) {
			clearTimeout(timer);
			this.later.delete(waiter);
		}
		if (this.pending.includes(waiter)) {
			this.pending = this.pending.filter((w) => w !== waiter);
			this.pendingBytes -= waiter.bytes;
		}
		for (const track of this.tracks.values()) {
			if (track.waiters.get(waiter.customId) !== waiter) continue;
			track.waiters.delete(waiter.customId);
			if (track.waiters.size === 0 && track.timer) {
				clearTimeout(track.timer);
				track.timer = null;
			}
		}
	}

	private enqueue(waiter: Waiter): void {
		const now = Date.now();
		if (this.pending.length === 0) this.gatherStarted = now;
		this.pending.push(waiter);
		this.pendingBytes += waiter.bytes;
		if (this.gatherTimer) clearTimeout(this.gatherTimer);
		this.gatherTimer = null;
		if (this.pending.length >= this.maxSize || this.pendingBytes >= this.maxBytes) void this.flush();
		else
			this.gatherTimer = setTimeout(
				() => void this.flush(),
				Math.min(this.gatherMs, this.gatherStarted + GATHER_LIMIT * this.gatherMs - now),
			);
	}

	/** Sends what has gathered (up to a batch's size) as one batch, records it in each session, then polls it. */
	private async flush(): Promise<void> {
		this.gatherTimer = null;
		let count = 0;
		let bytes = 0;
		while (
			count < this.pending.length &&
			count < this.maxSize &&
			(count === 0 || bytes + this.pending[count]!.bytes <= this.maxBytes)
		)
			bytes += this.pending[count++]!.bytes;
		const items = this.pending.splice(0, count);
		this.pendingBytes -= bytes;
		if (this.pending.length > 0) {
			// What is left starts a gathering of its own.
			this.gatherStarted = Date.now();
			const full = this.pending.length >= this.maxSize || this.pendingBytes >= this.maxBytes;
			this.gatherTimer = setTimeout(() => void this.flush(), full ? 0 : this.gatherMs);
		}
		if (items.length === 0) return;
		let status: BatchStatus;
		try {
			status = await this.api.submit(items.map((w) => ({ customId: w.customId, request: w.request })));
		} catch (error) {
			// Not created, so nothing is recorded: a refusal that passes (the network, a 429 or 5xx after
			// the SDK's retries) sends the calls out again later, as a failed poll is tried again.
			for (const waiter of items) {
				waiter.tries += 1;
				if (
					error instanceof ProviderError &&
					error.retryable &&
					!this.closed &&
					!waiter.request.signal?.aborted
				)
					this.sendAgain(waiter, () => waiter.reject(error), true);
				else waiter.reject(error);
			}
			return;
		}
		const at = this.now().toISOString();
		const byJournal = new Map<BatchRecords, Waiter[]>();
		for (const waiter of items) {
			const waiters = byJournal.get(waiter.lane.journal);
			if (waiters) waiters.push(waiter);
			else byJournal.set(waiter.lane.journal, [waiter]);
		}
		try {
			await Promise.all(
				[...byJournal].map(([journal, waiters]) =>
					journal.append(
						waiters.map((w) => ({
							customId: w.customId,
							batch: status.id,
							hash: w.hash,
							provider: this.api.provider,
							model: this.api.model,
							at,
						})),
					),
				),
			);
		} catch (error) {
			// Not recorded: a kill would lose the batch, so nothing waits for it.
			for (const waiter of items) waiter.reject(error);
			return;
		}
		const track = this.track(status.id, 'submitted');
		track.sent = new Set(items.map((w) => w.customId));
		for (const waiter of items) {
			waiter.tries += 1;
			// A call cancelled while its batch was being created has gone (its batch is recorded).
			if (waiter.request.signal?.aborted) continue;
			// Closed meanwhile: nothing will poll the batch, so its calls are cancelled as close() says.
			if (this.closed) waiter.reject(abortError());
			else track.waiters.set(waiter.customId, waiter);
		}
		track.state.cells = [...new Set(items.map((w) => w.lane.cell))];
		this.update(track, status, 'submitted');
		this.schedule(track, this.pollMs);
	}

	/** Waits for a batch an earlier process submitted (found in the session's batches.jsonl). */
	private attach(id: string, waiter: Waiter): void {
		const existing = this.tracks.get(id);
		const track = existing ?? this.track(id, 'attached');
		// An ended batch keeps no answers (see `poll`): a call attaching to it polls it again.
		track.waiters.set(waiter.customId, waiter);
		if (!track.state.cells.includes(waiter.lane.cell)) track.state.cells.push(waiter.lane.cell);
		if (!existing) this.emit(track, 'attached');
		if (!track.timer && !track.polling) this.schedule(track, 0);
	}

	private track(id: string, origin: BatchState['origin']): Track {
		const track: Track = {
			state: {
				id,
				provider: this.api.provider,
				model: this.api.model,
				status: origin === 'attached' ? 'unknown' : 'submitted',
				done: 0,
				total: 0,
				cells: [],
				origin,
				succeeded: null,
				errored: null,
			},
			waiters: new Map(),
			timer: null,
			polling: false,
			failures: 0,
			sent: null,
		};
		this.tracks.set(id, track);
		return track;
	}

	private schedule(track: Track, ms: number): void {
		if (this.closed || track.waiters.size === 0) return;
		track.timer = setTimeout(() => {
			track.timer = null;
			void this.poll(track);
		}, ms);
	}

	private async poll(track: Track): Promise<void> {
		track.polling = true;
		try {
			const status = await this.api.status(track.state.id, this.polls.signal);
			track.failures = 0;
			if (status.failure !== undefined) {
				const error = new ProviderError(
					`${this.api.provider} batch ${track.state.id} failed: ${status.failure}`,
					status.retry === true,
				);
				if (status.retry) {
					this.update(track, status, 'failed', `${status.failure}; its calls go out again in a later batch`);
					for (const waiter of [...track.waiters.values()])
						this.sendAgain(waiter, () => this.giveUp(track, waiter, error), true);
					track.waiters.clear();
				} else {
					this.update(track, status, 'failed', status.failure);
					this.failAll(track, error);
				}
				return;
			}
			if (!status.ended) {
				this.update(track, status, 'progress');
				this.schedule(track, this.pollMs);
				return;
			}
			// Handed out here and not kept: a long study would otherwise hold all its batches' texts.
			const results = await this.api.results(track.state.id, this.polls.signal);
			const succeeded = answered(results, track.sent, status.total);
			track.state.succeeded = succeeded;
			track.state.errored = status.total - succeeded;
			track.sent = null;
			this.update(track, status, 'ended', unreadable(results));
			for (const waiter of [...track.waiters.values()]) this.settle(track, waiter, results);
			track.waiters.clear();
		} catch (error) {
			if (this.closed) return;
			if (gone(error)) {
				// Deleted, archived, or made with another key: nothing will answer it, so its calls are asked anew.
				this.emit(
					track,
					'failed',
					'not at the provider any more (404 Not Found); its calls go out again in a new batch',
				);
				for (const waiter of [...track.waiters.values()])
					this.sendAgain(waiter, () => this.giveUp(track, waiter, error));
				track.waiters.clear();
				return;
			}
			track.failures += 1;
			if ((error instanceof ProviderError && !error.retryable) || track.failures >= POLL_FAILURES) {
				const keep = unreachable(error);
				// Screens stop showing it as waited for; the line says whether a later run will wait for it again.
				this.emit(
					track,
					'failed',
					`${errorMessage(error)}${keep ? '; stopped polling it (it stays recorded: running the study again waits for it)' : ''}`,
				);
				this.failAll(track, error, !keep);
			}
			// A poll that failed after the SDK's retries is tried again at the next interval.
			else this.schedule(track, this.pollMs);
		} finally {
			track.polling = false;
		}
	}

	/**
	 * The batch failed as a whole (or is gone): every call waiting for it fails, and is not waited
	 * for again. With `settle` false (the provider could not be asked), the calls fail but their batch
	 * stays recorded: it may still be running, and the next run waits for it instead of paying twice.
	 */
	private failAll(track: Track, error: unknown, settle = true): void {
		for (const waiter of track.waiters.values()) {
			if (settle) this.giveUp(track, waiter, error);
			else waiter.reject(error);
		}
		track.waiters.clear();
	}

	/**
	 * The one rule for a call its batch did not answer for a passing reason: it goes out again, at
	 * most `resubmits` times, then `giveUp` fails it. `later`: after a poll's interval, for a batch
	 * refused or not created (the batches ahead of it in the account's queue end meanwhile, the
	 * network comes back); otherwise at once.
	 */
	private sendAgain(waiter: Waiter, giveUp: () => void, later = false): void {
		if (waiter.tries > this.resubmits) giveUp();
		else if (!later) this.enqueue(waiter);
		else {
			const timer = setTimeout(() => {
				this.later.delete(waiter);
				this.enqueue(waiter);
			}, this.pollMs);
			this.later.set(waiter, timer);
		}
	}

	/**
	 * Fails a call once its session records that its batch is not to be waited for again. The calls
	 * given up on together (a batch whose every request errored) are recorded in one synced write
	 * per session, not one each.
	 */
	private giveUp(track: Track, waiter: Waiter, error: unknown): void {
		const entry: BatchEntry = {
			customId: waiter.customId,
			batch: track.state.id,
			hash: waiter.hash,
			provider: this.api.provider,
			model: this.api.model,
			at: this.now().toISOString(),
			settled: 'errored',
		};
		const { journal } = waiter.lane;
		let group = this.givingUp.get(journal);
		if (!group) {
			const given: GivenUp[] = [];
			group = given;
			this.givingUp.set(journal, given);
			queueMicrotask(() => {
				this.givingUp.delete(journal);
				journal.append(given.map((g) => g.entry)).then(
					() => given.forEach((g) => g.waiter.reject(g.error)),
					(written: unknown) =>
						given.forEach((g) =>
							g.waiter.reject(
								new Error(`${errorMessage(g.error)}; and it could not be recorded: ${errorMessage(written)}`),
							),
						),
				);
			});
		}
		group.push({ entry, waiter, error });
	}

	/** A waiter's outcome from its ended batch: its result, another batch, or its error. */
	private settle(track: Track, waiter: Waiter, results: Map<string, ItemResult>): void {
		track.waiters.delete(waiter.customId);
		const result = results.get(waiter.customId) ?? {
			ok: false as const,
			reason: 'no result for this request in the batch',
			retry: true,
		};
		if (result.ok) {
			waiter.resolve({ ...result.result, batch: track.state.id });
			return;
		}
		// Given up on: a later run asks again instead of waiting for this batch.
		const giveUp = () =>
			this.giveUp(
				track,
				waiter,
				new ProviderError(`${this.api.provider} batch ${track.state.id}: ${result.reason}`, result.retry),
			);
		if (result.retry) this.sendAgain(waiter, giveUp);
		else giveUp();
	}

	private update(track: Track, status: BatchStatus, change: BatchChange, detail?: string): void {
		const { state } = track;
		const moved =
			state.status !== status.status || state.done !== status.done || state.total !== status.total;
		state.status = status.status;
		state.done = status.done;
		state.total = status.total;
		if (change !== 'progress' || moved) this.emit(track, change, detail);
	}

	private emit(track: Track, change: BatchChange, detail?: string): void {
		const state = { ...track.state, cells: [...track.state.cells] };
		for (const listener of this.listeners) listener(state, change, detail);
	}
}

/**
 * The requests a batch answered: those sent in it with an answer in its results. Results for other
 * ids are ignored (for a batch an earlier process sent, whose ids are not known here, the count is
 * held to the batch's size), so the requests that errored are never fewer than none.
 */
function answered(results: Map<string, ItemResult>, sent: Set<string> | null, total: number): number {
	let count = 0;
	for (const [customId, result] of results) if (result.ok && (sent === null || sent.has(customId))) count++;
	return Math.min(count, total);
}

/** What the 'ended' line adds when some lines of the results could not be read. */
function unreadable(results: Map<string, ItemResult>): string | undefined {
	const count = results instanceof BatchResults ? results.unreadable : 0;
	if (count === 0) return undefined;
	return count === 1
		? '1 line of its results could not be read and was skipped'
		: `${counted(count, 'line')} of its results could not be read and were skipped`;
}

/** The provider does not know the batch, or no longer has its results (404). */
function gone(error: unknown): boolean {
	return error instanceof ProviderError && error.status === 404;
}

/** A poll that failed for want of reaching the provider (the network, the key), not because of the batch. */
function unreachable(error: unknown): boolean {
	return error instanceof ProviderError && (error.retryable || error.status === 401 || error.status === 403);
}

/**
 * A request's id in a batch: readable (owner, version, attempt) and unique per session (a hash of
 * the session and owner), within the 64 letters, digits, '_' and '-' Anthropic allows.
 */
export function customIdOf(session: string, key: BatchKey): string {
	const owner = key.owner.replace(/[^A-Za-z0-9_-]+/gu, '_').slice(0, 20);
	const tag = createHash('sha256').update(`${session}\0${key.owner}`).digest('hex').slice(0, 16);
	return `${owner}-v${key.version}-a${key.attempt}-${tag}`;
}

/** What identifies a request's question: the same hash means the same call. */
export function requestHash(api: Pick<BatchApi, 'provider' | 'model'>, request: CallRequest): string {
	return createHash('sha256')
		.update(JSON.stringify([api.provider, api.model, request.maxTokens, request.temperature, request.prompt]))
		.digest('hex');
}
