import { join } from 'node:path';
import { DEFAULTS, sessionsDirArg } from '../config.ts';
import type { ProviderName, Run, ScoredSummary } from '../domain.ts';
import { judgeFaithfulness, type FaithfulnessJudgeResult } from '../engine/faithfulness-judge.ts';
import { badInput } from '../errors.ts';
import { flag, next, said } from '../program.ts';
import { rankedFor, tracerFor } from '../evidence/evidence.ts';
import type { SentenceSource } from '../evidence/provenance.ts';
import { CLAIM_RANK, PassageIndex } from '../evidence/rank.ts';
import { fusedRank, type DenseVectors, type Rank } from '../evidence/rerank.ts';
import { shownHit, type ShownEvidence } from '../evidence/units.ts';
import { loadTemplates } from '../prompts/load.ts';
import { scoredSplit } from '../score/annotate.ts';
import { CLAIM_PASSAGES } from '../score/claims.ts';
import { faithfulnessLines, faithfulnessReport } from '../score/faithfulness.ts';
import { sanitize } from '../text/sanitize.ts';
import { noFinalSummary } from '../store/scored-summaries.ts';
import { Session, type BookSessionData } from '../store/session.ts';
import { embeddingsFor, type EmbeddingSpend } from './dense-evidence.ts';
import { passClient, passModel, type PassOptions } from './model-client.ts';

/**
 * `booook faithfulness`: a model judges each sentence of a run's final summary against the book,
 * FABLES' way: split into atomic claims, each judged against the passages retrieved for it.
 */

/** Passages retrieved per claim unless `--top` says. */
export const FAITHFULNESS_TOP = CLAIM_PASSAGES;

export interface FaithfulnessOptions extends PassOptions {
	/** Passages retrieved per claim (default FAITHFULNESS_TOP). */
	top?: number;
	/** `--embeddings`: the model whose embeddings rerank each claim's passages (rerank.ts). */
	embeddings?: string;
}

/** A judging set up and its session open: `judge(signal)` makes the calls; `close()` lets the session go. */
export interface FaithfulnessJudging {
	judge: { provider: ProviderName; model: string };
	run(signal: AbortSignal): Promise<FaithfulnessJudgeResult>;
	close(): Promise<void>;
	/** What `--embeddings` cost so far; null without it. */
	embeddings: (() => EmbeddingSpend) | null;
	/** The judge's verdicts on the final summary as they stand, counted and worded as `report` does (none: no line). */
	figures(): string[];
}

/** The bootstrap of the figures' interval, as `report` draws it by default. */
const FIGURES_BOOTSTRAP = { seed: 2024, resamples: 2000 };

/**
 * The judging of a session's final summary, checked and set up: every refusal (not a run, no final
 * summary, no LLM, no key) is made on a read-only copy, so it leaves the session as it was. The
 * session is then opened and its final summary pinned and saved.
 */
export async function faithfulnessJudging(opts: FaithfulnessOptions): Promise<FaithfulnessJudging> {
	const env = opts.env ?? process.env;
	const { data: snapshot } = await Session.snapshot(opts.sessionsDir, opts.id);
	if (snapshot.kind !== 'book') {
		const byHand = next('validate', `${opts.id}${sessionsDirArg(opts.sessionsDir)} --mode faithfulness`);
		const why = `session "${opts.id}" holds imported summaries without their book: judging faithfulness needs the book`;
		throw badInput(
			said`${why}, so a run (${next('run', 'BOOK')}); people can still mark its sentences with ${byHand}`,
		);
	}
	if (!snapshot.run.root) throw noFinalSummary(opts.id, opts.sessionsDir);
	const top = opts.top ?? FAITHFULNESS_TOP;
	if (!Number.isInteger(top) || top < 1)
		throw badInput(
			said`${flag('--top', String(top))}: use a whole number from 1 up (passages shown to the judge per claim)`,
		);
	const judge = passModel(snapshot, opts, env, { task: 'judging faithfulness', verb: 'judging' });
	const embeddings = opts.embeddings
		? embeddingsFor({
				model: opts.embeddings,
				baseUrl: opts.baseUrl,
				provider: judge.provider,
				prices: opts.prices,
				env,
			})
		: null;
	const templates = await loadTemplates(opts.prompts);
	const { provider, costOf } = passClient(judge, { prices: opts.prices, env, account: opts.account });
	const session = await Session.open(opts.sessionsDir, opts.id);
	try {
		const summary = await session.pinFinalSummary();
		const data = session.data as BookSessionData;
		const book = await session.bookText();
		const index = new PassageIndex(book, data.run.chunks);
		const dense = embeddings && (await embeddings.load(join(opts.sessionsDir, opts.id), book, index));
		const find = claimEvidence(data.run, book, index, data.summaries, top, dense ?? undefined);
		const evidenceFor = dense
			? async (unit: { summary: string; sentence: number }, claim: string) => {
					await dense.add([claim]);
					return find(unit, claim);
				}
			: find;
		return {
			judge,
			embeddings: dense && (() => dense.spend()),
			run: (signal) =>
				judgeFaithfulness({
					store: session,
					provider,
					templates,
					summaries: [summary],
					evidenceFor,
					concurrency: opts.concurrency ?? DEFAULTS.concurrency,
					costOf,
					signal,
				}),
			figures: () => {
				const name = `${judge.provider}/${judge.model}`;
				const verdicts = (data.faithfulness ?? []).filter((v) => v.validator === name);
				const pinned = data.summaries.filter((s) => s.id === summary);
				return faithfulnessLines(faithfulnessReport(pinned, verdicts, FIGURES_BOOTSTRAP), sanitize);
			},
			close: () => session.close(),
		};
	} catch (error) {
		await session.close();
		throw error;
	}
}

/**
 * The passages for one claim of a summary sentence: the `top` passages ranked for the claim's own
 * words, among the chunks the sentence can come from by the run's tree (each summary traced once,
 * on first use), reranked by `dense` when given (its claims' vectors embedded before each call). A
 * summary that is no node of the run is searched over the whole book.
 */
function claimEvidence(
	run: Run,
	book: string,
	index: PassageIndex,
	summaries: readonly Pick<ScoredSummary, 'id' | 'text' | 'node' | 'units'>[],
	top: number,
	dense?: DenseVectors,
): (unit: { summary: string; sentence: number }, claim: string) => ShownEvidence[] {
	const tracer = tracerFor(run, index);
	const rank: Rank = dense ? fusedRank(index, dense) : (text, n, opts) => index.rank(text, n, opts);
	const traced = new Map<string, SentenceSource[]>();
	const sourcesOf = (id: string): SentenceSource[] => {
		let sources = traced.get(id);
		if (!sources) {
			const summary = summaries.find((s) => s.id === id);
			const node = summary?.node && run.nodes.some((n) => n.id === summary.node) ? summary.node : null;
			// Only where each sentence can come from: its claims are ranked below, each for itself.
			sources = node ? [...tracer.eachSource(node, summary!.text, undefined, scoredSplit(summary!))] : [];
			traced.set(id, sources);
		}
		return sources;
	};
	return (unit, claim) => {
		const source = sourcesOf(unit.summary)[unit.sentence];
		const hits = source
			? rankedFor(index, source, claim, top, rank, CLAIM_RANK)
			: rank(claim, top, CLAIM_RANK);
		return hits.map((hit) => shownHit(run, book, hit));
	};
}
