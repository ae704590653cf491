import type { Annotator } from '../engine/annotator.ts';
import { checkBaseUrl, keyVariable } from '../llm/base-url.ts';
import { defaultProvider } from '../llm/create.ts';
import type { SystemScore } from '../score/booookscore.ts';
import { LABELS, type Label } from '../score/labels.ts';
import { scoreSession, type SessionScore } from '../score/session-score.ts';
import { Session, type SessionData } from '../store/session.ts';
import { countTokens } from '../text/tokens.ts';
import { batchesAwaited, type BatchesAwaited } from './open-session.ts';
import { newCollection, scoreAgain, sourceName, storedScoring, type ScoringOptions } from './score.ts';
import type { Unasked } from '../format/score.ts';
import { flag, said, type Next, type Said } from '../program.ts';

/**
 * `booook score` of a session, whole: a saved session opened (or a new collection made of a
 * summaries file), the annotator of what is missing, and the score of what is stored once it is
 * done. The command runs the annotator and words the result.
 */

/** What is scored: a saved session, or the summaries of a JSON file in a new collection session. */
export type ScoringTarget = { id: string } | { summaries: string };

export interface ScoringInput extends ScoringOptions {
	/** Make again the calls a study left in provider batches (they would be paid for twice). */
	abandonBatches?: boolean;
}

export interface ScoringEvents {
	/** Saves of the saved session were lost before it was opened (one line): told before anything changes. */
	lostWork(warning: Said): void;
}

/** A system's figures as the score shows them. */
export interface SystemFigures {
	score: number | null;
	summaries: number;
	sentences: number;
	confusing: number;
	failures: number;
	/** Tokens per summary, over every summary scored. */
	avgTokens: number;
	types: Record<Label, number>;
	/** Each book's score in points, or null when it has none. */
	books: Record<string, number | null>;
	/** Every error type in the paper's order: units per 100 sentences, and how many. */
	distribution: { label: Label; per100: number; count: number }[];
}

export interface ScoringResult {
	score: SessionScore;
	figures: SystemFigures;
	/** From the human annotations, when people annotated some of the summaries. */
	human: SystemFigures | null;
	/** Who gave the verdicts, each once. */
	annotators: string[];
}

/** A session opened (and locked) for scoring: the caller runs `annotator`, if any, then closes it. */
export interface SessionScoring {
	readonly session: { readonly id: string; readonly path: string };
	/** The new collection's file name and number of summaries; null for a saved session. */
	readonly created: { file: string; count: number } | null;
	/** Annotates what is missing and asks again what was unreadable; null when nothing needs it. */
	readonly annotator: Annotator | null;
	/** Why unreadable answers are not asked again now, or null. */
	readonly unasked: Unasked | null;
	/** The command that continues this scoring. */
	readonly again: Next;
	/** The score of the verdicts stored now. */
	result(): ScoringResult;
	close(): Promise<void>;
}

export type ScoringStart =
	{ kind: 'refused'; reason: BatchesAwaited } | { kind: 'ready'; scoring: SessionScoring };

export async function openScoring(
	sessionsDir: string,
	target: ScoringTarget,
	input: ScoringInput,
	events: ScoringEvents,
): Promise<ScoringStart> {
	// Checked even when nothing needs annotating, so a bad address is never accepted silently.
	if (input.baseUrl)
		checkBaseUrl(
			input.baseUrl,
			said`${flag('--base-url')}`,
			keyVariable(input.provider ?? defaultProvider(input.env ?? process.env, input.baseUrl)),
		);
	if ('id' in target) {
		// Read before the session is opened (which saves it), so a refusal changes nothing.
		if (!input.abandonBatches) {
			const awaited = await batchesAwaited(sessionsDir, target.id);
			if (awaited) return { kind: 'refused', reason: awaited };
		}
		const session = await Session.open(sessionsDir, target.id);
		try {
			session.continueWith = scoreAgain(session);
			const lost = await session.lostWork();
			if (lost) events.lostWork(lost);
			return { kind: 'ready', scoring: await scoring(session, null, input) };
		} catch (error) {
			await session.close();
			throw error;
		}
	}
	// A new collection: everything that can fail on bad input or a missing key fails before it exists.
	const { session, file, count } = await newCollection(sessionsDir, target.summaries, input);
	try {
		return { kind: 'ready', scoring: await scoring(session, { file, count }, input) };
	} catch (error) {
		await session.close();
		throw error;
	}
}

async function scoring(
	session: Session<SessionData>,
	created: SessionScoring['created'],
	input: ScoringOptions,
): Promise<SessionScoring> {
	const { chosen, annotator } = await storedScoring(session, input);
	return {
		session,
		created,
		annotator,
		unasked: chosen.unasked,
		again: scoreAgain(session),
		result: () => {
			const { data } = session;
			// The plans name each summary's verdict source; the verdicts are read afresh from what is stored now.
			const score = scoreSession(data.summaries, data.annotations, chosen.plans);
			const texts = score.entries.map((e) => e.summary.text);
			return {
				score,
				figures: systemFigures(score.system, texts),
				human: score.human ? systemFigures(score.human, texts) : null,
				annotators: [...new Set(score.entries.map((e) => sourceName(e.source)))],
			};
		},
		close: () => session.close(),
	};
}

export function systemFigures(system: SystemScore, texts: readonly string[]): SystemFigures {
	return {
		score: system.score,
		summaries: system.scored,
		sentences: system.sentences,
		confusing: system.confusing,
		failures: system.failures,
		avgTokens: texts.length ? texts.reduce((s, t) => s + countTokens(t), 0) / texts.length : 0,
		types: system.types,
		books: Object.fromEntries(
			[...system.perBook].map(([book, s]) => [book, s.score === null ? null : 100 * s.score]),
		),
		distribution: LABELS.map((label) => ({
			label,
			per100: system.distribution[label],
			count: system.types[label],
		})),
	};
}
