import { counted } from './count.ts';

/**
 * The forgetting map drawn in plain characters: a row per step (the first at the top), a column per
 * chunk. A cell is blank where the step had not read the chunk yet (right of the diagonal), `·` where
 * it had but its running summary no longer cites it, and `░ ▒ ▓ █` where 1, 2, 3 or more sentences
 * cite it. When the steps or chunks outnumber the rows or columns there is room for, consecutive
 * ones share a cell, which shows the mean number of citing sentences over the (step, chunk) pairs it
 * holds whose chunk was read by then (blank when none was). Above the grid, chunk numbers; left of
 * it, the number of each row's first step; below it, a one-line legend. Numbers count from 1, as a
 * person reads them (summarize/places.ts).
 */

/** The shades for a cell citing up to 1, 2, 3, or more sentences (a mean, when a cell holds several). */
/** What the map draws of a step (evidence/forgetting.ts `ForgettingStep`): sentences citing each chunk read so far. */
export interface ChartStep {
	/** The step (the chunk it read), counted from 0. */
	step: number;
	cites: readonly number[];
}

/** The chunks of the book and the steps done, in order (evidence/forgetting.ts `ForgettingMap`). */
export interface ChartMap {
	chunks: number;
	steps: readonly ChartStep[];
}

const SHADES = ['░', '▒', '▓', '█'] as const;
const NOT_CITED = '·';
const STEP = 'step';
/**
 * A chunk is drawn at most two characters wide: a terminal's character cell is about twice as tall
 * as it is wide, so two make it square.
 */
const MAX_CELL_WIDTH = 2;

/** The lines of the map, at most `height` lines of at most `width` characters; `height` is at least 3. */
export function drawForgetting(map: ChartMap, size: { width: number; height: number }): string[] {
	const { width, height } = size;
	const label = Math.max(STEP.length, String((map.steps.at(-1)?.step ?? 0) + 1).length);
	if (!Number.isInteger(height) || height < 3)
		throw new Error(`a forgetting map needs a height of at least 3 lines, got ${height}`);
	if (!Number.isInteger(width) || width < label + 2)
		throw new Error(`a forgetting map needs a width of at least ${label + 2}, got ${width}`);
	const room = width - label - 1;
	const columns = Math.min(map.chunks, room);
	const cell = columns === 0 ? 1 : Math.min(MAX_CELL_WIDTH, Math.floor(room / columns));
	const rows = Math.min(map.steps.length, height - 2);
	const chunkBuckets = buckets(map.chunks, columns);
	const stepBuckets = buckets(map.steps.length, rows);
	const lines = [`${STEP.padStart(label)} ${chunkAxis(chunkBuckets, cell, map.chunks)}`.trimEnd()];
	for (const [from, to] of stepBuckets) {
		const steps = map.steps.slice(from, to);
		const cells = chunkBuckets.map(([lo, hi]) => mark(steps, lo, hi).repeat(cell)).join('');
		lines.push(`${String(steps[0]!.step + 1).padStart(label)} ${cells}`.trimEnd());
	}
	lines.push(legend(width, largest(stepBuckets), largest(chunkBuckets)));
	return lines;
}

/** `n` items in `count` runs of consecutive ones, as `[from, to)`; `count` is at most `n`. */
function buckets(n: number, count: number): [number, number][] {
	return Array.from({ length: count }, (_, k) => [
		Math.floor((k * n) / count),
		Math.floor(((k + 1) * n) / count),
	]);
}

function largest(list: readonly [number, number][]): number {
	return Math.max(0, ...list.map(([from, to]) => to - from));
}

/** The cell of `steps` and chunks `[lo, hi)`. */
function mark(steps: readonly ChartStep[], lo: number, hi: number): string {
	let pairs = 0;
	let sentences = 0;
	for (const s of steps) {
		for (let c = lo; c < Math.min(hi, s.step + 1); c++) {
			pairs++;
			sentences += s.cites[c]!;
		}
	}
	if (pairs === 0) return ' ';
	const mean = sentences / pairs;
	return mean === 0 ? NOT_CITED : SHADES[Math.min(SHADES.length, Math.ceil(mean)) - 1]!;
}

/**
 * Chunk numbers over the grid: the first chunk, then every `tick`-th at the column holding it (`tick`
 * the smallest of 1, 2, 5, 10, 20, 50... that leaves a space between labels), and the last chunk
 * ending the axis where there is room.
 */
function chunkAxis(columns: readonly [number, number][], cell: number, chunks: number): string {
	if (chunks === 0) return '';
	const axis = Array.from({ length: columns.length * cell }, () => ' ');
	const columnOf: number[] = [];
	columns.forEach(([lo, hi], j) => {
		for (let c = lo; c < hi; c++) columnOf[c] = j;
	});
	const gap = String(chunks).length + 1;
	const perChunk = axis.length / Math.max(1, chunks);
	const tickOf = (k: number) => [1, 2, 5][k % 3]! * 10 ** Math.floor(k / 3);
	let k = 0;
	while (tickOf(k) * perChunk < gap) k++;
	let free = 0;
	const put = (chunk: number, at: number) => {
		const text = String(chunk + 1);
		if (at < free || at + text.length > axis.length) return;
		axis.splice(at, text.length, ...text);
		free = at + text.length + 1;
	};
	put(0, 0);
	for (let number = tickOf(k); number <= chunks; number += tickOf(k))
		put(number - 1, columnOf[number - 1]! * cell);
	put(chunks - 1, axis.length - String(chunks).length);
	return axis.join('');
}

/** The legend, the longest of its wordings that fits `width` (the shortest cut to it). */
function legend(width: number, stepsPerRow: number, chunksPerColumn: number): string {
	const shared = stepsPerRow > 1 || chunksPerColumn > 1;
	const shades = SHADES.join('');
	const cell = `${counted(stepsPerRow, 'step')} × ${counted(chunksPerColumn, 'chunk')}`;
	const short = `${NOT_CITED} not cited ${shades} 1 2 3 4+`;
	const wordings = [
		`${NOT_CITED} read, no longer cited; ${shades} cited by 1, 2, 3, 4+ sentences${shared ? `; a cell: the mean of up to ${cell}` : ''}`,
		`${NOT_CITED} not cited; ${shades} cited by 1, 2, 3, 4+ sentences${shared ? `; a cell: ≤${cell}` : ''}`,
		...(shared ? [`${short} cell ≤${stepsPerRow}×${chunksPerColumn}`] : []),
		short,
	];
	const fits = wordings.find((w) => w.length <= width);
	return fits ?? short.slice(0, width);
}
