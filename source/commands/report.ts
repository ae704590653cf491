import { resolveSessionsDir, sessionsDirArg } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { badInput } from '../errors.ts';
import { isSessionFolder, isStudyFile, sessionReport } from '../app/report.ts';
import { comparisonNameOf } from '../store/comparison.ts';
import { reportLines, type Report, type SourceScore } from '../score/report.ts';
import { output, terminalColumns, type Stream } from './output.ts';
import { sessionsDirOption, withBootstrapOptions, type Exit } from './flags.ts';
import { coverageLines, finalCoverageJson } from './coverage-json.ts';
import { memoryJson, memorySummaryLines } from './memory-results.ts';
import { commandLine } from '../program.ts';
import { percentNumber } from '../format/percent.ts';
import { boundsJson, intervalJson } from '../format/interval.ts';
import { precisionJson } from '../score/precision.ts';
import type { FaithfulnessAgreement } from '../score/faithfulness.ts';
import type { Outcome, UnitScore } from '../score/faithfulness-count.ts';
import type { CoarseFine, GrainFigures } from '../score/faithfulness-coarse.ts';
import type { Spread } from '../score/interval.ts';

export const spec = (exit: Exit, program: string) =>
	withBootstrapOptions(
		new Command('report')
			.description(
				'results of a session: BooookScore from model and human annotations, the answers that could ' +
					'not be read, precision per validator with intervals over books, agreement, error types, faithfulness ' +
					"per sentence, per book (judged: verdicts on annotations and on faithfulness), and for a run's " +
					'session the coverage of its final summary and its memory probes',
			)
			.argument(
				'<id>',
				`session id (see: ${commandLine(program, 'sessions')}), or a study file: its results table as booook study prints it, without running anything`,
			)
			.addOption(sessionsDirOption()),
	)
		.option(
			'--json',
			'print { booookscore: { model, human }, precision: { validator: { human, model } }, agreement, ' +
				'books: { book: { sentences, model, human, judged, judged_annotations, judged_faithfulness, ' +
				"unreadable: [{ sentence, reason }] } }, faithfulness, ..., coverage (a run's sessions: see " +
				'booook coverage --json), memory (when probed: see booook memory --json) }; for a study file, ' +
				'what booook study --json prints',
		)
		.option('--csv', 'for a study file: its results table as CSV, as booook study --csv prints it')
		.action(async (id, flags) => {
			exit(
				await reportCommand(resolveSessionsDir(flags.sessionsDir), id, {
					json: !!flags.json,
					csv: !!flags.csv,
					seed: flags.seed,
					resamples: flags.resamples,
					program,
				}),
			);
		});

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
function coarseFineJson(cf: CoarseFine) {
	const grain = (g: GrainFigures) => ({
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

function agreementJson(a: FaithfulnessAgreement) {
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

/** `booook report ID`: BooookScore by source, precision per validator, agreement, types, per book. */
export async function reportCommand(
	dir: string,
	id: string,
	opts: {
		json: boolean;
		csv?: boolean;
		seed: number;
		resamples: number;
		/** How booook was started, for the command lines the report suggests. */
		program: string;
		stdout?: Stream;
		stderr?: Stream;
	},
): Promise<number> {
	const stdout = opts.stdout ?? process.stdout;
	if (await isStudyFile(dir, id)) {
		// Loaded only for a study file: it brings the study runner, the batcher and their packages.
		const { studyReport } = await import('./study-results.ts');
		return studyReport(id, { sessionsDir: dir, ...opts, csv: !!opts.csv });
	}
	if (comparisonNameOf(id) !== null && !(await isSessionFolder(dir, id))) {
		// A comparison's folder (NAME.compare): its results as `compare --results` prints them.
		const { printComparison } = await import('./compare-results.ts');
		return printComparison(dir, comparisonNameOf(id)!, { ...opts, stdout });
	}
	if (opts.csv)
		throw badInput(
			`--csv is for a study file's results table (${commandLine(opts.program, 'report STUDY.json --csv')}); for session ${id}, use --json`,
		);
	const out = output(stdout);
	const { data, report, missing, finalCoverage, memory } = await sessionReport(dir, id, opts);
	if (missing) {
		output(opts.stderr ?? process.stderr).line(
			`warning: session "${id}" names ${missing.root} as its final summary, but its run has no such ` +
				`node (${missing.nodes}): its session.json was edited or damaged; this report leaves the final ` +
				`summary out${opts.json ? ' (coverage: null)' : ''}`,
		);
	}
	if (opts.json) {
		// A run's session: which parts of the book its final summary draws on (null before it has one).
		const coverage = finalCoverage ? { coverage: finalCoverageJson(finalCoverage()) } : {};
		out.json({ ...reportJson(report), ...coverage, ...(memory ? { memory: memoryJson(memory) } : {}) });
		return 0;
	}
	const title = data.kind === 'book' ? data.book.title : data.title;
	const columns = terminalColumns(stdout) ?? 80;
	const lines = reportLines(`${title} — session ${id}`, report, columns, (verb) =>
		commandLine(opts.program, `${verb} ${id}${sessionsDirArg(dir)}`),
	);
	const coverage = finalCoverage?.();
	if (coverage)
		lines.push('coverage of the final summary', ...coverageLines(coverage, columns - 2).map((l) => `  ${l}`));
	if (memory) lines.push(...memorySummaryLines(memory));
	out.line(lines.join('\n'));
	return 0;
}
