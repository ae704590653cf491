import type { ClaimCheck, ClaimVerdict, FaithfulnessLabel, FaithfulnessVerdict } from '../domain.ts';
import type { IntervalUnit } from '../format/interval.ts';
import { seededRandom } from './bootstrap.ts';
import { intervals, type Spread } from './interval.ts';

/**
 * Faithfulness counted LongEval's way (its §3.1): each unit of a summary is faithful or not (F_c
 * in {0, 1}), a summary's score is the mean over ALL its units, and a system's the mean over its
 * summaries. A unit the book does not state counts against it as a contradicted one does (its
 * Appendix B.1 guidelines: "either a direct contradiction, or not present"; the "apple" example:
 * a true fact the source never mentions is incorrect). What else a unit came out as is kept, so
 * that the shares beside the score say why it is not faithful. Pure.
 */

/**
 * What one judged unit came out as. A person's label (faithful, FABLES' partial support,
 * unfaithful, can't tell); a model judge's claim check (faithful when supported, not found,
 * contradicted, or `unchecked`: its quote was in no passage shown, or its answer unreadable).
 */
export const OUTCOMES = [
	'faithful',
	'partial',
	'unfaithful',
	'not found',
	'contradicted',
	'unsure',
	'unchecked',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const OUTCOME_WORD: Record<Outcome, string> = {
	faithful: 'faithful',
	partial: 'partial support',
	unfaithful: 'unfaithful',
	'not found': 'not found',
	contradicted: 'contradicted',
	unsure: "can't tell",
	unchecked: 'unchecked',
};

/** The outcomes a person's labels give, and those a model's checked claims give, in the order lines show them. */
export const LABELLED: readonly Outcome[] = ['faithful', 'partial', 'unfaithful', 'unsure'];
export const CHECKED: readonly Outcome[] = ['faithful', 'not found', 'contradicted', 'unchecked'];

/** A claim check as counted: an unquoted or unreadable answer is neither support nor its absence. */
export function claimOutcome(verdict: ClaimVerdict): Outcome {
	if (verdict === 'supported') return 'faithful';
	if (verdict === 'not found' || verdict === 'contradicted') return verdict;
	return 'unchecked';
}

/**
 * A sentence is as faithful as its claims: contradicted when any claim is, else not found when any
 * is (one claim the book does not state is enough), faithful when every claim is supported, and
 * otherwise unchecked (some claim's answer was unquoted or unreadable, none went against it).
 */
export function checksOutcome(checks: readonly Pick<ClaimCheck, 'verdict'>[]): Outcome {
	const each = checks.map((c) => claimOutcome(c.verdict));
	if (each.includes('contradicted')) return 'contradicted';
	if (each.includes('not found')) return 'not found';
	if (each.length > 0 && each.every((o) => o === 'faithful')) return 'faithful';
	return 'unchecked';
}

/** The label an outcome is compared as (agreement, κ): not found and contradicted are unfaithful, unchecked can't tell. */
export function outcomeLabel(outcome: Outcome): FaithfulnessLabel {
	if (outcome === 'not found' || outcome === 'contradicted') return 'unfaithful';
	if (outcome === 'unchecked') return 'unsure';
	return outcome;
}

/** A sentence verdict's outcome: from its claims when a model checked them, else its label. */
export function verdictOutcome(v: Pick<FaithfulnessVerdict, 'label' | 'claims'>): Outcome {
	return v.claims ? checksOutcome(v.claims) : v.label;
}

export type Counts = Record<Outcome, number>;
const noCounts = (): Counts => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Counts;

/** One summary's judged units, counted by outcome. */
export interface SummaryCounts {
	summary: string;
	n: number;
	counts: Counts;
}

/** Units counted per summary, in the order summaries first appear. */
export function countsBySummary(units: Iterable<{ summary: string; outcome: Outcome }>): SummaryCounts[] {
	const out = new Map<string, SummaryCounts>();
	for (const u of units) {
		let s = out.get(u.summary);
		if (!s) out.set(u.summary, (s = { summary: u.summary, n: 0, counts: noCounts() }));
		s.n += 1;
		s.counts[u.outcome] += 1;
	}
	return [...out.values()];
}

/** The mean over summaries of each one's share of `outcome` among all its judged units; NaN with none. */
export function meanShare(summaries: readonly SummaryCounts[], outcome: Outcome = 'faithful'): number {
	const judged = summaries.filter((s) => s.n > 0);
	if (judged.length === 0) return Number.NaN;
	return judged.reduce((sum, s) => sum + s.counts[outcome] / s.n, 0) / judged.length;
}

/** A validator's score over one kind of unit. */
export interface UnitScore {
	unit: 'sentences' | 'claims';
	/** Units judged, and the summaries they are in. */
	n: number;
	summaries: number;
	counts: Counts;
	/** Each outcome's share, per summary then the mean over summaries (the shares add up to 1). */
	shares: Counts;
	/** The faithful share, as `shares.faithful`. */
	share: number;
	/**
	 * Its interval as `intervals` picks it: a bootstrap over summaries when there are enough; with
	 * one summary the score is a share of its units, and gets Wilson's over them; with a few, none.
	 */
	interval: Spread;
	/** The outcomes its lines show: the ones its kind of verdict gives, and any other that occurs. */
	shown: Outcome[];
}

/** The score of one kind of unit, from each unit's summary and outcome; null when none is judged. */
export function unitScore(
	units: readonly { summary: string; outcome: Outcome }[],
	unit: UnitScore['unit'],
	base: readonly Outcome[],
	opts: { seed: number; resamples: number },
): UnitScore | null {
	if (units.length === 0) return null;
	const per = countsBySummary(units);
	const counts = noCounts();
	for (const s of per) for (const o of OUTCOMES) counts[o] += s.counts[o];
	const shares = Object.fromEntries(OUTCOMES.map((o) => [o, meanShare(per, o)])) as Counts;
	const only = per.length === 1 ? per[0]! : null;
	const interval = intervals(
		{ unit: 'summaries', values: per },
		{
			share: {
				of: (sample) => meanShare(sample),
				// A mean of several summaries' shares is no share of pooled units: no Wilson's for it.
				...(only && {
					pooled: { successes: only.counts.faithful, n: only.n, unit: unit satisfies IntervalUnit },
				}),
			},
		},
		{ random: seededRandom(opts.seed), resamples: opts.resamples },
	).share;
	const shown = [...base, ...OUTCOMES.filter((o) => !base.includes(o) && counts[o] > 0)];
	return {
		unit,
		n: units.length,
		summaries: per.length,
		counts,
		shares,
		share: shares.faithful,
		interval,
		shown,
	};
}
