import type { FaithfulnessVerdict, ScoredSummary, Walk } from '../domain.ts';
import { seededRandom } from './bootstrap.ts';
import { intervals, type Spread } from './interval.ts';
import type { IntervalUnit } from '../format/interval.ts';
import { kendallTauB } from './kendall.ts';
import { verdictOutcome } from './faithfulness-count.ts';

/**
 * Partial annotation done LongEval's way (its §3.2): a validator judges a random share of the
 * units of each summary, each validator a different random share ("in initial experiments, this
 * yielded higher accuracy than keeping the same set of units per annotator"), and the score a full
 * annotation would give is estimated from the sample. Pure: units, verdicts and walks in; the
 * sample, the estimate with its interval and Kendall's τ against full annotations out.
 */

type Unit = { summary: ScoredSummary['id']; sentence: number };
const keyOf = (u: Unit): string => `${u.summary}:${u.sentence}`;

/** 32-bit FNV-1a of a string: turns (seed, validator, summary) into one PRNG seed. */
function hash32(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

/** How many of a summary's `n` units a partial walk judges: ⌈fraction·n⌉, at least 1. */
export function sampleSize(n: number, fraction: number): number {
	if (!(fraction > 0 && fraction <= 1))
		throw new RangeError(`a partial-annotation fraction must be in (0, 1], not ${fraction}`);
	// The epsilon keeps float noise from adding a unit: 0.3 × 10 is 3.0000000000000004 in binary.
	return n === 0 ? 0 : Math.min(n, Math.max(1, Math.ceil(fraction * n - 1e-9)));
}

/**
 * The units `validator` judges in a partial walk: within each summary, ⌈fraction·n⌉ of its units
 * drawn without replacement, kept in reading order. The draw is seeded by the walk's seed, the
 * validator's name and the summary, so the same walk reopens on the same units, two validators
 * get different ones, and adding a summary leaves the others' samples as they were.
 */
export function partialUnits<U extends Unit>(
	units: readonly U[],
	opts: { seed: number; validator: string; fraction: number },
): U[] {
	const bySummary = new Map<ScoredSummary['id'], U[]>();
	for (const u of units) {
		const group = bySummary.get(u.summary);
		if (group) group.push(u);
		else bySummary.set(u.summary, [u]);
	}
	const chosen = new Set<U>();
	for (const [summary, group] of bySummary) {
		const random = seededRandom(hash32(`${opts.seed}\u0000${opts.validator}\u0000${summary}`));
		const order = group.map((_, i) => i);
		const k = sampleSize(group.length, opts.fraction);
		// A partial Fisher–Yates shuffle: the first k places are a uniform sample.
		for (let i = 0; i < k; i++) {
			const j = i + Math.floor(random() * (order.length - i));
			[order[i], order[j]] = [order[j]!, order[i]!];
		}
		for (const i of order.slice(0, k)) chosen.add(group[i]!);
	}
	return units.filter((u) => chosen.has(u));
}

/** The share each validator annotated partially, from their latest faithfulness walk (full walks: none). */
export function partialValidators(walks: readonly Walk[]): Map<string, number> {
	const latest = new Map<string, Walk>();
	for (const w of walks) if (w.mode === 'faithfulness') latest.set(w.validator, w);
	const out = new Map<string, number>();
	for (const [validator, w] of latest)
		if (w.fraction !== null && w.fraction < 1) out.set(validator, w.fraction);
	return out;
}

interface Tally {
	faithful: number;
	judged: number;
}

/** A summary's faithful share of all its judged units (LongEval: whatever is not faithful counts against); NaN when none. */
const shareOf = (t: Tally): number => (t.judged === 0 ? Number.NaN : t.faithful / t.judged);

/** The estimator: the mean over summaries of each one's share. */
function meanShare(tallies: readonly Tally[]): number {
	let sum = 0;
	let n = 0;
	for (const t of tallies) {
		const s = shareOf(t);
		if (!Number.isNaN(s)) {
			sum += s;
			n += 1;
		}
	}
	return n === 0 ? Number.NaN : sum / n;
}

function talliesBySummary(
	verdicts: Iterable<FaithfulnessVerdict>,
): Map<ScoredSummary['id'], Tally & { units: Tally[] }> {
	const out = new Map<ScoredSummary['id'], Tally & { units: Tally[] }>();
	for (const v of verdicts) {
		let t = out.get(v.summary);
		if (!t) out.set(v.summary, (t = { faithful: 0, judged: 0, units: [] }));
		const one = { faithful: verdictOutcome(v) === 'faithful' ? 1 : 0, judged: 1 };
		t.faithful += one.faithful;
		t.judged += one.judged;
		t.units.push(one);
	}
	return out;
}

export const ESTIMATOR = 'mean over summaries of the faithful share of all judged sentences';

export interface PartialEstimate {
	validator: string;
	fraction: number;
	/** The estimated full-annotation faithful share; null when no unit was judged. */
	estimate: number | null;
	/**
	 * As `intervals` picks it: a bootstrap over summaries when there are enough; with one summary
	 * the estimate is its share, and Wilson's over its judged sentences; with a few, none.
	 */
	interval: Spread | null;
	/** What the interval is over; null when there is none. */
	over: IntervalUnit | null;
	summaries: number;
	judged: number;
	/** Units of the summaries this validator judged, i.e. what a full annotation of them would judge. */
	units: number;
}

export interface PartialVsFull {
	partial: string;
	full: string;
	fullOrigin: FaithfulnessVerdict['origin'];
	/** Summaries the partial validator judged and the full one judged every unit of, both with a share. */
	summaries: number;
	/** Kendall's τ-b between the per-summary shares; null with fewer than two summaries or no variation. */
	tau: number | null;
	partialShare: number;
	fullShare: number;
	/** partialShare − fullShare, on the same summaries. */
	difference: number;
}

export interface PartialReport {
	estimator: string;
	validators: PartialEstimate[];
	vsFull: PartialVsFull[];
}

/**
 * For each validator who annotated partially: the estimated full-annotation share with a
 * percentile bootstrap interval, and against every other validator (person or model) who judged
 * every unit of the same summaries, Kendall's τ-b between the two annotations' per-summary shares
 * and the difference in overall share. `latest` is each validator's current verdict per unit.
 */
export function partialReport(
	units: readonly Unit[],
	latest: ReadonlyMap<string, ReadonlyMap<string, FaithfulnessVerdict>>,
	partial: ReadonlyMap<string, number>,
	opts: { seed: number; resamples: number },
): PartialReport {
	const unitsPer = new Map<ScoredSummary['id'], string[]>();
	for (const u of units) unitsPer.set(u.summary, [...(unitsPer.get(u.summary) ?? []), keyOf(u)]);
	const validators: PartialEstimate[] = [];
	const vsFull: PartialVsFull[] = [];
	for (const [validator, fraction] of partial) {
		const mine = latest.get(validator);
		if (!mine || mine.size === 0) continue;
		const per = talliesBySummary(mine.values());
		const tallies = [...per.values()];
		const estimate = meanShare(tallies);
		const only = tallies.length === 1 ? tallies[0]! : null;
		const interval = Number.isNaN(estimate)
			? null
			: intervals(
					{ unit: 'summaries', values: tallies },
					{
						share: {
							of: meanShare,
							// A mean of several summaries' shares is no share of pooled sentences.
							...(only && {
								pooled: { successes: only.faithful, n: only.judged, unit: 'sentences' as const },
							}),
						},
					},
					{ random: seededRandom(opts.seed), resamples: opts.resamples },
				).share;
		const over = interval?.over?.unit ?? null;
		const summaryIds = [...per.keys()];
		validators.push({
			validator,
			fraction,
			estimate: Number.isNaN(estimate) ? null : estimate,
			interval,
			over,
			summaries: tallies.length,
			judged: mine.size,
			units: summaryIds.reduce((n, s) => n + (unitsPer.get(s)?.length ?? 0), 0),
		});

		for (const [other, theirs] of latest) {
			if (other === validator || partial.has(other)) continue;
			const paired: [number, number][] = [];
			for (const s of summaryIds) {
				const all = unitsPer.get(s) ?? [];
				if (all.length === 0 || !all.every((k) => theirs.has(k))) continue;
				const full = shareOf(talliesBySummary(all.map((k) => theirs.get(k)!)).get(s)!);
				const part = shareOf(per.get(s)!);
				if (!Number.isNaN(full) && !Number.isNaN(part)) paired.push([part, full]);
			}
			if (paired.length === 0) continue;
			const tau = kendallTauB(
				paired.map((p) => p[0]),
				paired.map((p) => p[1]),
			);
			const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
			const partialShare = mean(paired.map((p) => p[0]));
			const fullShare = mean(paired.map((p) => p[1]));
			const origin = theirs.values().next().value!.origin;
			vsFull.push({
				partial: validator,
				full: other,
				fullOrigin: origin,
				summaries: paired.length,
				tau: Number.isNaN(tau) ? null : tau,
				partialShare,
				fullShare,
				difference: partialShare - fullShare,
			});
		}
	}
	return { estimator: ESTIMATOR, validators, vsFull };
}
