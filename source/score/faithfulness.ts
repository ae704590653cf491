import { scoredSpans } from './annotate.ts';
import type {
	FaithfulnessLabel,
	FaithfulnessRating,
	FaithfulnessVerdict,
	ScoredSummary,
	Walk,
} from '../domain.ts';
import { FAITHFULNESS_LABELS } from '../domain.ts';
import { cohenKappa, krippendorffAlpha, percentAgreement } from './agreement.ts';
import { intervalNote } from '../format/interval.ts';
import { counted } from '../format/count.ts';
import { partialReport, partialValidators, type PartialReport } from './partial-faithfulness.ts';
import { claimTally, type ClaimTally } from './claims.ts';
import { coarseFine, coarseFineLines, type CoarseFine } from './faithfulness-coarse.ts';
import {
	CHECKED,
	claimOutcome,
	countsBySummary,
	LABELLED,
	meanShare,
	OUTCOME_WORD,
	outcomeLabel,
	unitScore,
	verdictOutcome,
	type Outcome,
	type UnitScore,
} from './faithfulness-count.ts';
import { percent, percentInterval, signedPoints } from '../format/percent.ts';
import { CLAIM_VERDICTS } from '../domain.ts';
import { coefficient, fixed } from '../format/number.ts';

/**
 * Faithfulness validation done LongEval's fine-grained way (its §3.1, Appendix B.1): each unit of
 * a summary (a sentence, or one of the atomic claims a model judge split it into, FABLES' way) is
 * judged, and only a faithful unit counts for it: a summary's score is its faithful share of all
 * its units, a system's the mean over its summaries (faithfulness-count.ts). Pure: verdicts in,
 * walk positions and numbers out.
 */

/** One unit of a faithfulness walk: a sentence of a summary, or one claim of it (`claim`). */
export interface FaithfulnessUnit {
	summary: ScoredSummary['id'];
	sentence: number;
	text: string;
	/** A claim of the sentence: its index among the claims `judge` split the sentence into, and its text. */
	claim?: { index: number; text: string; judge: string };
}

type UnitRef = Pick<FaithfulnessVerdict, 'summary' | 'sentence'> & {
	claim?: { index: number; judge: string };
};

/** A unit's key: its sentence, and for a claim which of whose claims it is (another judge's split is other claims). */
export const unitKey = (u: UnitRef): string =>
	u.claim ? `${u.summary}:${u.sentence}:${u.claim.index}@${u.claim.judge}` : `${u.summary}:${u.sentence}`;

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

/**
 * The claims a model judge split `sentences` into, as units to judge, in reading order: those of
 * the judge whose verdicts have claims for the most of them (the first such judge on a tie), so
 * that a person judges the very claims a model judged. Sentences that judge has no verdict on are
 * left out; none when no model judged with claims.
 */
export function claimUnits(
	sentences: readonly FaithfulnessUnit[],
	verdicts: readonly FaithfulnessVerdict[],
): FaithfulnessUnit[] {
	const wanted = new Set(sentences.map(unitKey));
	const byJudge = new Map<string, Map<string, FaithfulnessVerdict>>();
	for (const v of verdicts) {
		if (v.origin !== 'model' || !v.claims || !wanted.has(unitKey(v))) continue;
		let mine = byJudge.get(v.validator);
		if (!mine) byJudge.set(v.validator, (mine = new Map()));
		mine.set(unitKey(v), v);
	}
	let judge: string | null = null;
	for (const [name, mine] of byJudge)
		if (judge === null || mine.size > byJudge.get(judge)!.size) judge = name;
	if (judge === null) return [];
	const split = byJudge.get(judge)!;
	return sentences.flatMap((u) =>
		(split.get(unitKey(u))?.claims ?? []).map((c, index) => ({
			...u,
			claim: { index, text: c.claim, judge: judge! },
		})),
	);
}

/** Each unit's current verdict by `validator` (the latest given; undone ones are gone from the list). */
export function faithfulnessVerdictsOf(
	verdicts: readonly FaithfulnessVerdict[],
	validator: string,
): Map<string, FaithfulnessVerdict> {
	const out = new Map<string, FaithfulnessVerdict>();
	for (const v of verdicts) if (v.validator === validator) out.set(unitKey(v), v);
	return out;
}

/** The verdict `validator` has on `unit`, if any. */
export function faithfulnessVerdictOn(
	verdicts: ReadonlyMap<string, FaithfulnessVerdict>,
	unit: UnitRef,
): FaithfulnessVerdict | undefined {
	return verdicts.get(unitKey(unit));
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
		units.findIndex((u) => !mine.has(unitKey(u))),
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

/** A validator's scores: over sentences, and over claims (a model's checks, or a person's verdicts on them). */
export interface ValidatorFaithfulness {
	validator: string;
	origin: FaithfulnessVerdict['origin'];
	/** Null when this validator judged no whole sentence (a person who judged claims only). */
	sentences: UnitScore | null;
	/** Null when this validator judged no claim. */
	claims: UnitScore | null;
	/** A model judge's claims by check (FABLES), with the sentences judged whole; null for a person's. */
	checks: ClaimTally | null;
}

export type UnitKind = UnitScore['unit'];

export interface FaithfulnessPair {
	validators: [string, string];
	n: number;
	percent: number;
	/** NaN when undefined (both gave one label throughout). */
	kappa: number;
}

export interface FaithfulnessAgreement {
	pairs: FaithfulnessPair[];
	alpha: number | null;
	/** Units at least two validators judged. */
	units: number;
}

/** A model judge against the people: on the units both it and at least one person judged. */
export interface HumanModelRow {
	model: string;
	unit: UnitKind;
	/** Units with a model verdict and a human one (the humans' majority; ties count as "unsure"). */
	n: number;
	percent: number;
	kappa: number;
	/** Faithful share on those units (per summary, then the mean), the model's and the humans'. */
	modelShare: number | null;
	humanShare: number | null;
	/** Units the model called faithful that the humans called unfaithful, and the reverse. */
	modelMissed: number;
	modelFlagged: number;
}

export interface FaithfulnessReport {
	validators: ValidatorFaithfulness[];
	/** Agreement on sentences, and on claims (the same claims: of one judge's split). */
	agreement: FaithfulnessAgreement;
	claimAgreement: FaithfulnessAgreement;
	humanVsModel: HumanModelRow[];
	/** Validators who judged a random share of each summary's sentences: the full score estimated, and τ against full annotations. */
	partial: PartialReport;
	/** Units of the reported summaries, and how many have at least one verdict. */
	units: number;
	judgedUnits: number;
	/** The people's coarse ratings of whole summaries beside their fine scores, with the spread across them (LongEval Table 3). */
	coarseFine: CoarseFine;
}

const orNull = (x: number): number | null => (Number.isNaN(x) ? null : x);

/** One judged unit of one validator: a sentence, or a claim of one judge's split. */
interface Judged {
	key: string;
	summary: string;
	unit: UnitKind;
	outcome: Outcome;
}

/**
 * The units a validator's current verdicts judge: a verdict on a sentence is one (its outcome from
 * its claims when a model checked them), each claim a model checked is one more, and a person's
 * verdict on a claim is that claim.
 */
function judgedOf(verdicts: Iterable<FaithfulnessVerdict>): Judged[] {
	const out: Judged[] = [];
	for (const v of verdicts) {
		if (v.claim) {
			out.push({ key: unitKey(v), summary: v.summary, unit: 'claims', outcome: v.label });
			continue;
		}
		out.push({ key: unitKey(v), summary: v.summary, unit: 'sentences', outcome: verdictOutcome(v) });
		for (const [index, c] of (v.claims ?? []).entries())
			out.push({
				key: unitKey({ ...v, claim: { index, judge: v.validator } }),
				summary: v.summary,
				unit: 'claims',
				outcome: claimOutcome(c.verdict),
			});
	}
	return out;
}

/**
 * The faithfulness results over `summaries` (the ones being reported: verdicts on others are left
 * out): per validator the faithful share of all its sentences, and of all its claims, LongEval's
 * way (per summary, then the mean over summaries) with the interval `intervals` picks and the
 * other outcomes' shares beside it; agreement between validators (pairwise Cohen's κ,
 * Krippendorff's α over all), each model judge against the people, and for the validators whose
 * recorded walk was partial (`walks`), the full-annotation estimate; and the people's coarse
 * `ratings` of whole summaries beside their fine scores.
 */
export function faithfulnessReport(
	summaries: readonly Pick<ScoredSummary, 'id' | 'text'>[],
	verdicts: readonly FaithfulnessVerdict[],
	opts: { seed: number; resamples: number },
	walks: readonly Walk[] = [],
	ratings: readonly FaithfulnessRating[] = [],
): FaithfulnessReport {
	const units = faithfulnessUnits(summaries);
	const known = new Set(units.map(unitKey));
	const kept = verdicts.filter((v) => known.has(unitKey({ summary: v.summary, sentence: v.sentence })));
	const validators = [...new Set(kept.map((v) => v.validator))];
	const latest = new Map(validators.map((name) => [name, faithfulnessVerdictsOf(kept, name)]));
	const originOf = new Map(kept.map((v) => [v.validator, v.origin]));
	const judged = new Map(validators.map((name) => [name, judgedOf(latest.get(name)!.values())]));

	const rows: ValidatorFaithfulness[] = validators.map((validator) => {
		const mine = judged.get(validator)!;
		const model = [...latest.get(validator)!.values()].some((v) => v.claims);
		const score = (unit: UnitKind) =>
			unitScore(
				mine.filter((u) => u.unit === unit),
				unit,
				model ? CHECKED : LABELLED,
				opts,
			);
		return {
			validator,
			origin: originOf.get(validator)!,
			sentences: score('sentences'),
			claims: score('claims'),
			checks: claimTally(latest.get(validator)!.values()),
		};
	});

	const labels = (unit: UnitKind) =>
		new Map(
			validators.map((name) => [
				name,
				new Map(
					judged
						.get(name)!
						.filter((u) => u.unit === unit)
						.map((u) => [u.key, { summary: u.summary, label: outcomeLabel(u.outcome) }]),
				),
			]),
		);
	const bySentence = labels('sentences');
	const byClaim = labels('claims');

	const sentenceKeys = new Set(kept.filter((v) => !v.claim).map(unitKey));
	const partialLatest = new Map(
		validators.map((name) => [
			name,
			new Map([...latest.get(name)!].filter(([, v]) => !v.claim)) as ReadonlyMap<string, FaithfulnessVerdict>,
		]),
	);
	return {
		validators: rows,
		agreement: agreementOf(validators, bySentence),
		claimAgreement: agreementOf(validators, byClaim),
		humanVsModel: [
			...humanVsModelOf(validators, originOf, bySentence, 'sentences'),
			...humanVsModelOf(validators, originOf, byClaim, 'claims'),
		],
		partial: partialReport(units, partialLatest, partialValidators(walks), opts),
		units: units.length,
		judgedUnits: sentenceKeys.size,
		coarseFine: coarseFine(
			summaries.map((s) => s.id),
			sentenceCounts(units),
			kept,
			ratings,
			opts,
		),
	};
}

function sentenceCounts(units: readonly FaithfulnessUnit[]): Map<string, number> {
	const out = new Map<string, number>();
	for (const u of units) out.set(u.summary, (out.get(u.summary) ?? 0) + 1);
	return out;
}

type Labelled = ReadonlyMap<string, ReadonlyMap<string, { summary: string; label: FaithfulnessLabel }>>;

/** Pairwise agreement on the units both of a pair judged, and α over every unit two judged. */
function agreementOf(validators: readonly string[], labels: Labelled): FaithfulnessAgreement {
	const pairs: FaithfulnessPair[] = [];
	for (let i = 0; i < validators.length; i++) {
		for (let k = i + 1; k < validators.length; k++) {
			const a = labels.get(validators[i]!)!;
			const b = labels.get(validators[k]!)!;
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
	const keys = [...new Set(validators.flatMap((name) => [...labels.get(name)!.keys()]))];
	const matrix = keys.map((key) => validators.map((name) => labels.get(name)!.get(key)?.label ?? null));
	const pairable = matrix.filter((u) => u.filter((x) => x !== null).length >= 2).length;
	const alpha = validators.length >= 2 && pairable > 0 ? orNull(krippendorffAlpha(matrix)) : null;
	return { pairs, alpha, units: pairable };
}

/** Each model judge against the people's majority, on the units of `unit` both judged. */
function humanVsModelOf(
	validators: readonly string[],
	originOf: ReadonlyMap<string, FaithfulnessVerdict['origin']>,
	labels: Labelled,
	unit: UnitKind,
): HumanModelRow[] {
	const humans = validators.filter((v) => originOf.get(v) === 'human');
	if (humans.length === 0) return [];
	return validators
		.filter((v) => originOf.get(v) === 'model')
		.flatMap((model) => {
			const paired: { summary: string; model: FaithfulnessLabel; human: FaithfulnessLabel }[] = [];
			for (const [key, v] of labels.get(model)!) {
				const people = humans.flatMap((h) => labels.get(h)!.get(key)?.label ?? []);
				if (people.length > 0) paired.push({ summary: v.summary, model: v.label, human: majority(people) });
			}
			if (paired.length === 0) return [];
			const m = paired.map((p) => p.model);
			const h = paired.map((p) => p.human);
			const share = (who: 'model' | 'human') =>
				orNull(meanShare(countsBySummary(paired.map((p) => ({ summary: p.summary, outcome: p[who] })))));
			return [
				{
					model,
					unit,
					n: paired.length,
					percent: percentAgreement(m, h),
					kappa: cohenKappa(m, h),
					modelShare: share('model'),
					humanShare: share('human'),
					modelMissed: paired.filter((p) => p.model === 'faithful' && p.human === 'unfaithful').length,
					modelFlagged: paired.filter((p) => p.model === 'unfaithful' && p.human === 'faithful').length,
				},
			];
		});
}

/** The most given label; a tie is no decision ("unsure"). */
function majority(labels: readonly FaithfulnessLabel[]): FaithfulnessLabel {
	const counts = FAITHFULNESS_LABELS.map((l) => [l, labels.filter((x) => x === l).length] as const).sort(
		(a, b) => b[1] - a[1],
	);
	return counts[0]![1] > counts[1]![1] ? counts[0]![0] : 'unsure';
}

export const FAITHFULNESS_WORD: Record<FaithfulnessLabel, string> = {
	faithful: OUTCOME_WORD.faithful,
	partial: OUTCOME_WORD.partial,
	unfaithful: OUTCOME_WORD.unfaithful,
	unsure: OUTCOME_WORD.unsure,
};

const UNIT_WORD: Record<UnitKind, [string, string]> = {
	sentences: ['sentence', 'sentences'],
	claims: ['claim', 'claims'],
};

const kappaText = coefficient;

/**
 * A validator's score over one kind of unit, as one line: the faithful share of all units with its
 * interval, each other outcome's share beside it, and the counts (`counts`: how they are named).
 */
function scoreLine(name: string, unit: string, score: UnitScore, counts: string): string {
	const shares = score.shown.map((o, i) => {
		const share = i === 0 ? percentInterval(score.shares[o], score.interval) : percent(score.shares[o]);
		return `${share} ${OUTCOME_WORD[o]}`;
	});
	const over = counted(score.summaries, 'summary', 'summaries');
	return `  ${name}, ${unit}: ${shares.join(', ')}; n=${score.n} in ${over} (${counts}; ${intervalNote(score.interval)})`;
}

const outcomeCounts = (score: UnitScore): string =>
	score.shown.map((o) => `${score.counts[o]} ${OUTCOME_WORD[o]}`).join(', ');

/** A model's claims by check: every answer counted, the unquoted and unreadable ones among them. */
function checkCounts(checks: ClaimTally): string {
	const each = CLAIM_VERDICTS.map((v) => `${checks.verdicts[v]} ${v}`).join(', ');
	return `${each}; ${counted(checks.unsplit, 'sentence')} judged whole (claims answer unreadable)`;
}

/** The faithfulness section of the text report (names from the data are cleaned by the caller's `clean`). */
export function faithfulnessLines(report: FaithfulnessReport, clean: (s: string) => string): string[] {
	if (report.validators.length === 0 && report.coarseFine.coarse.mean === null) return [];
	const how = "LongEval: each summary's faithful share of all its units, then the mean over summaries";
	const out = [`faithfulness (${how}): ${report.judgedUnits}/${report.units} sentences judged`];
	for (const v of report.validators) {
		const name = `${clean(v.validator)} (${v.origin})`;
		if (v.sentences) out.push(scoreLine(name, 'sentences', v.sentences, outcomeCounts(v.sentences)));
		if (v.claims)
			out.push(
				scoreLine(
					name,
					'claims (FABLES)',
					v.claims,
					v.checks ? checkCounts(v.checks) : outcomeCounts(v.claims),
				),
			);
	}
	for (const [unit, agreement] of [
		['sentences', report.agreement],
		['claims', report.claimAgreement],
	] as const) {
		const [one, many] = UNIT_WORD[unit];
		for (const p of agreement.pairs)
			out.push(
				`  agreement ${clean(p.validators[0])} vs ${clean(p.validators[1])}: ${percent(p.percent)} ` +
					`on ${counted(p.n, one, many)}, Cohen's κ ${kappaText(p.kappa)}`,
			);
		if (agreement.alpha !== null)
			out.push(`  Krippendorff's α ${fixed(agreement.alpha, 3)} over ${counted(agreement.units, one, many)}`);
	}
	for (const r of report.humanVsModel) {
		const [one, many] = UNIT_WORD[r.unit];
		const agree = `${percent(r.percent)} agree on ${counted(r.n, one, many)}, κ ${kappaText(r.kappa)}`;
		const shares = `faithful ${percent(r.modelShare)} (model) vs ${percent(r.humanShare)} (human)`;
		const misses = `model passed ${r.modelMissed} the people found unfaithful, flagged ${r.modelFlagged} they found faithful`;
		out.push(`  human vs ${clean(r.model)}: ${agree}; ${shares}; ${misses}`);
	}
	if (report.partial.validators.length > 0)
		out.push(
			`  partial annotation (LongEval §3.2), full score estimated as the ${report.partial.estimator}:`,
		);
	for (const p of report.partial.validators) {
		const shown = p.interval ? percentInterval(p.estimate!, p.interval) : percent(p.estimate);
		const judged = `${p.judged}/${p.units} sentences of ${counted(p.summaries, 'summary', 'summaries')}`;
		const note = p.interval ? ` (${intervalNote(p.interval)})` : '';
		out.push(
			`    ${clean(p.validator)} judged ${percent(p.fraction)} of each summary (${judged}): estimated ${shown} faithful${note}`,
		);
	}
	for (const c of report.partial.vsFull) {
		const tau = c.tau === null ? '— (needs two summaries that differ)' : fixed(c.tau, 3);
		const shares = `faithful ${percent(c.partialShare)} (partial) vs ${percent(c.fullShare)} (full), ${signedPoints(c.difference)} points`;
		out.push(
			`    partial ${clean(c.partial)} vs full ${clean(c.full)} (${c.fullOrigin}): Kendall's τ-b ` +
				`${tau} over ${counted(c.summaries, 'summary', 'summaries')}; ${shares}`,
		);
	}
	out.push(...coarseFineLines(report.coarseFine));
	return out;
}
