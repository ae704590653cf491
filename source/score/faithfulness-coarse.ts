import { mean, standardDeviation } from 'simple-statistics';
import type { FaithfulnessRating, FaithfulnessVerdict } from '../domain.ts';
import { RATING_MAX, RATING_MIN } from '../domain.ts';
import { seededRandom } from './bootstrap.ts';
import { intervals, type Spread } from './interval.ts';
import { bounds, intervalNote } from '../format/interval.ts';
import { points } from '../format/percent.ts';
import { counted } from '../format/count.ts';
import { DASH } from '../format/missing.ts';

/**
 * LongEval's coarse against fine (its §3.1 and Table 3): the same summaries scored by each
 * annotator once as a whole (a 1–5 rating) and once unit by unit (the faithful share of its
 * sentences), both on one 0–100 scale; how much annotators differ on a summary is the standard
 * deviation of their scores (numpy's, over the annotators present: no n − 1), and a grain's
 * spread is its mean over the summaries two or more annotators scored. LongEval found the fine
 * spread far smaller (6.8 against 18.5 on SQuALITY). Pure: ratings and verdicts in, figures out.
 * Figures are fractions of the scale (0 to 1), shown in points.
 */

/**
 * A rating on the fine scale: the scale's ends onto 0 and 1, evenly between. LongEval's 0–5
 * ratings were multiplied by 20 (0 → 0, 5 → 100); a 1–5 rating multiplied so would start at 20
 * and squeeze the coarse spread by a fifth against the fine one.
 */
export function ratingOnScale(rating: number): number {
	return (rating - RATING_MIN) / (RATING_MAX - RATING_MIN);
}

/** One grain's figures over the summaries reported. */
export interface GrainFigures {
	/** The mean over summaries of each one's mean over its annotators; null with no score. */
	mean: Spread | null;
	/** The mean over summaries scored by two or more of the standard deviation across them; null with none. */
	spread: Spread | null;
	/** Summaries with a score, and those with two or more (the spread's). */
	summaries: number;
	spreadSummaries: number;
	/** People who gave a score. */
	annotators: number;
}

/** One summary's scores, by annotator, on the 0–1 scale. */
export interface CoarseFineRow {
	summary: string;
	coarse: ReadonlyMap<string, number>;
	fine: ReadonlyMap<string, number>;
}

export interface CoarseFine {
	coarse: GrainFigures;
	fine: GrainFigures;
	/** Summaries in reading order, those with a score of either grain. */
	rows: CoarseFineRow[];
	/** People's fine annotations of a summary left out because they judged only some of its sentences. */
	unfinished: number;
}

/**
 * The coarse and fine figures of `summaries`, from the people's ratings and their verdicts on whole
 * sentences. A person's fine score of a summary counts once they have judged every sentence of it
 * (Table 3 is over full annotations); their latest verdict on each sentence and latest rating of
 * each summary count. Claims are left out: a person judges those only where a model split them.
 */
export function coarseFine(
	summaries: readonly string[],
	sentences: ReadonlyMap<string, number>,
	verdicts: readonly FaithfulnessVerdict[],
	ratings: readonly FaithfulnessRating[],
	opts: { seed: number; resamples: number },
): CoarseFine {
	const reported = new Set<string>(summaries);
	const coarse = new Map<string, Map<string, number>>();
	for (const r of ratings) {
		if (!reported.has(r.summary)) continue;
		if (!coarse.has(r.summary)) coarse.set(r.summary, new Map());
		coarse.get(r.summary)!.set(r.validator, ratingOnScale(r.rating));
	}

	const latest = new Map<string, FaithfulnessVerdict>();
	for (const v of verdicts)
		if (v.origin === 'human' && !v.claim && reported.has(v.summary))
			latest.set(`${v.validator}\n${v.summary}\n${v.sentence}`, v);
	const judged = new Map<string, { validator: string; summary: string; n: number; faithful: number }>();
	for (const v of latest.values()) {
		const key = `${v.validator}\n${v.summary}`;
		const tally = judged.get(key) ?? { validator: v.validator, summary: v.summary, n: 0, faithful: 0 };
		tally.n += 1;
		if (v.label === 'faithful') tally.faithful += 1;
		judged.set(key, tally);
	}
	const fine = new Map<string, Map<string, number>>();
	let unfinished = 0;
	for (const t of judged.values()) {
		if (t.n < (sentences.get(t.summary) ?? 0)) {
			unfinished += 1;
			continue;
		}
		if (!fine.has(t.summary)) fine.set(t.summary, new Map());
		fine.get(t.summary)!.set(t.validator, t.faithful / t.n);
	}

	const rows = summaries.flatMap((summary) =>
		coarse.has(summary) || fine.has(summary)
			? [{ summary, coarse: coarse.get(summary) ?? new Map(), fine: fine.get(summary) ?? new Map() }]
			: [],
	);
	return {
		coarse: figuresOf(
			rows.map((r) => r.coarse),
			opts,
		),
		fine: figuresOf(
			rows.map((r) => r.fine),
			opts,
		),
		rows,
		unfinished,
	};
}

/** A grain's mean and spread, each with the interval the project's rule gives a mean over summaries. */
function figuresOf(
	bySummary: readonly ReadonlyMap<string, number>[],
	opts: { seed: number; resamples: number },
): GrainFigures {
	const scored = bySummary.filter((m) => m.size > 0).map((m) => [...m.values()]);
	const several = scored.filter((s) => s.length >= 2);
	const over = (values: number[]): Spread | null =>
		values.length === 0
			? null
			: intervals(
					{ unit: 'summaries', values },
					{ mean: { of: (sample) => mean([...sample]) } },
					{ random: seededRandom(opts.seed), resamples: opts.resamples },
				).mean;
	return {
		mean: over(scored.map((s) => mean(s))),
		spread: over(several.map((s) => standardDeviation(s))),
		summaries: scored.length,
		spreadSummaries: several.length,
		annotators: new Set(bySummary.flatMap((m) => [...m.keys()])).size,
	};
}

/** A figure on the 0–100 scale with its bounds: "62.5 [51.0, 74.0]", or "62.5" with none. */
function scaled(s: Spread): string {
	const b = bounds(s);
	return b ? `${points(s.estimate)} ${b}` : points(s.estimate);
}

/** One grain as a line: its mean and its spread across annotators, then what their intervals are over. */
function grainLine(name: string, g: GrainFigures, noun: string): string {
	if (g.mean === null) return `    ${name}: none yet`;
	const mean = `mean ${scaled(g.mean)} over ${counted(g.summaries, 'summary', 'summaries')}`;
	const spread =
		g.spread === null
			? `spread ${DASH} (no summary ${noun} by two or more)`
			: `spread ${scaled(g.spread)} points over ${counted(g.spreadSummaries, 'summary', 'summaries')} ${noun} by two or more`;
	const notes = [...new Set([g.mean, g.spread].flatMap((x) => (x ? [intervalNote(x)] : [])))];
	return `    ${name}, ${counted(g.annotators, 'annotator')}: ${mean}; ${spread} (${notes.join('; ')})`;
}

/** The coarse-against-fine lines of the text report; none before anyone has rated a summary. */
export function coarseFineLines(cf: CoarseFine): string[] {
	if (cf.coarse.mean === null) return [];
	const how =
		'each annotator scores each summary 0–100, a rating r as (r − 1) × 25, its sentences as their faithful share';
	const out = [
		`  coarse vs fine, as LongEval's Table 3 (${how}; spread: the standard deviation across annotators, its mean over summaries):`,
		grainLine('coarse, whole summaries rated 1–5', cf.coarse, 'rated'),
		grainLine('fine, every sentence judged', cf.fine, 'judged'),
	];
	if (cf.unfinished > 0)
		out.push(
			`    left out of fine: ${counted(cf.unfinished, 'annotation')} of a summary not finished (some of its sentences not judged)`,
		);
	return out;
}
