import { cellCost, type CellState, type CellStatus, type StudyCell } from '../engine/study-runner.ts';
import { alignTable } from '../study/results.ts';
import { layoutTable, type Table } from './session-table.ts';
import { clean, textWidth, truncate, wrap } from './text.ts';
import type { Tone } from './theme.ts';
import { usd } from '../format/cost.ts';
import { DASH } from '../format/missing.ts';

/**
 * A study's cells as the study screen lists them: book, configuration, status, a progress bar of
 * calls made against calls expected, cost, words and score. Pure: laid out by `layoutTable`.
 */

/** Every status is a mark and a word, so it reads without colour. */
export const CELL_STATUS: Record<CellStatus, { mark: string; word: string; tone: Tone | undefined }> = {
	queued: { mark: '·', word: 'queued', tone: 'muted' },
	running: { mark: '◐', word: 'running', tone: 'accent' },
	scoring: { mark: '◑', word: 'scoring', tone: 'accent' },
	done: { mark: '●', word: 'done', tone: 'ok' },
	skipped: { mark: '●', word: 'done before', tone: 'ok' },
	failed: { mark: '✗', word: 'failed', tone: 'error' },
	cancelled: { mark: '■', word: 'stopped', tone: 'warn' },
};

/** `width` characters, `ratio` of them filled. */
export function bar(ratio: number, width: number): string {
	const filled = Math.round(Math.max(0, Math.min(1, Number.isFinite(ratio) ? ratio : 0)) * width);
	return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/** Calls made against calls expected (a finished cell is full whatever was estimated). */
export function cellRatio(cell: CellState): number {
	if (cell.status === 'done' || cell.status === 'skipped') return 1;
	return cell.expected > 0 ? cell.calls / cell.expected : 0;
}

const BAR = 10;

/** One row per cell (with a status mark first), laid out in `width` columns. */
export function cellTable(
	cells: readonly Pick<
		StudyCell,
		'book' | 'method' | 'provider' | 'model' | 'baseUrl' | 'chunkSize' | 'contextWindow' | 'priced'
	>[],
	states: readonly CellState[],
	width: number,
): Table {
	const money = (cost: number, priced: boolean) => (priced ? usd(cost) : DASH);
	return layoutTable(
		[
			{ header: ' ', cells: states.map((s) => CELL_STATUS[s.status].mark) },
			{ header: 'book', cells: cells.map((c) => clean(c.book.key)), cut: 'end', min: 8, rank: 0 },
			{ header: 'configuration', cells: configLabels(cells).map(clean), flex: true, min: 12, want: 40 },
			{ header: 'status', cells: states.map((s) => CELL_STATUS[s.status].word) },
			{
				header: 'calls',
				cells: states.map((s) => `${bar(cellRatio(s), BAR)} ${s.calls}/${Math.max(s.calls, s.expected)}`),
			},
			{ header: 'cost', cells: states.map((s, i) => money(cellCost(s), cells[i]!.priced)) },
			{
				header: 'words',
				cells: states.map((s) => (s.words === null ? DASH : String(s.words))),
				optional: true,
			},
			{
				header: 'score',
				cells: states.map((s) => (s.score === null ? DASH : s.score.toFixed(1))),
				optional: true,
			},
		],
		width,
		1,
	);
}

type Config = Pick<StudyCell, 'method' | 'provider' | 'model' | 'baseUrl' | 'chunkSize' | 'contextWindow'>;

/**
 * Each cell's configuration by what sets it apart in this study: the method, model, chunk size and
 * window where they vary across the cells (the selected cell's line names it whole), the method alone when nothing does.
 */
export function configLabels(cells: readonly Config[]): string[] {
	const parts: ((c: Config) => string)[] = [
		(c) => c.method,
		(c) => (c.provider === 'extractive' ? `extractive ${c.model}` : `${c.provider} ${c.model}`),
		(c) => `c${c.chunkSize}`,
		(c) => `w${c.contextWindow}`,
	];
	const varying = parts.filter((part) => new Set(cells.map(part)).size > 1);
	const shown = varying.length > 0 ? varying : [parts[0]!];
	return cells.map((c) => shown.map((part) => part(c)).join(' '));
}

/**
 * A table (header first) with the columns every row shares taken out and said once, as "header:
 * value" in a caption: what differs between the rows is what a narrow screen has room for.
 */
export function compactTable(table: readonly string[][]): { caption: string; table: string[][] } {
	const [header, ...rows] = table;
	if (!header || rows.length < 2) return { caption: '', table: table.map((r) => [...r]) };
	const same = header.map((_, i) => rows.every((r) => r[i] === rows[0]![i]));
	const keep = (row: readonly string[]) => row.filter((_, i) => !same[i]);
	return {
		caption: header.flatMap((h, i) => (same[i] ? [`${h}: ${rows[0]![i]}`] : [])).join(' · '),
		table: [keep(header), ...rows.map(keep)],
	};
}

/** Shorter headers, for a table still too wide once the shared columns are said above it. */
const SHORT_HEADERS: Record<string, string> = {
	'books done': 'books',
	'words (mean)': 'words',
	'BooookScore (95% CI)': 'BooookScore',
};
/** Columns left out first when nothing else makes a table fit: the ones a reader of the results needs least. */
const DROP_FIRST = ['cost', 'calls', 'books done', 'window', 'chunk', 'words (mean)'];

/**
 * A study's table (header first) as lines of at most `width` columns, for a terminal: whole when it
 * fits; else the columns every row shares said once above it, then shorter headers, then columns
 * left out (named in a last line), never a row wrapped across lines. Piped output keeps every column.
 */
export function fitTable(table: readonly string[][], width: number): string[] {
	const fits = (lines: readonly string[]) => lines.every((l) => textWidth(l) <= width);
	const whole = alignTable(table).split('\n');
	if (table.length === 0 || fits(whole)) return whole;
	const { caption, table: compact } = compactTable(table);
	const above = caption ? [...wrap(caption, width)] : [];
	const names = compact[0]!;
	let columns = names.map((_, i) => i);
	const lay = (short: boolean) =>
		alignTable(
			compact.map((row, r) =>
				columns.map((i) => (r === 0 && short ? (SHORT_HEADERS[row[i]!] ?? row[i]!) : row[i]!)),
			),
		).split('\n');
	let lines = lay(false);
	if (fits(lines)) return [...above, ...lines];
	lines = lay(true);
	const dropped: string[] = [];
	const order = [
		...DROP_FIRST.filter((h) => names.includes(h)).map((h) => names.indexOf(h)),
		...names.map((_, i) => names.length - 1 - i),
	];
	for (const i of order) {
		if (fits(lines) || columns.length <= 1) break;
		if (i === 0 || !columns.includes(i)) continue;
		columns = columns.filter((c) => c !== i);
		dropped.push(names[i]!);
		lines = lay(true);
	}
	const note =
		dropped.length > 0
			? wrap(
					`left out for the width: ${dropped.join(', ')} (every column: pipe the output or use --csv)`,
					width,
				)
			: [];
	return [...above, ...lines.map((l) => truncate(l, width)), ...note];
}

/** What the selected cell is doing, or why it stopped, and the batch it waits on: one line. */
export function cellDetail(state: CellState): string {
	const parts = [state.activity, state.batch, state.error === null ? null : `error: ${state.error}`].filter(
		(p): p is string => p !== null && p !== '',
	);
	return clean(parts.length > 0 ? parts.join(' · ') : CELL_STATUS[state.status].word);
}
