import { scoreAgain, sourceName, type BookScoring } from '../app/score.ts';
import { commandLine } from '../program.ts';
import { scoreSession } from '../score/session-score.ts';
import type { BookSessionData, Session } from '../store/session.ts';
import type { ScoreControls } from './controls.ts';
import { initialScoreStatus, scoreStatus, sentenceRows } from './state/score-view.ts';

/**
 * A scoring of a run's final summary as app/ set it up (`SessionRun.scoring`: the summary pinned,
 * the annotator of its missing verdicts), presented as the score screen reads it.
 */
export function liveScoring(
	session: Session<BookSessionData>,
	{ summary: id, plan, annotator }: BookScoring,
	program: string,
): ScoreControls {
	const { data } = session;
	const summary = data.summaries.find((s) => s.id === id)!;
	const rows = sentenceRows(summary, plan.source);
	const listeners = new Set<() => void>();
	const started = Date.now();
	let line = initialScoreStatus(annotator !== null);
	annotator?.on((event) => {
		line = scoreStatus(line, event, {
			seconds: (Date.now() - started) / 1000,
			now: Date.now(),
			continueWith: commandLine(program, scoreAgain(session)),
		});
		for (const l of listeners) l();
	});
	return {
		book: summary.book,
		text: summary.text,
		annotator: sourceName(plan.source),
		sentences: () => rows(data.annotations),
		score: () => scoreSession(data.summaries, data.annotations, [plan]).system.score,
		status: () => line,
		start: async () => {
			await annotator?.start();
		},
		cancel: () => annotator?.cancel(),
		onChange: (listener) => {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
	};
}
