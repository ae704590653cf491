import { bookScoring, scoreAgain, sourceName } from '../app/score.ts';
import type { AccountLimits } from '../llm/create.ts';
import { scoreSession } from '../score/session-score.ts';
import type { BookSessionData, Session } from '../store/session.ts';
import type { ScoreControls } from '../ui/controls.ts';
import { initialScoreStatus, scoreStatus, sentenceRows } from '../ui/state/score-view.ts';

/**
 * BooookScore of a run's final summary for the terminal app: pins the summary, sets up the
 * annotator (the run's own model when it is an LLM, else whichever API key is set) and presents
 * both as the score screen reads them. Throws the same one-line errors as `booook score ID`.
 */
export async function liveScoring(
	session: Session<BookSessionData>,
	opts: { env?: NodeJS.ProcessEnv; prices?: string; prompts?: string; account?: AccountLimits },
): Promise<ScoreControls> {
	const { data } = session;
	const { summary: id, plan, annotator } = await bookScoring(session, opts);
	const summary = data.summaries.find((s) => s.id === id)!;
	const rows = sentenceRows(summary, plan.source);
	const listeners = new Set<() => void>();
	const started = Date.now();
	let line = initialScoreStatus(annotator !== null);
	annotator?.on((event) => {
		line = scoreStatus(line, event, {
			seconds: (Date.now() - started) / 1000,
			now: Date.now(),
			continueWith: scoreAgain(session),
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
