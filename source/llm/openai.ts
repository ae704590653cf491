import OpenAI from 'openai';
import type { Usage } from '../domain.ts';
import { countTokens } from '../text/tokens.ts';
import type { CallRequest, CallResult } from './provider.ts';
import {
	openStream,
	readStream,
	SdkProvider,
	type AttemptOptions,
	type SdkProviderOptions,
} from './sdk-client.ts';
import { OPENAI_DEFAULT_BASE_URL } from './base-url.ts';

export { OPENAI_DEFAULT_BASE_URL };

/**
 * How `model` is sampled. The reasoning models (the o-series, and GPT-5 before 5.1 but for its chat
 * model) answer a temperature other than their default with a 400, so it is left out (it is still
 * recorded with each call). They also spend reasoning tokens out of the output limit, at medium
 * effort unless told otherwise, which can leave nothing of a summary's limit for the summary: the
 * ones that take it are asked for their least effort, as the paper's prompts need no reasoning.
 * GPT-5.1 on reasons only when asked and takes a temperature; its other variants (pro, codex) do not.
 */
function samplingOf(model: string): { temperature: boolean; reasoningEffort: 'minimal' | 'low' | null } {
	if (/^gpt-5(\.\d+)?-chat/u.test(model) || /^gpt-5\.\d+(-mini|-nano)?(-\d{4}-\d{2}-\d{2})?$/u.test(model))
		return { temperature: true, reasoningEffort: null };
	if (/^gpt-5(-mini|-nano)?(-\d{4}-\d{2}-\d{2})?$/u.test(model))
		return { temperature: false, reasoningEffort: 'minimal' };
	if (/^(o1|o3|o3-mini|o4-mini)(-\d{4}-\d{2}-\d{2})?$/u.test(model))
		return { temperature: false, reasoningEffort: 'low' };
	if (/^(gpt-5|o\d)/u.test(model)) return { temperature: false, reasoningEffort: null };
	return { temperature: true, reasoningEffort: null };
}

/** The sampling fields of a chat completion's body for `model`. */
export function samplingFields(
	model: string,
	temperature: number,
): { temperature?: number; reasoning_effort?: 'minimal' | 'low' } {
	const sampling = samplingOf(model);
	return {
		...(sampling.temperature ? { temperature } : {}),
		...(sampling.reasoningEffort ? { reasoning_effort: sampling.reasoningEffort } : {}),
	};
}

/** Options of the OpenAI provider; `baseURL` null means the vendor's own API. */
export type OpenAIProviderOptions = SdkProviderOptions;

export class OpenAIProvider extends SdkProvider<OpenAI> {
	readonly name = 'openai' as const;
	/** api.openai.com renamed the limit; compatible servers still expect the old name. */
	private readonly limitParam: 'max_completion_tokens' | 'max_tokens';

	constructor(options: OpenAIProviderOptions) {
		super(
			options,
			{ label: 'openai', keyVar: 'OPENAI_API_KEY', defaultBaseURL: OPENAI_DEFAULT_BASE_URL },
			(settings) => new OpenAI(settings),
		);
		this.limitParam = limitParamFor(this.failure.baseURL);
	}

	protected async attempt(
		request: CallRequest,
		options: AttemptOptions,
		received: (text: string) => void,
	): Promise<CallResult> {
		const { signal } = options;
		const stream = await openStream(this.failure, () =>
			this.client.chat.completions
				.create(
					{
						model: this.model,
						messages: [{ role: 'user', content: request.prompt }],
						...samplingFields(this.model, request.temperature),
						stream: true,
						stream_options: { include_usage: true },
						[this.limitParam]: request.maxTokens,
					},
					options,
				)
				.withResponse(),
		);
		let finishReason: string | null = null;
		let usage: Usage | null = null;
		const text = await readStream(
			stream,
			{
				take(chunk) {
					const choice = chunk.choices[0];
					if (choice?.finish_reason) finishReason = choice.finish_reason;
					if (chunk.usage) {
						usage = {
							input: chunk.usage.prompt_tokens,
							output: chunk.usage.completion_tokens,
							cached: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
						};
					}
					return choice?.delta?.content || undefined;
				},
				finished: () => finishReason !== null,
				missing: 'a finish reason',
				// The server counts only at the end: a stream that broke before is estimated, as OpenAI
				// bills the prompt and the tokens it sent.
				soFar: (text) => ({ text, usage: usage ?? estimate(request.prompt, text) }),
			},
			request,
			signal,
			received,
		);
		// Some compatible servers ignore include_usage; an estimate with the shared counter keeps
		// costs and budgets roughly right instead of zero.
		return { text, finishReason: finishReason!, usage: usage ?? estimate(request.prompt, text) };
	}
}

function estimate(prompt: string, text: string): Usage {
	return { input: countTokens(prompt), output: countTokens(text), cached: 0 };
}

/** api.openai.com renamed the output limit; compatible servers still expect the old name. */
export function limitParamFor(baseURL: string): 'max_completion_tokens' | 'max_tokens' {
	return isOpenAIHost(baseURL) ? 'max_completion_tokens' : 'max_tokens';
}

function isOpenAIHost(baseURL: string): boolean {
	try {
		return new URL(baseURL).hostname === 'api.openai.com';
	} catch {
		return false;
	}
}
