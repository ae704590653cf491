import type { CallRequest } from './provider.ts';
import type { FailureContext } from './sdk-errors.ts';
import { DEFAULT_STREAM_RETRIES, DEFAULT_STREAM_RETRY_DELAY_MS, guardStream } from './stream-retry.ts';
import { DEFAULT_STREAM_TIMEOUT_MS, watchedFetch } from './stream-watchdog.ts';

/**
 * What the two SDK-backed providers (OpenAI, Anthropic) share: their options, the settings of
 * their SDK client, and how one call goes through the watchdog and the stream retries.
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
