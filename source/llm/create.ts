import type { ProviderName } from '../domain.ts';
import { badInput } from '../errors.ts';
import type { EncodingName } from '../text/tokens.ts';
import { AnthropicProvider } from './anthropic.ts';
import { checkBaseUrl } from './base-url.ts';
import { ExtractiveProvider } from './extractive.ts';
import { OpenAIProvider } from './openai.ts';
import type { CallRequest, Provider } from './provider.ts';

export interface CreateProviderOptions {
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
	/** A broken stream of `request` is being retried: drop the deltas shown for it so far. */
	onRetry?: (reason: string, request: CallRequest) => void;
	/** Token encoding of the extractive baseline. */
	encoding?: EncodingName;
}

export function createProvider(opts: CreateProviderOptions): Provider {
	const env = opts.env ?? process.env;
	const common = {
		model: opts.model,
		streamTimeoutMs: opts.streamTimeoutMs,
		callTimeoutMs: opts.callTimeoutMs,
		streamRetries: opts.streamRetries,
		streamRetryDelayMs: opts.streamRetryDelayMs,
		maxRetries: opts.maxRetries,
		onRetry: opts.onRetry,
	};
	switch (opts.provider) {
		case 'openai':
			return new OpenAIProvider({
				...common,
				apiKey: requireKey(env, 'OPENAI_API_KEY', 'openai'),
				baseURL: baseUrl(opts.baseUrl, env, 'OPENAI'),
			});
		case 'anthropic':
			return new AnthropicProvider({
				...common,
				apiKey: requireKey(env, 'ANTHROPIC_API_KEY', 'anthropic'),
				baseURL: baseUrl(opts.baseUrl, env, 'ANTHROPIC'),
			});
		case 'extractive':
			return new ExtractiveProvider({ encoding: opts.encoding });
		default:
			throw badInput(`unknown provider "${String(opts.provider)}" (use openai, anthropic or extractive)`);
	}
}

/** `--base-url`, else the vendor's *_BASE_URL variable, checked; null for the vendor's own API. */
function baseUrl(flag: string | null | undefined, env: NodeJS.ProcessEnv, vendor: 'OPENAI' | 'ANTHROPIC'): string | null {
	const variable = `${vendor}_BASE_URL`;
	const url = flag || env[variable] || null;
	return url === null ? null : checkBaseUrl(url, flag ? '--base-url' : variable, `${vendor}_API_KEY`);
}

function requireKey(env: NodeJS.ProcessEnv, name: string, provider: string): string {
	const key = env[name]?.trim();
	if (!key) throw badInput(`${name} is not set: export it to use --provider ${provider}, or use --provider extractive (no key)`);
	return key;
}

/** The provider a user gets without `--provider`: whichever key is present, else the offline baseline. */
export function defaultProvider(env: NodeJS.ProcessEnv = process.env): ProviderName {
	if (env.OPENAI_API_KEY?.trim()) return 'openai';
	if (env.ANTHROPIC_API_KEY?.trim()) return 'anthropic';
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
