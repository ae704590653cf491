import { percent } from './percent.ts';

/**
 * The retention curve in plain characters: accuracy (up, 0 to 100%) against how far back the true
 * scene lies (across, as a share of the book), one bar per demand bin, with the chance level
 * drawn across. No colour: it reads the same in a log, a pipe and a terminal. Pure.
 */

/** The narrowest curve drawn: a narrower width is widened to it. */
export const MIN_CURVE_WIDTH = 40;
/** The fewest rows of the accuracy axis. */
export const MIN_CURVE_HEIGHT = 3;

const BAR = '#';
/** A bin whose accuracy is 0: something answered, unlike an empty bin's gap. */
const FLOOR = '_';
const CHANCE = '.';
/** "100% |": the accuracy axis's labels and its line. */
const LEFT = 6;

export interface CurveBin {
	from: number;
	to: number;
	n: number;
	accuracy: number;
}

export interface CurveOptions {
	/** Columns the lines fit in (at least MIN_CURVE_WIDTH). */
	width: number;
	/** Rows of the accuracy axis (at least MIN_CURVE_HEIGHT); the axis, its labels and a legend follow them. */
	height: number;
	/** The accuracy of a uniform guess, drawn across; NaN draws none. */
	chance: number;
}

/** How many of `rows` a share fills, from the bottom. */
const rowsOf = (share: number, rows: number): number => Math.round(Math.min(1, Math.max(0, share)) * rows);

/** The curve's lines: `height` rows of bars, the distance axis, its labels and two lines of legend. */
export function retentionCurve(bins: readonly CurveBin[], { width, height, chance }: CurveOptions): string[] {
	const columns = Math.max(MIN_CURVE_WIDTH, width) - LEFT;
	const rows = Math.max(MIN_CURVE_HEIGHT, height);
	const grid = Array.from({ length: rows }, () => Array<string>(columns).fill(' '));
	const chanceRow = Number.isFinite(chance) ? rows - rowsOf(chance, rows) : -1;
	if (chanceRow >= 0 && chanceRow < rows) grid[chanceRow]!.fill(CHANCE);
	for (const bin of bins) {
		if (bin.n === 0 || !Number.isFinite(bin.accuracy)) continue;
		const first = Math.floor(bin.from * columns);
		let last = Math.min(columns, Math.floor(bin.to * columns));
		// A bar wide enough keeps a column of space from the next one.
		if (last - first >= 3) last--;
		const filled = rowsOf(bin.accuracy, rows);
		for (let c = first; c < last; c++) {
			if (filled === 0) grid[rows - 1]![c] = FLOOR;
			for (let r = rows - filled; r < rows; r++) grid[r]![c] = BAR;
		}
	}
	const label = (r: number): string => {
		if (r === 0) return '100%';
		if (r === chanceRow) return percent(chance, '', 0);
		if (r === rows - rowsOf(0.5, rows)) return '50%';
		return '';
	};
	const lines = grid.map((row, r) => `${label(r).padStart(LEFT - 2)} |${row.join('')}`.trimEnd());
	lines.push(`${'0%'.padStart(LEFT - 2)} +${'-'.repeat(columns)}`);
	lines.push(distanceLabels(bins, columns));
	const chanceText = percent(Number.isFinite(chance) ? chance : null, '-', 0);
	lines.push(`${' '.repeat(LEFT)}${BAR} accuracy  ${CHANCE} chance ${chanceText}`);
	lines.push(`${' '.repeat(LEFT)}across: how far back (% of book)`);
	return lines.map((line) => line.slice(0, LEFT + columns));
}

/**
 * The bins' edges as percentages under the axis, where they fit without running into each other:
 * the two ends first, so the scale always shows where it starts and ends.
 */
function distanceLabels(bins: readonly CurveBin[], columns: number): string {
	const edges = [...new Set(bins.flatMap((b) => [b.from, b.to]))].sort((a, b) => a - b);
	const ends = edges.length > 0 ? edges : [0, 1];
	const line = Array<string>(LEFT + columns).fill(' ');
	const taken = Array<boolean>(LEFT + columns + 1).fill(false);
	for (const edge of [ends[0]!, ends.at(-1)!, ...ends.slice(1, -1)]) {
		const text = percent(edge, '', 0);
		const at = Math.min(LEFT + columns - text.length, LEFT + Math.floor(edge * columns));
		// A label keeps a space from its neighbours.
		if (taken.slice(Math.max(0, at - 1), at + text.length + 1).some(Boolean)) continue;
		line.splice(at, text.length, ...text);
		taken.fill(true, at, at + text.length);
	}
	return line.join('').trimEnd();
}
