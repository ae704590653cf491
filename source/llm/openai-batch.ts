import OpenAI, { toFile } from 'openai';
import type { Usage } from '../domain.ts';
import { BatchResults, type BatchApi, type BatchItem, type BatchStatus, type ItemResult } from './batcher.ts';
import { OPENAI_DEFAULT_BASE_URL, limitParamFor, samplingFields } from './openai.ts';
import { SdkBatchApi, type BatchApiOptions, type ResultLine } from './sdk-batch.ts';

/** Statuses after which an OpenAI batch changes no more; `failed` and `expired` may still hold some results. */
const FINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);
/** Error codes of a request the batch did not run to the end for a reason of its own (window over, cancelled, the model timed out): worth sending again. */
const PASSING = new Set(['batch_expired', 'batch_cancelled', 'request_timeout']);

/**
 * OpenAI's Batch API: the requests as a JSONL file (purpose "batch") uploaded through Files, a batch
 * over it for /v1/chat/completions, then the output and error files read back when it ends.
 */
export class OpenAIBatchApi extends SdkBatchApi<OpenAI> implements BatchApi {
	readonly provider = 'openai' as const;
	private readonly limitParam: 'max_completion_tokens' | 'max_tokens';

	constructor(opts: BatchApiOptions) {
		super(
			opts,
			{ label: 'openai batch', keyVar: 'OPENAI_API_KEY', defaultBaseURL: OPENAI_DEFAULT_BASE_URL },
			(settings) => new OpenAI(settings),
		);
		this.limitParam = limitParamFor(this.failure.baseURL);
	}

	async submit(items: BatchItem[]): Promise<BatchStatus> {
		const lines = items.map(({ customId, request }) =>
			JSON.stringify({
				custom_id: customId,
				method: 'POST',
				url: '/v1/chat/completions',
				body: {
					model: this.model,
					messages: [{ role: 'user', content: request.prompt }],
					...samplingFields(this.model, request.temperature),
					[this.limitParam]: request.maxTokens,
				},
			}),
		);
		return this.sdk(async () => {
			const file = await this.client.files.create({
				file: await toFile(Buffer.from(`${lines.join('\n')}\n`, 'utf8'), 'booook-batch.jsonl'),
				purpose: 'batch',
			});
			return statusOf(
				await this.client.batches.create({
					input_file_id: file.id,
					endpoint: '/v1/chat/completions',
					completion_window: '24h',
				}),
			);
		});
	}

	status(id: string, signal?: AbortSignal): Promise<BatchStatus> {
		return this.sdk(async (own) => statusOf(await this.client.batches.retrieve(id, { signal: own })), signal);
	}

	/** The output file, then the error file, each read as it downloads (see `readResults`). */
	async results(id: string, signal?: AbortSignal): Promise<BatchResults> {
		return this.sdk(async (own) => {
			const batch = await this.client.batches.retrieve(id, { signal: own });
			const found = new BatchResults(batch.request_counts?.total);
			for (const fileId of [batch.output_file_id, batch.error_file_id]) {
				if (!fileId) continue;
				const response = await this.client.files.content(fileId, { signal: own });
				await this.readResults(response.body, found, (line) =>
					itemResult(line as ResultLine & OutputLine, batch.status),
				);
			}
			return found;
		}, signal);
	}
}

/**
 * A response's body in an output or error file: a chat completion when the request succeeded, an
 * error when not; read field by field, since a line may lack any of them.
 */
interface ResponseBody {
	choices?: { message?: { content?: string | null }; finish_reason?: string | null }[];
	usage?: {
		prompt_tokens?: number;
		completion_tokens?: number;
		prompt_tokens_details?: { cached_tokens?: number };
	};
	error?: { message?: string | null };
}

/** A line of an output or error file. */
interface OutputLine {
	custom_id: string;
	response: { status_code: number; body: ResponseBody | null } | null;
	error: { code?: string | null; message?: string | null } | null;
}

function statusOf(batch: OpenAI.Batches.Batch): BatchStatus {
	const counts = batch.request_counts ?? { completed: 0, failed: 0, total: 0 };
	const status: BatchStatus = {
		id: batch.id,
		status: batch.status,
		ended: FINAL.has(batch.status),
		done: counts.completed + counts.failed,
		total: counts.total,
	};
	// A batch that failed validation has no results at all. One refused because the account's queue
	// of batches was full ("Please try again once some in_progress batches have been completed") may
	// go out again; any other reason is the requests' own.
	if (batch.status === 'failed' && !batch.output_file_id && !batch.error_file_id) {
		const errors = batch.errors?.data ?? [];
		status.failure =
			errors
				.map((e) => e.message)
				.filter(Boolean)
				.join('; ') || 'no reason given';
		status.retry = errors.length > 0 && errors.every((e) => e.code === 'token_limit_exceeded');
	}
	return status;
}

function itemResult(line: OutputLine, batchStatus: string): ItemResult {
	const response = line.response;
	if (response && response.status_code === 200) {
		const body = response.body;
		const choice = body?.choices?.[0];
		const usage: Usage = {
			input: body?.usage?.prompt_tokens ?? 0,
			output: body?.usage?.completion_tokens ?? 0,
			cached: body?.usage?.prompt_tokens_details?.cached_tokens ?? 0,
		};
		return {
			ok: true,
			result: {
				text: String(choice?.message?.content ?? ''),
				finishReason: String(choice?.finish_reason ?? 'stop'),
				usage,
			},
		};
	}
	if (line.error) {
		const code = line.error.code ?? '';
		return {
			ok: false,
			reason: `${code ? `${code}: ` : ''}${line.error.message ?? 'no reason given'}`,
			retry: PASSING.has(code) || batchStatus !== 'completed',
		};
	}
	const status = response?.status_code ?? 0;
	const message = response?.body?.error?.message ?? 'no reason given';
	return { ok: false, reason: `HTTP ${status}: ${message}`, retry: status === 429 || status >= 500 };
}
