import type { FaithfulnessVerdict, ScoredSummary, Usage } from '../domain.ts';
import { errorMessage } from '../errors.ts';
import { isAbortError } from '../llm/abort.ts';
import type { Provider } from '../llm/provider.ts';
import { MAX_RETRIES, RETRY_TEMPERATURE, sentencesName } from '../score/annotate.ts';
import {
	faithfulnessPromptValues,
	faithfulnessUnits,
	readFaithfulnessAnswer,
	type FaithfulnessUnit,
	type JudgeEvidence,
} from '../score/faithfulness.ts';
import { fill } from '../summarize/templates.ts';
import { cancelAll, CallRunner, type CallLogStore } from './call-runner.ts';
import type { Totals } from '../summarize/totals.ts';

/** What the judge needs of a session: its summaries and verdicts, and durable writes (the call log among them). */
export interface FaithfulnessJudgeStore extends CallLogStore {
	readonly data: { summaries: ScoredSummary[]; faithfulness?: FaithfulnessVerdict[] };
	/** Adds verdicts; resolves once they are durable. */
	append(list: 'faithfulness', ...items: FaithfulnessVerdict[]): Promise<void>;
}

export interface FaithfulnessJudgeOptions {
	store: FaithfulnessJudgeStore;
	provider: Provider;
	/** prompts/faithfulness.txt (ours), as loaded by the one prompt loader. */
	template: string;
	summaries: readonly ScoredSummary['id'][];
	/** The passages of the book offered for a sentence: the provenance module plugs in here. */
	evidenceFor: (unit: FaithfulnessUnit) => readonly JudgeEvidence[] | Promise<readonly JudgeEvidence[]>;
	concurrency: number;
	costOf: (usage: Usage) => number;
	maxTokens?: number;
	maxRetries?: number;
	signal?: AbortSignal;
	now?: () => Date;
}

export interface FaithfulnessJudgeResult {
	status: 'done' | 'cancelled' | 'failed';
	judged: number;
	/** Sentences whose answer could not be read after every retry: no verdict recorded. */
	unreadable: number;
	error: string | null;
	totals: Totals;
}

/**
 * A model gives faithfulness verdicts, one call per summary sentence with its evidence passages,
 * through the shared call runner (logged in calls.jsonl, billed, concurrent); each readable answer
 * is saved as a verdict of origin model under "provider/model". Sentences this model judged before
 * are skipped. An unreadable answer is asked again at a higher temperature up to `maxRetries` times.
 */
export async function judgeFaithfulness(opts: FaithfulnessJudgeOptions): Promise<FaithfulnessJudgeResult> {
	const { store, provider } = opts;
	const judge = `${provider.name}/${provider.model}`;
	const calls = new CallRunner({
		provider,
		log: store,
		costOf: opts.costOf,
		concurrency: opts.concurrency,
		now: opts.now,
	});
	const abort = cancelAll();
	if (opts.signal?.aborted) abort.abort();
	opts.signal?.addEventListener('abort', () => abort.abort(), { once: true });
	const maxRetries = opts.maxRetries ?? MAX_RETRIES;
	const wanted = new Set(opts.summaries);
	const summaries = store.data.summaries.filter((s) => wanted.has(s.id));
	const done = new Set(
		(store.data.faithfulness ?? [])
			.filter((v) => v.validator === judge)
			.map((v) => `${v.summary}:${v.sentence}`),
	);
	const units = faithfulnessUnits(summaries).filter((u) => !done.has(`${u.summary}:${u.sentence}`));
	let judged = 0;
	let unreadable = 0;
	let failure: string | null = null;

	const run = async (unit: FaithfulnessUnit): Promise<void> => {
		const summary = summaries.find((s) => s.id === unit.summary)!;
		const prompt = fill(
			opts.template,
			faithfulnessPromptValues(summary.text, unit.text, await opts.evidenceFor(unit)),
		);
		const owner = `f${unit.summary}.${unit.sentence}`;
		for (let attempt = 0; attempt <= maxRetries; attempt++) {
			if (abort.signal.aborted || failure !== null) return;
			const params = {
				temperature: attempt === 0 ? 0 : RETRY_TEMPERATURE,
				maxTokens: opts.maxTokens ?? 200,
				words: 0,
				template: 'faithfulness',
			};
			const task = { kind: 'annotate' as const, texts: [summary.text, unit.text], words: 0 };
			const answer = await calls.call({
				owner,
				version: 0,
				attempt,
				signal: abort.signal,
				build: () => (abort.signal.aborted || failure !== null ? null : { prompt, task, params }),
				onError: (error) => {
					if (!isAbortError(error) && !abort.signal.aborted)
						failure ??= `${sentencesName(unit.summary, [unit.sentence])}: ${errorMessage(error)}`;
				},
				onUsage: () => {},
				commit: async ({ result, timings }) => {
					const read = readFaithfulnessAnswer(result.text);
					if (read.ok) {
						await store.append('faithfulness', {
							summary: unit.summary,
							sentence: unit.sentence,
							label: read.label,
							note: read.reason,
							validator: judge,
							origin: 'model',
							at: timings.end,
						});
					}
					return read;
				},
			});
			if (answer === null) return;
			if (answer.ok) {
				judged += 1;
				return;
			}
		}
		unreadable += 1;
	};

	await Promise.all(
		units.map((u) =>
			run(u).catch((error: unknown) => {
				if (!isAbortError(error) && !abort.signal.aborted) failure ??= errorMessage(error);
			}),
		),
	);
	const status = abort.signal.aborted ? 'cancelled' : failure !== null ? 'failed' : 'done';
	return { status, judged, unreadable, error: failure, totals: { ...calls.totals } };
}
