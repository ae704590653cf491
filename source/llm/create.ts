import { createHash } from 'node:crypto';
import type { ProviderName } from '../domain.ts';
import { badInput } from '../errors.ts';
import type { EncodingName } from '../text/tokens.ts';
import { anthropicRoot, checkBaseUrl } from './base-url.ts';
import { ExtractiveProvider } from './extractive.ts';
import type { BatchApi } from './batcher.ts';
import type { CallRequest, CallResult, Provider, RetryListener } from './provider.ts';
import type { SdkProviderOptions } from './sdk-client.ts';
import { sharedLimiter, type RateLimiter, type StatedLimits } from './rate-limit.ts';
import { flag, said, type Said } from '../program.ts';

export interface CreateProviderOptions extends AccountLimits {
	provider: ProviderName;
	model: string;
	/** `--base-url`; else OPENAI_BASE_URL / ANTHROPIC_BASE_URL from `env`. */
	baseUrl?: string | null;
	streamTimeoutMs?: number;
	/** Most time from a stream's first byte to its end; null or unset: derived from each call's output limit. */
	callTimeoutMs?: number | null;
	streamRetries?: number;
	streamRetryDelayMs?: number;
	/** SDK retries of 429/5xx/connection errors. */
	maxRetries?: number;
	/** Where keys and base URLs are read; defaults to process.env. */
	env?: NodeJS.ProcessEnv;
	/** Token encoding of the extractive baseline. */
	encoding?: EncodingName;
	/**
	 * What to do when the key is not set, for a provider the user cannot choose again here (a
	 * session's); unset: set the key or choose the extractive baseline with --provider.
	 */
	missingKey?: Said;
}

/** What a user says of the account's rate limits (`--tpm`, `--rpm`, `--rate-limit-wait`). */
export interface AccountLimits {
	/** Stated up front; the server's headers replace them. */
	limits?: StatedLimits;
	/** Longest wait on 429s with no call of the account answered. */
	rateLimitWaitMs?: number;
}

export function createProvider(opts: CreateProviderOptions): Provider {
	const env = opts.env ?? process.env;
	const retries = retryListeners();
	const common = {
		model: opts.model,
		streamTimeoutMs: opts.streamTimeoutMs,
		callTimeoutMs: opts.callTimeoutMs,
		streamRetries: opts.streamRetries,
		streamRetryDelayMs: opts.streamRetryDelayMs,
		maxRetries: opts.maxRetries,
		onRetry: retries.emit,
		rateLimitWaitMs: opts.rateLimitWaitMs,
	};
	switch (opts.provider) {
		case 'openai': {
			const baseURL = baseUrl(opts.baseUrl, env, 'OPENAI');
			const account = {
				apiKey: requireKey(env, 'OPENAI_API_KEY', 'openai', baseURL, opts.missingKey),
				baseURL,
			};
			const options = { ...common, ...account, limiter: limiterOf('openai', account, opts) };
			return sdkProvider(
				'openai',
				options,
				async () => new (await import('./openai.ts')).OpenAIProvider(options),
				retries.subscribe,
			);
		}
		case 'anthropic': {
			const baseURL = baseUrl(opts.baseUrl, env, 'ANTHROPIC');
			const account = {
				apiKey: requireKey(env, 'ANTHROPIC_API_KEY', 'anthropic', baseURL, opts.missingKey),
				baseURL,
			};
			const options = { ...common, ...account, limiter: limiterOf('anthropic', account, opts) };
			return sdkProvider(
				'anthropic',
				options,
				async () => new (await import('./anthropic.ts')).AnthropicProvider(options),
				retries.subscribe,
			);
		}
		case 'extractive':
			return new ExtractiveProvider({ encoding: opts.encoding });
		default:
			throw badInput(`unknown provider "${String(opts.provider)}" (use openai, anthropic or extractive)`);
	}
}

/**
 * A model provider whose module, and so its vendor's SDK, is imported once it is created rather than
 * when booook starts: the two SDKs take about a fifth of a second to load, which every command paid,
 * and a run needs at most one of them. The checks that can fail (key, base URL) were made by then, so
 * creating one still fails at once; loading starts at creation and the first call waits for it.
 */
function sdkProvider(
	name: 'openai' | 'anthropic',
	options: SdkProviderOptions,
	load: () => Promise<Provider>,
	onRetry: NonNullable<Provider['onRetry']>,
): Provider {
	const loaded = load();
	// A failed load is reported by the calls that wait for it, not as an unhandled rejection.
	loaded.catch(() => {});
	return {
		name,
		model: options.model,
		isLLM: true,
		limiter: options.limiter,
		complete: async (request: CallRequest): Promise<CallResult> => (await loaded).complete(request),
		onRetry,
	};
}

/** The provider's retry subscribers (the call runners of the engines and annotators that use it), and telling them all. */
function retryListeners() {
	const listeners = new Set<RetryListener>();
	return {
		emit: (reason: string, request: CallRequest) => {
			for (const listener of listeners) listener(reason, request);
		},
		subscribe: (listener: RetryListener) => {
			listeners.add(listener);
			return () => {
				listeners.delete(listener);
			};
		},
	};
}

/** The process's limiter for this account and model (Anthropic gives back an unused output limit and does not count cache reads). */
function limiterOf(
	provider: 'openai' | 'anthropic',
	account: { apiKey: string; baseURL: string | null },
	opts: CreateProviderOptions,
): RateLimiter {
	const keyDigest = createHash('sha256').update(account.apiKey).digest('hex').slice(0, 16);
	return sharedLimiter(
		{ provider, baseURL: account.baseURL ?? 'default', keyDigest, model: opts.model },
		{
			stated: opts.limits ?? {},
			refundsOutput: provider === 'anthropic',
			freeCacheReads: provider === 'anthropic',
		},
	);
}

/**
 * The batch API (OpenAI Batch, Anthropic Message Batches) of a provider and model, with the key and
 * server a streamed call of theirs would use; checked (key, base URL) when made, its SDK loading
 * from then on (not with this module, which every command loads). The extractive baseline makes no model calls, so it has none.
 */
export function createBatchApi(opts: {
	provider: ProviderName;
	model: string;
	baseUrl?: string | null;
	env?: NodeJS.ProcessEnv;
}): BatchApi {
	const env = opts.env ?? process.env;
	if (opts.provider === 'extractive')
		throw badInput(
			'the extractive baseline makes no model calls, so it has no batch API; use "batch" with openai or anthropic',
		);
	const vendor = opts.provider === 'openai' ? 'OPENAI' : 'ANTHROPIC';
	const baseURL = baseUrl(opts.baseUrl, env, vendor);
	const options = {
		apiKey: requireKey(env, `${vendor}_API_KEY`, opts.provider, baseURL),
		model: opts.model,
		baseURL,
	};
	const loaded: Promise<BatchApi> =
		opts.provider === 'openai'
			? import('./openai-batch.ts').then((m) => new m.OpenAIBatchApi(options))
			: import('./anthropic-batch.ts').then((m) => new m.AnthropicBatchApi(options));
	loaded.catch(() => {});
	return {
		provider: opts.provider,
		model: opts.model,
		submit: async (items) => (await loaded).submit(items),
		status: async (id, signal) => (await loaded).status(id, signal),
		results: async (id, signal) => (await loaded).results(id, signal),
	};
}

/** `--base-url`, else the vendor's *_BASE_URL variable, checked; null for the vendor's own API. */
export function baseUrl(
	given: string | null | undefined,
	env: NodeJS.ProcessEnv,
	vendor: 'OPENAI' | 'ANTHROPIC',
): string | null {
	const variable = `${vendor}_BASE_URL`;
	const url = given || env[variable] || null;
	if (url === null) return null;
	const checked = checkBaseUrl(url, given ? said`${flag('--base-url')}` : variable, `${vendor}_API_KEY`);
	return vendor === 'ANTHROPIC' ? anthropicRoot(checked) : checked;
}

/** What the SDKs send as the key to a server that takes none (they refuse to start without one). */
const NO_KEY = 'no-key';

/**
 * The key in `name`. A server of one's own (vLLM, llama.cpp, Ollama) usually takes no key, so with a
 * base URL that is not the vendor's API a missing key is no error: the server says if it wants one.
 */
export function requireKey(
	env: NodeJS.ProcessEnv,
	name: string,
	provider: string,
	baseURL: string | null,
	missing?: Said,
): string {
	const key = env[name]?.trim();
	if (!key && baseURL !== null && !isVendorApi(baseURL)) return NO_KEY;
	if (!key)
		throw badInput(
			said`${name} is not set: ${missing ?? said`export it to use ${flag('--provider', provider)}, or use ${flag('--provider', 'extractive')} (no key)`}`,
		);
	return key;
}

/**
 * Whether a call to `provider` at `flag`'s server (else its *_BASE_URL's, else the vendor's) lacks
 * the key it needs: a server of one's own takes none unless it says so (`requireKey`).
 */
export function lacksKey(
	provider: 'openai' | 'anthropic',
	flag: string | null | undefined,
	env: NodeJS.ProcessEnv,
): boolean {
	const vendor = provider === 'openai' ? 'OPENAI' : 'ANTHROPIC';
	if (env[`${vendor}_API_KEY`]?.trim()) return false;
	const server = baseUrl(flag, env, vendor);
	return server === null || isVendorApi(server);
}

function isVendorApi(url: string): boolean {
	const host = new URL(url).hostname;
	return host === 'api.openai.com' || host === 'api.anthropic.com';
}

/**
 * The provider a user gets without `--provider`: whichever key is present; else openai when a server
 * is named (`--base-url`, OPENAI_BASE_URL), since an OpenAI-compatible server is what one runs
 * locally; else the offline baseline.
 */
export function defaultProvider(env: NodeJS.ProcessEnv = process.env, baseUrl?: string | null): ProviderName {
	if (env.OPENAI_API_KEY?.trim()) return 'openai';
	if (env.ANTHROPIC_API_KEY?.trim()) return 'anthropic';
	if (baseUrl || env.OPENAI_BASE_URL?.trim()) return 'openai';
	return 'extractive';
}

export function defaultModel(provider: ProviderName): string {
	switch (provider) {
		case 'openai':
			return 'gpt-4o-mini';
		case 'anthropic':
			// Sonnet 4 (claude-sonnet-4-20250514) is retired; this is the SDK's current Sonnet 4.x.
			return 'claude-sonnet-4-6';
		case 'extractive':
			return 'textrank';
	}
}
