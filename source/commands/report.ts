import { buildReport, typeBars, type Report, type SourceScore } from '../score/report.ts';
import { Session } from '../store/session.ts';
import { sanitize } from '../text/sanitize.ts';

const pct = (x: number) => Math.round(x * 10_000) / 100;
const fixed = (x: number | null, digits = 1) => (x === null ? '—' : x.toFixed(digits));

/** The report as JSON: plain objects, percentages rounded to 0.01. */
export function reportJson(report: Report) {
	const source = (s: SourceScore | null) => s && { booookscore: s.booookscore, summaries: s.summaries, sentences: s.sentences, confusing: s.confusing, types: s.types };
	return {
		booookscore: { model: report.model?.booookscore ?? null, human: report.human?.booookscore ?? null },
		model: source(report.model),
		human: source(report.human),
		precision: Object.fromEntries(
			[...report.precision].map(([validator, bySource]) => [
				validator,
				Object.fromEntries(
					[...bySource].map(([src, p]) => [
						src,
						{ precision: pct(p.precision), strict: pct(p.strict), n: p.judged, agree: p.agree, partial: p.partial, disagree: p.disagree, books: p.books, ci: [pct(p.precisionInterval.low), pct(p.precisionInterval.high)], strict_ci: [pct(p.strictInterval.low), pct(p.strictInterval.high)] },
					]),
				),
			]),
		),
		agreement: {
			pairs: report.agreement.pairs.map((p) => ({ validators: p.validators, n: p.n, percent: pct(p.percent), kappa: Number.isNaN(p.kappa) ? null : p.kappa })),
			alpha: report.agreement.alpha,
			units: report.agreement.units,
		},
		books: Object.fromEntries(report.books.map((b) => [b.book, { sentences: b.sentences, model: b.model, human: b.human, judged: b.judged }])),
	};
}

/** The report as the terminal shows it: tables and bars, every string from the data cleaned. */
export function reportLines(title: string, report: Report, width = 80): string[] {
	const out: string[] = [`${sanitize(title)}`];
	const score = (name: string, s: SourceScore | null) => s && `  ${name.padEnd(6)} ${fixed(s.booookscore)}  (${s.summaries} summaries, ${s.sentences} sentences, ${s.confusing} confusing)`;
	out.push('BooookScore', ...[score('model', report.model), score('human', report.human)].filter((l): l is string => l !== null));
	if (!report.model && !report.human) out.push('  no annotations yet: booook score ID annotates with a model; booook validate ID lets you add your own');
	if (report.precision.size === 0) out.push('precision: no verdicts yet (booook validate ID)');
	for (const [validator, bySource] of report.precision) {
		out.push(`precision, judged by ${sanitize(validator)}`);
		for (const [src, p] of bySource) {
			out.push(`  ${src.padEnd(6)} ${fixed(100 * p.precision)}% [${fixed(100 * p.precisionInterval.low)}, ${fixed(100 * p.precisionInterval.high)}]  strict ${fixed(100 * p.strict)}% [${fixed(100 * p.strictInterval.low)}, ${fixed(100 * p.strictInterval.high)}]  n=${p.judged} in ${p.books} books (${p.agree} agree, ${p.partial} partially, ${p.disagree} disagree)`);
		}
	}
	if (report.agreement.pairs.length > 0) {
		out.push('agreement between validators');
		for (const p of report.agreement.pairs) {
			out.push(`  ${sanitize(p.validators[0])} vs ${sanitize(p.validators[1])}: ${fixed(100 * p.percent)}% on ${p.n} items, Cohen's κ ${Number.isNaN(p.kappa) ? '—' : p.kappa.toFixed(3)}`);
		}
		if (report.agreement.alpha !== null) out.push(`  Krippendorff's α ${report.agreement.alpha.toFixed(3)} over ${report.agreement.units} items`);
	}
	if (report.model || report.human) {
		out.push('error types per 100 sentences');
		out.push(...typeBars({ model: report.model?.types ?? null, human: report.human?.types ?? null }, Math.max(10, width - 36)).map((l) => `  ${l}`));
	}
	out.push('per book', `  ${'book'.padEnd(40)} ${'sent.'.padStart(5)} ${'model'.padStart(6)} ${'human'.padStart(6)} ${'judged'.padStart(6)}`);
	for (const b of report.books) {
		out.push(`  ${sanitize(b.book).slice(0, 40).padEnd(40)} ${String(b.sentences).padStart(5)} ${fixed(b.model?.score ?? null).padStart(6)} ${fixed(b.human?.score ?? null).padStart(6)} ${String(b.judged).padStart(6)}`);
	}
	return out;
}

/** `booook report ID`: BooookScore by source, precision per validator, agreement, types, per book. */
export async function reportCommand(dir: string, id: string, opts: { json: boolean; seed: number; resamples: number }): Promise<number> {
	const { data } = await Session.snapshot(dir, id);
	const report = buildReport(data, { seed: opts.seed, resamples: opts.resamples });
	if (opts.json) {
		process.stdout.write(`${JSON.stringify(reportJson(report))}\n`);
		return 0;
	}
	const title = data.kind === 'book' ? data.book.title : data.title;
	process.stdout.write(`${reportLines(`${title} — session ${id}`, report, process.stdout.columns || 80).join('\n')}\n`);
	return 0;
}
