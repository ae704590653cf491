import { counted } from '../format/count.ts';
import type OpenAI from 'openai';
import type { ProviderName } from '../domain.ts';
import { badInput, UserError } from '../errors.ts';
import { flag, joined, said } from '../program.ts';
import { countTokens, truncateToTokens } from '../text/tokens.ts';
import { OPENAI_DEFAULT_BASE_URL } from './base-url.ts';
import { guardConsole } from './console-guard.ts';
import { baseUrl, requireKey } from './create.ts';
import { ProviderError } from './provider.ts';
import { DEFAULT_SDK_RETRIES } from './sdk-client.ts';
import { toProviderError, type FailureContext } from './sdk-errors.ts';
import { DEFAULT_STREAM_TIMEOUT_MS } from './stream-watchdog.ts';

/** The embedding model `--embeddings` uses when it names none: OpenAI's small one. */
export const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

/**
 * Inputs per request. OpenAI takes up to 2,048; compatible servers (vLLM, llama.cpp, Ollama) often
 * far fewer, and a failed request of thousands is retried whole: a few hundred keeps both well in.
 */
export const BATCH_INPUTS = 256;

/** Tokens per request: OpenAI takes about 300,000; a third of that leaves room for counting differences. */
const BATCH_TOKENS = 100_000;

/** The most tokens of one input OpenAI's embedding models read (8,192); longer is cut to it, not refused. */
const INPUT_TOKENS = 8191;

/** Texts embedded: one vector each, in the order given, and what they cost. */
export interface Embedded {
	vectors: Float32Array[];
	/** Tokens the server counted (usage.prompt_tokens), over all requests. */
	tokens: number;
	requests: number;
}

/** A model that turns texts into vectors. */
export interface Embedder {
	model: string;
	/** The server's address: the same model name on two servers is two models. */
	server: string;
	embed(texts: readonly string[], signal?: AbortSignal): Promise<Embedded>;
}

export interface EmbedderOptions {
	/** The provider named elsewhere on the command line (the judge's); Anthropic has no embeddings. */
	provider?: ProviderName;
	model?: string;
	/** `--base-url`: an OpenAI-compatible server; else OPENAI_BASE_URL, else OpenAI's API. */
	baseUrl?: string | null;
	env?: NodeJS.ProcessEnv;
	maxRetries?: number;
	/** Inputs per request (default BATCH_INPUTS). */
	batchInputs?: number;
}

/**
 * An embedder through the official openai SDK (its retries of 429, 5xx and lost connections),
 * checked before any call: Anthropic named as the provider, a missing key or a bad address fail at
 * once with one line. The SDK is loaded on the first call, as the model providers' are.
 */
export function createEmbedder(opts: EmbedderOptions = {}): Embedder {
	const env = opts.env ?? process.env;
	const model = opts.model ?? DEFAULT_EMBEDDING_MODEL;
	if (opts.provider === 'anthropic')
		throw badInput(
			joined(
				said`${flag('--embeddings')}: Anthropic has no embeddings endpoint; embeddings come from OpenAI (OPENAI_API_KEY) `,
				said`or an OpenAI-compatible server (${flag('--base-url')}), so drop ${flag('--provider', 'anthropic')} or ${flag('--embeddings')}`,
			),
		);
	const url = baseUrl(opts.baseUrl, env, 'OPENAI');
	const apiKey = requireKey(
		env,
		'OPENAI_API_KEY',
		'openai',
		url,
		said`export it to rank by ${model}'s embeddings (${flag('--embeddings')}), or leave ${flag('--embeddings')} out (offline BM25)`,
	);
	const maxRetries = opts.maxRetries ?? DEFAULT_SDK_RETRIES;
	const failure: FailureContext = {
		label: 'openai embeddings',
		keyVar: 'OPENAI_API_KEY',
		model,
		baseURL: url ?? OPENAI_DEFAULT_BASE_URL,
		apiKey,
		maxRetries,
		timeoutMs: DEFAULT_STREAM_TIMEOUT_MS,
	};
	let client: Promise<OpenAI> | null = null;
	const clientOf = () =>
		(client ??= import('openai').then(({ default: OpenAI }) => {
			guardConsole();
			return new OpenAI({
				apiKey,
				baseURL: failure.baseURL,
				maxRetries,
				timeout: failure.timeoutMs,
				logLevel: 'off',
			});
		}));
	const batchInputs = opts.batchInputs ?? BATCH_INPUTS;
	return {
		model,
		server: failure.baseURL,
		async embed(texts, signal) {
			const vectors: Float32Array[] = [];
			let tokens = 0;
			let requests = 0;
			for (const batch of batches(texts, batchInputs)) {
				const sdk = await clientOf();
				let response: OpenAI.Embeddings.CreateEmbeddingResponse;
				try {
					response = await sdk.embeddings.create(
						{ model, input: batch, encoding_format: 'float' },
						{ signal },
					);
				} catch (error) {
					throw asUserError(toProviderError(error, failure));
				}
				requests++;
				if (response.data.length !== batch.length)
					throw new UserError(
						`${failure.label}: ${failure.baseURL} answered ${counted(response.data.length, 'vector')} for ` +
							`${counted(batch.length, 'text')}; check that it serves OpenAI's embeddings API`,
						1,
					);
				for (const item of [...response.data].sort((a, b) => a.index - b.index))
					vectors.push(Float32Array.from(item.embedding));
				tokens += response.usage?.prompt_tokens ?? 0;
			}
			return { vectors, tokens, requests };
		},
	};
}

/**
 * `texts` cut to what one input may hold, in requests of at most `inputs` texts and BATCH_TOKENS
 * tokens (a text is counted with the cl100k encoding OpenAI's embedding models use).
 */
function* batches(texts: readonly string[], inputs: number): Generator<string[]> {
	let batch: string[] = [];
	let tokens = 0;
	for (const text of texts) {
		const count = countTokens(text);
		const input = count > INPUT_TOKENS ? truncateToTokens(text, INPUT_TOKENS) : text;
		const cost = Math.min(count, INPUT_TOKENS);
		if (batch.length > 0 && (batch.length === inputs || tokens + cost > BATCH_TOKENS)) {
			yield batch;
			batch = [];
			tokens = 0;
		}
		// An empty input is refused by the API; a space stands for it (it has no content either way).
		batch.push(input === '' ? ' ' : input);
		tokens += cost;
	}
	if (batch.length > 0) yield batch;
}

/** A provider's failure as the command shows it: one line, exit 1 when trying later could help, else 2. */
function asUserError(error: Error): Error {
	if (!(error instanceof ProviderError)) return error;
	return new UserError(error.message, error.retryable ? 1 : 2);
}
