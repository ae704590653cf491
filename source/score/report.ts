import type {
	Annotation,
	FaithfulnessRating,
	FaithfulnessVerdict,
	Judgment,
	Run,
	ScoredSummary,
	Walk,
} from '../domain.ts';
import {
	faithfulnessLines,
	faithfulnessReport,
	faithfulnessVerdictsOf,
	type FaithfulnessReport,
} from './faithfulness.ts';
import { blindWalksUnderWay, currentJudgments, verdictsOf } from './validation.ts';
import { cohenKappa, krippendorffAlpha, percentAgreement } from './agreement.ts';
import { seededRandom } from './bootstrap.ts';
import { LABELS, type Label } from './labels.ts';
import { precisionBySource, type Precision } from './precision.ts';
import {
	currentSummaries,
	historySummaries,
	planSummary,
	scoreSession,
	sessionAnnotator,
} from './session-score.ts';
import { sessionJudgedItems, validatorsOf } from './session-precision.ts';
import { sanitize } from '../text/sanitize.ts';
import { percent, percentInterval } from '../format/percent.ts';
import { intervalNote } from '../format/interval.ts';
import { counted } from '../format/count.ts';
import { coefficient, fixed, scoreText } from '../format/number.ts';

/**
 * Everything the results screen and `booook report` show for one session (issue: validation
 * results): BooookScore from model and from human annotations side by side, their error-type
 * distributions, precision per validator and source with intervals over books, agreement between
 * validators, and a per-book table. Pure: the session's parts in, numbers out.
 */

export interface ReportInput {
	summaries: readonly ScoredSummary[];
	/** A run's graph: only the summary of its final summary as it stands is scored. */
	run?: Pick<Run, 'root' | 'nodes'>;
	annotations: readonly Annotation[];
	judgments: readonly Judgment[];
	/** The validation walks begun: a validator's unfinished blind walk keeps their precision pooled. */
	walks?: readonly Walk[];
	/** Faithfulness verdicts on summary sentences (absent in sessions from before them). */
	faithfulness?: readonly FaithfulnessVerdict[];
	/** Coarse 1–5 ratings of whole summaries (absent in sessions from before them). */
	faithfulnessRatings?: readonly FaithfulnessRating[];
}

export interface ReportOptions {
	seed: number;
	resamples: number;
}

export interface SourceScore {
	/** Mean over summaries, percent; null when nothing could be scored. */
	booookscore: number | null;
	summaries: number;
	sentences: number;
	confusing: number;
	/** Units per 100 sentences, per error type (the paper's Figure 3). */
	types: Record<Label, number>;
}

export interface PairAgreement {
	validators: [string, string];
	/** Annotations both judged. */
	n: number;
	percent: number;
	kappa: number;
}

export interface BookRow {
	book: string;
	summary: ScoredSummary['id'];
	sentences: number;
	model: { confusing: number; score: number | null } | null;
	human: { confusing: number; score: number | null } | null;
	/**
	 * Verdicts on this summary, all validators: on its annotations and on its sentences' faithfulness;
	 * each validator's latest on each item (a note or a changed mind is not another verdict).
	 */
	judged: number;
	/** Of those, the verdicts on its annotations and the faithfulness verdicts. */
	judgedAnnotations: number;
	judgedFaithfulness: number;
	/** Sentences whose answer could not be read after every retry (left out of its score), counted from 0. */
	unreadable: { sentence: number; reason: string }[];
}

export interface Report {
	model: SourceScore | null;
	human: SourceScore | null;
	/**
	 * Per validator, per annotation source; for a validator on an unfinished blind walk, one entry
	 * `pooled` over both sources instead (see `blind`).
	 */
	precision: Map<string, Map<string, Precision>>;
	/** The validators whose blind walk is under way, with how much of it they have judged. */
	blind: Map<string, { judged: number; total: number }>;
	agreement: { pairs: PairAgreement[]; alpha: number | null; units: number };
	books: BookRow[];
	/** Summaries pinned for earlier final summaries of a run (before an edit or re-run): not scored. */
	history: number;
	/** Faithfulness per sentence (LongEval) on the summaries reported, by validator, with agreement. */
	faithfulness: FaithfulnessReport;
}

export function buildReport(input: ReportInput, opts: ReportOptions): Report {
	const { annotations, judgments } = input;
	const summaries = currentSummaries(input.summaries, input.run);
	const fallback = sessionAnnotator(annotations, '');
	const plans = summaries.map((s) => planSummary(s, annotations, { requested: null, fallback }));
	const scored = scoreSession(summaries, annotations, plans);
	const hasModel = annotations.some((a) => a.source === 'model');
	const source = (system: typeof scored.system): SourceScore => ({
		booookscore: system.score,
		summaries: system.scored,
		sentences: system.sentences,
		confusing: system.confusing,
		types: system.distribution,
	});
	const precision = new Map<string, Map<string, Precision>>();
	const blind = blindWalksUnderWay(input);
	for (const validator of validatorsOf(input)) {
		const items = sessionJudgedItems(input, validator);
		// Precision by source would tell a blind validator which of their verdicts were on whose annotations.
		const shown = blind.has(validator) ? items.map((i) => ({ ...i, source: 'pooled' })) : items;
		precision.set(
			validator,
			precisionBySource(shown, { random: seededRandom(opts.seed), resamples: opts.resamples }),
		);
	}
	const judgedBy = new Map<ScoredSummary['id'], number>();
	const summaryOf = new Map(annotations.map((a) => [a.id, a.summary]));
	for (const j of currentJudgments(judgments)) {
		const s = summaryOf.get(j.annotation);
		if (s) judgedBy.set(s, (judgedBy.get(s) ?? 0) + 1);
	}
	const faithfulBy = new Map<ScoredSummary['id'], number>();
	const faithfulness = input.faithfulness ?? [];
	for (const validator of new Set(faithfulness.map((v) => v.validator)))
		for (const v of faithfulnessVerdictsOf(faithfulness, validator).values())
			faithfulBy.set(v.summary, (faithfulBy.get(v.summary) ?? 0) + 1);
	const books: BookRow[] = scored.entries.map((e) => {
		const human = scored.human?.perBook.get(e.book);
		const judgedAnnotations = judgedBy.get(e.summary.id) ?? 0;
		const judgedFaithfulness = faithfulBy.get(e.summary.id) ?? 0;
		return {
			book: e.book,
			summary: e.summary.id,
			sentences: e.score.sentences + e.score.failures + e.missing,
			model: hasModel
				? { confusing: e.score.confusing, score: e.score.score === null ? null : 100 * e.score.score }
				: null,
			human: human
				? { confusing: human.confusing, score: human.score === null ? null : 100 * human.score }
				: null,
			judged: judgedAnnotations + judgedFaithfulness,
			judgedAnnotations,
			judgedFaithfulness,
			unreadable: e.failures,
		};
	});
	return {
		model: hasModel ? source(scored.system) : null,
		human: scored.human ? source(scored.human) : null,
		precision,
		blind,
		agreement: agreementOf(judgments),
		books,
		history: historySummaries(input.summaries, input.run).length,
		faithfulness: faithfulnessReport(
			summaries,
			input.faithfulness ?? [],
			opts,
			input.walks ?? [],
			input.faithfulnessRatings ?? [],
		),
	};
}

/** Agreement on the annotations several validators judged: pairwise %, κ, and α over all. */
export function agreementOf(judgments: readonly Judgment[]): Report['agreement'] {
	const validators = [...new Set(judgments.map((j) => j.validator))];
	const latest = new Map(
		validators.map((v) => [
			v,
			new Map([...verdictsOf(judgments, v)].map(([id, j]) => [id, j.verdict] as const)),
		]),
	);
	const pairs: PairAgreement[] = [];
	for (let i = 0; i < validators.length; i++) {
		for (let k = i + 1; k < validators.length; k++) {
			const a = latest.get(validators[i]!)!;
			const b = latest.get(validators[k]!)!;
			const shared = [...a.keys()].filter((id) => b.has(id));
			if (shared.length === 0) continue;
			const va = shared.map((id) => a.get(id)!);
			const vb = shared.map((id) => b.get(id)!);
			pairs.push({
				validators: [validators[i]!, validators[k]!],
				n: shared.length,
				percent: percentAgreement(va, vb),
				kappa: cohenKappa(va, vb),
			});
		}
	}
	const ids = [...new Set(judgments.map((j) => j.annotation))];
	const units = ids.map((id) => validators.map((v) => latest.get(v)!.get(id) ?? null));
	const pairable = units.filter((u) => u.filter((v) => v !== null).length >= 2).length;
	const alpha = validators.length >= 2 && pairable > 0 ? krippendorffAlpha(units) : null;
	return { pairs, alpha: alpha === null || Number.isNaN(alpha) ? null : alpha, units: pairable };
}

/** Horizontal bars, one per error type, scaled to the largest value across both sources. */
export function typeBars(sources: Record<string, Record<Label, number> | null>, width: number): string[] {
	const values = Object.values(sources).flatMap((t) => (t ? LABELS.map((l) => t[l]) : []));
	const max = Math.max(1e-9, ...values);
	const lines: string[] = [];
	for (const label of LABELS) {
		for (const [name, types] of Object.entries(sources)) {
			if (!types) continue;
			const v = types[label];
			const bar = '█'.repeat(Math.round((v / max) * width));
			lines.push(`${label.padEnd(16)} ${name.padEnd(5)} ${bar}${bar ? ' ' : ''}${fixed(v, 2)}`);
		}
	}
	return lines;
}

/**
 * The command line the report suggests to run `verb` on its session, as its reader types it (the
 * caller knows how booook was started, and the session's id and folder when it has them).
 */
export type CommandFor = (verb: 'score' | 'validate') => string;

/**
 * The report as the terminal shows it: tables and bars, every string from the data cleaned.
 * `command` says the commands it suggests.
 */
export function reportLines(title: string, report: Report, width: number, command: CommandFor): string[] {
	const out: string[] = [`${sanitize(title)}`];
	const score = (name: string, s: SourceScore | null) =>
		s &&
		`  ${name.padEnd(6)} ${scoreText(s.booookscore)}  (${counted(s.summaries, 'summary', 'summaries')}, ` +
			`${counted(s.sentences, 'sentence')}, ${s.confusing} confusing)`;
	out.push(
		'BooookScore',
		...[score('model', report.model), score('human', report.human)].filter((l): l is string => l !== null),
	);
	if (report.history > 0)
		out.push(
			`  (${counted(report.history, 'earlier final summary', 'earlier final summaries')}, from before an edit or re-run, kept as history and not scored)`,
		);
	if (!report.model && !report.human)
		out.push(
			`  no annotations yet: ${command('score')} annotates with a model; ${command('validate')} lets you add your own`,
		);
	if (report.precision.size === 0) out.push(`precision: no verdicts yet (${command('validate')})`);
	for (const [validator, bySource] of report.precision) {
		const walk = report.blind.get(validator);
		out.push(
			`precision, judged by ${sanitize(validator)}${walk ? ` (blind walk, ${walk.judged}/${walk.total} judged: both sources pooled until it is done)` : ''}`,
		);
		for (const [src, p] of bySource) {
			out.push(
				`  ${src.padEnd(6)} ${percentInterval(p.precision, p.precisionInterval)}  strict ${percentInterval(p.strict, p.strictInterval)} ` +
					` n=${p.judged} in ${counted(p.books, 'book')} (${p.agree} agree, ${p.partial} partially, ${p.disagree} ` +
					`disagree; ${intervalNote(p.precisionInterval)})`,
			);
		}
	}
	if (report.agreement.pairs.length > 0) {
		out.push('agreement between validators');
		for (const p of report.agreement.pairs) {
			out.push(
				`  ${sanitize(p.validators[0])} vs ${sanitize(p.validators[1])}: ${percent(p.percent)} on ${counted(p.n, 'item')}, Cohen's κ ${coefficient(p.kappa)}`,
			);
		}
		if (report.agreement.alpha !== null)
			out.push(
				`  Krippendorff's α ${fixed(report.agreement.alpha, 3)} over ${counted(report.agreement.units, 'item')}`,
			);
	}
	if (report.model || report.human) {
		out.push('error types per 100 sentences');
		out.push(
			...typeBars(
				{ model: report.model?.types ?? null, human: report.human?.types ?? null },
				Math.max(10, width - 36),
			).map((l) => `  ${l}`),
		);
	}
	out.push(...unreadableLines(report.books, command));
	out.push(...faithfulnessLines(report.faithfulness, sanitize));
	// A run's session before its summary is scored has no book rows: no table of headers alone.
	if (report.books.length === 0) return out;
	out.push(
		'per book',
		`  ${'book'.padEnd(40)} ${'sent.'.padStart(5)} ${'model'.padStart(6)} ${'human'.padStart(6)} ` +
			`${'judged'.padStart(6)}  (judged: verdicts on annotations and on faithfulness)`,
	);
	for (const b of report.books) {
		out.push(
			`  ${sanitize(b.book).slice(0, 40).padEnd(40)} ${String(b.sentences).padStart(5)} ${scoreText(b.model?.score).padStart(6)} ` +
				`${scoreText(b.human?.score).padStart(6)} ${String(b.judged).padStart(6)}`,
		);
	}
	return out;
}

/** Unreadable answers named one a line before the rest are counted. */
const UNREADABLE_SHOWN = 10;

/** The sentences whose answers could not be read (left out of the score), the first few named with why. */
function unreadableLines(books: readonly BookRow[], command: CommandFor): string[] {
	const all = books.flatMap((b) => b.unreadable.map((u) => ({ book: b.book, ...u })));
	if (all.length === 0) return [];
	return [
		`unreadable answers: ${counted(all.length, 'sentence')} left out of the score (${command('score')} asks again)`,
		...all
			.slice(0, UNREADABLE_SHOWN)
			.map(
				(u) =>
					`  ${sanitize(u.book).slice(0, 40)}, sentence ${u.sentence + 1}: ${sanitize(u.reason).slice(0, 120)}`,
			),
		...(all.length > UNREADABLE_SHOWN
			? [`  and ${all.length - UNREADABLE_SHOWN} more (report --json lists them all)`]
			: []),
	];
}
