import { reciprocalRank } from './fusion.ts';
import { inRounds, type Hit, type PassageIndex, type RankOptions } from './rank.ts';

/**
 * A rerank of BM25's passages by a model's embeddings, pure: the vectors are made elsewhere (llm/,
 * kept by store/) and handed in.
 *
 * The rerank reorders BM25's best `FUSION_DEPTH` passages; it does not search the book by vectors.
 * Paraphrases lose to BM25 in its order more than in its reach: on our labelled set, a passage of
 * the right chapter is among the first 21 for 95% of sentences ranked over the whole book
 * (bench/evidence.ts, "K for 95%"), so a hundred candidates nearly always hold it, and what goes
 * wrong is which of them comes first. Reordering candidates keeps what BM25 and the tree
 * do well (the run's chunks a sentence can come from, a copied sentence's own place first) and
 * costs a hundred dot products per sentence rather than one per passage of the book.
 *
 * The two orders are fused by reciprocal rank (fusion.ts): BM25 scores have no scale (one was
 * 5,064) and cosines of different models have different ranges, so ranks need no weight between them.
 */

/** BM25 candidates the rerank reorders per query. */
export const FUSION_DEPTH = 100;

/** Passages of the book the dense support's baseline is measured on, evenly spaced. */
export const BASELINE_SAMPLE = 256;

/** The vectors a rerank reads: one per passage of the index's book, and those of the queries asked. */
export interface DenseVectors {
	/** By passage index (`Passage.index`). */
	passages: readonly Float32Array[];
	/** The vector of a query (a sentence or a claim), embedded beforehand; undefined: not embedded. */
	query(text: string): Float32Array | undefined;
}

/** A passage as reranked: its BM25 hit and its cosine similarity to the query. */
export interface Reranked extends Hit {
	similarity: number;
}

/** How passages are ranked for a query: `PassageIndex.rank`'s signature. */
export type Rank = (text: string, top: number, opts?: RankOptions) => Hit[];

/** The cosine of two vectors (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
	let dot = 0;
	let na = 0;
	let nb = 0;
	for (let i = 0; i < a.length; i++) {
		dot += a[i]! * b[i]!;
		na += a[i]! * a[i]!;
		nb += b[i]! * b[i]!;
	}
	return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * `index.rank` reranked by `dense`: BM25's best `FUSION_DEPTH` under the same options, fused with
 * their order by similarity to the query, then shown in rounds over their places as BM25's are
 * (`inRounds`): the first passages are of as many places, in the order of each place's best. Passages that hold the query word for word stay first, in
 * BM25's order (a copied sentence's place is certain; no similarity improves on it). A query with no
 * vector is ranked by BM25 alone.
 */
export function fusedRank(index: PassageIndex, dense: DenseVectors): Rank {
	return (text, top, opts) => {
		const query = dense.query(text);
		if (!query || top <= 0) return index.rank(text, top, opts);
		const fused = fuse(index.rank(text, Math.max(top, FUSION_DEPTH), opts), query, dense.passages);
		// Still a place at a time, as BM25 gives them (rank.ts), unless ranked by passages alone.
		return (opts?.scenes === false ? fused : inRounds(fused, (hit) => index.placeOf(hit))).slice(0, top);
	};
}

/** `lexical` (BM25's order) fused with its order by similarity to `query`; see the module's comment. */
export function fuse(
	lexical: readonly Hit[],
	query: Float32Array,
	passages: readonly Float32Array[],
): Reranked[] {
	const similar = lexical.map((hit, lexicalRank) => ({
		...hit,
		similarity: cosine(query, passages[hit.index]!),
		lexicalRank,
	}));
	const denseRank = new Map(
		[...similar]
			.sort((a, b) => b.similarity - a.similarity || a.lexicalRank - b.lexicalRank)
			.map((hit, rank) => [hit.index, rank]),
	);
	const fused = (hit: (typeof similar)[number]) =>
		reciprocalRank(hit.lexicalRank) + reciprocalRank(denseRank.get(hit.index));
	return similar
		.sort(
			(a, b) =>
				Number(b.verbatim) - Number(a.verbatim) ||
				(a.verbatim ? a.lexicalRank - b.lexicalRank : fused(b) - fused(a) || a.lexicalRank - b.lexicalRank),
		)
		.map(({ lexicalRank: _, ...hit }) => hit);
}

/**
 * How well the best of `passages` supports the query by its embedding, in [0, 1]:
 * (s - b) / (1 - b), clipped, where s is the best passage's cosine with the query and b the query's
 * mean cosine with `BASELINE_SAMPLE` passages spread evenly over the book. 0: the best passage is no
 * closer to the sentence than the book's passages are on average (what any passage shares with it:
 * its language, its names, its subject); 1: it is the same text. A rule, not a fit: the baseline
 * takes out each model's own range of cosines (a small model's unrelated texts are at 0.1 to 0.3,
 * other models' elsewhere) and the book's. It is not calibrated against labelled sentences (that
 * needs a real model: bench/evidence.ts with a key), so `weak` stays the lexical support's.
 * Null when the query has no vector or there is no passage.
 */
export function denseSupport(
	dense: DenseVectors,
	text: string,
	passages: readonly { index: number }[],
): number | null {
	const query = dense.query(text);
	if (!query || passages.length === 0 || dense.passages.length === 0) return null;
	const best = Math.max(...passages.map((p) => cosine(query, dense.passages[p.index]!)));
	const baseline = meanSimilarity(query, dense.passages);
	if (baseline >= 1) return 1;
	return Math.min(1, Math.max(0, (best - baseline) / (1 - baseline)));
}

/** The query's mean cosine with `BASELINE_SAMPLE` passages at even steps through the book (all when fewer). */
function meanSimilarity(query: Float32Array, passages: readonly Float32Array[]): number {
	const n = Math.min(BASELINE_SAMPLE, passages.length);
	let sum = 0;
	for (let k = 0; k < n; k++) sum += cosine(query, passages[Math.floor((k * passages.length) / n)]!);
	return sum / n;
}
