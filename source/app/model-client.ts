import type { ProviderName, Usage } from '../domain.ts';
import { createProvider, type AccountLimits } from '../llm/create.ts';
import { callCost, isPriced, loadPrices } from '../llm/prices.ts';
import type { Provider } from '../llm/provider.ts';
import type { EncodingName } from '../text/tokens.ts';

/** What a model client is made from: the model, its server and limits, and where its prices are read. */
export interface ModelClientConfig extends AccountLimits {
	provider: ProviderName;
	model: string;
	/** `--base-url`; else OPENAI_BASE_URL / ANTHROPIC_BASE_URL from `env`. */
	baseUrl?: string | null;
	streamTimeoutMs: number;
	/** Most time from a stream's first byte to its end; unset: derived from each call's output limit. */
	callTimeoutMs?: number | null;
	/** Token encoding of the extractive baseline. */
	encoding?: EncodingName;
	/** What to do when the key is not set, for a provider the user cannot choose again (a session's). */
	missingKey?: string;
	/** `--prices FILE`; unset: $BOOOOK_PRICES, else the user's prices file. */
	prices?: string;
	env?: NodeJS.ProcessEnv;
}

/**
 * A model as runs, scorings and judgings call it: the provider (its account's shared rate limiter,
 * its `onRetry` subscription) and what each call costs at the user's prices.
 */
export interface ModelClient {
	provider: Provider;
	costOf: (usage: Usage) => number;
	/** The prices name this model: costs are not all zero for want of a price. */
	priced: boolean;
}

/** The one place a model client is built; fails (missing key, bad address or prices file) before any call. */
export function modelClient(config: ModelClientConfig): ModelClient {
	const prices = loadPrices(config.prices, config.env);
	const provider = createProvider({
		provider: config.provider,
		model: config.model,
		baseUrl: config.baseUrl,
		streamTimeoutMs: config.streamTimeoutMs,
		callTimeoutMs: config.callTimeoutMs,
		env: config.env,
		encoding: config.encoding,
		limits: config.limits,
		rateLimitWaitMs: config.rateLimitWaitMs,
		...(config.missingKey ? { missingKey: config.missingKey } : {}),
	});
	return {
		provider,
		costOf: (usage) => callCost(prices, config.model, usage, config.provider).cost,
		priced: isPriced(prices, config.model, config.provider),
	};
}
