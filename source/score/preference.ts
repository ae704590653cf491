import { sampleRankCorrelation } from 'simple-statistics';
import { cohenKappa, krippendorffAlpha, percentAgreement } from './agreement.ts';
import { seededRandom } from './bootstrap.ts';
import {
	CRITERIA,
	judgmentsOf,
	systemOf,
	type Choice,
	type CompareRecord,
	type Contender,
	type Criterion,
	type Pair,
	type PairJudgment,
} from './compare.ts';
import { intervals, normalQuantile, type Spread } from './interval.ts';

/**
 * A comparison's results as the paper's Table 4 gives them, pure: per criterion, the share of
 * judgments preferring each side and the ties, per annotator and pooled over the people, with
 * intervals over pairs (a bootstrap over pairs when there are enough of them, else Wilson's over
 * the judgments, as `pickInterval` decides); agreement where annotators judged the same pairs
 * (people with each other, and a model with the people); and the rank correlation between a
 * pair's preference and its BooookScore difference, which the paper found absent.
 */

export interface SideShare extends Spread {
	count: number;
}

export interface CriterionShares {
	criterion: Criterion;
	/** Judgments that answered this criterion, and the pairs they are of. */
	judgments: number;
	pairs: number;
	x: SideShare;
	y: SideShare;
	tie: SideShare;
}

/** One annotator's table (or the people's pooled one): a row per criterion. */
export interface PreferenceTable {
	/** The annotator, or null for the people pooled. */
	annotator: string | null;
	origin: 'human' | 'model';
	criteria: CriterionShares[];
}

/** The pairs that set the same two configurations against each other, and their tables. */
export interface PreferenceGroup {
	/** The two configurations, `x`'s first: "incremental · openai/gpt-4o". */
	systems: [string, string];
	pairs: number;
	/** The people pooled (null when no person judged a pair of the group), then each annotator, then each model. */
	people: PreferenceTable | null;
	annotators: PreferenceTable[];
	models: PreferenceTable[];
}

/** Spearman's ρ between preference (x +1, tie 0, y −1) and BooookScore(x) − BooookScore(y), over pairs. */
export interface RankCorrelation {
	criterion: Criterion;
	/** Pairs with a preference and both BooookScores. */
	n: number;
	rho: number | null;
	low: number | null;
	high: number | null;
	level: number;
	/** 'fisher-z': Fisher's z with Bonett and Wright's variance for ρ; 'none', with why. */
	method: 'fisher-z' | 'none';
	why: string | null;
}

export interface PairwiseAgreement {
	annotators: [string, string];
	/** Pairs both answered this criterion on. */
	n: number;
	percent: number;
	/** Cohen's κ; null where it is undefined (both always gave one same answer). */
	kappa: number | null;
}

export interface CriterionAgreement {
	criterion: Criterion;
	pairs: PairwiseAgreement[];
	/** Krippendorff's α over the people (nominal); null under two people or without a shared pair. */
	alpha: number | null;
	units: number;
}

export interface PreferenceResults {
	groups: PreferenceGroup[];
	/** Over all pairs (each faces its configurations the same way): the people pooled (a pair's mean), each annotator. */
	correlation: { people: RankCorrelation[]; annotators: Map<string, RankCorrelation[]> };
	agreement: CriterionAgreement[];
	/** Per annotator: pairs judged on all four criteria, of those given them. */
	progress: Map<string, { judged: number; assigned: number | null; origin: 'human' | 'model' }>;
	/** Pairs without both BooookScores (scored summaries missing), left out of the correlation. */
	unscored: number;
}

export interface PreferenceInput {
	contenders: readonly Contender[];
	pairs: readonly Pair[];
	records: readonly CompareRecord[];
	/** BooookScore of each contender (percent), by key; null or absent: not scored. */
	scores: ReadonlyMap<string, number | null>;
	/** How many pairs each annotator was given (absent: not known here). */
	assigned?: (annotator: string) => number | null;
	seed: number;
	resamples: number;
	level?: number;
}

const VALUE: Record<Choice, number> = { x: 1, tie: 0, y: -1 };

export function preferenceResults(input: PreferenceInput): PreferenceResults {
	const level = input.level ?? 0.95;
	const byKey = new Map(input.contenders.map((c) => [c.key, c]));
	const judged = judgmentsOf(input.records);
	const origin = (annotator: string) =>
		[...judged.get(annotator)!.values()].some((j) => j.origin === 'model') ? 'model' : 'human';
	const annotators = [...judged.keys()].sort();
	const people = annotators.filter((a) => origin(a) === 'human');
	const models = annotators.filter((a) => origin(a) === 'model');

	const groups = new Map<string, Pair[]>();
	for (const pair of input.pairs) {
		const systems = [systemOf(byKey.get(pair.x)!), systemOf(byKey.get(pair.y)!)];
		const key = JSON.stringify(systems);
		groups.set(key, [...(groups.get(key) ?? []), pair]);
	}
	const table = (
		pairs: readonly Pair[],
		who: readonly string[],
		annotator: string | null,
	): PreferenceTable | null => {
		const criteria = CRITERIA.map((criterion) => shares(pairs, who, criterion));
		if (criteria.every((c) => c.judgments === 0)) return null;
		return { annotator, origin: who.every((a) => origin(a) === 'model') ? 'model' : 'human', criteria };
	};
	const shares = (pairs: readonly Pair[], who: readonly string[], criterion: Criterion): CriterionShares => {
		// A pair's answers to the criterion, one per annotator who gave one: the bootstrap resamples pairs whole.
		const clusters = pairs
			.map((p) =>
				who.flatMap((a) => {
					const c = judged.get(a)?.get(p.id)?.choices[criterion];
					return c === undefined ? [] : [c];
				}),
			)
			.filter((answers) => answers.length > 0);
		const all = clusters.flat();
		const count = (side: Choice) => all.filter((c) => c === side).length;
		const unit = all.length === clusters.length ? 'pairs' : 'judgments';
		const statistic = (side: Choice) => ({
			of: (sample: readonly Choice[][]) => {
				const flat = sample.flat();
				return flat.length === 0 ? Number.NaN : flat.filter((c) => c === side).length / flat.length;
			},
			pooled: { successes: count(side), n: all.length, unit } as const,
		});
		const spread = intervals(
			clusters.length > 0 ? { unit: 'pairs', values: clusters } : null,
			{ x: statistic('x'), y: statistic('y'), tie: statistic('tie') },
			{ random: seededRandom(input.seed), resamples: input.resamples, level },
		);
		return {
			criterion,
			judgments: all.length,
			pairs: clusters.length,
			x: { ...spread.x, count: count('x') },
			y: { ...spread.y, count: count('y') },
			tie: { ...spread.tie, count: count('tie') },
		};
	};

	const out: PreferenceGroup[] = [...groups.entries()].map(([key, pairs]) => ({
		systems: JSON.parse(key) as [string, string],
		pairs: pairs.length,
		people: people.length > 0 ? table(pairs, people, null) : null,
		annotators: people.flatMap((a) => table(pairs, [a], a) ?? []),
		models: models.flatMap((a) => table(pairs, [a], a) ?? []),
	}));

	// The correlation: each pair's BooookScore difference against its preference.
	const diff = new Map<string, number>();
	for (const p of input.pairs) {
		const sx = input.scores.get(p.x);
		const sy = input.scores.get(p.y);
		if (typeof sx === 'number' && typeof sy === 'number') diff.set(p.id, sx - sy);
	}
	const correlate = (who: readonly string[]) =>
		CRITERIA.map((criterion) => {
			const xs: number[] = [];
			const ys: number[] = [];
			for (const p of input.pairs) {
				const d = diff.get(p.id);
				const values = who.flatMap((a) => {
					const c = judged.get(a)?.get(p.id)?.choices[criterion];
					return c === undefined ? [] : [VALUE[c]];
				});
				if (d === undefined || values.length === 0) continue;
				xs.push(values.reduce((s, v) => s + v, 0) / values.length);
				ys.push(d);
			}
			return rankCorrelation(criterion, xs, ys, level);
		});

	const progress = new Map(
		annotators.map((a) => {
			const mine = judged.get(a)!;
			const done = input.pairs.filter((p) => CRITERIA.every((c) => mine.get(p.id)?.choices[c] !== undefined));
			return [a, { judged: done.length, assigned: input.assigned?.(a) ?? null, origin: origin(a) }] as const;
		}),
	);
	return {
		groups: out,
		correlation: {
			people: correlate(people),
			annotators: new Map(annotators.map((a) => [a, correlate([a])])),
		},
		agreement: CRITERIA.map((c) => agreementOn(c, input.pairs, judged, annotators, people)),
		progress,
		unscored: input.pairs.length - diff.size,
	};
}

/**
 * Spearman's ρ (midranks, simple-statistics) with a Fisher-z interval whose variance is Bonett and
 * Wright's (1 + ρ²/2) / (n − 3), which keeps its coverage for ρ where the plain 1 / (n − 3) does not.
 */
export function rankCorrelation(
	criterion: Criterion,
	xs: readonly number[],
	ys: readonly number[],
	level = 0.95,
): RankCorrelation {
	const n = xs.length;
	const none = (rho: number | null, why: string): RankCorrelation => ({
		criterion,
		n,
		rho,
		low: null,
		high: null,
		level,
		method: 'none',
		why,
	});
	if (n < 3) return none(null, 'fewer than 3 pairs');
	const raw = sampleRankCorrelation([...xs], [...ys]);
	// Rounding can carry a perfect order a hair past ±1.
	const rho = Math.max(-1, Math.min(1, raw));
	if (Number.isNaN(raw)) return none(null, 'no variation on one side (every pair the same)');
	if (n < 4) return none(rho, 'fewer than 4 pairs for an interval');
	if (Math.abs(rho) >= 1) return none(rho, 'a perfect rank order leaves no interval');
	const z = Math.atanh(rho);
	const half = normalQuantile(1 - (1 - level) / 2) * Math.sqrt((1 + (rho * rho) / 2) / (n - 3));
	return {
		criterion,
		n,
		rho,
		low: Math.tanh(z - half),
		high: Math.tanh(z + half),
		level,
		method: 'fisher-z',
		why: null,
	};
}

/** Agreement on one criterion where annotators answered it on the same pairs. */
function agreementOn(
	criterion: Criterion,
	pairs: readonly Pair[],
	judged: ReadonlyMap<string, ReadonlyMap<string, PairJudgment>>,
	annotators: readonly string[],
	people: readonly string[],
): CriterionAgreement {
	const answer = (a: string, p: Pair) => judged.get(a)?.get(p.id)?.choices[criterion];
	const agreement: PairwiseAgreement[] = [];
	for (let i = 0; i < annotators.length; i++) {
		for (let k = i + 1; k < annotators.length; k++) {
			const [a, b] = [annotators[i]!, annotators[k]!];
			const shared = pairs.filter((p) => answer(a, p) !== undefined && answer(b, p) !== undefined);
			if (shared.length === 0) continue;
			const va = shared.map((p) => answer(a, p)!);
			const vb = shared.map((p) => answer(b, p)!);
			const kappa = cohenKappa(va, vb);
			agreement.push({
				annotators: [a, b],
				n: shared.length,
				percent: percentAgreement(va, vb),
				kappa: Number.isNaN(kappa) ? null : kappa,
			});
		}
	}
	const units = pairs.map((p) => people.map((a) => answer(a, p) ?? null));
	const pairable = units.filter((u) => u.filter((v) => v !== null).length >= 2).length;
	const alpha = people.length >= 2 && pairable > 0 ? krippendorffAlpha(units) : Number.NaN;
	return { criterion, pairs: agreement, alpha: Number.isNaN(alpha) ? null : alpha, units: pairable };
}
