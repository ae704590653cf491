/**
 * Reciprocal-rank fusion (Cormack, Clarke and Büttcher, 2009): an item scores the sum of
 * 1 / (k + r) over the orders it is in, r its rank from 1. Ranks, not scores, because the orders
 * fused here have scores of no common scale (BM25 of a passage and of a page, cosines of some model),
 * so fusing ranks needs no weight between them and there is nothing to fit.
 */

/** The fusion's constant, as its authors set it (not tuned here). */
const RRF_K = 60;

/** What rank `rank` (from 0) adds to an item's fused score; nothing when it is not in that order. */
export function reciprocalRank(rank: number | undefined): number {
	return rank === undefined ? 0 : 1 / (RRF_K + rank + 1);
}
