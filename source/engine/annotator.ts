import { setMaxListeners } from 'node:events';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Annotation, CallParams, ScoredSummary, Usage } from '../domain.ts';
import { errorMessage } from '../errors.ts';
import type { CallRequest, FailedAttempt, Provider } from '../llm/provider.ts';
import { isAbortError } from '../llm/stream-guard.ts';
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
import type { CallRecord } from '../store/schema.ts';
import type { Totals } from './events.ts';

/** What the annotator needs of a session: its summaries and annotations, and durable writes. */
export interface AnnotationStore {
	readonly id: string;
	readonly data: { summaries: ScoredSummary[]; annotations: Annotation[] };
	save(): Promise<void>;
	appendCall(record: CallRecord): Promise<void>;
	calls(): Promise<CallRecord[]>;
}

export interface AnnotateTotals extends Totals {
	/** USD the prompt cache saved: the calls' cost at the full input price minus what they cost. */
	saved: number;
}

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
	| { type: 'annotate-call'; unit: string; summary: ScoredSummary['id']; sentences: number[]; attempt: number }
	| { type: 'annotation'; annotation: Annotation }
	| { type: 'annotate-retry'; unit: string; summary: ScoredSummary['id']; sentences: number[]; attempt: number; reason: string }
	/** A call finished, or (with `failed`, the reason) one of its attempts gave no answer but was billed. */
	| { type: 'usage'; unit: string; usage: Usage; cost: number; saved: number; totals: AnnotateTotals; planned: number; failed?: string }
	| { type: 'annotate-failed'; unit: string; error: string }
	| { type: 'annotate-finished'; status: AnnotateStatus; error: string | null; totals: AnnotateTotals; annotations: number; failures: number };

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
	costOf: (usage: Usage) => number;
	/** Cancels like `cancel()`. */
	signal?: AbortSignal;
	maxRetries?: number;
	now?: () => Date;
}

/** A unit's progress: calls made for it and the sentences still without a verdict. */
interface UnitState {
	unit: Unit;
	attempts: number;
	open: Sentence[];
}

/**
 * Annotates summaries sentence by sentence with a model: units run concurrently up to
 * `concurrency`; every answer is logged in calls.jsonl, then its annotations saved with the
 * session; an unreadable answer is asked again at most `maxRetries` times, then recorded as a
 * parse failure. Calls logged but not saved (a killed process) are taken back from the log, and
 * sentences already annotated are never asked about again.
 */
export class Annotator {
	private readonly listeners = new Set<AnnotatorListener>();
	private readonly abort = new AbortController();
	private readonly requests = new WeakMap<object, { unit: Unit; attempt: number }>();
	private readonly now: () => Date;
	private readonly maxRetries: number;
	private readonly annotator: string;
	private nextId = 0;
	private failure: string | null = null;
	private planned = 0;
	private made = 0;
	private failures = 0;
	readonly totals: AnnotateTotals = { input: 0, output: 0, cached: 0, cost: 0, calls: 0, saved: 0 };

	constructor(private readonly opts: AnnotatorOptions) {
		this.now = opts.now ?? (() => new Date());
		this.maxRetries = opts.maxRetries ?? MAX_RETRIES;
		this.annotator = `${opts.provider.name}/${opts.provider.model}`;
		// Every call in flight listens on this one signal (twice, in the stream guard): more than
		// Node's default of 10 is expected, not a leak.
		setMaxListeners(Math.max(10, 4 * opts.concurrency + 4), this.abort.signal);
		if (opts.signal?.aborted) this.abort.abort();
		opts.signal?.addEventListener('abort', () => this.abort.abort(), { once: true });
	}

	on(listener: AnnotatorListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Cancels the calls in flight and starts no more; `start()` then saves and returns 'cancelled'. */
	cancel(): void {
		this.abort.abort();
	}

	/** The provider is retrying `request`, a broken stream or an error response (wire this to createProvider's onRetry). */
	streamRetried(reason: string, request: object): void {
		const call = this.requests.get(request);
		if (call) this.emit({ type: 'annotate-retry', unit: call.unit.id, summary: call.unit.summary, sentences: call.unit.sentences.map((s) => s.index), attempt: call.attempt, reason });
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
			// What this model has answered already is never asked again, whatever the caller listed.
			const done = new Set(store.data.annotations.filter((a) => a.summary === w.summary && a.source === 'model' && a.imported === null && a.annotator === this.annotator).map((a) => a.sentence));
			const units = unitsFor(summary, w.sentences.filter((i) => !done.has(i)), templates, this.opts.batchSize ?? null);
			for (const unit of units) states.push({ unit, attempts: 0, open: [...unit.sentences] });
			listed.push({ summary: summary.id, book: summary.book, sentences: units.reduce((n, u) => n + u.sentences.length, 0), units: units.length });
		}
		const recovered = this.recover(states, await store.calls());
		if (recovered > 0) await store.save();
		const todo = states.filter((s) => s.open.length > 0);
		this.planned = this.totals.calls + todo.length;
		this.emit({ type: 'annotate-started', session: store.id, annotator: this.annotator, summaries: listed, units: todo.length, sentences: todo.reduce((n, s) => n + s.open.length, 0), recovered });

		// The limit holds calls, not units: a unit writing its answer has given up its place, so
		// the disk writes of one call overlap the next calls instead of delaying them.
		const limit = pLimit(Math.max(1, this.opts.concurrency));
		await Promise.all(todo.map((state) => this.runUnit(state, limit)));
		const status: AnnotateStatus = this.abort.signal.aborted ? 'cancelled' : this.failure !== null ? 'failed' : 'done';
		await store.save();
		this.emit({ type: 'annotate-finished', status, error: status === 'failed' ? this.failure : null, totals: { ...this.totals }, annotations: this.made, failures: this.failures });
		return status;
	}

	/** Why the run failed, once it has. */
	get error(): string | null {
		return this.failure;
	}

	/**
	 * calls.jsonl is written before session.json, so a process killed between the two leaves
	 * answers the session does not hold. They are read back (same unit, model and prompt, attempts
	 * in order) instead of being asked for again.
	 */
	private recover(states: UnitState[], calls: CallRecord[]): number {
		const { provider } = this.opts;
		const byUnit = new Map<string, CallRecord[]>();
		for (const call of calls) {
			// A failed attempt has no answer; it was billed by the run that made it.
			if (call.error !== undefined || call.provider !== provider.name || call.model !== provider.model) continue;
			const list = byUnit.get(call.node) ?? [];
			list.push(call);
			byUnit.set(call.node, list);
		}
		let recovered = 0;
		for (const state of states) {
			const logged = (byUnit.get(state.unit.id) ?? []).filter((c) => c.prompt === state.unit.prompt).sort((a, b) => a.attempt - b.attempt);
			for (const call of logged) {
				if (state.open.length === 0 || call.attempt !== state.attempts) continue;
				this.count(call.usage, call.cost);
				this.apply(state, call.response, call.timings.end);
				recovered += 1;
			}
		}
		return recovered;
	}

	private async runUnit(state: UnitState, limit: LimitFunction): Promise<void> {
		const { store, provider, costOf } = this.opts;
		const { unit } = state;
		const indices = unit.sentences.map((s) => s.index);
		try {
			while (state.open.length > 0) {
				if (this.abort.signal.aborted || this.failure !== null) return;
				const attempt = state.attempts;
				const temperature = attempt === 0 ? 0 : RETRY_TEMPERATURE;
				const params = { temperature, maxTokens: unit.maxTokens, words: 0, template: unit.template };
				const logged: Promise<void>[] = [];
				const request: CallRequest = {
					prompt: unit.prompt,
					cacheablePrefix: unit.prefix,
					maxTokens: unit.maxTokens,
					temperature,
					task: { kind: 'annotate', texts: [store.data.summaries.find((s) => s.id === unit.summary)?.text ?? '', ...unit.sentences.map((s) => s.text)], words: 0 },
					signal: this.abort.signal,
					onAttemptFailed: (failed) => logged.push(this.logFailed(unit, attempt, params, failed)),
				};
				this.requests.set(request, { unit, attempt });
				let start = this.now();
				const result = await limit(() => {
					// Waiting for a place may outlast a cancel or another unit's failure.
					if (this.abort.signal.aborted || this.failure !== null) return null;
					this.emit({ type: 'annotate-call', unit: unit.id, summary: unit.summary, sentences: indices, attempt });
					start = this.now();
					// The failure is known before this place is given to the next waiting call.
					// Failed attempts are logged before the call's own record (or its failure).
					return provider
						.complete(request)
						.finally(() => Promise.all(logged))
						.catch((error: unknown) => {
							if (!isAbortError(error) && !this.abort.signal.aborted) this.failure ??= `${unit.id}: ${errorMessage(error)}`;
							throw error;
						});
				});
				if (result === null) return;
				const end = this.now();
				const cost = costOf(result.usage);
				const saved = Math.max(0, costOf({ ...result.usage, cached: 0 }) - cost);
				const timings = { start: start.toISOString(), end: end.toISOString(), ms: end.getTime() - start.getTime() };
				// The log first: a crash after this line loses nothing (recover() reads it back).
				await store.appendCall({ node: unit.id, version: 0, attempt, provider: provider.name, model: provider.model, prompt: unit.prompt, response: result.text, finishReason: result.finishReason, params, usage: result.usage, cost, timings });
				this.count(result.usage, cost);
				const { added, retry } = this.apply(state, result.text, timings.end);
				await store.save();
				if (retry !== null) this.planned += 1;
				for (const annotation of added) this.emit({ type: 'annotation', annotation });
				this.emit({ type: 'usage', unit: unit.id, usage: result.usage, cost, saved, totals: { ...this.totals }, planned: this.planned });
				if (retry !== null) this.emit({ type: 'annotate-retry', unit: unit.id, summary: unit.summary, sentences: state.open.map((s) => s.index), attempt: state.attempts, reason: retry });
			}
		} catch (error) {
			if (isAbortError(error) || this.abort.signal.aborted) return;
			const message = errorMessage(error);
			this.failure ??= `${unit.id}: ${message}`;
			this.emit({ type: 'annotate-failed', unit: unit.id, error: message });
		}
	}

	/**
	 * Takes one answer into the session: a verdict for every open sentence it answers readably;
	 * after the last allowed attempt, a parse failure for each sentence still open. Returns the
	 * annotations added, and the reason to ask again (null when the unit is finished).
	 */
	private apply(state: UnitState, text: string, createdAt: string): { added: Annotation[]; retry: string | null } {
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
				added.push(modelAnnotation({ id: `a${this.nextId++}`, summary: state.unit.summary, sentence, answer, annotator: this.annotator, raw: text, createdAt }));
				if (!answer.ok) this.failures += 1;
			} else {
				open.push(sentence);
				reason ??= answer.reason;
			}
		});
		state.open = open;
		this.made += added.length;
		this.opts.store.data.annotations.push(...added);
		return { added, retry: reason };
	}

	/** Logs and bills an attempt that gave no answer. */
	private async logFailed(unit: Unit, attempt: number, params: CallParams, failed: FailedAttempt): Promise<void> {
		const { store, provider, costOf } = this.opts;
		const cost = costOf(failed.usage);
		const timings = { start: failed.start.toISOString(), end: failed.end.toISOString(), ms: failed.end.getTime() - failed.start.getTime() };
		this.count(failed.usage, cost);
		this.planned += 1;
		this.emit({ type: 'usage', unit: unit.id, usage: failed.usage, cost, saved: Math.max(0, costOf({ ...failed.usage, cached: 0 }) - cost), totals: { ...this.totals }, planned: this.planned, failed: failed.reason });
		await store.appendCall({ node: unit.id, version: 0, attempt, provider: provider.name, model: provider.model, prompt: unit.prompt, response: failed.text, finishReason: '', params, usage: failed.usage, cost, timings, error: failed.reason });
	}

	private count(usage: Usage, cost: number): void {
		this.totals.input += usage.input;
		this.totals.output += usage.output;
		this.totals.cached += usage.cached;
		this.totals.cost += cost;
		this.totals.saved += Math.max(0, this.opts.costOf({ ...usage, cached: 0 }) - cost);
		this.totals.calls += 1;
	}

	private emit(event: AnnotatorEvent): void {
		for (const listener of this.listeners) listener(event);
	}
}
