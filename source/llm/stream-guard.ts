import { AsyncLocalStorage } from 'node:async_hooks';
import { STATUS_CODES } from 'node:http';
import { ProviderError, type CallRequest } from './provider.ts';

/**
 * What the SDKs do not do for a streamed call: notice a stream that went quiet, notice a stream
 * that ended without saying it was finished, and start the whole call again (bounded). The SDKs
 * already retry 429/5xx/connection errors *before* a stream starts; once it has started they
 * only pass errors on.
 */

export const DEFAULT_STREAM_TIMEOUT_MS = 60_000;
export const DEFAULT_STREAM_RETRIES = 3;
export const DEFAULT_STREAM_RETRY_DELAY_MS = 500;

export interface GuardOptions {
	/** Provider name, the first word of every message. */
	label: string;
	streamTimeoutMs: number;
	/** Extra attempts after a broken stream; then a retryable ProviderError. */
	streamRetries: number;
	/** Pause before the n-th retry is n times this. */
	retryDelayMs: number;
	/** Told before each retry, so a caller showing deltas can drop what the broken attempt sent. */
	onRetry?: (reason: string) => void;
}

/** A stream that broke after it started: the guard starts the call again. */
export class BrokenStream extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'BrokenStream';
	}
}

interface Watch {
	arm(): void;
	touch(): void;
}

// The SDK calls `fetch` deep inside its own promise chain; async context is how a fetch knows
// which attempt's watchdog its bytes belong to without one SDK client per call.
const currentWatch = new AsyncLocalStorage<Watch>();

/**
 * A `fetch` for the SDKs that feeds the watchdog with every chunk of a successful response body.
 * Raw bytes rather than parsed events, so keep-alive pings and SSE comments (which the SDKs drop)
 * count as a live connection. Error responses are left alone: the SDK may be about to sleep for
 * a retry-after, which is not an idle stream.
 */
export function watchedFetch(base: typeof fetch = globalThis.fetch): typeof fetch {
	return async (input, init) => {
		const watch = currentWatch.getStore();
		const response = await base(input, init);
		if (!watch || !response.ok || !response.body) return response;
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

/** What a cancelled call rejects with (`error.name === 'AbortError'`). */
export function abortError(label: string, signal?: AbortSignal): Error {
	const error = new DOMException(`${label}: call cancelled`, 'AbortError');
	if (signal?.reason !== undefined) Object.defineProperty(error, 'cause', { value: signal.reason });
	return error;
}

export function isAbortError(error: unknown): boolean {
	return error instanceof Error && error.name === 'AbortError';
}

/**
 * Runs `attempt` until it returns, starting it again when its stream stalls for `streamTimeoutMs`
 * or breaks (it throws BrokenStream). Each attempt gets its own signal, aborted by the watchdog or
 * by the caller's signal; a caller abort rejects at once with an AbortError and is never retried.
 * Any other error from `attempt` is final and passed on unchanged.
 */
export async function guardStream<T>(
	options: GuardOptions,
	callerSignal: AbortSignal | undefined,
	attempt: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
	const { label, streamTimeoutMs, streamRetries } = options;
	let lastReason = '';
	for (let n = 0; n <= streamRetries; n++) {
		if (n > 0) {
			const reason = `${lastReason}; retry ${n} of ${streamRetries}`;
			options.onRetry?.(reason);
			await abortableSleep(options.retryDelayMs * n, callerSignal, label);
		}
		if (callerSignal?.aborted) throw abortError(label, callerSignal);

		const controller = new AbortController();
		let stalled = false;
		let timer: NodeJS.Timeout | undefined;
		let armed = false;
		const restart = () => {
			clearTimeout(timer);
			timer = setTimeout(() => {
				stalled = true;
				controller.abort(new BrokenStream(`no data for ${streamTimeoutMs} ms`));
			}, streamTimeoutMs);
		};
		const watch: Watch = {
			arm() {
				armed = true;
				restart();
			},
			touch() {
				if (armed && !controller.signal.aborted) restart();
			},
		};
		const onCallerAbort = () => controller.abort(callerSignal?.reason);
		callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
		try {
			const run = currentWatch.run(watch, () => attempt(controller.signal));
			return await raceAbort(run, callerSignal, label);
		} catch (error) {
			if (callerSignal?.aborted) throw abortError(label, callerSignal);
			if (stalled) lastReason = `stream stalled (no data for ${streamTimeoutMs} ms)`;
			else if (error instanceof BrokenStream) lastReason = error.message;
			else throw error;
		} finally {
			clearTimeout(timer);
			callerSignal?.removeEventListener('abort', onCallerAbort);
		}
	}
	throw new ProviderError(
		`${label}: stream broke ${streamRetries + 1} times, last: ${lastReason}`,
		true,
	);
}

/**
 * Settles with `work`, or rejects the moment the caller aborts. The SDKs notice an abort
 * quickly while reading, but not always while sleeping before a retry (the OpenAI SDK's backoff
 * sleep ignores the signal), and a cancelled call must not wait for that.
 */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined, label: string): Promise<T> {
	if (!signal) return work;
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(abortError(label, signal));
		if (signal.aborted) return onAbort();
		signal.addEventListener('abort', onAbort, { once: true });
		work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
	});
}

function abortableSleep(ms: number, signal: AbortSignal | undefined, label: string): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(abortError(label, signal));
		const onAbort = () => {
			clearTimeout(timer);
			reject(abortError(label, signal));
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
	return { client: { apiKey: options.apiKey, baseURL, maxRetries, timeout: timeoutMs, fetch: watchedFetch(options.fetch) }, failure };
}

/** One provider call under the watchdog, with the options' stream settings. */
export function guardCall<T>(options: SdkProviderOptions, label: string, request: CallRequest, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
	return guardStream(
		{
			label,
			streamTimeoutMs: options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS,
			streamRetries: options.streamRetries ?? DEFAULT_STREAM_RETRIES,
			retryDelayMs: options.streamRetryDelayMs ?? DEFAULT_STREAM_RETRY_DELAY_MS,
			onRetry: options.onRetry && ((reason) => options.onRetry?.(reason, request)),
		},
		request.signal,
		attempt,
	);
}
