import { outcomes, studyResults } from '../app/study.ts';
import { planStudyPriced, type StudyPlan } from '../app/study-plan.ts';
import type { CellOutcome } from '../study/results.ts';
import { fitTable } from '../format/study-table.ts';
import { alignTable, csv } from '../format/table.ts';
import { studyJson } from '../format/study-table.ts';
import { output, safeText, terminalColumns, type Stream } from './output.ts';
import { studyComparisonResults } from './compare-results.ts';

/** A study's results printed: by `booook study` at its end, and by `booook report STUDY-FILE`. */

/**
 * `booook report STUDY-FILE`: the results `booook study` prints at its end, from the sessions as
 * they stand, without creating, resuming or scoring anything.
 */
export async function studyReport(
	file: string,
	opts: {
		sessionsDir: string;
		json: boolean;
		csv: boolean;
		seed: number;
		resamples: number;
		env?: NodeJS.ProcessEnv;
		stdout?: Stream;
	},
): Promise<number> {
	const plan = await planStudyPriced(file, opts.env);
	const stream = opts.stdout ?? process.stdout;
	// Blind comparisons made over the study's cells (booook compare STUDY-FILE): their Table 4 after the study's.
	const compared = opts.csv ? null : await studyComparisonResults(opts.sessionsDir, plan.spec.name, opts);
	printResults(
		plan,
		await outcomes(plan, opts.sessionsDir),
		{
			json: opts.json,
			csv: opts.csv,
			seed: opts.seed,
			resamples: opts.resamples,
			comparisons: compared?.json,
		},
		output(stream),
		tableFor(stream),
	);
	if (compared && !opts.json && compared.lines.length > 0)
		output(stream).line(['', ...compared.lines].join('\n'));
	return 0;
}

/**
 * How a table is printed on `stream`: laid out for the terminal's width when it is one (columns
 * shared by every row said once above, then fewer columns), whole when piped.
 */
export function tableFor(stream: Stream): (table: string[][]) => string {
	const columns = terminalColumns(stream);
	return (table) => (columns ? fitTable(table, columns).join('\n') : alignTable(table));
}

export function printResults(
	plan: StudyPlan,
	found: Map<string, CellOutcome>,
	opts: { json: boolean; csv: boolean; seed?: number; resamples?: number; comparisons?: unknown[] },
	stdout: ReturnType<typeof output>,
	layout: (table: string[][]) => string,
): void {
	const results = studyResults(plan, found, { seed: opts.seed, resamples: opts.resamples });
	const { table, notes, errorTypes, csv: values } = results;
	if (opts.json) {
		stdout.json(studyJson(plan, found, results, opts.comparisons ?? []), 2);
	} else if (opts.csv) {
		stdout.text(safeText(csv(values), '\r\n'), '\r\n');
	} else {
		// Scored studies: the error types in a table of their own under the results.
		const types = errorTypes ? ['', layout(errorTypes.table), errorTypes.key] : [];
		stdout.line([layout(table), ...notes, ...types].join('\n'));
	}
}
