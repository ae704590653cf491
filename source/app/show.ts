import type { Node, Run, RunConfig } from '../domain.ts';
import { isPriced, loadPrices } from '../llm/prices.ts';
import { describeProvider } from '../llm/provider.ts';
import { storedScore } from '../score/session-score.ts';
import { currentJudgments } from '../score/validation.ts';
import {
	Session,
	type BookSessionData,
	type CollectionSessionData,
	type StateView,
} from '../store/session.ts';
import { activeVersion, finalSummary, liveNodes } from '../summarize/graph.ts';
import { levelName } from '../summarize/places.ts';
import { totalsOf } from '../summarize/totals.ts';
import { summaryStats } from '../text/stats.ts';
import { countWords } from '../text/tokens.ts';
import type { Said } from '../program.ts';

/** What `show` tells of a run's session, and what a finished run prints of its final summary. */

/** One row per level (hierarchical) or per kind of step (incremental). */
function structure(run: Run) {
	const groups = new Map<string, Node[]>();
	for (const n of liveNodes(run)) {
		const key = run.config.method === 'hier' && n.kind !== 'clean' ? levelName(n.level) : n.kind;
		groups.set(key, [...(groups.get(key) ?? []), n]);
	}
	return [...groups].map(([name, nodes]) => {
		const texts = nodes
			.map(activeVersion)
			.filter((v) => v !== null)
			.map((v) => v.text);
		return {
			name,
			nodes: nodes.length,
			done: nodes.filter((n) => n.status === 'done').length,
			overBudget: nodes.filter((n) => activeVersion(n)?.overBudget).length,
			meanWords: texts.length ? Math.round(texts.reduce((s, t) => s + countWords(t), 0) / texts.length) : 0,
		};
	});
}

/** Whether the run's model has a price in the price table (a broken prices file: unknown). */
function pricedModel(model: string, provider: RunConfig['provider']): boolean {
	try {
		return isPriced(loadPrices(), model, provider);
	} catch {
		return false;
	}
}

export function showData(data: StateView<BookSessionData>, book: string) {
	const run = data.run;
	const final = finalSummary(run);
	const totals = totalsOf(run);
	return {
		id: data.id,
		book: data.book,
		status: run.status,
		error: run.error,
		config: run.config,
		/** Where an imported summary was read from (`import summary`): no method or model of booook's made it. */
		imported: run.imported ?? null,
		provider: describeProvider({
			name: run.config.provider,
			model: run.config.model,
			isLLM: run.config.provider !== 'extractive',
		}),
		chunks: run.chunks.length,
		structure: structure(run),
		usage: { input: totals.input, output: totals.output, cached: totals.cached, calls: totals.calls },
		cost: totals.cost,
		priced: pricedModel(run.config.model, run.config.provider),
		booookscore: storedScore(data.summaries, data.annotations, run),
		stats: final ? summaryStats(final, book, run.config.encoding) : null,
		summary: final,
	};
}

/**
 * `booook show ID`: the session as it is on disk (read without its lock, so a run may go on), what
 * it tells, and whether saves of it were lost (told through `lostWork`, as what is shown may lack them).
 */
export async function showSession(
	dir: string,
	id: string,
	events: { lostWork(warning: Said): void },
): Promise<
	{ kind: 'collection'; data: CollectionSessionData } | { kind: 'book'; shown: ReturnType<typeof showData> }
> {
	const read = await Session.snapshot(dir, id);
	const lost = await Session.lostWork(dir, read);
	if (lost) events.lostWork(lost);
	const { data, text } = read;
	return data.kind === 'collection'
		? { kind: 'collection', data }
		: { kind: 'book', shown: showData(data, text) };
}

/** What `show` tells of a collection session: its sources, counts and score, and each summary's. */
export function collectionData(data: CollectionSessionData) {
	const count = (pred: (a: CollectionSessionData['annotations'][number]) => boolean) =>
		data.annotations.filter(pred).length;
	const books = data.summaries.map((s) => ({
		summary: s.id,
		book: s.book,
		words: countWords(s.text),
		model: count((a) => a.summary === s.id && a.source === 'model'),
		human: count((a) => a.summary === s.id && a.source === 'human'),
	}));
	return {
		id: data.id,
		kind: data.kind,
		title: data.title,
		sources: data.sources,
		summaries: data.summaries.length,
		annotations: { model: count((a) => a.source === 'model'), human: count((a) => a.source === 'human') },
		judgments: currentJudgments(data.judgments).length,
		booookscore: storedScore(data.summaries, data.annotations),
		books,
	};
}
