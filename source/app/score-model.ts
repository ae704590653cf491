import { sessionsDirArg } from '../config.ts';
import { dirname } from 'node:path';
import { defaultModel, defaultProvider } from '../llm/create.ts';
import { next, type Next } from '../program.ts';
import { planSummary, sessionAnnotator } from '../score/session-score.ts';
import { finalSummaryPin } from '../store/scored-summaries.ts';
import type { BookSessionData, Session } from '../store/session.ts';

/**
 * The model that scores a run with none of its own (the extractive baseline). It is asked of the
 * person rather than taken from whichever key is set: that key's vendor API need not be the server
 * they use (a local one, another address), and a scoring sent there fails only after its retries.
 */

export type ScoringProvider = 'openai' | 'anthropic';

/** The model named to annotate: as `booook score ID --provider P --model M --base-url URL` names it. */
export interface ScorerChoice {
	provider: ScoringProvider;
	model: string;
	/** null: the provider's *_BASE_URL, else its vendor's API. */
	baseUrl: string | null;
}

/** What the question starts from: the environment's (or an earlier scoring's) model and servers. */
export interface ScorerQuestion {
	/** Sentences of the final summary that no model has answered. */
	sentences: number;
	provider: ScoringProvider;
	models: Record<ScoringProvider, string>;
	/** $OPENAI_BASE_URL and $ANTHROPIC_BASE_URL ('' when unset). */
	baseUrls: Record<ScoringProvider, string>;
	/** `booook score ID` as a shell takes it: the same scoring, from a shell. */
	command: Next;
}

/**
 * What to ask before the final summary of `session` is scored, or null when nothing need be asked:
 * the run has a model of its own, every sentence already has a verdict, or there is no final
 * summary (the scoring says so itself).
 */
export function scorerQuestion(
	session: Session<BookSessionData>,
	env: NodeJS.ProcessEnv = process.env,
): ScorerQuestion | null {
	const { data } = session;
	if (data.run.config.provider !== 'extractive') return null;
	const dir = dirname(session.path);
	let final: ReturnType<typeof finalSummaryPin>;
	try {
		final = finalSummaryPin(data, dir);
	} catch {
		return null;
	}
	const summary = final.pin ?? data.summaries.find((s) => s.id === final.id)!;
	const earlier = sessionAnnotator(data.annotations, '');
	const plan = planSummary(summary, data.annotations, { requested: null, fallback: earlier });
	if (plan.missing.length === 0) return null;
	const models = { openai: defaultModel('openai'), anthropic: defaultModel('anthropic') };
	// A scoring cut short goes on with the model that began it.
	const [vendor, ...name] = earlier.split('/');
	let provider: ScoringProvider;
	if ((vendor === 'openai' || vendor === 'anthropic') && name.length > 0) {
		provider = vendor;
		models[vendor] = name.join('/');
	} else {
		const byKey = defaultProvider(env);
		provider =
			byKey !== 'extractive'
				? byKey
				: env.ANTHROPIC_BASE_URL?.trim() && !env.OPENAI_BASE_URL?.trim()
					? 'anthropic'
					: 'openai';
	}
	return {
		sentences: plan.missing.length,
		provider,
		models,
		baseUrls: {
			openai: env.OPENAI_BASE_URL?.trim() ?? '',
			anthropic: env.ANTHROPIC_BASE_URL?.trim() ?? '',
		},
		command: next('score', `${session.id}${sessionsDirArg(dir)}`),
	};
}
