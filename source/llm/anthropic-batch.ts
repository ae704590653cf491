import Anthropic from '@anthropic-ai/sdk';
import type { MessageBatch, MessageBatchIndividualResponse } from '@anthropic-ai/sdk/resources/messages/batches';
import { acceptsTemperature, ANTHROPIC_DEFAULT_BASE_URL, contentBlocks, SAMPLING_API_VERSION, totalUsage } from './anthropic.ts';
import type { BatchApi, BatchItem, BatchStatus, ItemResult } from './batcher.ts';
import { SdkBatchApi, type BatchApiOptions } from './sdk-batch.ts';

/** Error types a later batch may not meet again. */
const TRANSIENT = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error']);

/**
 * Anthropic's Message Batches: every request with its custom id in one create call, the batch
 * polled until its processing ends, then its results read as JSONL from `results_url`.
 */
export class AnthropicBatchApi extends SdkBatchApi<Anthropic> implements BatchApi {
	readonly provider = 'anthropic' as const;
	private readonly sampling: boolean;

	constructor(opts: BatchApiOptions) {
		super(opts, { label: 'anthropic batch', keyVar: 'ANTHROPIC_API_KEY', defaultBaseURL: ANTHROPIC_DEFAULT_BASE_URL }, (settings) => new Anthropic(settings));
		this.sampling = acceptsTemperature(opts.model);
	}

	submit(items: BatchItem[]): Promise<BatchStatus> {
		const requests = items.map(({ customId, request }) => ({
			custom_id: customId,
			params: {
				model: this.model,
				max_tokens: request.maxTokens,
				messages: [{ role: 'user' as const, content: contentBlocks(request.prompt, request.cacheablePrefix) }],
				// As for a streamed call (anthropic.ts): only models that take it, on the API version that does.
				...(this.sampling ? { temperature: request.temperature } : {}),
			},
		}));
		return this.sdk(async () => statusOf(await this.client.messages.batches.create({ requests }, { headers: this.sampling ? { 'anthropic-version': SAMPLING_API_VERSION } : {} })));
	}

	status(id: string, signal?: AbortSignal): Promise<BatchStatus> {
		return this.sdk(async () => statusOf(await this.client.messages.batches.retrieve(id, {}, { signal })));
	}

	results(id: string, signal?: AbortSignal): Promise<Map<string, ItemResult>> {
		return this.sdk(async () => {
			const found = new Map<string, ItemResult>();
			for await (const line of await this.client.messages.batches.results(id, {}, { signal })) found.set(line.custom_id, itemResult(line));
			return found;
		});
	}

}

function statusOf(batch: MessageBatch): BatchStatus {
	const c = batch.request_counts;
	const total = c.processing + c.succeeded + c.errored + c.canceled + c.expired;
	return { id: batch.id, status: batch.processing_status, ended: batch.processing_status === 'ended', done: total - c.processing, total };
}

function itemResult(line: MessageBatchIndividualResponse): ItemResult {
	const { result } = line;
	switch (result.type) {
		case 'succeeded': {
			const text = result.message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
			return { ok: true, result: { text, finishReason: result.message.stop_reason ?? 'end_turn', usage: totalUsage(result.message.usage) } };
		}
		case 'errored': {
			const error = result.error.error;
			return { ok: false, reason: `${error.type}: ${error.message}`, retry: TRANSIENT.has(error.type) };
		}
		default:
			return { ok: false, reason: `request ${result.type}`, retry: true };
	}
}
