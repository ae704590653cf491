import { resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { badInput } from '../errors.ts';
import { reportTarget, sessionReport } from '../app/report.ts';
import { output, terminalColumns, type Stream } from './output.ts';
import { sessionsDirOption, withBootstrapOptions, type Exit } from './flags.ts';
import { commandLine } from '../program.ts';
import { missingRootLine, reportTailLines, sessionReportJson } from '../format/report.ts';

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
	const target = await reportTarget(dir, id);
	if (target.kind === 'study') {
		// Loaded only for a study file: it brings the study runner, the batcher and their packages.
		const { studyReport } = await import('./study-results.ts');
		return studyReport(id, { sessionsDir: dir, ...opts, csv: !!opts.csv });
	}
	if (target.kind === 'comparison') {
		// A comparison's folder (NAME.compare): its results as `compare --results` prints them.
		const { printComparison } = await import('./compare-results.ts');
		return printComparison(dir, target.name, { ...opts, stdout });
	}
	if (opts.csv)
		throw badInput(
			`--csv is for a study file's results table (${commandLine(opts.program, 'report STUDY.json --csv')}); for session ${id}, use --json`,
		);
	const out = output(stdout);
	const { report, lines: reportLines, missing, finalCoverage, memory } = await sessionReport(dir, id, opts);
	if (missing) output(opts.stderr ?? process.stderr).line(missingRootLine(id, missing, opts.json));
	const coverage = finalCoverage?.();
	if (opts.json) out.json(sessionReportJson(report, coverage, memory));
	else {
		const columns = terminalColumns(stdout) ?? 80;
		const lines = reportLines(columns, (args) => commandLine(opts.program, args));
		out.line([...lines, ...reportTailLines(coverage, memory, columns)].join('\n'));
	}
	return 0;
}
