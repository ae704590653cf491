import { AsyncLocalStorage } from 'node:async_hooks';
import { STATUS_CODES } from 'node:http';
import type { Usage } from '../domain.ts';
import { countTokens } from '../text/tokens.ts';
import { abortError, isAbortError, ProviderError, type CallRequest, type FailedAttempt } from './provider.ts';

/**
 * What the SDKs do not do for a streamed call: notice a stream that went quiet, one that goes on
 * too long or sends far more than it was asked for, and one that ended without saying it was
 * finished, and start the whole call again (bounded). The SDKs already retry 429/5xx/connection
 * errors *before* a stream starts; once it has started they only pass errors on. Every attempt
 * that gives no result, the SDKs' included, is reported (retry reason, failed-attempt record).
 */

export const DEFAULT_STREAM_TIMEOUT_MS = 60_000;
export const DEFAULT_STREAM_RETRIES = 3;
export const DEFAULT_STREAM_RETRY_DELAY_MS = 500;
/**
 * Without a set call timeout, a stream must finish within the stream timeout plus this much per
 * token of its output limit (a floor of 4 tokens a second): keep-alive pings, empty deltas and
 * chatter keep the watchdog fed but cannot keep a call open forever.
 */
export const DEADLINE_MS_PER_TOKEN = 250;
/** A stream that sends more than this many times its output limit (plus a little) is cut off. */
export const OUTPUT_CAP_FACTOR = 2;
const OUTPUT_CAP_SLACK = 64;

/** Most time from the first byte of a stream to its end, in ms. */
export function callDeadlineMs(maxTokens: number, streamTimeoutMs: number, callTimeoutMs?: number | null): number {
	return callTimeoutMs ?? streamTimeoutMs + maxTokens * DEADLINE_MS_PER_TOKEN;
}

/**
 * Most output tokens taken from one stream. Counted with the shared counter, which may count a
 * provider's text a little differently than its own tokenizer: hence a multiple, not max_tokens.
 */
export function outputCap(maxTokens: number): number {
	return OUTPUT_CAP_FACTOR * maxTokens + OUTPUT_CAP_SLACK;
}

export interface GuardOptions {
	/** Provider name, the first word of every message. */
	label: string;
	streamTimeoutMs: number;
	/** Most time from a stream's first byte to its end; null: `callDeadlineMs` of the output limit. */
	callTimeoutMs: number | null;
	/** Extra attempts after a broken stream; then a retryable ProviderError. */
	streamRetries: number;
	/** Pause before the n-th retry is n times this. */
	retryDelayMs: number;
	/** The SDK's own retries of error responses and failed connections (to say whether it retries). */
	sdkRetries: number;
	/** Told before each retry, so a caller showing deltas can drop what the broken attempt sent. */
	onRetry?: (reason: string) => void;
}

/** What a stream had delivered when it broke. */
export interface StreamSoFar {
	text: string;
	usage: Usage;
}

/** A stream that broke after it started: the guard starts the call again. */
export class BrokenStream extends Error {
	constructor(
		message: string,
		readonly soFar?: StreamSoFar,
	) {
		super(message);
		this.name = 'BrokenStream';
	}
}

interface Watch {
	/** A response with a body arrived: its stream starts. */
	arm(): void;
	/** Bytes arrived. */
	touch(): void;
	/** An HTTP exchange failed (an error response, a connection that failed); `retried` if the SDK tries again. */
	failed(reason: string, start: Date, retried: boolean): void;
	/** The guard or the caller ended the attempt: what fails now fails because of that. */
	ended(): boolean;
	/** HTTP exchanges started in this attempt. */
	exchanges: number;
}

// The SDK calls `fetch` deep inside its own promise chain; async context is how a fetch knows
// which attempt's watchdog its bytes belong to without one SDK client per call.
const currentWatch = new AsyncLocalStorage<Watch>();

const NO_USAGE: Usage = { input: 0, output: 0, cached: 0 };

/**
 * A `fetch` for the SDKs that feeds the watchdog with every chunk of a successful response body.
 * Raw bytes rather than parsed events, so keep-alive pings and SSE comments (which the SDKs drop)
 * count as a live connection. Error responses are reported and left alone: the SDK may be about to
 * sleep for a retry-after, which is not an idle stream.
 */
export function watchedFetch(base: typeof fetch = globalThis.fetch, sdk: { maxRetries: number; timeoutMs: number } = { maxRetries: 0, timeoutMs: DEFAULT_STREAM_TIMEOUT_MS }): typeof fetch {
	return async (input, init) => {
		const watch = currentWatch.getStore();
		if (!watch) return base(input, init);
		const exchange = watch.exchanges++;
		const start = new Date();
		let response: Response;
		try {
			response = await base(input, init);
		} catch (error) {
			if (!watch.ended()) {
				const timedOut = error instanceof Error && error.name === 'AbortError';
				const reason = timedOut ? `no response within ${sdk.timeoutMs} ms` : `connection failed (${connectionDetail(error)})`;
				watch.failed(reason, start, exchange < sdk.maxRetries);
			}
			throw error;
		}
		if (!response.ok) {
			watch.failed(`HTTP ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`, start, exchange < sdk.maxRetries && sdkRetries(response));
			return response;
		}
		if (!response.body) return response;
		watch.arm();
		const body = response.body.pipeThrough(
			new TransformStream<Uint8Array, Uint8Array>({
				transform(chunk, controller) {
					watch.touch();
					controller.enqueue(chunk);
				},
			}),
		);
		return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
	};
}

/** Whether both SDKs retry this error response (when they have retries left): their rule. */
function sdkRetries(response: Response): boolean {
	const told = response.headers.get('x-should-retry');
	if (told === 'true') return true;
	if (told === 'false') return false;
	return response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
}

function connectionDetail(error: unknown): string {
	const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
	return cause instanceof Error ? cause.message : String(cause);
}


/**
 * Runs `attempt` until it returns, starting it again when its stream stalls for `streamTimeoutMs`,
 * is still going at its deadline, sends more than `outputCap` tokens (the attempt passes each text
 * delta to `received`), or breaks (it throws BrokenStream). Each attempt gets its own signal,
 * aborted by the guard or by the caller's signal; a caller abort rejects at once with an
 * AbortError and is never retried. Any other error from `attempt` is final and passed on
 * unchanged. Every failed attempt, and every error response the SDK met inside one, is reported to
 * `request.onAttemptFailed`.
 */
export async function guardStream<T>(
	options: GuardOptions,
	request: Pick<CallRequest, 'maxTokens' | 'signal' | 'onAttemptFailed'>,
	attempt: (signal: AbortSignal, received: (text: string) => void) => Promise<T>,
): Promise<T> {
	const { label, streamTimeoutMs, streamRetries } = options;
	const callerSignal = request.signal;
	const deadlineMs = callDeadlineMs(request.maxTokens, streamTimeoutMs, options.callTimeoutMs);
	const cap = outputCap(request.maxTokens);
	const report = (failed: FailedAttempt) => request.onAttemptFailed?.(failed);
	let lastReason = '';
	for (let n = 0; n <= streamRetries; n++) {
		if (n > 0) {
			const reason = `${lastReason}; retry ${n} of ${streamRetries}`;
			options.onRetry?.(reason);
			await abortableSleep(options.retryDelayMs * n, callerSignal, label);
		}
		if (callerSignal?.aborted) throw cancelled(label, callerSignal);

		const controller = new AbortController();
		// Why the guard ended this attempt, once it has.
		let cut: string | null = null;
		const end = (reason: string) => {
			if (cut !== null || controller.signal.aborted) return;
			cut = reason;
			controller.abort(new BrokenStream(reason));
		};
		let idle: NodeJS.Timeout | undefined;
		let deadline: NodeJS.Timeout | undefined;
		let streamStart: Date | null = null;
		let tokens = 0;
		const restart = () => {
			clearTimeout(idle);
			idle = setTimeout(() => end(`stream stalled (no data for ${streamTimeoutMs} ms)`), streamTimeoutMs);
		};
		const watch: Watch = {
			exchanges: 0,
			arm() {
				streamStart ??= new Date();
				restart();
				deadline ??= setTimeout(() => end(`stream not finished ${seconds(deadlineMs)} after it started (the call deadline)`), deadlineMs);
			},
			touch() {
				if (streamStart && !controller.signal.aborted) restart();
			},
			failed(reason, start, retried) {
				report({ reason, text: '', usage: { ...NO_USAGE }, start, end: new Date() });
				if (retried) options.onRetry?.(`${reason}; the SDK retries (${watch.exchanges} of ${options.sdkRetries})`);
			},
			ended: () => controller.signal.aborted,
		};
		const received = (text: string) => {
			if (text === '' || cut !== null) return;
			tokens += countTokens(text);
			if (tokens > cap) end(`stream sent more than ${cap} tokens for an output limit of ${request.maxTokens}`);
		};
		const onCallerAbort = () => controller.abort(callerSignal?.reason);
		callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
		const started = new Date();
		try {
			const run = currentWatch.run(watch, () => attempt(controller.signal, received));
			return await raceAbort(run, callerSignal, label);
		} catch (error) {
			if (callerSignal?.aborted) throw cancelled(label, callerSignal);
			// The guard's own reason first: whatever the SDK made of the abort, the attempt was cut.
			if (cut !== null) lastReason = cut;
			else if (error instanceof BrokenStream) lastReason = error.message;
			else throw error;
			const soFar = error instanceof BrokenStream ? error.soFar : undefined;
			report({ reason: lastReason, text: soFar?.text ?? '', usage: soFar?.usage ?? { ...NO_USAGE }, start: streamStart ?? started, end: new Date() });
		} finally {
			clearTimeout(idle);
			clearTimeout(deadline);
			callerSignal?.removeEventListener('abort', onCallerAbort);
		}
	}
	throw new ProviderError(`${label}: no complete stream in ${streamRetries + 1} attempts, last: ${lastReason}`, true);
}

function seconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * Settles with `work`, or rejects the moment the caller aborts. The SDKs notice an abort
 * quickly while reading, but not always while sleeping before a retry (the OpenAI SDK's backoff
 * sleep ignores the signal), and a cancelled call must not wait for that.
 */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined, label: string): Promise<T> {
	if (!signal) return work;
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(cancelled(label, signal));
		if (signal.aborted) return onAbort();
		signal.addEventListener('abort', onAbort, { once: true });
		work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
	});
}

function abortableSleep(ms: number, signal: AbortSignal | undefined, label: string): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(cancelled(label, signal));
		const onAbort = () => {
			clearTimeout(timer);
			reject(cancelled(label, signal));
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}

export interface FailureContext {
	label: string;
	/** The environment variable the key came from, named in 401/403 messages. */
	keyVar: string;
	model: string;
	baseURL: string;
	/** Redacted from every message, in case a server echoes it. */
	apiKey: string;
	maxRetries: number;
	timeoutMs: number;
}

/**
 * One line a user can act on, from an SDK error thrown before the stream started. Statuses a retry
 * cannot fix are not retryable; the rest have already been retried by the SDK.
 */
export function toProviderError(error: unknown, ctx: FailureContext): Error {
	if (isAbortError(error)) return error as Error;
	const { label } = ctx;
	const status = statusOf(error);
	const name = error instanceof Error ? error.constructor.name : '';
	if (status === undefined) {
		if (/Timeout/u.test(name)) {
			return new ProviderError(`${label}: no response from ${ctx.baseURL} within ${ctx.timeoutMs} ms (after ${retries(ctx.maxRetries)})`, true);
		}
		if (/Connection/u.test(name)) {
			const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
			const detail = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : '';
			return new ProviderError(
				redact(`${label}: cannot reach ${ctx.baseURL}${detail ? ` (${detail})` : ''} after ${ctx.maxRetries} retries`, ctx.apiKey),
				true,
			);
		}
		return new ProviderError(redact(`${label}: ${messageOf(error)}`, ctx.apiKey), false);
	}
	const head = `${label}: ${status} ${STATUS_CODES[status] ?? 'Error'}`;
	const detail = serverMessage(error);
	const tail = detail ? ` (${detail})` : '';
	let message: string;
	let retryable = false;
	switch (status) {
		case 401:
			// The server's text for a bad key often quotes (part of) the key: leave it out.
			message = `${head} — check ${ctx.keyVar}`;
			break;
		case 403:
			message = `${head} — the key in ${ctx.keyVar} may not use model ${ctx.model}${tail}`;
			break;
		case 404:
			message = `${head} — check the model name (${ctx.model}) and the base URL (${ctx.baseURL})${tail}`;
			break;
		default:
			retryable = status === 408 || status === 409 || status === 429 || status >= 500;
			message = retryable ? `${head} — still failing after ${retries(ctx.maxRetries)}${tail}` : `${head}${detail ? ` — ${detail}` : ''}`;
	}
	return new ProviderError(redact(message, ctx.apiKey), retryable, status);
}

function retries(n: number): string {
	return n === 1 ? '1 retry' : `${n} retries`;
}

function statusOf(error: unknown): number | undefined {
	const status = (error as { status?: unknown } | null)?.status;
	return typeof status === 'number' ? status : undefined;
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** The server's own explanation from either SDK's error body, on one short line. */
function serverMessage(error: unknown): string {
	const body = (error as { error?: unknown }).error as
		| { message?: unknown; error?: { message?: unknown } }
		| undefined;
	const text = body?.error?.message ?? body?.message;
	if (typeof text !== 'string') return '';
	const line = text.replace(/\s+/gu, ' ').trim();
	return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Removes the key and anything shaped like one from text meant for a screen or a log. */
export function redact(text: string, apiKey: string): string {
	let out = apiKey.length >= 4 ? text.split(apiKey).join('[key]') : text;
	out = out.replace(/\bsk-[\w*.-]{6,}/gu, '[key]');
	return out;
}

/** SDK retries of 429/5xx/connection errors before a stream starts (the SDKs honour retry-after). */
export const DEFAULT_SDK_RETRIES = 4;

/** What both SDK-backed providers are configured with. */
export interface SdkProviderOptions {
	apiKey: string;
	model: string;
	/** An OpenAI-compatible or Anthropic-compatible server; null for the vendor's own API. */
	baseURL?: string | null;
	maxRetries?: number;
	/** Idle time that counts as a stalled stream; also the SDK's wait for response headers. */
	streamTimeoutMs?: number;
	/** Most time from a stream's first byte to its end; unset: derived from the output limit (`callDeadlineMs`). */
	callTimeoutMs?: number | null;
	streamRetries?: number;
	streamRetryDelayMs?: number;
	/** A broken stream is being retried: text already sent through `onDelta` for `request` is void. */
	onRetry?: (reason: string, request: CallRequest) => void;
	/** For tests and proxies; defaults to the global fetch. */
	fetch?: typeof fetch;
}

/** The SDK client's settings and the context of its error messages, from the provider options. */
export function sdkSetup(options: SdkProviderOptions, vendor: { label: string; keyVar: string; defaultBaseURL: string }) {
	// Always explicit: without a base URL the SDKs fall back to their own environment lookup,
	// bypassing the environment the caller handed to createProvider.
	const baseURL = options.baseURL || vendor.defaultBaseURL;
	const maxRetries = options.maxRetries ?? DEFAULT_SDK_RETRIES;
	const timeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
	const failure: FailureContext = { label: vendor.label, keyVar: vendor.keyVar, model: options.model, baseURL, apiKey: options.apiKey, maxRetries, timeoutMs };
	return { client: { apiKey: options.apiKey, baseURL, maxRetries, timeout: timeoutMs, fetch: watchedFetch(options.fetch, { maxRetries, timeoutMs }) }, failure };
}

/** One provider call under the watchdog, with the options' stream settings. */
export function guardCall<T>(
	options: SdkProviderOptions,
	label: string,
	request: CallRequest,
	attempt: (signal: AbortSignal, received: (text: string) => void) => Promise<T>,
): Promise<T> {
	return guardStream(
		{
			label,
			streamTimeoutMs: options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS,
			callTimeoutMs: options.callTimeoutMs ?? null,
			streamRetries: options.streamRetries ?? DEFAULT_STREAM_RETRIES,
			retryDelayMs: options.streamRetryDelayMs ?? DEFAULT_STREAM_RETRY_DELAY_MS,
			sdkRetries: options.maxRetries ?? DEFAULT_SDK_RETRIES,
			onRetry: options.onRetry && ((reason) => options.onRetry?.(reason, request)),
		},
		request,
		attempt,
	);
}

function cancelled(label: string, signal?: AbortSignal): Error {
	return abortError(`${label}: call cancelled`, signal);
}
