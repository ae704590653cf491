/**
 * Percentile bootstrap over clusters. Annotations of one book share a summary and an annotator,
 * so they are not independent; resampling whole books keeps that dependence inside each resample
 * and gives honest (wider) intervals than resampling single annotations would.
 *
 * Randomness comes in as a function, so this module stays pure: the same seed gives the same
 * interval on every machine.
 */

/** mulberry32: a small, fast, seeded PRNG returning numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Fisher–Yates with the given random numbers: every order equally likely, reproducible by seed. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
	const out = [...items];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.min(i, Math.floor(random() * (i + 1)));
		[out[i], out[j]] = [out[j]!, out[i]!];
	}
	return out;
}

/**
 * The p-quantile (0 ≤ p ≤ 1) of ascending `sorted`, interpolating linearly between order
 * statistics (Hyndman & Fan type 7, numpy's default), so results match the usual Python tooling.
 */
export function quantile(sorted: readonly number[], p: number): number {
	if (sorted.length === 0) return Number.NaN;
	const h = (sorted.length - 1) * Math.min(1, Math.max(0, p));
	const lo = Math.floor(h);
	const hi = Math.ceil(h);
	return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

export interface BootstrapOptions {
	/** Uniform numbers in [0, 1), e.g. `seededRandom(seed)`. */
	random: () => number;
	/** Number of resamples; 2000 by default. */
	resamples?: number;
	/** Coverage of the interval; 0.95 by default. */
	level?: number;
}

export interface Interval {
	/** The statistic on the data as it is. */
	estimate: number;
	low: number;
	high: number;
	level: number;
	/** Resamples on which the statistic was defined (not NaN). */
	resamples: number;
}

/**
 * Intervals for several statistics of the same resamples: each resample draws as many clusters as
 * there are, with replacement, and every statistic is computed on it.
 */
export function bootstrap<T, K extends string>(
	clusters: readonly T[],
	statistics: Record<K, (sample: readonly T[]) => number>,
	{ random, resamples = 2000, level = 0.95 }: BootstrapOptions,
): Record<K, Interval> {
	const names = Object.keys(statistics) as K[];
	const draws = new Map<K, number[]>(names.map((k) => [k, []]));
	const n = clusters.length;
	const sample: T[] = new Array<T>(n);
	for (let r = 0; r < resamples && n > 0; r++) {
		for (let i = 0; i < n; i++) sample[i] = clusters[Math.min(n - 1, Math.floor(random() * n))]!;
		for (const k of names) {
			const value = statistics[k](sample);
			if (!Number.isNaN(value)) draws.get(k)!.push(value);
		}
	}
	const alpha = (1 - level) / 2;
	const out = {} as Record<K, Interval>;
	for (const k of names) {
		const sorted = draws.get(k)!.sort((a, b) => a - b);
		out[k] = {
			estimate: statistics[k](clusters),
			low: quantile(sorted, alpha),
			high: quantile(sorted, 1 - alpha),
			level,
			resamples: sorted.length,
		};
	}
	return out;
}
