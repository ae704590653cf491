import { comparisonResults, studyComparisons } from '../app/compare.ts';
import { compareJson, compareLines } from '../format/compare.ts';
import { output, type Stream } from './output.ts';

/** The results of comparison `name`, as text or JSON (also `booook report NAME.compare`). */
export async function printComparison(
	dir: string,
	name: string,
	opts: { json: boolean; seed: number; resamples: number; stdout?: Stream },
): Promise<number> {
	const found = await comparisonResults(dir, name, opts);
	const out = output(opts.stdout ?? process.stdout);
	if (opts.json) out.json(compareJson(found));
	else out.line(compareLines(found).join('\n'));
	return 0;
}

/** The comparisons made over a study's cells, as lines and as JSON, for the study's report. */
export async function studyComparisonResults(
	dir: string,
	study: string,
	opts: { seed: number; resamples: number },
): Promise<{ lines: string[]; json: unknown[] }> {
	const lines: string[] = [];
	const json: unknown[] = [];
	for (const name of await studyComparisons(dir, study)) {
		const found = await comparisonResults(dir, name, opts);
		lines.push(...compareLines(found));
		json.push(compareJson(found));
	}
	return { lines, json };
}
