import { next, said, type Said } from '../program.ts';
import { oneLine } from '../text/sanitize.ts';
import { costText } from './cost.ts';
import { counted, formatInt } from './count.ts';
import { scoreText } from './number.ts';
import { summaryFigures } from './summary.ts';

/** What `show` prints of a session: a run's configuration, structure, usage and final summary, or a collection's contents. */

/** A run's session as app/show.ts `showData` tells it. */
interface ShownRun {
	id: string;
	book: { title: string; tokens: number };
	status: string;
	error?: string | null;
	config: {
		method: string;
		chunkSize: number;
		contextWindow: number;
		maxSummary: number;
		temperature: number;
		concurrency: number;
		clean: boolean;
	};
	imported: { file: string } | null;
	provider: string;
	chunks: number;
	structure: readonly { name: string; nodes: number; done: number; overBudget: number; meanWords: number }[];
	usage: { calls: number; input: number; cached: number; output: number };
	cost: number;
	priced: boolean;
	booookscore: number | null;
	stats: Parameters<typeof summaryFigures>[0] | null;
	summary: string | null;
}

/** `show`'s lines of a run's session; `where` is what a printed command adds to reach its sessions folder. */
export function showLines(shown: ShownRun, where: string): Said[] {
	const c = shown.config;
	const lines: Said[] = [];
	lines.push(`${oneLine(shown.book.title)} — session ${shown.id}`);
	lines.push(`status: ${shown.status}${shown.error ? ` (${oneLine(shown.error)})` : ''}`);
	lines.push(
		shown.imported
			? `imported summary: read from ${oneLine(shown.imported.file)} (not made here: no method, model ` +
					`or calls); the book in chunks of ${counted(c.chunkSize, 'token')} for its evidence`
			: `method: ${c.method === 'hier' ? 'hierarchical merging' : 'incremental updating'}; ${shown.provider}; ` +
					`chunk ${c.chunkSize}, window ${c.contextWindow}, max summary ${c.maxSummary}, temperature ${c.temperature}, ` +
					`concurrency ${c.concurrency}, clean ${c.clean ? 'on' : 'off'}`,
	);
	lines.push(`book: ${counted(shown.book.tokens, 'token')} in ${counted(shown.chunks, 'chunk')}`);
	for (const row of shown.structure) {
		lines.push(
			`  ${row.name.padEnd(10)} ${row.done}/${row.nodes} done, mean ${counted(row.meanWords, 'word')}` +
				(row.overBudget ? `, ${row.overBudget} over budget` : ''),
		);
	}
	lines.push(
		`usage: ${counted(shown.usage.calls, 'call')}, ${counted(shown.usage.input, 'token')} in (${formatInt(shown.usage.cached)} ` +
			`cached), ${formatInt(shown.usage.output)} out, ${costText(shown.cost, shown.priced)}`,
	);
	if (shown.stats) {
		lines.push(`final summary: ${summaryFigures(shown.stats)}`);
		lines.push(
			shown.booookscore === null
				? said`BooookScore: not scored yet (${next('score', `${shown.id}${where}`)})`
				: said`BooookScore: ${scoreText(shown.booookscore)} (${next('report', `${shown.id}${where}`)} for the details)`,
		);
		lines.push('', shown.summary!);
	}
	return lines;
}

/** A collection session as app/show.ts `collectionData` tells it. */
interface ShownCollection {
	id: string;
	title: string;
	sources: readonly string[];
	summaries: number;
	annotations: { model: number; human: number };
	judgments: number;
	booookscore: number | null;
	books: readonly { summary: string; book: string; words: number; model: number; human: number }[];
}

/** `show`'s lines of an imported collection: where it came from and what it holds, per book. */
export function collectionLines(shown: ShownCollection): Said[] {
	return [
		`${oneLine(shown.title)} — collection session ${shown.id}, imported from ${shown.sources.map((s) => oneLine(s)).join(', ')}`,
		`${counted(shown.summaries, 'summary', 'summaries')}; annotations: ${shown.annotations.model} ` +
			`model, ${shown.annotations.human} human; ${counted(shown.judgments, 'verdict')}`,
		shown.booookscore === null
			? said`BooookScore: not every sentence has a model verdict (${next('report', shown.id)} shows what there is)`
			: `BooookScore: ${scoreText(shown.booookscore)}`,
		...shown.books.map(
			(b) =>
				`  ${b.summary.padEnd(5)} ${oneLine(b.book).slice(0, 50).padEnd(50)} ${counted(b.words, 'word').padStart(11)} ` +
				` annotations: ${b.model} model, ${b.human} human`,
		),
	];
}
