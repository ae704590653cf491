import type { Usage } from '../domain.ts';
import type { Task } from '../summarize/planner.ts';
import type { RateLimiter } from './rate-limit.ts';

/**
 * What an operation asks of a model, in two forms: `prompt` for language models, and `task` (the
 * same operation as data) for the extractive baseline, which cannot read instructions.
 */
export interface CallRequest {
	prompt: string;
	/**
	 * A leading part of `prompt` that is identical across many calls (BooookScore's instructions and
	 * summary). Providers that support prompt caching mark it; others ignore it.
	 */
	cacheablePrefix?: string;
	maxTokens: number;
	temperature: number;
	task: Task;
	signal?: AbortSignal;
	/** Called with each piece of text as it streams in. */
	onDelta?: (text: string) => void;
	/**
	 * Called for each attempt of this call that gave no result, as it ends: an error response (the
	 * SDK may retry it), a connection that failed, a stream that broke, stalled, passed its deadline
	 * or sent too much. The call goes on (or fails) after it; the caller logs and bills it.
	 */
	onAttemptFailed?: (attempt: FailedAttempt) => void;
}

/** An attempt of a call that gave no result, with what it cost as far as it is known. */
export interface FailedAttempt {
	/** Why it failed, one line ("HTTP 429 Too Many Requests", "stream stalled (…)"). */
	reason: string;
	/** The text it streamed before it failed (void: the caller shows and keeps none of it). */
	text: string;
	/**
	 * The server's counts where it sent them; else the prompt and the text counted with the shared
	 * counter once a stream started; zero for an attempt that never got a stream.
	 */
	usage: Usage;
	start: Date;
	end: Date;
}

export interface CallResult {
	text: string;
	/** The provider's stop/finish reason; a stream that ended without one is an error, not a result. */
	finishReason: string;
	usage: Usage;
}

export interface Provider {
	readonly name: 'openai' | 'anthropic' | 'extractive';
	readonly model: string;
	/** False for the extractive baseline: screens and outputs say so. */
	readonly isLLM: boolean;
	/** The limiter pacing this provider's calls (shared by every provider of the same account and model). */
	readonly limiter?: RateLimiter;
	complete(request: CallRequest): Promise<CallResult>;
	/**
	 * Subscribes `listener` to the provider's retries of a call (a broken stream, an error response
	 * the SDK retries): what streamed of that call so far is void. Returns the unsubscribe. Absent for
	 * a provider that never retries (the extractive baseline).
	 */
	onRetry?(listener: RetryListener): () => void;
}

/** Hears that `request` is being retried, and why. */
export type RetryListener = (reason: string, request: CallRequest) => void;

/**
 * A call that failed. `retryable` is false for errors a retry cannot fix (400, 401, 403, 404,
 * bad configuration); the SDKs have already retried 429/5xx/connection errors when this is thrown.
 */
export class ProviderError extends Error {
	/** A 429 that means "slow down" (not an empty quota, not a request too large to ever pass). */
	readonly rateLimited: boolean;
	/** How long the server asked to wait, when it said. */
	readonly retryAfterMs: number | null;

	constructor(
		message: string,
		readonly retryable: boolean,
		readonly status?: number,
		limit: { rateLimited?: boolean; retryAfterMs?: number | null } = {},
	) {
		super(message);
		this.name = 'ProviderError';
		this.rateLimited = limit.rateLimited ?? false;
		this.retryAfterMs = limit.retryAfterMs ?? null;
	}
}

export const EXTRACTIVE_LABEL = 'extractive baseline (not an LLM)';

export function describeProvider(p: Pick<Provider, 'name' | 'model' | 'isLLM'>): string {
	return p.isLLM ? `${p.name} ${p.model}` : EXTRACTIVE_LABEL;
}
