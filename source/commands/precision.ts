import { badInput } from '../errors.ts';
import { seededRandom } from '../score/bootstrap.ts';
import { convertPrecisionStudy } from '../score/formats.ts';
import { judgedItems, precisionBySource } from '../score/precision.ts';
import { readDataFile } from './data-files.ts';

const pct = (x: number) => Math.round(x * 10_000) / 100;

/**
 * `booook precision --validation F`: per annotation source, precision (Agree + Partially agree over
 * judged), strict precision (Agree only), counts, and 95% bootstrap intervals over books.
 */
export async function precisionCommand(opts: { validation?: string; json: boolean; seed: number; resamples: number }): Promise<number> {
	if (!opts.validation) throw badInput('nothing to judge; give the validation file with --validation FILE (the authors\' annotations-gpt4-4096-inc.json format)');
	const study = await readDataFile(opts.validation, convertPrecisionStudy, '--validation');
	const bySource = precisionBySource(judgedItems(study), { random: seededRandom(opts.seed), resamples: opts.resamples });
	const result = Object.fromEntries(
		[...bySource].map(([source, p]) => [
			source,
			{
				precision: pct(p.precision),
				strict: pct(p.strict),
				n: p.judged,
				agree: p.agree,
				partial: p.partial,
				disagree: p.disagree,
				books: p.books,
				ci: [pct(p.precisionInterval.low), pct(p.precisionInterval.high)],
				strict_ci: [pct(p.strictInterval.low), pct(p.strictInterval.high)],
			},
		]),
	);
	if (opts.json) {
		process.stdout.write(`${JSON.stringify(result)}\n`);
		return 0;
	}
	for (const [source, r] of Object.entries(result)) {
		process.stdout.write(`${source.padEnd(6)} precision ${r.precision.toFixed(1)}% [${r.ci[0]!.toFixed(1)}, ${r.ci[1]!.toFixed(1)}], strict ${r.strict.toFixed(1)}% [${r.strict_ci[0]!.toFixed(1)}, ${r.strict_ci[1]!.toFixed(1)}]; ${r.n} judged in ${r.books} books (${r.agree} agree, ${r.partial} partially, ${r.disagree} disagree)\n`);
	}
	return 0;
}
