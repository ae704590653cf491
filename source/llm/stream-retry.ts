import { counted } from '../format/count.ts';
import pRetry from 'p-retry';
import { setTimeout as delay } from 'node:timers/promises';
import { ProviderError } from './provider.ts';
import {
	BrokenStream,
	callCancelled,
	watchAttempt,
	type StreamAttempt,
	type WatchedRequest,
	type WatchOptions,
} from './stream-watchdog.ts';

/**
 * Starting a streamed call again when its stream broke. The SDKs already retry 429/5xx/connection
 * errors *before* a stream starts; once it has started they only pass errors on, so a stream that
 * broke, stalled, passed its deadline or sent too much (a BrokenStream from the watchdog) is
 * started again here, a bounded number of times. Nothing else is retried.
 */

export const DEFAULT_STREAM_RETRIES = 3;
export const DEFAULT_STREAM_RETRY_DELAY_MS = 500;

export interface GuardOptions extends WatchOptions {
	/** Extra attempts after a broken stream; then a retryable ProviderError. */
	streamRetries: number;
	/** Pause before the n-th retry is n times this. */
	retryDelayMs: number;
}

/**
 * Runs `attempt` under the watchdog (`watchAttempt`) until it returns, starting it again after a
 * broken stream, at most `streamRetries` times; `onRetry` hears why before each new start. A caller
 * abort rejects at once with an AbortError and is never retried; any other error is final and
 * passed on unchanged.
 */
export async function guardStream<T>(
	options: GuardOptions,
	request: WatchedRequest,
	attempt: StreamAttempt<T>,
): Promise<T> {
	const { label, streamRetries } = options;
	const signal = request.signal;
	let lastReason = '';
	try {
		return await pRetry(
			async (n) => {
				if (n > 1) {
					options.onRetry?.(`${lastReason}; retry ${n - 1} of ${streamRetries}`);
					// A linear pause, taken here rather than by p-retry (whose backoff is exponential).
					await delay(options.retryDelayMs * (n - 1), undefined, { signal });
				}
				return watchAttempt(options, request, attempt);
			},
			{
				retries: streamRetries,
				minTimeout: 0,
				shouldRetry: ({ error }) => error instanceof BrokenStream,
				onFailedAttempt: ({ error }) => {
					if (error instanceof BrokenStream) lastReason = error.message;
				},
			},
		);
	} catch (error) {
		if (signal?.aborted) throw callCancelled(label, signal);
		if (error instanceof BrokenStream)
			throw new ProviderError(
				`${label}: no complete stream in ${counted(streamRetries + 1, 'attempt')}, last: ${lastReason}`,
				true,
			);
		throw error;
	}
}
