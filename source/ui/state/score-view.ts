import type { Annotation, ScoredSummary } from '../../domain.ts';
import type { AnnotatorEvent } from '../../engine/annotator.ts';
import { sentencesOf } from '../../score/annotate.ts';
import { verdictsFor, type VerdictSource } from '../../score/session-score.ts';
import type { ScoreControls, SentenceVerdict } from '../controls.ts';
import { usd } from '../../format/cost.ts';
import { formatInt, counted } from '../../format/count.ts';
import { formatSeconds } from '../../format/duration.ts';
import { rateWaitText } from '../../format/progress.ts';

/** What the BooookScore screen shows of a scoring: a row per sentence and a status line. Pure. */

export type SentenceRow = ReturnType<ScoreControls['sentences']>[number];

/** The rows of `summary`, one per sentence, with the verdict `source` gives each in `annotations` so far. */
export function sentenceRows(
	summary: ScoredSummary,
	source: VerdictSource,
): (annotations: readonly Annotation[]) => SentenceRow[] {
	const spans = sentencesOf(summary);
	return (annotations) =>
		verdictsFor(summary, annotations, source).map((v, i) => {
			const verdict: SentenceVerdict =
				v === null ? 'pending' : !v.ok ? 'failed' : v.confusing ? 'confusing' : 'clear';
			const answer = v?.ok && v.confusing ? v : null;
			return {
				start: spans[i]!.span.start,
				end: spans[i]!.span.end,
				verdict,
				questions: answer?.questions ?? '',
				types: answer?.types ?? [],
			};
		});
}

/**
 * What the score screen says where the questions of a confusing sentence go, when none is picked:
 * that none confuses only when every sentence has a readable answer.
 */
export function noConfusingText(verdicts: readonly SentenceVerdict[]): string {
	const unreadable = verdicts.filter((v) => v === 'failed').length;
	if (verdicts.some((v) => v === 'pending'))
		return 'Confusing sentences appear here as their answers arrive.';
	if (unreadable === 0) return 'No sentence confuses the annotator.';
	if (unreadable === verdicts.length)
		return 'No sentence has a readable answer, so there is no score: scoring again asks again.';
	return `No sentence confuses the annotator, but ${unreadable} had no readable answer: scoring again asks again.`;
}

/** The status line before the first event: whether there is anything to annotate. */
export const initialScoreStatus = (annotating: boolean) =>
	annotating ? 'starting…' : 'every sentence was already annotated; nothing to call';

/**
 * The status line after `event`: calls, tokens and cost so far, then how the scoring ended.
 * `seconds` is the time since it started, `now` the clock (a rate limit's wait counts down to it);
 * `continueWith` is the command that continues it.
 */
export function scoreStatus(
	line: string,
	event: AnnotatorEvent,
	ctx: { seconds: number; now: number; continueWith: string },
): string {
	if (event.type === 'usage') {
		const t = event.totals;
		return (
			`${t.calls}/${event.planned} calls · ${counted(t.input, 'token')} in (${formatInt(t.cached)} ` +
			`cached) · ${formatInt(t.output)} out · ${usd(t.cost)} (cache saved ${usd(t.saved)}) · ${formatSeconds(ctx.seconds)}`
		);
	}
	if (event.type === 'annotate-finished') {
		return event.status === 'done'
			? `${line} · done`
			: event.status === 'cancelled'
				? `${line} · stopped; ${ctx.continueWith} continues`
				: `failed: ${event.error ?? 'unknown error'}`;
	}
	if (event.type === 'annotate-retry') return `${line} · asking again: ${event.reason}`;
	if (event.type === 'rate-limit') {
		// The calls and tokens part stays; what follows it says whether the rate limit holds calls back.
		const base = line.split(' · waiting for the rate limit')[0]!;
		const waiting = rateWaitText(event, ctx.now);
		return waiting ? `${base} · ${waiting}` : base;
	}
	return line;
}
