import { boundsJson, intervalJson, type IntervalUnit, type ShownInterval } from './interval.ts';
import { percentNumber } from './percent.ts';
import { precisionJson } from './precision.ts';
import { coverageLines, finalCoverageJson } from './coverage.ts';
import { memoryJson, memorySummaryLines } from './memory.ts';

/*
 * A session's report as `report --json` prints it. The shapes read, as much of them as is read (format/ sits
 * below score/): score/report.ts's `Report`, score/faithfulness.ts's `FaithfulnessReport` and what it holds.
 */

type Spread = ShownInterval & { estimate: number };
type Figures = Record<string, number>;
type SourceScore = Record<'booookscore' | 'summaries' | 'sentences' | 'confusing' | 'types', unknown>;
type Precision = Parameters<typeof precisionJson>[0];
/** Pairs of validators who judged the same items: how often they agreed, and κ (NaN where undefined). */
interface Agreement {
	pairs: readonly { validators: readonly [string, string]; n: number; percent: number; kappa: number }[];
	alpha: number | null;
	units: number;
}
/** An outcome of a faithfulness verdict as counted (score/faithfulness-count.ts `Outcome`). */
type Outcome = 'faithful' | 'partial' | 'unfaithful' | 'not found' | 'contradicted' | 'unsure' | 'unchecked';
interface UnitScore {
	n: number;
	summaries: number;
	share: number;
	interval: Spread;
	shown: readonly Outcome[];
	shares: Record<Outcome, number>;
	counts: Record<Outcome, number>;
}
type Grain = Record<'mean' | 'spread', Spread | null> &
	Record<'summaries' | 'spreadSummaries' | 'annotators', number>;

export interface Report {
	model: SourceScore | null;
	human: SourceScore | null;
	precision: ReadonlyMap<string, ReadonlyMap<string, Precision>>;
	blind: ReadonlyMap<string, unknown>;
	agreement: Agreement;
	books: readonly (Record<'book' | 'sentences' | 'model' | 'human' | 'judged', unknown> &
		Record<'judgedAnnotations' | 'judgedFaithfulness', number> & {
			unreadable: readonly { sentence: number; reason: string }[];
		})[];
	history: number;
	faithfulness: {
		validators: readonly {
			validator: string;
			origin: string;
			sentences: UnitScore | null;
			claims: UnitScore | null;
			checks: { claims: number; verdicts: Figures; unsplit: number } | null;
		}[];
		agreement: Agreement;
		claimAgreement: Agreement;
		humanVsModel: readonly (Record<'model' | 'unit', string> &
			Record<'n' | 'percent' | 'kappa' | 'modelMissed' | 'modelFlagged', number> &
			Record<'modelShare' | 'humanShare', number | null>)[];
		partial: {
			estimator: string;
			validators: readonly (Record<'validator', string> &
				Record<'fraction' | 'summaries' | 'judged' | 'units', number> & {
					estimate: number | null;
					interval: Spread | null;
					over: IntervalUnit | null;
				})[];
			vsFull: readonly (Record<'partial' | 'full' | 'fullOrigin', string> &
				Record<'summaries' | 'partialShare' | 'fullShare' | 'difference', number> & { tau: number | null })[];
		};
		units: number;
		judgedUnits: number;
		coarseFine: {
			coarse: Grain;
			fine: Grain;
			unfinished: number;
			rows: readonly {
				summary: string;
				coarse: ReadonlyMap<string, number>;
				fine: ReadonlyMap<string, number>;
			}[];
		};
	};
}

/** The report as JSON: plain objects, percentages rounded to 0.01. */
export function reportJson(report: Report) {
	const source = (s: SourceScore | null) =>
		s && {
			booookscore: s.booookscore,
			summaries: s.summaries,
			sentences: s.sentences,
			confusing: s.confusing,
			types: s.types,
		};
	return {
		booookscore: { model: report.model?.booookscore ?? null, human: report.human?.booookscore ?? null },
		model: source(report.model),
		human: source(report.human),
		precision: Object.fromEntries(
			[...report.precision].map(([validator, bySource]) => [
				validator,
				Object.fromEntries([...bySource].map(([src, p]) => [src, precisionJson(p)])),
			]),
		),
		// Validators on an unfinished blind walk: their precision above is `pooled`, not by source.
		blind: Object.fromEntries(report.blind),
		agreement: {
			pairs: report.agreement.pairs.map((p) => ({
				validators: p.validators,
				n: p.n,
				percent: percentNumber(p.percent),
				kappa: Number.isNaN(p.kappa) ? null : p.kappa,
			})),
			alpha: report.agreement.alpha,
			units: report.agreement.units,
		},
		books: Object.fromEntries(
			report.books.map((b) => [
				b.book,
				{
					sentences: b.sentences,
					model: b.model,
					human: b.human,
					judged: b.judged,
					judged_annotations: b.judgedAnnotations,
					judged_faithfulness: b.judgedFaithfulness,
					unreadable: b.unreadable.map((u) => ({ sentence: u.sentence + 1, reason: u.reason })),
				},
			]),
		),
		history: report.history,
		faithfulness: {
			validators: Object.fromEntries(
				report.faithfulness.validators.map((v) => [
					v.validator,
					{
						origin: v.origin,
						sentences: v.sentences && unitScoreJson(v.sentences),
						claims: v.claims && unitScoreJson(v.claims),
						// A model judge's claims (FABLES) by check; null for a person's verdicts.
						checks: v.checks && {
							claims: v.checks.claims,
							...Object.fromEntries(
								Object.entries(v.checks.verdicts).map(([verdict, n]) => [verdict.replace(' ', '_'), n]),
							),
							unsplit: v.checks.unsplit,
						},
					},
				]),
			),
			agreement: agreementJson(report.faithfulness.agreement),
			claim_agreement: agreementJson(report.faithfulness.claimAgreement),
			human_vs_model: report.faithfulness.humanVsModel.map((r) => ({
				model: r.model,
				unit: r.unit,
				n: r.n,
				percent: percentNumber(r.percent),
				kappa: Number.isNaN(r.kappa) ? null : r.kappa,
				model_share: r.modelShare === null ? null : percentNumber(r.modelShare),
				human_share: r.humanShare === null ? null : percentNumber(r.humanShare),
				model_missed: r.modelMissed,
				model_flagged: r.modelFlagged,
			})),
			partial: {
				estimator: report.faithfulness.partial.estimator,
				validators: Object.fromEntries(
					report.faithfulness.partial.validators.map((p) => [
						p.validator,
						{
							fraction: p.fraction,
							estimated_share: p.estimate === null ? null : percentNumber(p.estimate),
							ci: boundsJson(p.interval),
							interval_over: p.over,
							interval: p.interval && intervalJson(p.interval),
							summaries: p.summaries,
							judged: p.judged,
							units: p.units,
						},
					]),
				),
				vs_full: report.faithfulness.partial.vsFull.map((c) => ({
					partial: c.partial,
					full: c.full,
					full_origin: c.fullOrigin,
					summaries: c.summaries,
					kendall_tau_b: c.tau,
					partial_share: percentNumber(c.partialShare),
					full_share: percentNumber(c.fullShare),
					difference: percentNumber(c.difference),
				})),
			},
			sentences: report.faithfulness.units,
			judged: report.faithfulness.judgedUnits,
			coarse_fine: coarseFineJson(report.faithfulness.coarseFine),
		},
	};
}

/** A figure on LongEval's 0–100 scale (rounded to 0.01) with its interval, or null. */
function scaledJson(s: Spread | null) {
	return s && { value: percentNumber(s.estimate), ci: boundsJson(s), interval: intervalJson(s) };
}

/** Coarse ratings beside fine scores (LongEval Table 3), on 0–100: each grain's mean and spread, and every summary's scores. */
function coarseFineJson(cf: Report['faithfulness']['coarseFine']) {
	const grain = (g: Grain) => ({
		mean: scaledJson(g.mean),
		spread: scaledJson(g.spread),
		summaries: g.summaries,
		spread_summaries: g.spreadSummaries,
		annotators: g.annotators,
	});
	const scores = (m: ReadonlyMap<string, number>) =>
		Object.fromEntries([...m].map(([who, x]) => [who, percentNumber(x)]));
	return {
		coarse: grain(cf.coarse),
		fine: grain(cf.fine),
		unfinished: cf.unfinished,
		summaries: cf.rows.map((r) => ({ summary: r.summary, coarse: scores(r.coarse), fine: scores(r.fine) })),
	};
}

/** An outcome as JSON names it: "not found" is `not_found`, "can't tell" `cant_tell`. */
const outcomeKey = (o: Outcome): string => (o === 'unsure' ? 'cant_tell' : o.replace(' ', '_'));

/** A validator's score over one kind of unit: the faithful share of all of them, each outcome's share and count. */
function unitScoreJson(score: UnitScore) {
	return {
		n: score.n,
		summaries: score.summaries,
		faithful_share: percentNumber(score.share),
		ci: boundsJson(score.interval),
		interval_over: score.interval.over?.unit ?? null,
		interval: intervalJson(score.interval),
		shares: Object.fromEntries(score.shown.map((o) => [outcomeKey(o), percentNumber(score.shares[o])])),
		counts: Object.fromEntries(score.shown.map((o) => [outcomeKey(o), score.counts[o]])),
	};
}

function agreementJson(a: Agreement) {
	return {
		pairs: a.pairs.map((p) => ({
			validators: p.validators,
			n: p.n,
			percent: percentNumber(p.percent),
			kappa: Number.isNaN(p.kappa) ? null : p.kappa,
		})),
		alpha: a.alpha,
		units: a.units,
	};
}

type Coverage = Parameters<typeof finalCoverageJson>[0];
type Memory = Parameters<typeof memoryJson>[0];

/** The warning of a run that names a final summary it does not hold (app/report.ts `missingRoot`). */
export function missingRootLine(id: string, missing: { root: string; nodes: string }, json: boolean): string {
	return (
		`warning: session "${id}" names ${missing.root} as its final summary, but its run has no such ` +
		`node (${missing.nodes}): its session.json was edited or damaged; this report leaves the final ` +
		`summary out${json ? ' (coverage: null)' : ''}`
	);
}

/**
 * `report --json` of a session: the report, then for a run's session which parts of the book its final
 * summary draws on (`coverage`: undefined for a collection, null before the run has a final summary),
 * and its memory probes when it was probed.
 */
export function sessionReportJson(report: Report, coverage: Coverage | undefined, memory: Memory | null) {
	return {
		...reportJson(report),
		...(coverage !== undefined ? { coverage: finalCoverageJson(coverage) } : {}),
		...(memory ? { memory: memoryJson(memory) } : {}),
	};
}

/** What `report` prints after the report's lines: a run's coverage of its final summary, and its memory probes. */
export function reportTailLines(
	coverage: Coverage | undefined,
	memory: Memory | null,
	columns: number,
): string[] {
	return [
		...(coverage
			? ['coverage of the final summary', ...coverageLines(coverage, columns - 2).map((l) => `  ${l}`)]
			: []),
		...(memory ? memorySummaryLines(memory) : []),
	];
}
