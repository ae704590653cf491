import OpenAI from 'openai';
import type { Usage } from '../domain.ts';
import { countTokens } from '../text/tokens.ts';
import type { CallRequest, CallResult } from './provider.ts';
import { openStream, readStream, SdkProvider, type AttemptOptions, type SdkProviderOptions } from './sdk-client.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Options of the OpenAI provider; `baseURL` null means the vendor's own API. */
export type OpenAIProviderOptions = SdkProviderOptions;

export class OpenAIProvider extends SdkProvider<OpenAI> {
	readonly name = 'openai' as const;
	/** api.openai.com renamed the limit; compatible servers still expect the old name. */
	private readonly limitParam: 'max_completion_tokens' | 'max_tokens';

	constructor(options: OpenAIProviderOptions) {
		super(options, { label: 'openai', keyVar: 'OPENAI_API_KEY', defaultBaseURL: OPENAI_DEFAULT_BASE_URL }, (settings) => new OpenAI(settings));
		this.limitParam = limitParamFor(this.failure.baseURL);
	}

	protected async attempt(request: CallRequest, options: AttemptOptions, received: (text: string) => void): Promise<CallResult> {
		const { signal } = options;
		const stream = await openStream(this.failure, () =>
			this.client.chat.completions
				.create(
					{
						model: this.model,
						messages: [{ role: 'user', content: request.prompt }],
						temperature: request.temperature,
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
