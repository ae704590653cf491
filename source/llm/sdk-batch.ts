import { DEFAULT_SDK_RETRIES } from './sdk-client.ts';
import { toProviderError, type FailureContext } from './sdk-errors.ts';

/** What a vendor's batch API is made with: the key, model and server a run's provider would use. */
export interface BatchApiOptions {
	apiKey: string;
	model: string;
	baseURL?: string | null;
	maxRetries?: number;
	fetch?: typeof fetch;
}

/** The settings of a batch API's SDK client, as both SDKs take them. */
export interface BatchClientSettings {
	apiKey: string;
	baseURL: string;
	maxRetries: number;
	fetch?: typeof fetch;
}

/**
 * What both vendors' batch APIs share: their SDK client, made as a run's provider makes its own,
 * and every SDK error turned into the one line a user can act on (a 401 names the key variable).
 */
export abstract class SdkBatchApi<Client> {
	readonly model: string;
	protected readonly client: Client;
	protected readonly failure: FailureContext;

	constructor(opts: BatchApiOptions, vendor: { label: string; keyVar: string; defaultBaseURL: string }, makeClient: (settings: BatchClientSettings) => Client) {
		this.model = opts.model;
		const baseURL = opts.baseURL || vendor.defaultBaseURL;
		const maxRetries = opts.maxRetries ?? DEFAULT_SDK_RETRIES;
		this.client = makeClient({ apiKey: opts.apiKey, baseURL, maxRetries, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
		this.failure = { label: vendor.label, keyVar: vendor.keyVar, model: opts.model, baseURL, apiKey: opts.apiKey, maxRetries, timeoutMs: 600_000 };
	}

	protected async sdk<T>(work: () => Promise<T>): Promise<T> {
		try {
			return await work();
		} catch (error) {
			throw toProviderError(error, this.failure);
		}
	}
}
