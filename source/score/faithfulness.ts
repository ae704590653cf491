import { counted } from '../format/count.ts';
import { scoredSpans } from './annotate.ts';
import type { FaithfulnessLabel, FaithfulnessVerdict, ScoredSummary, Walk } from '../domain.ts';
import { FAITHFULNESS_LABELS } from '../domain.ts';
import { cohenKappa, krippendorffAlpha, percentAgreement } from './agreement.ts';
import { seededRandom } from './bootstrap.ts';
import { intervals, type Spread } from './interval.ts';
import { intervalNote, type IntervalUnit } from '../format/interval.ts';
import { partialReport, partialValidators, type PartialReport } from './partial-faithfulness.ts';
import { claimTally, claimTallyLine, type ClaimTally } from './claims.ts';
import { percent, percentInterval, signedPoints } from '../format/percent.ts';

/**
 * Faithfulness validation done LongEval's fine-grained way (its §3.1, Appendix B.1): each sentence
 * of a summary is a unit judged faithful, unfaithful or "can't tell", and a summary's score is the
 * share of its units judged faithful. Pure: verdicts in, walk positions and numbers out.
 */

/** One unit of a faithfulness walk: a sentence of a summary. */
export interface FaithfulnessUnit {
	summary: ScoredSummary['id'];
	sentence: number;
	text: string;
}

const keyOf = (u: Pick<FaithfulnessVerdict, 'summary' | 'sentence'>): string => `${u.summary}:${u.sentence}`;

/** The units of the given summaries, in reading order (summaries as given, sentences in order). */
export function faithfulnessUnits(
	summaries: readonly Pick<ScoredSummary, 'id' | 'text'>[],
): FaithfulnessUnit[] {
	return summaries.flatMap((s) =>
		scoredSpans(s).map((span, sentence) => ({
			summary: s.id,
			sentence,
			text: s.text.slice(span.start, span.end),
		})),
	);
}

/** Each unit's current verdict by `validator` (the latest given; undone ones are gone from the list). */
export function faithfulnessVerdictsOf(
	verdicts: readonly FaithfulnessVerdict[],
	validator: string,
): Map<string, FaithfulnessVerdict> {
	const out = new Map<string, FaithfulnessVerdict>();
	for (const v of verdicts) if (v.validator === validator) out.set(keyOf(v), v);
	return out;
}

/** The verdict `validator` has on `unit`, if any. */
export function faithfulnessVerdictOn(
	verdicts: ReadonlyMap<string, FaithfulnessVerdict>,
	unit: Pick<FaithfulnessUnit, 'summary' | 'sentence'>,
): FaithfulnessVerdict | undefined {
	return verdicts.get(keyOf(unit));
}

/** Where a walk opens: its first unit without a verdict (the first unit when all have one). */
export function firstUnjudgedUnit(
	units: readonly FaithfulnessUnit[],
	verdicts: readonly FaithfulnessVerdict[],
	validator: string,
): number {
	const mine = faithfulnessVerdictsOf(verdicts, validator);
	return Math.max(
		0,
		units.findIndex((u) => !mine.has(keyOf(u))),
	);
}

/** Removes `validator`'s latest verdict from `verdicts` (in place) and returns it; null when none. */
export function undoLastFaithfulness(
	verdicts: FaithfulnessVerdict[],
	validator: string,
): FaithfulnessVerdict | null {
	for (let i = verdicts.length - 1; i >= 0; i--)
		if (verdicts[i]!.validator === validator) return verdicts.splice(i, 1)[0]!;
	return null;
}

export interface FaithfulnessTally {
	faithful: number;
	unfaithful: number;
	unsure: number;
}

export interface ValidatorFaithfulness extends FaithfulnessTally {
	validator: string;
	origin: FaithfulnessVerdict['origin'];
	judged: number;
	/** faithful ÷ (faithful + unfaithful): "can't tell" is left out of the share and counted. Null when none decided. */
	share: number | null;
	/**
	 * The share's interval as `intervals` picks it: a bootstrap over summaries when there are
	 * enough, else Wilson's over the decided sentences; null when it has no share.
	 */
	interval: Spread | null;
	/** What the interval is over; null when there is none. */
	over: IntervalUnit | null;
	summaries: number;
	/** A model judge's claims and their checks (FABLES); null when its verdicts have none. */
	claims: ClaimTally | null;
}

export interface FaithfulnessPair {
	validators: [string, string];
	n: number;
	percent: number;
	/** NaN when undefined (both gave one label throughout). */
	kappa: number;
}

/** A model judge against the people: on the units both it and at least one person judged. */
export interface HumanModelRow {
	model: string;
	/** Units with a model verdict and a human one (the humans' majority; ties count as "unsure"). */
	n: number;
	percent: number;
	kappa: number;
	/** Faithful share on those units, the model's and the humans'. */
	modelShare: number | null;
	humanShare: number | null;
	/** Units the model called faithful that the humans called unfaithful, and the reverse. */
	modelMissed: number;
	modelFlagged: number;
}

export interface FaithfulnessReport {
	validators: ValidatorFaithfulness[];
	agreement: { pairs: FaithfulnessPair[]; alpha: number | null; units: number };
	humanVsModel: HumanModelRow[];
	/** Validators who judged a random share of each summary's sentences: the full score estimated, and τ against full annotations. */
	partial: PartialReport;
	/** Units of the reported summaries, and how many have at least one verdict. */
	units: number;
	judgedUnits: number;
}

const emptyTally = (): FaithfulnessTally => ({ faithful: 0, unfaithful: 0, unsure: 0 });
const shareOf = (t: readonly FaithfulnessTally[]): number => {
	let yes = 0;
	let decided = 0;
	for (const x of t) {
		yes += x.faithful;
		decided += x.faithful + x.unfaithful;
	}
	return decided === 0 ? Number.NaN : yes / decided;
};
const orNull = (x: number): number | null => (Number.isNaN(x) ? null : x);

/**
 * The faithfulness results over `summaries` (the ones being reported: verdicts on others are left
 * out): per validator the faithful share with a bootstrap interval, agreement between validators
 * (pairwise Cohen's κ, Krippendorff's α over all), each model judge against the people, and for
 * the validators whose recorded walk was partial (`walks`), the full-annotation estimate.
 */
export function faithfulnessReport(
	summaries: readonly Pick<ScoredSummary, 'id' | 'text'>[],
	verdicts: readonly FaithfulnessVerdict[],
	opts: { seed: number; resamples: number },
	walks: readonly Walk[] = [],
): FaithfulnessReport {
	const units = faithfulnessUnits(summaries);
	const known = new Set(units.map(keyOf));
	const kept = verdicts.filter((v) => known.has(keyOf(v)));
	const validators = [...new Set(kept.map((v) => v.validator))];
	const latest = new Map(validators.map((name) => [name, faithfulnessVerdictsOf(kept, name)]));
	const originOf = new Map(kept.map((v) => [v.validator, v.origin]));

	const rows: ValidatorFaithfulness[] = validators.map((validator) => {
		const mine = latest.get(validator)!;
		const bySummary = new Map<string, FaithfulnessTally>();
		for (const v of mine.values()) {
			let t = bySummary.get(v.summary);
			if (!t) bySummary.set(v.summary, (t = emptyTally()));
			t[v.label] += 1;
		}
		const perSummary = [...bySummary.values()];
		const total = perSummary.reduce(
			(t, x) => ({
				faithful: t.faithful + x.faithful,
				unfaithful: t.unfaithful + x.unfaithful,
				unsure: t.unsure + x.unsure,
			}),
			emptyTally(),
		);
		const share = orNull(shareOf(perSummary));
		const decided = total.faithful + total.unfaithful;
		const interval =
			share === null
				? null
				: intervals(
						{ unit: 'summaries', values: perSummary },
						{ share: { of: shareOf, pooled: { successes: total.faithful, n: decided, unit: 'sentences' } } },
						{ random: seededRandom(opts.seed), resamples: opts.resamples },
					).share;
		const over = interval?.over?.unit ?? null;
		return {
			validator,
			origin: originOf.get(validator)!,
			...total,
			judged: mine.size,
			share,
			interval,
			over,
			summaries: perSummary.length,
			claims: claimTally(mine.values()),
		};
	});

	const pairs: FaithfulnessPair[] = [];
	for (let i = 0; i < validators.length; i++) {
		for (let k = i + 1; k < validators.length; k++) {
			const a = latest.get(validators[i]!)!;
			const b = latest.get(validators[k]!)!;
			const shared = [...a.keys()].filter((key) => b.has(key));
			if (shared.length === 0) continue;
			const la = shared.map((key) => a.get(key)!.label);
			const lb = shared.map((key) => b.get(key)!.label);
			pairs.push({
				validators: [validators[i]!, validators[k]!],
				n: shared.length,
				percent: percentAgreement(la, lb),
				kappa: cohenKappa(la, lb),
			});
		}
	}
	const judgedKeys = [...new Set(kept.map(keyOf))];
	const matrix = judgedKeys.map((key) => validators.map((name) => latest.get(name)!.get(key)?.label ?? null));
	const pairable = matrix.filter((u) => u.filter((x) => x !== null).length >= 2).length;
	const alpha = validators.length >= 2 && pairable > 0 ? orNull(krippendorffAlpha(matrix)) : null;

	const humans = validators.filter((v) => originOf.get(v) === 'human');
	const humanVsModel: HumanModelRow[] = validators
		.filter((v) => originOf.get(v) === 'model' && humans.length > 0)
		.flatMap((model) => {
			const mine = latest.get(model)!;
			const paired: [FaithfulnessLabel, FaithfulnessLabel][] = [];
			for (const [key, v] of mine) {
				const people = humans.flatMap((h) => latest.get(h)!.get(key)?.label ?? []);
				if (people.length > 0) paired.push([v.label, majority(people)]);
			}
			if (paired.length === 0) return [];
			const m = paired.map((p) => p[0]);
			const h = paired.map((p) => p[1]);
			const tally = (labels: FaithfulnessLabel[]) => [
				Object.fromEntries(
					FAITHFULNESS_LABELS.map((l) => [l, labels.filter((x) => x === l).length]),
				) as unknown as FaithfulnessTally,
			];
			return [
				{
					model,
					n: paired.length,
					percent: percentAgreement(m, h),
					kappa: cohenKappa(m, h),
					modelShare: orNull(shareOf(tally(m))),
					humanShare: orNull(shareOf(tally(h))),
					modelMissed: paired.filter(([a, b]) => a === 'faithful' && b === 'unfaithful').length,
					modelFlagged: paired.filter(([a, b]) => a === 'unfaithful' && b === 'faithful').length,
				},
			];
		});

	const partial = partialReport(units, latest, partialValidators(walks), opts);
	return {
		validators: rows,
		agreement: { pairs, alpha, units: pairable },
		humanVsModel,
		partial,
		units: units.length,
		judgedUnits: judgedKeys.length,
	};
}

/** The most given label; a tie is no decision ("unsure"). */
function majority(labels: readonly FaithfulnessLabel[]): FaithfulnessLabel {
	const counts = FAITHFULNESS_LABELS.map((l) => [l, labels.filter((x) => x === l).length] as const).sort(
		(a, b) => b[1] - a[1],
	);
	return counts[0]![1] > counts[1]![1] ? counts[0]![0] : 'unsure';
}

export const FAITHFULNESS_WORD: Record<FaithfulnessLabel, string> = {
	faithful: 'faithful',
	unfaithful: 'unfaithful',
	unsure: "can't tell",
};

/** The faithfulness section of the text report (names from the data are cleaned by the caller's `clean`). */
export function faithfulnessLines(report: FaithfulnessReport, clean: (s: string) => string): string[] {
	if (report.validators.length === 0) return [];
	const out = [
		`faithfulness (LongEval, per sentence): ${report.judgedUnits}/${report.units} sentences judged`,
	];
	for (const v of report.validators) {
		const shown = v.interval ? percentInterval(v.share!, v.interval) : percent(v.share);
		out.push(
			`  ${clean(v.validator)} (${v.origin}): ${shown} faithful  n=${v.judged} (${v.faithful} faithful, ${v.unfaithful} unfaithful, ${v.unsure} can't tell${v.interval ? `; ${intervalNote(v.interval)}` : ''})`,
		);
		if (v.claims) out.push(`    ${claimTallyLine(v.claims)}`);
	}
	for (const p of report.agreement.pairs) {
		out.push(
			`  agreement ${clean(p.validators[0])} vs ${clean(p.validators[1])}: ${percent(p.percent)} on ${counted(p.n, 'sentence')}, Cohen's κ ${Number.isNaN(p.kappa) ? '—' : p.kappa.toFixed(3)}`,
		);
	}
	if (report.agreement.alpha !== null)
		out.push(
			`  Krippendorff's α ${report.agreement.alpha.toFixed(3)} over ${counted(report.agreement.units, 'sentence')}`,
		);
	for (const r of report.humanVsModel) {
		out.push(
			`  human vs ${clean(r.model)}: ${percent(r.percent)} agree on ${counted(r.n, 'sentence')}, κ ${Number.isNaN(r.kappa) ? '—' : r.kappa.toFixed(3)}; faithful ${percent(r.modelShare)} (model) vs ${percent(r.humanShare)} (human); model passed ${r.modelMissed} the people found unfaithful, flagged ${r.modelFlagged} they found faithful`,
		);
	}
	if (report.partial.validators.length > 0)
		out.push(
			`  partial annotation (LongEval §3.2), full score estimated as the ${report.partial.estimator}:`,
		);
	for (const p of report.partial.validators) {
		const shown = p.interval ? percentInterval(p.estimate!, p.interval) : percent(p.estimate);
		out.push(
			`    ${clean(p.validator)} judged ${percent(p.fraction)} of each summary (${p.judged}/${p.units} sentences of ${counted(p.summaries, 'summary', 'summaries')}): estimated ${shown} faithful${p.interval ? ` (${intervalNote(p.interval)})` : ''}`,
		);
	}
	for (const c of report.partial.vsFull) {
		out.push(
			`    partial ${clean(c.partial)} vs full ${clean(c.full)} (${c.fullOrigin}): Kendall's τ-b ${c.tau === null ? '— (needs two summaries that differ)' : c.tau.toFixed(3)} over ${counted(c.summaries, 'summary', 'summaries')}; faithful ${percent(c.partialShare)} (partial) vs ${percent(c.fullShare)} (full), ${signedPoints(c.difference)} points`,
		);
	}
	return out;
}
