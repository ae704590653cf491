import type { CellState, CellStatus, StudyCell } from '../../../engine/study-runner.ts';
import { cellCost } from '../../../format/cost.ts';
import { bar, layoutTable, type Table } from '../../../format/table.ts';
import { clean } from '../../../format/text.ts';
import type { Tone } from '../../theme.ts';
import { usd } from '../../../format/cost.ts';
import { DASH } from '../../../format/missing.ts';
import { scoreText } from '../../../format/number.ts';

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
				cells: states.map((s) => scoreText(s.score)),
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

/** What the selected cell is doing, or why it stopped, and the batch it waits on: one line. */
export function cellDetail(state: CellState): string {
	const parts = [state.activity, state.batch, state.error === null ? null : `error: ${state.error}`].filter(
		(p): p is string => p !== null && p !== '',
	);
	return clean(parts.length > 0 ? parts.join(' · ') : CELL_STATUS[state.status].word);
}
