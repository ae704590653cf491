import type { Usage } from '../domain.ts';
import { errorMessage } from '../errors.ts';
import type { BatchLane } from '../llm/batcher.ts';
import type { Provider } from '../llm/provider.ts';
import { MAX_RETRIES, RETRY_TEMPERATURE } from '../score/annotate.ts';
import type { Read } from '../score/claims.ts';
import type { Task } from '../summarize/planner.ts';
import type { Totals } from '../summarize/totals.ts';
import { cancelAll, CallRunner, type CallLogStore } from './call-runner.ts';

/** What a pass's caller gives besides its store: who answers, at what price, how many at once. */
export interface PassOptions {
	provider: Provider;
	costOf: (usage: Usage) => number;
	concurrency: number;
	/** A provider batch API the calls go to (a study's `"batch"`); none: every call is streamed. */
	batch?: BatchLane;
	/** Calls after the first when an answer cannot be read (default `MAX_RETRIES`). */
	maxRetries?: number;
	signal?: AbortSignal;
	now?: () => Date;
}

export interface ReadPassOptions extends PassOptions {
	log: CallLogStore;
}

/** One prompt of a pass, and how its answer is read. */
export interface Asked<T> {
	/** The call log's owner of the call. */
	owner: string;
	/** Who a failure line names ("summary s0, sentence 2"). */
	name: string;
	template: string;
	prompt: string;
	/** The same call as data (the extractive baseline reads it; see `Task`). */
	task: Task;
	maxTokens: number;
	read: (text: string) => Read<T>;
}

export interface ReadPassResult {
	status: 'done' | 'cancelled' | 'failed';
	error: string | null;
	totals: Totals;
}

/**
 * Finish reasons of an answer stopped at its token limit (OpenAI's, Anthropic's): an answer cut
 * there may have lost its end though what it has reads well, so it is not taken.
 */
const CUT_SHORT = new Set(['length', 'max_tokens']);

/**
 * A resumable pass of model calls whose answers are read (the faithfulness judge, memory questions,
 * scene writing), through the shared call runner: logged in calls.jsonl, billed, concurrent, paced.
 * Every answer the log holds is spare, so the same prompt asked again (its result left unsaved by a
 * kill) takes its logged answer, in order, instead of a new call. An unreadable answer is asked
 * again at a higher temperature; the first failure stops the pass, as cancelling does.
 */
export class ReadPass {
	readonly calls: CallRunner;
	private readonly abort = cancelAll();
	private failure: string | null = null;
	private readonly maxRetries: number;

	private constructor(opts: ReadPassOptions) {
		this.calls = new CallRunner({
			provider: opts.provider,
			log: opts.log,
			costOf: opts.costOf,
			concurrency: opts.concurrency,
			batch: opts.batch,
			now: opts.now,
		});
		this.maxRetries = opts.maxRetries ?? MAX_RETRIES;
		if (opts.signal?.aborted) this.abort.abort();
		opts.signal?.addEventListener('abort', () => this.abort.abort(), { once: true });
	}

	/** A pass ready to ask, the call log's answers taken as spares. */
	static async start(opts: ReadPassOptions): Promise<ReadPass> {
		const pass = new ReadPass(opts);
		await pass.calls.recover([], []);
		return pass;
	}

	/** Cancelled, or stopped by a failure: nothing more is asked or saved. */
	get stopped(): boolean {
		return this.abort.signal.aborted || this.failure !== null;
	}

	/**
	 * Asks until the answer is read, up to `maxRetries` more times at a higher temperature.
	 * Resolves the value read; null when no answer could be read; undefined when the pass stopped.
	 */
	async ask<T>(asked: Asked<T>): Promise<T | null | undefined> {
		for (let attempt = 0; attempt <= this.maxRetries; attempt++) {
			if (this.stopped) return undefined;
			const params = {
				temperature: attempt === 0 ? 0 : RETRY_TEMPERATURE,
				maxTokens: asked.maxTokens,
				words: asked.task.words,
				template: asked.template,
			};
			const answer = await this.calls.call({
				owner: asked.owner,
				version: 0,
				attempt,
				// Every answer of a pass can wait: with a batch lane, each goes in a provider batch.
				batched: true,
				signal: this.abort.signal,
				build: () => (this.stopped ? null : { prompt: asked.prompt, task: asked.task, params }),
				onError: (error) => this.fail(error, asked.name),
				onUsage: () => {},
				commit: ({ result }) =>
					Promise.resolve<Read<T>>(
						CUT_SHORT.has(result.finishReason)
							? { ok: false, reason: 'cut short at the token limit' }
							: asked.read(result.text),
					),
			});
			if (answer === null) return undefined;
			if (answer.ok) return answer.value;
		}
		return null;
	}

	/** Runs `work` on every item at once (the call runner keeps the concurrency); a throw fails the pass. */
	async each<I>(items: readonly I[], work: (item: I) => Promise<void>): Promise<void> {
		await Promise.all(items.map((item) => work(item).catch((error: unknown) => this.fail(error))));
	}

	/** How the pass ended, its first failure, and what its calls cost (those taken from the log too). */
	result(): ReadPassResult {
		const status = this.abort.signal.aborted ? 'cancelled' : this.failure !== null ? 'failed' : 'done';
		return { status, error: this.failure, totals: { ...this.calls.totals } };
	}

	/** Keeps the first failure that is not a cancellation, naming what failed when told. */
	private fail(error: unknown, name?: string): void {
		// The pass's own cancel ends it quietly; an abort from elsewhere (a provider batch closed
		// under it) leaves answers missing, so it is a failure, never a pass done.
		if (this.abort.signal.aborted) return;
		this.failure ??= name === undefined ? errorMessage(error) : `${name}: ${errorMessage(error)}`;
	}
}
