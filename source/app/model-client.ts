import type { ProviderName, RunConfig, Usage } from '../domain.ts';
import { DEFAULTS } from '../config.ts';
import { badInput } from '../errors.ts';
import { keyVariable } from '../llm/base-url.ts';
import { createProvider, defaultModel, defaultProvider, type AccountLimits } from '../llm/create.ts';
import { callCost, isPriced, loadPrices } from '../llm/prices.ts';
import type { Provider } from '../llm/provider.ts';
import type { EncodingName } from '../text/tokens.ts';
import { flag, joined, said, type Said } from '../program.ts';

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
	missingKey?: Said;
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

/** What a pass over a session's summaries (a judge, a reader) is asked with: the session and its model's flags. */
export interface PassOptions {
	id: string;
	sessionsDir: string;
	provider?: string;
	model?: string;
	baseUrl?: string;
	concurrency?: number;
	/** A folder of prompt templates overriding the shipped ones. */
	prompts?: string | null;
	prices?: string;
	account?: AccountLimits;
	env?: NodeJS.ProcessEnv;
}

/** The model a pass over a run's summaries uses (a judge, a reader), as named by its flags. */
export interface PassModel {
	provider: ProviderName;
	model: string;
	baseUrl: string | null;
}

/**
 * The model of a pass over a finished run (judging faithfulness, answering memory questions): named
 * by the flags, else the run's own model, else whichever key is set. Refused in one line when it is
 * the extractive baseline (no LLM) or, unless only `planned`, its key is not set; `task` and `verb`
 * name the pass there.
 */
export function passModel(
	data: { run: { config: Pick<RunConfig, 'provider' | 'model' | 'baseUrl'> } },
	opts: { provider?: string; model?: string; baseUrl?: string },
	env: NodeJS.ProcessEnv,
	words: { task: string; verb: string },
	/** Only planned (`--plan`): no call is made, so no key is needed. */
	planned = false,
): PassModel {
	const own = data.run.config;
	const ownLLM = own.provider !== 'extractive' ? own : null;
	const provider =
		(opts.provider as ProviderName | undefined) ?? ownLLM?.provider ?? defaultProvider(env, opts.baseUrl);
	const same = ownLLM !== null && ownLLM.provider === provider;
	const model = opts.model ?? (same ? ownLLM.model : defaultModel(provider));
	if (provider === 'extractive')
		throw badInput(
			planned
				? joined(
						said`${words.task} needs an LLM: name the one to plan for with ${flag('--provider', 'openai|anthropic')} `,
						said`(and ${flag('--model')}); planning needs no key`,
					)
				: joined(
						said`${words.task} needs an LLM: set OPENAI_API_KEY (or ANTHROPIC_API_KEY), or pass `,
						said`${flag('--provider', 'openai|anthropic')} with that key set (${flag('--base-url')} for a compatible server)`,
					),
		);
	const key = keyVariable(provider);
	if (!planned && !env[key]?.trim())
		throw badInput(
			said`${words.verb} with ${provider}/${model} needs ${key}: export it, or choose another model with ${flag('--provider')} and ${flag('--model')}`,
		);
	return {
		provider,
		model,
		baseUrl: opts.baseUrl ?? (same && ownLLM.model === model ? ownLLM.baseUrl : null),
	};
}

/** The client of a pass's model, with the account's limits and the user's prices. */
export function passClient(
	model: PassModel,
	opts: { prices?: string; env: NodeJS.ProcessEnv; account?: AccountLimits },
): ModelClient {
	return modelClient({
		...model,
		streamTimeoutMs: DEFAULTS.streamTimeout * 1000,
		prices: opts.prices,
		env: opts.env,
		...opts.account,
	});
}
