import Anthropic from '@anthropic-ai/sdk';
import type {
	MessageBatch,
	MessageBatchIndividualResponse,
} from '@anthropic-ai/sdk/resources/messages/batches';
import {
	acceptsTemperature,
	ANTHROPIC_DEFAULT_BASE_URL,
	contentBlocks,
	SAMPLING_API_VERSION,
	totalUsage,
} from './anthropic.ts';
import { BatchResults, type BatchApi, type BatchItem, type BatchStatus, type ItemResult } from './batcher.ts';
import { ProviderError } from './provider.ts';
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
		super(
			opts,
			{ label: 'anthropic batch', keyVar: 'ANTHROPIC_API_KEY', defaultBaseURL: ANTHROPIC_DEFAULT_BASE_URL },
			(settings) => new Anthropic(settings),
		);
		this.sampling = acceptsTemperature(opts.model);
	}

	submit(items: BatchItem[]): Promise<BatchStatus> {
		const requests = items.map(({ customId, request }) => ({
			custom_id: customId,
			params: {
				model: this.model,
				max_tokens: request.maxTokens,
				messages: [
					{ role: 'user' as const, content: contentBlocks(request.prompt, request.cacheablePrefix) },
				],
				// As for a streamed call (anthropic.ts): only models that take it, on the API version that does.
				...(this.sampling ? { temperature: request.temperature } : {}),
			},
		}));
		return this.sdk(async () =>
			statusOf(
				await this.client.messages.batches.create(
					{ requests },
					{ headers: this.sampling ? { 'anthropic-version': SAMPLING_API_VERSION } : {} },
				),
			),
		);
	}

	status(id: string, signal?: AbortSignal): Promise<BatchStatus> {
		return this.sdk(
			async (own) => statusOf(await this.client.messages.batches.retrieve(id, {}, { signal: own })),
			signal,
		);
	}

	/**
	 * The results at the batch's `results_url`, read as they download (see `readResults`). Not
	 * through the SDK's `batches.results()`, whose reader stops at the first line it cannot parse
	 * and holds a line of any length.
	 */
	results(id: string, signal?: AbortSignal): Promise<BatchResults> {
		return this.sdk(async (own) => {
			const batch = await this.client.messages.batches.retrieve(id, {}, { signal: own });
			if (!batch.results_url)
				throw new ProviderError(
					`anthropic batch ${id}: no results to read yet (it is ${batch.processing_status}); it is polled again`,
					true,
				);
			const response = await this.client
				.get(batch.results_url, {
					signal: own,
					headers: { Accept: 'application/binary' },
					__binaryResponse: true,
				})
				.asResponse();
			const found = new BatchResults(statusOf(batch).total);
			await this.readResults(response.body, found, (line) =>
				itemResult(line as unknown as MessageBatchIndividualResponse),
			);
			return found;
		}, signal);
	}
}

function statusOf(batch: MessageBatch): BatchStatus {
	const c = batch.request_counts;
	const total = c.processing + c.succeeded + c.errored + c.canceled + c.expired;
	return {
		id: batch.id,
		status: batch.processing_status,
		ended: batch.processing_status === 'ended',
		done: total - c.processing,
		total,
	};
}

function itemResult(line: MessageBatchIndividualResponse): ItemResult {
	const { result } = line;
	switch (result.type) {
		case 'succeeded': {
			const text = result.message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
			return {
				ok: true,
				result: {
					text,
					finishReason: result.message.stop_reason ?? 'end_turn',
					usage: totalUsage(result.message.usage),
				},
			};
		}
		case 'errored': {
			const error = result.error.error;
			return { ok: false, reason: `${error.type}: ${error.message}`, retry: TRANSIENT.has(error.type) };
		}
		default:
			return { ok: false, reason: `request ${result.type}`, retry: true };
	}
}
