import Anthropic from '@anthropic-ai/sdk';
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
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

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * The API version that still takes `temperature`. The SDK speaks 2026-10-21, which rejects every
 * sampling parameter with a 400; on 2023-06-01 the models before Claude 4.7 accept it, and the
 * later ones reject it on any version.
 */
export const SAMPLING_API_VERSION = '2023-06-01';

/**
 * Whether `model` takes a temperature (on `SAMPLING_API_VERSION`): Claude 2 and 3, and Claude 4 up to
 * 4.6. BooookScore annotates at temperature 0 and the paper's runs sample at 0.5, so where a model
 * takes it, it is sent; for the others (and unknown names) it is left out and runs at the default.
 */
export function acceptsTemperature(model: string): boolean {
	return (
		/^claude-(instant|2|3)\b/u.test(model) ||
		/^claude-(opus|sonnet|haiku)-4(-[0-6])?(-\d{8})?$/u.test(model) ||
		/^claude-(opus|sonnet|haiku)-4(-[0-6])?-(latest|v\d)/u.test(model)
	);
}
/** Options of the Anthropic provider; `baseURL` null means the vendor's own API. */
export type AnthropicProviderOptions = SdkProviderOptions;

/** Token counts as they stand after the latest event (message_delta repeats and updates them). */
interface WireUsage {
	input_tokens?: number | null;
	output_tokens?: number | null;
	cache_read_input_tokens?: number | null;
	cache_creation_input_tokens?: number | null;
}

export class AnthropicProvider extends SdkProvider<Anthropic> {
	readonly name = 'anthropic' as const;

	constructor(options: AnthropicProviderOptions) {
		super(
			options,
			{ label: 'anthropic', keyVar: 'ANTHROPIC_API_KEY', defaultBaseURL: ANTHROPIC_DEFAULT_BASE_URL },
			(settings) => new Anthropic(settings),
		);
	}

	protected async attempt(
		request: CallRequest,
		options: AttemptOptions,
		received: (text: string) => void,
	): Promise<CallResult> {
		const { signal } = options;
		const sampling = acceptsTemperature(this.model);
		const body = {
			model: this.model,
			max_tokens: request.maxTokens,
			stream: true as const,
			messages: [{ role: 'user' as const, content: contentBlocks(request.prompt, request.cacheablePrefix) }],
			// The field is gone from this SDK (its API version rejects it), so it goes in as a plain body field.
			...(sampling ? { temperature: request.temperature } : {}),
		};
		const stream = await openStream(this.failure, () =>
			this.client.messages
				.create(body, { ...options, headers: sampling ? { 'anthropic-version': SAMPLING_API_VERSION } : {} })
				.withResponse(),
		);
		let stopReason: string | null = null;
		const usage: WireUsage = {};
		// `event: error` mid-stream (overloaded_error) breaks the stream: the SDK does not retry those.
		const text = await readStream(
			stream,
			{
				take(event) {
					switch (event.type) {
						case 'message_start':
							mergeUsage(usage, event.message.usage);
							return undefined;
						case 'content_block_delta':
							return event.delta.type === 'text_delta' ? event.delta.text : undefined;
						case 'message_delta':
							if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
							mergeUsage(usage, event.usage);
							return undefined;
						default:
							return undefined;
					}
				},
				finished: () => stopReason !== null,
				missing: 'a stop reason',
				// message_start counts the prompt; the output count comes at the end, so a stream that broke
				// before is estimated from its text.
				soFar: (text) => {
					const counted = totalUsage(usage);
					return { text, usage: { ...counted, output: Math.max(counted.output, countTokens(text)) } };
				},
			},
			request,
			signal,
			received,
		);
		return { text, finishReason: stopReason!, usage: totalUsage(usage) };
	}
}

export function totalUsage(usage: WireUsage): Usage {
	const cached = usage.cache_read_input_tokens ?? 0;
	return {
		// Anthropic's input_tokens excludes cache reads and writes; ours counts the whole prompt.
		input: (usage.input_tokens ?? 0) + cached + (usage.cache_creation_input_tokens ?? 0),
		output: usage.output_tokens ?? 0,
		cached,
	};
}

/**
 * The prompt as text blocks: the shared prefix alone in a block marked for caching, then the rest.
 * A prefix that is not really a prefix is ignored rather than trusted.
 */
export function contentBlocks(prompt: string, prefix?: string): TextBlockParam[] {
	if (!prefix || !prompt.startsWith(prefix)) return [{ type: 'text', text: prompt }];
	const blocks: TextBlockParam[] = [{ type: 'text', text: prefix, cache_control: { type: 'ephemeral' } }];
	const rest = prompt.slice(prefix.length);
	// The API rejects empty text blocks.
	if (rest.length > 0) blocks.push({ type: 'text', text: rest });
	return blocks;
}

function mergeUsage(into: WireUsage, from: WireUsage): void {
	for (const key of [
		'input_tokens',
		'output_tokens',
		'cache_read_input_tokens',
		'cache_creation_input_tokens',
	] as const) {
		const value = from[key];
		if (typeof value === 'number') into[key] = value;
	}
}
