import type { Annotation, Judgment, ScoredSummary, Walk } from '../../../domain.ts';
import type { Precision } from '../../../score/precision.ts';
import { buildReport, reportLines, type Report } from '../../../score/report.ts';
import { pooledPrecision } from '../../../score/validation.ts';
import { percentInterval } from '../../../format/percent.ts';
import { intervalNote } from '../../../format/interval.ts';
import { counted } from '../../../format/count.ts';
import { commandLine } from '../../../program.ts';

/**
 * What the walk's results view shows, computed once when it opens (the bootstrap is hundreds of
 * resamples): the session's report, or, while a blind walk is unfinished, only the validator's
 * precision so far with both sources pooled, which tells nothing of any one item's source.
 */
export type WalkResults =
	| { kind: 'report'; report: Report }
	| { kind: 'sealed'; judged: number; total: number; pooled: Precision | null };

export interface ResultsInput {
	session: {
		summaries: readonly ScoredSummary[];
		annotations: readonly Annotation[];
		judgments: readonly Judgment[];
		walks?: readonly Walk[];
	};
	items: readonly Annotation[];
	validator: string;
	seed: number;
	/** The walk is blind and not every item has a verdict yet. */
	sealed: boolean;
}

export const RESAMPLES = 500;

export function walkResults({ session, items, validator, seed, sealed }: ResultsInput): WalkResults {
	if (!sealed) return { kind: 'report', report: buildReport(session, { seed, resamples: RESAMPLES }) };
	const pooled = pooledPrecision(items, session.judgments, validator, { seed, resamples: RESAMPLES });
	return { kind: 'sealed', judged: pooled?.judged ?? 0, total: items.length, pooled };
}

/** The pooled estimate in a few words: "83.3% [70.1, 92.0] of 12 hold up". */
function pooledText(p: Precision): string {
	return `${percentInterval(p.precision, p.precisionInterval)} of ${p.judged} hold up`;
}

/** The results as lines; `program`: how booook was started, for the commands the report suggests. */
export function resultsLines(title: string, results: WalkResults, width: number, program: string): string[] {
	if (results.kind === 'report')
		return reportLines(title, results.report, width, (verb) => commandLine(program, `${verb} ID`));
	const lines = [
		title,
		'Results by source are shown when every item of the blind walk is judged (before that they would reveal the sources).',
		`judged ${results.judged} of ${results.total}`,
	];
	if (results.pooled) {
		const p = results.pooled;
		lines.push(
			`so far, both sources pooled: ${pooledText(p)} (agree or partially)`,
			`  strict (agree only) ${percentInterval(p.strict, p.strictInterval)}; ${p.agree} agree, ${p.partial} ` +
				`partially, ${p.disagree} disagree, over ${counted(p.books, 'summary', 'summaries')} (${intervalNote(p.precisionInterval)})`,
		);
	}
	return lines;
}
