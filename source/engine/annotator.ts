import type PQueue from 'p-queue';
import type { Annotation, ScoredSummary, Usage } from '../domain.ts';
import { errorMessage } from '../errors.ts';
import type { Provider } from '../llm/provider.ts';
import { isAbortError } from '../llm/abort.ts';
import {
	MAX_RETRIES,
	modelAnnotation,
	nextAnnotationId,
	readAnswer,
	RETRY_TEMPERATURE,
	unitsFor,
	type AnnotationTemplates,
	type Sentence,
	type Unit,
} from '../score/annotate.ts';
import { sentencesName } from '../format/places.ts';
import { readablyAnnotatedBy, unreadableRounds } from '../score/session-score.ts';
import type { BatchLane } from '../llm/batcher.ts';
import type { RateLimitState } from '../llm/rate-limit.ts';
import { cancelAll, CallRunner, usageReport, type CallLogStore, type Recoverable } from './call-runner.ts';
import type { Totals } from '../summarize/totals.ts';
import type { UsageReport } from './events.ts';

/** What the annotator needs of a session: its summaries and annotations, and durable writes (the call log among them). */
export interface AnnotationStore extends CallLogStore {
	readonly id: string;
	readonly data: {
		readonly summaries: readonly ScoredSummary[];
		readonly annotations: readonly Annotation[];
	};
	/** Adds annotations; resolves once they are durable. */
	append(list: 'annotations', ...items: Annotation[]): Promise<void>;
}

/** The annotator's totals are the runner's: this scoring's calls, and what the cache saved. */
export type AnnotateTotals = Totals;

export type AnnotateStatus = 'done' | 'cancelled' | 'failed';

/** What the annotator reports, in the order it happens (the terminal UI folds these into state). */
export type AnnotatorEvent =
	| {
			type: 'annotate-started';
			session: string;
			annotator: string;
			summaries: { summary: ScoredSummary['id']; book: string; sentences: number; units: number }[];
			/** Units (calls before retries) still to make, and sentences they cover. */
			units: number;
			sentences: number;
			/** Calls taken back from the call log instead of being made again. */
			recovered: number;
	  }
	| {
			type: 'annotate-call';
			unit: string;
			summary: ScoredSummary['id'];
			sentences: number[];
			attempt: number;
	  }
	| { type: 'annotation'; annotation: Annotation }
	| {
			type: 'annotate-retry';
			unit: string;
			summary: ScoredSummary['id'];
			sentences: number[];
			attempt: number;
			reason: string;
	  }
	| ({ type: 'usage'; unit: string; planned: number } & UsageReport)
	| {
			type: 'annotate-failed';
			unit: string;
			summary: ScoredSummary['id'];
			sentences: number[];
			error: string;
	  }
	/** The account's rate limits hold calls back (`wait`), or no longer do. */
	| ({ type: 'rate-limit' } & RateLimitState)
	| {
			type: 'annotate-finished';
			status: AnnotateStatus;
			error: string | null;
			totals: AnnotateTotals;
			annotations: number;
			failures: number;
	  };

export type AnnotatorListener = (event: AnnotatorEvent) => void;

export interface AnnotatorOptions {
	store: AnnotationStore;
	provider: Provider;
	templates: AnnotationTemplates;
	/** Per summary, the sentence indices to annotate (those without a verdict from this model). */
	work: { summary: ScoredSummary['id']; sentences: readonly number[] }[];
	/** null: the v1 prompt, a sentence a call; N: the v2 prompt, N sentences a call. */
	batchSize?: number | null;
	concurrency: number;
	/** A queue shared with other work (a study's cells): its limit holds instead of `concurrency`. */
	queue?: PQueue;
	/** A provider batch: every annotation call goes in it (no call place held, no cache warmed first). */
	batch?: BatchLane;
	costOf: (usage: Usage) => number;
	/** Cancels like `cancel()`. */
	signal?: AbortSignal;
	maxRetries?: number;
	now?: () => Date;
}

/** A unit's progress: calls made for it and the sentences still without a verdict. */
interface UnitState {
	unit: Unit;
	/** The round of asking (`unreadableRounds`): logged as the calls' version. */
	round: number;
	attempts: number;
	open: Sentence[];
}

/**
 * Annotates summaries sentence by sentence with a model: units run concurrently up to
 * `concurrency` through the shared CallRunner, the first call of each summary alone until its
 * response has begun (so the others read the summary from the prompt cache instead of each writing
 * it; with a batch lane every call goes out at once, as a lone warming call would cost a batch
 * round); every answer is logged in calls.jsonl, then its annotations saved with the session; an
 * unreadable answer is asked again at most `maxRetries` times, then recorded as a parse failure
 * (which a later scoring may list to ask again). Calls logged but not saved (a killed process) are
 * taken back from the log, and sentences with a readable answer are never asked about again.
 */
export class Annotator {
	private readonly listeners = new Set<AnnotatorListener>();
	private readonly abort: AbortController;
	private readonly calls: CallRunner;
	private readonly maxRetries: number;
	private readonly annotator: string;
	private nextId = 0;
	private failure: string | null = null;
	private planned = 0;
	private made = 0;
	private failures = 0;

	constructor(private readonly opts: AnnotatorOptions) {
		this.calls = new CallRunner({
			provider: opts.provider,
			log: opts.store,
			costOf: opts.costOf,
			concurrency: opts.concurrency,
			queue: opts.queue,
			batch: opts.batch,
			now: opts.now,
		});
		this.maxRetries = opts.maxRetries ?? MAX_RETRIES;
		this.annotator = `${opts.provider.name}/${opts.provider.model}`;
		this.abort = cancelAll();
		if (opts.signal?.aborted) this.abort.abort();
		opts.signal?.addEventListener('abort', () => this.abort.abort(), { once: true });
	}

	/** This scoring's calls so far (those taken back from the call log included). */
	get totals(): AnnotateTotals {
		return this.calls.totals;
	}

	on(listener: AnnotatorListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Cancels the calls in flight and starts no more; `start()` then saves and returns 'cancelled'. */
	cancel(): void {
		this.abort.abort();
	}

	async start(): Promise<AnnotateStatus> {
		const { store, templates } = this.opts;
		const summaries = new Map(store.data.summaries.map((s) => [s.id, s]));
		this.nextId = Number(nextAnnotationId(store.data.annotations).slice(1));
		const states: UnitState[] = [];
		const listed: Extract<AnnotatorEvent, { type: 'annotate-started' }>['summaries'] = [];
		for (const w of this.opts.work) {
			const summary = summaries.get(w.summary);
			if (!summary) throw new Error(`annotate: no summary ${w.summary} in session ${store.id}`);
			// What this model has answered readably is never asked again, whatever the caller listed; a
			// parse failure is asked again when listed.
			const done = readablyAnnotatedBy(w.summary, store.data.annotations, this.annotator);
			const units = unitsFor(
				summary,
				w.sentences.filter((i) => !done.has(i)),
				templates,
				this.opts.batchSize ?? null,
			);
			const rounds = unreadableRounds(w.summary, store.data.annotations, this.annotator);
			for (const unit of units)
				states.push({
					unit,
					round: Math.max(0, ...unit.sentences.map((s) => rounds.get(s.index) ?? 0)),
					attempts: 0,
					open: [...unit.sentences],
				});
			listed.push({
				summary: summary.id,
				book: summary.book,
				sentences: units.reduce((n, u) => n + u.sentences.length, 0),
				units: units.length,
			});
		}
		const taken: Promise<void>[] = [];
		const recovered = await this.calls.recover(states.map((state) => this.recoverable(state, taken)));
		await Promise.all(taken);
		const todo = states.filter((s) => s.open.length > 0);
		this.planned = this.totals.calls + todo.length;
		this.emit({
			type: 'annotate-started',
			session: store.id,
			annotator: this.annotator,
			summaries: listed,
			units: todo.length,
			sentences: todo.reduce((n, s) => n + s.open.length, 0),
			recovered,
		});

		const unheard = this.opts.provider.limiter?.subscribe((state) =>
			this.emit({ type: 'rate-limit', ...state }),
		);
		try {
			await Promise.all(todo.map((state) => this.runUnit(state)));
		} finally {
			unheard?.();
		}
		const status: AnnotateStatus = this.abort.signal.aborted
			? 'cancelled'
			: this.failure !== null
				? 'failed'
				: 'done';
		this.emit({
			type: 'annotate-finished',
			status,
			error: status === 'failed' ? this.failure : null,
			totals: { ...this.totals },
			annotations: this.made,
			failures: this.failures,
		});
		return status;
	}

	/** Why the run failed, once it has. */
	get error(): string | null {
		return this.failure;
	}

	/**
	 * What a unit takes back of the answers logged but not saved (a process killed between the two):
	 * the same unit, model and prompt, attempts in order. A failed attempt has no answer; it was
	 * billed by the run that made it.
	 */
	private recoverable(state: UnitState, writes: Promise<void>[]): Recoverable {
		return {
			id: state.unit.id,
			next: () => (state.open.length === 0 ? null : { version: state.round, attempt: state.attempts }),
			matches: (call) => this.calls.sameModel(call) && call.prompt === state.unit.prompt,
			take: (call) => {
				writes.push(this.apply(state, call.response, call.timings.end).written);
			},
		};
	}

	/**
	 * Asks the model about a unit's open sentences until each has a verdict (or the retries run
	 * out). Every call is logged, then its annotations saved; a unit writing its answer has given
	 * up its place, so the disk writes of one call overlap the next calls instead of delaying them.
	 */
	private async runUnit(state: UnitState): Promise<void> {
		const { store } = this.opts;
		const { unit } = state;
		const indices = unit.sentences.map((s) => s.index);
		const stopped = () => this.abort.signal.aborted || this.failure !== null;
		try {
			while (state.open.length > 0) {
				if (stopped()) return;
				const attempt = state.attempts;
				const temperature = attempt === 0 ? 0 : RETRY_TEMPERATURE;
				const params = { temperature, maxTokens: unit.maxTokens, words: 0, template: unit.template };
				const task = {
					kind: 'annotate' as const,
					texts: [
						store.data.summaries.find((s) => s.id === unit.summary)?.text ?? '',
						...unit.sentences.map((s) => s.text),
					],
					words: 0,
				};
				const taken = await this.calls.call({
					owner: unit.id,
					version: state.round,
					attempt,
					signal: this.abort.signal,
					cacheablePrefix: unit.prefix,
					batched: true,
					// Waiting for a place may outlast a cancel or another unit's failure.
					build: () => (stopped() ? null : { prompt: unit.prompt, task, params }),
					onStart: () =>
						this.emit({
							type: 'annotate-call',
							unit: unit.id,
							summary: unit.summary,
							sentences: indices,
							attempt,
						}),
					onStreamRetry: (reason) =>
						this.emit({
							type: 'annotate-retry',
							unit: unit.id,
							summary: unit.summary,
							sentences: indices,
							attempt,
							reason,
						}),
					// The failure is known before this place is given to the next waiting call.
					onError: (error) => {
						if (!isAbortError(error) && !this.abort.signal.aborted)
							this.failure ??= `${sentencesName(unit.summary, indices)}: ${errorMessage(error)}`;
					},
					// A refused attempt (a 429) is asked again, but is no call more to answer: the total stays.
					onUsage: (billed) => {
						this.emit({ type: 'usage', unit: unit.id, ...usageReport(billed), planned: this.planned });
					},
					commit: async ({ result, timings }) => {
						const applied = this.apply(state, result.text, timings.end);
						await applied.written;
						if (applied.retry !== null) this.planned += 1;
						for (const annotation of applied.added) this.emit({ type: 'annotation', annotation });
						return applied;
					},
				});
				if (taken === null) return;
				if (taken.retry !== null)
					this.emit({
						type: 'annotate-retry',
						unit: unit.id,
						summary: unit.summary,
						sentences: state.open.map((s) => s.index),
						attempt: state.attempts,
						reason: taken.retry,
					});
			}
		} catch (error) {
			if (isAbortError(error) || this.abort.signal.aborted) return;
			const message = errorMessage(error);
			const sentences = unit.sentences.map((s) => s.index);
			this.failure ??= `${sentencesName(unit.summary, sentences)}: ${message}`;
			this.emit({ type: 'annotate-failed', unit: unit.id, summary: unit.summary, sentences, error: message });
		}
	}

	/**
	 * Takes one answer into the session: a verdict for every open sentence it answers readably;
	 * after the last allowed attempt, a parse failure for each sentence still open. Returns the
	 * annotations added, the reason to ask again (null when the unit is finished), and their write.
	 */
	private apply(
		state: UnitState,
		text: string,
		createdAt: string,
	): { added: Annotation[]; retry: string | null; written: Promise<void> } {
		const answers = readAnswer(state.unit, text);
		state.attempts += 1;
		const last = state.attempts > this.maxRetries;
		const added: Annotation[] = [];
		const open: Sentence[] = [];
		let reason: string | null = null;
		state.unit.sentences.forEach((sentence, i) => {
			if (!state.open.includes(sentence)) return;
			const answer = answers[i] ?? { ok: false as const, reason: 'no answer for this sentence' };
			if (answer.ok || last) {
				added.push(
					modelAnnotation({
						id: `a${this.nextId++}`,
						summary: state.unit.summary,
						sentence,
						answer,
						annotator: this.annotator,
						raw: text,
						createdAt,
					}),
				);
				if (!answer.ok) this.failures += 1;
			} else {
				open.push(sentence);
				reason ??= answer.reason;
			}
		});
		state.open = open;
		this.made += added.length;
		const written = added.length > 0 ? this.opts.store.append('annotations', ...added) : Promise.resolve();
		return { added, retry: reason, written };
	}

	private emit(event: AnnotatorEvent): void {
		for (const listener of this.listeners) listener(event);
	}
}
