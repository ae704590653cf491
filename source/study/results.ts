import type { RunStatus } from '../domain.ts';
import { seededRandom } from '../score/bootstrap.ts';
import { intervals, MIN_CLUSTERS, type Spread } from '../score/interval.ts';
import { bounds, intervalNote } from '../format/interval.ts';
import { counted } from '../format/count.ts';
import { errorTypeRow, type CellErrorTypes, type ErrorTypeRow } from './error-types.ts';
import type { Cell, CellConfig } from './grid.ts';
import { usd } from '../format/cost.ts';
import { DASH } from '../format/missing.ts';
import { points, signedPoints } from '../format/percent.ts';
import type { ShortcutAccuracy } from '../memory/shortcuts.ts';
import { rounded } from '../format/number.ts';

/**
 * A study's results as the paper's Table 2 has them: one row per configuration, over the books it
 * was run on — books done, mean summary length, calls, cost, and BooookScore with a percentile
 * bootstrap interval over books (books are the unit the paper resamples) once a row has enough
 * books for one (`intervals`); with fewer it has none, and the note under the table says so.
 */

/** Where one cell stands, read from its session (or its absence). */
export interface CellOutcome {
	/** 'missing': no session yet; else its run's status ('running' too for a run a killed process left). */
	status: 'missing' | RunStatus;
	/** Words of the final summary, once there is one. */
	words: number | null;
	/** Calls of the cell's run. */
	calls: number;
	/** The cell's cost: its run's calls, its BooookScore annotation calls (`scoring`) and its memory probes' calls. */
	cost: number;
	/** The annotation calls its session logged, part of `cost`; absent or null when none was made. */
	scoring?: { calls: number; cost: number } | null;
	/** The session's stored BooookScore, once every sentence of its summary has a verdict. */
	score: number | null;
	/** The error types of the sentences that score reads; absent or null while there is no score. */
	errorTypes?: CellErrorTypes | null;
	/** Memory probes: the share of read-along questions about the final summary answered right; absent or null before. */
	memory?: number | null;
	/** The same questions answered with the summary hidden (the floor); absent or null when not asked. */
	memoryFloor?: number | null;
	/** What always picking the longest, or the shortest, option scores on those questions; absent or null before. */
	memoryShortcuts?: ShortcutAccuracy | null;
}

export interface ResultRow extends CellConfig {
	books: number;
	done: number;
	/** Mean words of the final summaries of the books done; null before any. */
	meanWords: number | null;
	calls: number;
	cost: number;
	/** Over the books done and scored; null when none is (or scoring is off). */
	score: (Spread & { books: number }) | null;
	/** Error types pooled over the books done and annotated; null when none is (or scoring is off). */
	errorTypes: ErrorTypeRow | null;
	/** Memory probes' accuracy on the final summaries, over the books probed; null when none is (or probes are off). */
	memory: (Spread & { books: number }) | null;
	/** The floor's mean over the books whose floor was asked: the accuracy with the summary hidden; null when none was. */
	memoryFloor: number | null;
	/** The options' giveaway on the same questions, pooled over the books probed; null when none is. */
	memoryShortcuts: ShortcutAccuracy | null;
}

export function resultRows(
	cells: readonly Cell[],
	outcomes: ReadonlyMap<string, CellOutcome>,
	opts: { score: boolean; memory?: boolean; seed?: number; resamples?: number },
): ResultRow[] {
	const groups = new Map<string, Cell[]>();
	for (const cell of cells) groups.set(cell.configKey, [...(groups.get(cell.configKey) ?? []), cell]);
	return [...groups.values()].map((group) => {
		const first = group[0]!;
		const outs = group.map(
			(c): CellOutcome =>
				outcomes.get(c.key) ?? { status: 'missing', words: null, calls: 0, cost: 0, score: null },
		);
		const done = outs.filter((o) => o.status === 'done');
		const words = done.flatMap((o) => (o.words === null ? [] : [o.words]));
		const overBooks = (values: readonly number[]) =>
			values.length === 0
				? null
				: {
						...intervals(
							{ unit: 'books', values },
							{ mean: { of: mean } },
							{ random: seededRandom(opts.seed ?? 2024), resamples: opts.resamples ?? 2000 },
						).mean,
						books: values.length,
					};
		const score = opts.score ? overBooks(done.flatMap((o) => (o.score === null ? [] : [o.score]))) : null;
		const memory = opts.memory ? overBooks(done.flatMap((o) => (o.memory == null ? [] : [o.memory]))) : null;
		const floors = done.flatMap((o) => (o.memory == null || o.memoryFloor == null ? [] : [o.memoryFloor]));
		const shortcuts = done.flatMap((o) =>
			o.memory == null || !o.memoryShortcuts ? [] : [o.memoryShortcuts],
		);
		return {
			method: first.method,
			provider: first.provider,
			model: first.model,
			baseUrl: first.baseUrl,
			chunkSize: first.chunkSize,
			contextWindow: first.contextWindow,
			books: group.length,
			done: done.length,
			meanWords: words.length > 0 ? mean(words) : null,
			calls: outs.reduce((s, o) => s + o.calls, 0),
			cost: outs.reduce((s, o) => s + o.cost, 0),
			score,
			errorTypes: opts.score ? errorTypeRow(done.flatMap((o) => (o.errorTypes ? [o.errorTypes] : []))) : null,
			memory,
			memoryFloor: opts.memory && floors.length > 0 ? mean(floors) : null,
			memoryShortcuts: opts.memory ? pooledShortcuts(shortcuts) : null,
		};
	});
}

/** Shortcut shares of several books as one over all their questions; null for none. */
function pooledShortcuts(books: readonly ShortcutAccuracy[]): ShortcutAccuracy | null {
	const n = books.reduce((sum, b) => sum + b.n, 0);
	if (n === 0) return null;
	const share = (key: 'longest' | 'shortest') => books.reduce((sum, b) => sum + b[key] * b.n, 0) / n;
	return { longest: share('longest'), shortest: share('shortest'), n };
}

/** Two configurations compared over the books both have a score on: the mean of the per-book differences. */
export interface PairedDifference {
	a: string;
	b: string;
	/** BooookScore of a minus b (fractions), with a percentile bootstrap interval over the shared books when there are enough. */
	difference: Spread;
	books: number;
}

/** The configuration as a row of the table names it. */
export function configLabel(c: CellConfig): string {
	return `${c.method} ${c.provider === 'extractive' ? `extractive ${c.model}` : `${c.provider} ${c.model}`} c${c.chunkSize} w${c.contextWindow}`;
}

/**
 * Every pair of configurations with scores on some of the same books: the paired difference in
 * BooookScore, book by book, resampled over those books (a paired comparison is tighter than two
 * separate intervals, since a hard book is hard for both).
 */
export function pairedDifferences(
	cells: readonly Cell[],
	outcomes: ReadonlyMap<string, CellOutcome>,
	opts: { seed?: number; resamples?: number } = {},
): PairedDifference[] {
	const scored = new Map<string, { config: Cell; byBook: Map<string, number> }>();
	for (const cell of cells) {
		const out = outcomes.get(cell.key);
		if (!out || out.status !== 'done' || out.score === null) continue;
		const entry = scored.get(cell.configKey) ?? { config: cell, byBook: new Map<string, number>() };
		entry.byBook.set(cell.book.key, out.score);
		scored.set(cell.configKey, entry);
	}
	const configs = [...scored.values()];
	const pairs: PairedDifference[] = [];
	for (let i = 0; i < configs.length; i++) {
		for (let j = i + 1; j < configs.length; j++) {
			const [a, b] = [configs[i]!, configs[j]!];
			const differences = [...a.byBook].flatMap(([book, score]) =>
				b.byBook.has(book) ? [score - b.byBook.get(book)!] : [],
			);
			if (differences.length === 0) continue;
			const { difference } = intervals(
				{ unit: 'books', values: differences },
				{ difference: { of: mean } },
				{ random: seededRandom(opts.seed ?? 2024), resamples: opts.resamples ?? 2000 },
			);
			pairs.push({
				a: configLabel(a.config),
				b: configLabel(b.config),
				difference,
				books: differences.length,
			});
		}
	}
	return pairs;
}

/** One line per pair, for the text output under the table. */
export function pairedLines(pairs: readonly PairedDifference[]): string[] {
	if (pairs.length === 0) return [];
	return [
		`paired differences in BooookScore (a − b, book by book; a 95% bootstrap interval over the shared books from ${MIN_CLUSTERS} of them):`,
		...pairs.map((p) => {
			const interval = bounds(p.difference, true);
			const over = interval
				? `${interval} over ${counted(p.books, 'book')}`
				: `(${intervalNote(p.difference)})`;
			return `  ${p.a} − ${p.b}: ${signedPoints(p.difference.estimate)} ${over}`;
		}),
	];
}

function mean(values: readonly number[]): number {
	return values.reduce((s, v) => s + v, 0) / values.length;
}

/** The first columns of every table of a study's results: which configuration a row is. */
export const CONFIG_HEADER = ['method', 'model', 'chunk', 'window'];

export function configCells(r: CellConfig): string[] {
	return [
		r.method,
		r.provider === 'extractive' ? `extractive ${r.model}` : `${r.provider} ${r.model}`,
		String(r.chunkSize),
		String(r.contextWindow),
	];
}

/**
 * The memory columns: the final summaries' accuracy, the same questions' floor (the summary
 * hidden) and what always picking the longest / the shortest option scores on them.
 */
const MEMORY_HEADER = ['memory (95% CI)', 'floor', 'longest/shortest'];

/** The results as cells of text, header first: what the terminal table and the CSV both show. */
export function resultTable(
	rows: readonly ResultRow[],
	opts: { priced: boolean; memory?: boolean },
): string[][] {
	const interval = (i: Spread | null) => (i === null ? DASH : `${points(i.estimate)} ${bounds(i)}`.trimEnd());
	return [
		[
			...CONFIG_HEADER,
			'books done',
			'words (mean)',
			'calls',
			'cost',
			'BooookScore (95% CI)',
			...(opts.memory ? MEMORY_HEADER : []),
		],
		...rows.map((r) => [
			...configCells(r),
			`${r.done}/${r.books}`,
			r.meanWords === null ? DASH : String(Math.round(r.meanWords)),
			String(r.calls),
			opts.priced || r.provider === 'extractive' ? usd(r.cost) : DASH,
			interval(r.score),
			...(opts.memory
				? [
						interval(r.memory),
						r.memoryFloor === null ? DASH : points(r.memoryFloor),
						r.memoryShortcuts === null
							? DASH
							: `${points(r.memoryShortcuts.longest)}/${points(r.memoryShortcuts.shortest)}`,
					]
				: []),
		]),
	];
}

/**
 * The results for a program to read (`--csv`): one value per column, numbers without units or
 * brackets, empty where there is none, so `pandas.read_csv` types every column. BooookScore and its
 * interval are percents (as the table shows them), the cost US dollars (empty when unpriced).
 */
export function resultCsvTable(
	rows: readonly ResultRow[],
	opts: { priced: boolean; memory?: boolean },
): string[][] {
	const num = (v: number | null, digits: number) => (v === null ? '' : rounded(v, digits));
	const percents = (i: Spread | null) =>
		i === null
			? ['', '', '', '']
			: [...[i.estimate, i.low, i.high].map((v) => (v === null ? '' : num(100 * v, 2))), i.method];
	return [
		[
			'method',
			'provider',
			'model',
			'chunk_size',
			'context_window',
			'books',
			'books_done',
			'words_mean',
			'calls',
			'cost_usd',
			'score',
			'ci_low',
			'ci_high',
			'ci_method',
			...(opts.memory
				? [
						'memory',
						'memory_ci_low',
						'memory_ci_high',
						'memory_ci_method',
						'memory_floor',
						'memory_longest_option',
						'memory_shortest_option',
					]
				: []),
		],
		...rows.map((r) => [
			r.method,
			r.provider,
			r.model,
			String(r.chunkSize),
			String(r.contextWindow),
			String(r.books),
			String(r.done),
			num(r.meanWords, 1),
			String(r.calls),
			opts.priced || r.provider === 'extractive' ? num(r.cost, 6) : '',
			...percents(r.score),
			...(opts.memory
				? [
						...percents(r.memory),
						...[r.memoryFloor, r.memoryShortcuts?.longest ?? null, r.memoryShortcuts?.shortest ?? null].map(
							(v) => (v === null ? '' : num(100 * v, 2)),
						),
					]
				: []),
		]),
	];
}

/**
 * What the table's intervals are, said once under it: a bootstrap over each row's books where a
 * row has enough, and plainly that a row with fewer has none. Nothing before a row has a figure.
 */
export function intervalLines(rows: readonly ResultRow[]): string[] {
	const spreads = rows.flatMap((r) => [r.score, r.memory]).filter((x) => x !== null);
	if (spreads.length === 0) return [];
	const few = spreads.filter((x) => x.method === 'none').map((x) => x.books);
	const what = [rows.some((r) => r.score) && 'BooookScore', rows.some((r) => r.memory) && 'memory']
		.filter((x) => x !== false)
		.join(' and ');
	if (few.length === 0) return [`${what} (95% CI): percentile bootstrap intervals over each row's books`];
	const counts = [...new Set(few)].sort((a, b) => a - b);
	const books = counts.length === 1 ? `${counts[0]}` : `${counts[0]} to ${counts.at(-1)}`;
	return [
		few.length === spreads.length
			? `${what}: too few books (${books}) for an interval over books; a bootstrap over books needs ${MIN_CLUSTERS}`
			: `${what} (95% CI): percentile bootstrap intervals over each row's books; rows of fewer than ` +
				`${counted(MIN_CLUSTERS, 'book')} show none (too few books for an interval over books)`,
	];
}
