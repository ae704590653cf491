import { join } from 'node:path';
import type { ProviderName } from '../domain.ts';
import { badInput } from '../errors.ts';
import { flag, joined, said } from '../program.ts';
import type { PassageIndex } from '../evidence/rank.ts';
import type { DenseVectors } from '../evidence/rerank.ts';
import { createEmbedder, DEFAULT_EMBEDDING_MODEL, type Embedder } from '../llm/embeddings.ts';
import { callCost, isPriced, loadPrices } from '../llm/prices.ts';
import { passageVectors } from '../store/embeddings-cache.ts';
import type { EmbeddingSpend } from '../format/embeddings.ts';

/**
 * `--embeddings`: the book's passages and the queries (sentences, claims) embedded by a provider's
 * model, for evidence/rerank.ts to rerank BM25's passages with. The passages' vectors are kept in
 * the session's folder (store/embeddings-cache.ts); the queries are embedded as they are asked for.
 */

/** The embedding model `--embeddings` names when given bare. */
export { DEFAULT_EMBEDDING_MODEL };

/** The model `--embeddings` names: the default when given bare; undefined when not given. */
export function embeddingsModel(flag: string | boolean | undefined): string | undefined {
	return flag === undefined || flag === false ? undefined : flag === true ? DEFAULT_EMBEDDING_MODEL : flag;
}

export interface EmbeddingsRequest {
	/** The embedding model (`--embeddings [MODEL]`). */
	model: string;
	/** `--base-url`: an OpenAI-compatible server's embeddings. */
	baseUrl?: string | null;
	/** The provider named on the same command line (the judge's), if any. */
	provider?: ProviderName;
	/** `--prices FILE`; unset: $BOOOOK_PRICES, else the user's prices file. */
	prices?: string;
	env?: NodeJS.ProcessEnv;
}

/** What the embeddings cost so far, as format/embeddings.ts words it. */
export type { EmbeddingSpend };

/** A session's dense vectors: those of its book's passages, and of the queries embedded so far. */
export interface DenseEvidence extends DenseVectors {
	/** Embeds those of `texts` not embedded yet (one request per batch). */
	add(texts: readonly string[], signal?: AbortSignal): Promise<void>;
	spend(): EmbeddingSpend;
}

/** Embeddings checked and ready: `load` embeds (or reads back) a book's passages. */
export interface Embeddings {
	embedder: Embedder;
	load(sessionDir: string, book: string, index: PassageIndex, signal?: AbortSignal): Promise<DenseEvidence>;
}

/** Checks the request (provider, key, address, prices) before any call, so a refusal costs nothing. */
export function embeddingsFor(request: EmbeddingsRequest): Embeddings {
	const embedder = createEmbedder({
		provider: request.provider,
		model: request.model,
		baseUrl: request.baseUrl,
		env: request.env,
	});
	const prices = loadPrices(request.prices, request.env);
	return {
		embedder,
		async load(sessionDir, book, index, signal) {
			const made = await passageVectors(sessionDir, book, index.passages, embedder, signal);
			const queries = new Map<string, Float32Array>();
			let tokens = made.tokens;
			let requests = made.requests;
			return {
				passages: made.vectors,
				query: (text) => queries.get(text),
				async add(texts, addSignal) {
					const missing = [...new Set(texts)].filter((t) => !queries.has(t));
					if (missing.length === 0) return;
					const embedded = await embedder.embed(missing, addSignal);
					const wanted = made.vectors[0]?.length;
					const got = embedded.vectors[0]?.length;
					// The passages were kept from another model served under this name (a local server's
					// model changed): their cosines with these vectors would mean nothing.
					if (made.cached && wanted !== undefined && got !== undefined && got !== wanted) {
						const kept = `the book's kept in ${join(sessionDir, 'embeddings')} are ${wanted}-dimensional (another model of that name)`;
						throw badInput(
							joined(
								said`${flag('--embeddings')}: ${embedder.model} at ${embedder.server} now answers `,
								said`${got}-dimensional vectors, but ${kept}; remove that folder to embed the book again`,
							),
						);
					}
					missing.forEach((t, k) => queries.set(t, embedded.vectors[k]!));
					tokens += embedded.tokens;
					requests += embedded.requests;
				},
				spend: () => ({
					model: embedder.model,
					tokens,
					requests,
					cachedPassages: made.cached,
					discardedCache: made.discarded,
					cost: isPriced(prices, embedder.model)
						? callCost(prices, embedder.model, { input: tokens, output: 0, cached: 0 }).cost
						: null,
				}),
			};
		},
	};
}
