import { countTokens } from '../text/tokens.ts';
import { webPageAnswer } from './base-url.ts';
import { guardConsole } from './console-guard.ts';
import { ProviderError, type CallRequest, type CallResult, type Provider } from './provider.ts';
import { readLimits } from './rate-headers.ts';
import { RateLimitRefusal, type Ask, type RateLimiter } from './rate-limit.ts';
import { toProviderError, type FailureContext } from './sdk-errors.ts';
import { DEFAULT_STREAM_RETRIES, DEFAULT_STREAM_RETRY_DELAY_MS, guardStream } from './stream-retry.ts';
import {
	BrokenStream,
	DEFAULT_STREAM_TIMEOUT_MS,
	watchedFetch,
	type StreamSoFar,
	type WatchedInit,
} from './stream-watchdog.ts';

/**
 * What the two SDK-backed providers (OpenAI, Anthropic) share: their options, the settings of
 * their SDK client, how one call goes through the watchdog and the stream retries, and how an
 * attempt opens its stream and reads it to the end.
 */

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
	/** Paces the calls under the account's limits; none: calls go at once and a 429 fails them. */
	limiter?: RateLimiter;
	/** Longest time 429s may hold a call back while no call of the account is answered (default 30 min). */
	rateLimitWaitMs?: number;
}

export const DEFAULT_RATE_LIMIT_WAIT_MS = 30 * 60_000;

/** The request options every attempt passes to its SDK call (both SDKs take these two). */
export interface AttemptOptions {
	signal: AbortSignal;
	fetchOptions: WatchedInit;
}

/** Settings of an SDK client, as both SDKs take them. */
export interface ClientSettings {
	apiKey: string;
	baseURL: string;
	maxRetries: number;
	timeout: number;
	fetch: typeof fetch;
	/** The SDK's own logger would print a server's unparsable text raw: booook says what failed itself. */
	logLevel: 'off';
}

/**
 * A provider backed by a vendor's SDK: the client is made from the options, every call goes
 * through the watchdog and the stream retries, and a subclass says how one attempt talks to its API.
 */
export abstract class SdkProvider<Client> implements Provider {
	abstract readonly name: 'openai' | 'anthropic';
	readonly isLLM = true;
	readonly model: string;
	protected readonly client: Client;
	protected readonly failure: FailureContext;

	constructor(
		private readonly options: SdkProviderOptions,
		vendor: { label: string; keyVar: string; defaultBaseURL: string },
		makeClient: (settings: ClientSettings) => Client,
	) {
		this.model = options.model;
		// Always explicit: without a base URL the SDKs fall back to their own environment lookup,
		// bypassing the environment the caller handed to createProvider.
		const baseURL = options.baseURL || vendor.defaultBaseURL;
		const maxRetries = options.maxRetries ?? DEFAULT_SDK_RETRIES;
		const timeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
		this.failure = {
			label: vendor.label,
			keyVar: vendor.keyVar,
			model: options.model,
			baseURL,
			apiKey: options.apiKey,
			maxRetries,
			timeoutMs,
		};
		const base = options.fetch ?? globalThis.fetch;
		guardConsole();
		this.client = makeClient({
			apiKey: options.apiKey,
			baseURL,
			maxRetries,
			timeout: timeoutMs,
			fetch: watchedFetch(options.limiter ? limitedFetch(base) : base, { maxRetries, timeoutMs }),
			logLevel: 'off',
		});
	}

	get limiter(): RateLimiter | undefined {
		return this.options.limiter;
	}

	/**
	 * Makes the call when the limiter lets it through. A 429 that means "slow down" never fails it:
	 * it waits as the server says, first in line, as often as it takes, until no call of the account
	 * has been answered for the wait allowed; every refused attempt is reported as a failed attempt.
	 * What the limiter refuses (a call no wait lets through, or the wait allowed spent) fails it.
	 */
	async complete(request: CallRequest): Promise<CallResult> {
		const { limiter } = this.options;
		if (!limiter) return this.guarded(request, {});
		const ask = askOf(request, limiter);
		const bound = { since: Date.now(), ms: this.options.rateLimitWaitMs ?? DEFAULT_RATE_LIMIT_WAIT_MS };
		let refusal: string | null = null;
		for (let retry = false; ; retry = true) {
			let ticket;
			try {
				ticket = await limiter.acquire(ask, { signal: request.signal, retry, bound });
			} catch (error) {
				if (!(error instanceof RateLimitRefusal)) throw error;
				const said = refusal === null ? '' : ` (${refusal})`;
				throw new ProviderError(
					`${this.failure.label}: ${error.problem}${said}; ${error.fix}`,
					!error.tooLarge,
					error.tooLarge ? undefined : 429,
				);
			}
			let result: CallResult;
			try {
				result = await this.guarded(request, {
					[OBSERVE]: (response: Response, sentAt: number) =>
						limiter.observe(ticket, readLimits(response.headers), response.status, sentAt),
				});
			} catch (error) {
				if (!(error instanceof ProviderError && error.rateLimited)) {
					limiter.release(ticket);
					throw error;
				}
				limiter.refused(ticket, error.retryAfterMs);
				refusal = error.message;
				continue;
			}
			limiter.settle(ticket, result.usage);
			if (request.cacheablePrefix && (result.usage.cached > 0 || cachedOnceAnswered(request.cacheablePrefix)))
				limiter.cacheRead(request.cacheablePrefix);
			return result;
		}
	}

	private guarded(request: CallRequest, hooks: object): Promise<CallResult> {
		const { options } = this;
		return guardStream(
			{
				label: this.failure.label,
				streamTimeoutMs: options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS,
				callTimeoutMs: options.callTimeoutMs ?? null,
				streamRetries: options.streamRetries ?? DEFAULT_STREAM_RETRIES,
				retryDelayMs: options.streamRetryDelayMs ?? DEFAULT_STREAM_RETRY_DELAY_MS,
				sdkRetries: options.maxRetries ?? DEFAULT_SDK_RETRIES,
				onRetry: options.onRetry && ((reason) => options.onRetry?.(reason, request)),
			},
			request,
			(signal, received, watched) =>
				this.attempt(request, { signal, fetchOptions: { ...watched, ...hooks } }, received),
		);
	}

	/**
	 * One attempt of `request`: open the stream with `options` (the SDK's request options: the
	 * attempt's signal, and the fetch options that tie its bytes to its watchdog), pass each piece of
	 * text to `received`.
	 */
	protected abstract attempt(
		request: CallRequest,
		options: AttemptOptions,
		received: (text: string) => void,
	): Promise<CallResult>;
}

/**
 * Opens the stream of one attempt: the SDK's request (`open`), its errors as one line a user can
 * act on, and a web page where an API should answer refused (the SDKs would read it as an empty stream).
 */
export async function openStream<S extends { controller: AbortController }>(
	failure: FailureContext,
	open: () => Promise<{ data: S; response: Response }>,
): Promise<S> {
	let opened: { data: S; response: Response };
	try {
		opened = await open();
	} catch (error) {
		throw toProviderError(error, failure);
	}
	const page = webPageAnswer(failure.label, failure.baseURL, failure.keyVar, opened.response);
	if (page) {
		opened.data.controller.abort();
		throw page;
	}
	return opened.data;
}

/** How a provider reads its SDK's stream events. */
export interface EventReader<E> {
	/** Notes what `event` says (a finish reason, token counts) and returns the text it carries. */
	take(event: E): string | undefined;
	/** Whether the stream said it was finished. */
	finished(): boolean;
	/** What a stream that ends without saying so lacks, for the message ("a finish reason"). */
	missing: string;
	/** What a broken stream had delivered, given its text so far. */
	soFar(text: string): StreamSoFar;
}

/**
 * Reads `stream` to its end and returns its text; each piece of text is passed on as a delta, none
 * once the attempt is aborted. A stream that breaks (an error event mid-stream included, which the
 * SDKs do not retry), ends because the attempt was aborted, or ends without saying it was finished
 * is a BrokenStream, with what it had delivered.
 */
export async function readStream<E>(
	stream: AsyncIterable<E>,
	reader: EventReader<E>,
	request: CallRequest,
	signal: AbortSignal,
	received: (text: string) => void,
): Promise<string> {
	let text = '';
	try {
		for await (const event of stream) {
			const piece = reader.take(event);
			if (piece === undefined || signal.aborted) continue;
			text += piece;
			request.onDelta?.(piece);
			received(piece);
		}
	} catch (error) {
		throw new BrokenStream(
			`stream broke (${error instanceof Error ? error.message : String(error)})`,
			reader.soFar(text),
		);
	}
	// The SDK ends iteration quietly when its signal aborts; a cut connection can end it quietly too.
	if (signal.aborted) throw new BrokenStream('stream aborted', reader.soFar(text));
	if (!reader.finished())
		throw new BrokenStream(`stream ended without ${reader.missing}`, reader.soFar(text));
	return text;
}

/**
 * What `request` asks of the limits: its prompt, less a prefix the provider's cache holds and does not
 * count, and its output limit. The prefix (BooookScore's instructions and summary, the same for every
 * sentence) is counted once, not once per call.
 */
function askOf(request: CallRequest, limiter: RateLimiter): Ask {
	const prefix =
		request.cacheablePrefix && request.prompt.startsWith(request.cacheablePrefix)
			? request.cacheablePrefix
			: '';
	const cached = prefix ? prefixTokens(prefix) : 0;
	const input = cached + countTokens(request.prompt.slice(prefix.length));
	if (!prefix || !limiter.freeCache(prefix)) return { input, output: request.maxTokens };
	return { input: input - cached, output: request.maxTokens, cached };
}

let counted = { prefix: '', tokens: 0 };

/** Tokens of a cacheable prefix: the last one's count is kept, as calls with one prefix come together. */
function prefixTokens(prefix: string): number {
	if (counted.prefix !== prefix) counted = { prefix, tokens: countTokens(prefix) };
	return counted.tokens;
}

/**
 * Whether a marked prefix is surely cached once a call with it was answered, though that call wrote
 * the cache rather than read it: Anthropic caches one of 1,024 tokens or more (2,048 for Haiku).
 */
function cachedOnceAnswered(prefix: string): boolean {
	return prefixTokens(prefix) >= 2048;
}

// A response's headers reach the limiter of the attempt that asked: the hook rides in the request's
// fetch options, as the watchdog's does (see stream-watchdog.ts).
const OBSERVE = Symbol('booook rate limits');

/**
 * A fetch that shows every response to its attempt's limiter and keeps the SDKs from retrying a 429
 * themselves (their few retries would fail a run on a busy account): the provider waits it out.
 */
function limitedFetch(base: typeof fetch): typeof fetch {
	return async (input, init) => {
		const sentAt = Date.now();
		const response = await base(input, init);
		(init as { [OBSERVE]?: (response: Response, sentAt: number) => void } | undefined)?.[OBSERVE]?.(
			response,
			sentAt,
		);
		if (response.status !== 429) return response;
		const headers = new Headers(response.headers);
		headers.set('x-should-retry', 'false');
		return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
	};
}
