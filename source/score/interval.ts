import { bootstrap, type BootstrapOptions } from './bootstrap.ts';
import type { IntervalUnit, ShownInterval } from '../format/interval.ts';

/**
 * The one rule for which interval a figure gets, so that precision, the report's faithfulness,
 * memory probes and a study's table cannot each pick their own. A percentile bootstrap over books
 * (or summaries) is kept where there are enough of them: the annotations of one book share its
 * summary and annotator, and only resampling whole books carries that. Below MIN_CLUSTERS it is no
 * interval: over one book every resample is that book (an interval of one point), and over a
 * handful the few distinct resamples make it far narrower than it should be. There, a share of
 * counted items (annotations, sentences, questions) gets a Wilson score interval over those items,
 * which holds its coverage at small n and near 0 or 1, and says what it is over; a mean of
 * per-book figures with too few books gets none, and says so.
 */

/** Books (or summaries) a bootstrap over them needs to mean something. */
export const MIN_CLUSTERS = 10;

export type IntervalMethod = ShownInterval['method'];

export interface Units {
	unit: IntervalUnit;
	n: number;
}

/** An estimate with its interval, and what the interval is over. */
export interface Spread extends ShownInterval {
	estimate: number;
}

/** Which interval a figure gets, from what it is over and how many. */
export function pickInterval(
	clusters: Units | null,
	items: Units | null,
): Pick<ShownInterval, 'method' | 'over' | 'tooFew'> {
	if (clusters && clusters.n >= MIN_CLUSTERS) return { method: 'bootstrap', over: clusters, tooFew: null };
	if (items && items.n > 0) return { method: 'wilson', over: items, tooFew: clusters };
	return { method: 'none', over: null, tooFew: clusters };
}

/**
 * A statistic to put an interval on: `of` computes it on a sample of clusters; `pooled`, when the
 * statistic is a share of counted items, gives those counts (the Wilson fallback).
 */
export interface Statistic<T> {
	of: (sample: readonly T[]) => number;
	pooled?: { successes: number; n: number; unit: IntervalUnit };
}

/**
 * Intervals for statistics of the same clusters (null: the items stand alone, as a reader's
 * questions do), each chosen by `pickInterval`. The bootstrapped ones share their resamples, so
 * two shares of the same books (precision and strict precision) move together.
 */
export function intervals<T, K extends string>(
	clusters: { unit: IntervalUnit; values: readonly T[] } | null,
	statistics: Record<K, Statistic<T>>,
	options: BootstrapOptions,
): Record<K, Spread> {
	const level = options.level ?? 0.95;
	const names = Object.keys(statistics) as K[];
	const chosen = new Map(
		names.map((k) => {
			const { pooled } = statistics[k];
			return [
				k,
				pickInterval(
					clusters && { unit: clusters.unit, n: clusters.values.length },
					pooled ? { unit: pooled.unit, n: pooled.n } : null,
				),
			];
		}),
	);
	const resampled = names.filter((k) => chosen.get(k)!.method === 'bootstrap');
	const boot =
		clusters && resampled.length > 0
			? bootstrap(
					clusters.values,
					Object.fromEntries(resampled.map((k) => [k, statistics[k].of])) as Record<
						K,
						(s: readonly T[]) => number
					>,
					options,
				)
			: null;
	const out = {} as Record<K, Spread>;
	for (const k of names) {
		const pick = chosen.get(k)!;
		const { of, pooled } = statistics[k];
		const estimate = clusters ? of(clusters.values) : pooled ? pooled.successes / pooled.n : Number.NaN;
		const bounds =
			pick.method === 'bootstrap'
				? { low: boot![k].low, high: boot![k].high }
				: pick.method === 'wilson'
					? wilson(pooled!.successes, pooled!.n, level)
					: { low: null, high: null };
		out[k] = { estimate, ...bounds, level, ...pick };
	}
	return out;
}

/** A share of independent counted items, with its Wilson interval (or none when nothing is counted). */
export function shareInterval(successes: number, n: number, unit: IntervalUnit, level = 0.95): Spread {
	const pick = pickInterval(null, { unit, n });
	const bounds = pick.method === 'wilson' ? wilson(successes, n, level) : { low: null, high: null };
	return { estimate: n > 0 ? successes / n : Number.NaN, ...bounds, level, ...pick };
}

/**
 * Wilson's score interval for `successes` of `n`: the proportions a score test at `level` would
 * not reject. Unlike p ± z·se it never leaves [0, 1] and is not a point at 0 or n successes.
 */
export function wilson(successes: number, n: number, level = 0.95): { low: number; high: number } {
	const z = normalQuantile(1 - (1 - level) / 2);
	const p = successes / n;
	const z2n = (z * z) / n;
	const centre = (p + z2n / 2) / (1 + z2n);
	const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
	// At 0 or n successes the bound on that side is exactly 0 or 1; rounding must not move it.
	return {
		low: successes === 0 ? 0 : Math.max(0, centre - half),
		high: successes === n ? 1 : Math.min(1, centre + half),
	};
}

/** The standard normal's p-quantile, by bisection on its CDF (a few dozen steps; called rarely). */
export function normalQuantile(p: number): number {
	let lo = -10;
	let hi = 10;
	for (let i = 0; i < 80; i++) {
		const mid = (lo + hi) / 2;
		if (normalCdf(mid) < p) lo = mid;
		else hi = mid;
	}
	return (lo + hi) / 2;
}

/** Φ(x) through erf, with erf from its Maclaurin series (|x| ≤ 3) or continued fraction (beyond). */
function normalCdf(x: number): number {
	return 0.5 * (1 + erf(x / Math.SQRT2));
}

function erf(x: number): number {
	const sign = x < 0 ? -1 : 1;
	const a = Math.abs(x);
	if (a > 3) {
		// erfc(a) = exp(-a²)/√π · 1/(a + 1/2/(a + 1/(a + 3/2/(a + …)))), evaluated from the tail.
		let f = a;
		for (let k = 60; k >= 1; k--) f = a + k / 2 / f;
		return sign * (1 - Math.exp(-a * a) / Math.sqrt(Math.PI) / f);
	}
	let term = a;
	let sum = a;
	for (let n = 1; n < 200 && Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
		term *= (-a * a) / n;
		sum += term / (2 * n + 1);
	}
	return (sign * 2 * sum) / Math.sqrt(Math.PI);
}
