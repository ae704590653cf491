import OpenAI from 'openai';
import type { Usage } from '../domain.ts';
import { countTokens } from '../text/tokens.ts';
import { webPageAnswer } from './base-url.ts';
import type { CallRequest, CallResult, Provider } from './provider.ts';
import { guardCall, sdkSetup, type SdkProviderOptions } from './sdk-client.ts';
import { toProviderError, type FailureContext } from './sdk-errors.ts';
import { BrokenStream } from './stream-watchdog.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Options of the OpenAI provider; `baseURL` null means the vendor's own API. */
export type OpenAIProviderOptions = SdkProviderOptions;

export class OpenAIProvider implements Provider {
	readonly name = 'openai' as const;
	readonly isLLM = true;
	readonly model: string;
	private readonly client: OpenAI;
	private readonly options: OpenAIProviderOptions;
	private readonly failure: FailureContext;
	/** api.openai.com renamed the limit; compatible servers still expect the old name. */
	private readonly limitParam: 'max_completion_tokens' | 'max_tokens';

	constructor(options: OpenAIProviderOptions) {
		this.options = options;
		this.model = options.model;
		const { client, failure } = sdkSetup(options, { label: 'openai', keyVar: 'OPENAI_API_KEY', defaultBaseURL: OPENAI_DEFAULT_BASE_URL });
		this.limitParam = isOpenAIHost(client.baseURL) ? 'max_completion_tokens' : 'max_tokens';
		this.client = new OpenAI(client);
		this.failure = failure;
	}

	complete(request: CallRequest): Promise<CallResult> {
		return guardCall(this.options, 'openai', request, (signal, received) => this.attempt(request, signal, received));
	}

	private async attempt(request: CallRequest, signal: AbortSignal, received: (text: string) => void): Promise<CallResult> {
		let stream;
		let response: Response;
		try {
			({ data: stream, response } = await this.client.chat.completions.create(
				{
					model: this.model,
					messages: [{ role: 'user', content: request.prompt }],
					temperature: request.temperature,
					stream: true,
					stream_options: { include_usage: true },
					[this.limitParam]: request.maxTokens,
				},
				{ signal },
			).withResponse());
		} catch (error) {
			throw toProviderError(error, this.failure);
		}
		const page = webPageAnswer(this.failure.label, this.failure.baseURL, this.failure.keyVar, response);
		if (page) {
			stream.controller.abort();
			throw page;
		}

		let text = '';
		let finishReason: string | null = null;
		let usage: Usage | null = null;
		// The server counts only at the end: a stream that broke before is estimated, as OpenAI
		// bills the prompt and the tokens it sent.
		const soFar = () => ({ text, usage: usage ?? estimate(request.prompt, text) });
		try {
			for await (const chunk of stream) {
				const choice = chunk.choices[0];
				const delta = choice?.delta?.content;
				if (delta && !signal.aborted) {
					text += delta;
					request.onDelta?.(delta);
					received(delta);
				}
				if (choice?.finish_reason) finishReason = choice.finish_reason;
				if (chunk.usage) {
					usage = {
						input: chunk.usage.prompt_tokens,
						output: chunk.usage.completion_tokens,
						cached: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
					};
				}
			}
		} catch (error) {
			throw new BrokenStream(`stream broke (${error instanceof Error ? error.message : String(error)})`, soFar());
		}
		// The SDK ends iteration quietly when its signal aborts; a cut connection can end it quietly too.
		if (signal.aborted) throw new BrokenStream('stream aborted', soFar());
		if (finishReason === null) throw new BrokenStream('stream ended without a finish reason', soFar());
		// Some compatible servers ignore include_usage; an estimate with the shared counter keeps
		// costs and budgets roughly right instead of zero.
		return { text, finishReason, usage: usage ?? estimate(request.prompt, text) };
	}
}

function estimate(prompt: string, text: string): Usage {
	return { input: countTokens(prompt), output: countTokens(text), cached: 0 };
}

function isOpenAIHost(baseURL: string): boolean {
	try {
		return new URL(baseURL).hostname === 'api.openai.com';
	} catch {
		return false;
	}
}
