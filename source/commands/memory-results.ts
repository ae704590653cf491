import type { Forgetting } from '../app/forgetting.ts';
import type { SessionMemory } from '../app/memory.ts';
import { drawForgetting } from '../evidence/forgetting-chart.ts';
import { formatInt, counted } from '../format/count.ts';
import { DASH } from '../format/missing.ts';
import { percent, percentInterval } from '../format/percent.ts';
import { retentionCurve } from '../memory/curve.ts';
import type { Rate, ReaderResults } from '../memory/results.ts';

/**
 * Memory results as `memory` prints them: per session and reader, the accuracy by how far back the
 * true scene lies, by question type and by summary asked, the wrong answers' choices, chance and
 * the ceiling, and the retention curve; several sessions side by side; the JSON.
 */

/** What every interval of the memory results is. */
export const MEMORY_INTERVALS = "95% Wilson intervals over each row's questions";

/** Rows of the retention curve's accuracy axis. */
const CURVE_ROWS = 8;

/** "63.3% [46.7, 80.0] of 30 questions", or a dash for no question. */
function rate(r: Rate): string {
	return r.n === 0 ? DASH : `${percentInterval(r.accuracy, r)} of ${counted(r.n, 'question')}`;
}

/** Where a summary asked stands: "final summary" or "step 12 (40.0% read)". */
function targetName(t: { target: { step: number | null }; read: { fraction: number } }): string {
	return t.target.step === null
		? 'final summary'
		: `step ${t.target.step + 1} (${percent(t.read.fraction)} of the book read)`;
}

function readerLines(one: SessionMemory, r: ReaderResults, width: number): string[] {
	const res = r.results;
	const shown =
		r.shown === 'summary' ? 'shown the summary only' : "shown the book's own text of each scene (ceiling)";
	const lines = [
		`${one.title} (${one.method === 'hier' ? 'hierarchical' : 'incremental'}, session ${one.id}): ${r.reader}, ${shown}`,
		`  accuracy ${rate(res.overall)} (here and below, ${MEMORY_INTERVALS}); chance ${percent(res.chance)}${res.unreadable > 0 ? `; ${counted(res.unreadable, 'unreadable answer')} counted wrong` : ''}`,
		'  how far back the true scene lies    questions   tokens back   accuracy',
	];
	for (const bin of res.bins)
		lines.push(
			`    ${`${percent(bin.from, DASH, 0)} to ${percent(bin.to, DASH, 0)} of the book`.padEnd(32)} ${formatInt(bin.n).padStart(9)}   ${(bin.n === 0 ? DASH : formatInt(Math.round(bin.tokens))).padStart(11)}   ${bin.n === 0 ? DASH : percentInterval(bin.accuracy, bin)}`,
		);
	lines.push(
		`    ${'none of the options is true'.padEnd(32)} ${formatInt(res.none.n).padStart(9)}   ${DASH.padStart(11)}   ${res.none.n === 0 ? DASH : percentInterval(res.none.accuracy, res.none)}`,
	);
	if (res.tokenBins.length > 0)
		lines.push(
			`${'  the same in tokens back'.padEnd(37)}questions   accuracy`,
			...res.tokenBins.map(
				(bin) =>
					`    ${(bin.from === 0 ? `under ${counted(bin.to, 'token')}` : `${formatInt(bin.from)} to ${counted(bin.to, 'token')}`).padEnd(32)} ${formatInt(bin.n).padStart(9)}   ${bin.n === 0 ? DASH : percentInterval(bin.accuracy, bin)}`,
			),
		);
	lines.push(
		`  by question type: lookahead ${rate(res.byType.lookahead)}; other-book ${rate(res.byType['other-book'])}`,
		`  wrong answers chose: a lookahead scene ${res.wrong.lookahead}, an other-book scene ${res.wrong['other-book']}, "None" when a scene was true ${res.wrong.none}${res.wrong.unreadable > 0 ? `, nothing readable ${res.wrong.unreadable}` : ''}`,
	);
	if (res.byTarget.length > 1)
		lines.push(
			'  by summary asked:',
			...res.byTarget.map((t) => `    ${targetName(t).padEnd(36)} ${rate(t)}`),
		);
	lines.push(
		'  retention curve (accuracy against how far back the true scene lies; dots: chance):',
		...retentionCurve(res.bins, {
			width: Math.min(width, 100) - 2,
			height: CURVE_ROWS,
			chance: res.chance,
		}).map((l) => `  ${l}`),
	);
	return lines;
}

/** One session's results, every reader's, or how to get some when there are none. */
export function memoryLines(one: SessionMemory, width: number): string[] {
	if (one.readers.length === 0) return [`${one.title} (session ${one.id}): no memory answers yet`];
	return one.readers.flatMap((r) => [...readerLines(one, r, width), '']);
}

/** What `report` shows of the memory probes: each reader's accuracy, against chance, and the ceiling. */
export function memorySummaryLines(one: SessionMemory): string[] {
	return [
		`memory probes (NarrativeXL read-along questions; ${MEMORY_INTERVALS}; details: booook memory)`,
		...one.readers.map(
			(r) =>
				`  ${r.reader}, ${r.shown === 'summary' ? 'shown the summaries' : "shown the book's text (ceiling)"}: ${rate(r.results.overall)} right; chance ${percent(r.results.chance)}`,
		),
	];
}

/** Several sessions side by side (hierarchical against incremental): the summaries' accuracy and the ceiling. */
export function memoryTableLines(found: readonly SessionMemory[]): string[] {
	const header = [
		'session',
		'method',
		'reader',
		'questions',
		'accuracy',
		'lookahead',
		'other-book',
		'None',
		'chance',
		'ceiling',
	];
	const rows = found.flatMap((one) =>
		one.readers
			.filter((r) => r.shown === 'summary')
			.map((r) => {
				const ceiling = one.readers.find((c) => c.shown === 'chunk' && c.reader === r.reader);
				const res = r.results;
				return [
					one.id,
					one.method,
					r.reader,
					formatInt(res.n),
					percentInterval(res.overall.accuracy, res.overall),
					percent(res.byType.lookahead.n === 0 ? null : res.byType.lookahead.accuracy),
					percent(res.byType['other-book'].n === 0 ? null : res.byType['other-book'].accuracy),
					percent(res.none.n === 0 ? null : res.none.accuracy),
					percent(res.chance),
					ceiling ? percent(ceiling.results.overall.accuracy) : DASH,
				];
			}),
	);
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
	const line = (cells: readonly string[]) =>
		cells
			.map((c, i) => c.padEnd(widths[i]!))
			.join('  ')
			.trimEnd();
	return [
		`side by side (the final and running summaries together; ${MEMORY_INTERVALS}):`,
		line(header),
		...rows.map(line),
	];
}

/** The JSON of one session's results: what the tables show, as numbers. */
export function memoryJson(one: SessionMemory) {
	return {
		session: one.id,
		book: one.title,
		method: one.method,
		// Every rate's low and high are of this one kind.
		interval: { method: 'wilson', level: 0.95, over: 'questions' },
		readers: one.readers.map((r) => ({ reader: r.reader, shown: r.shown, ...r.results })),
	};
}

/** Rows the forgetting map may take: a screenful. */
const MAP_ROWS = 30;

/** An incremental run's forgetting map under a line saying what it shows, and how long chunks stayed cited. */
export function forgettingLines(found: Forgetting, width: number): string[] {
	const { map } = found;
	const survived = map.survival.filter((c) => c.survived !== null).map((c) => c.survived!);
	const mean = survived.length === 0 ? null : survived.reduce((a, b) => a + b, 0) / survived.length;
	const last = map.steps.at(-1);
	return [
		`${found.title}: which chunks the running summary still cites after each step (no model call; placed as evidence places sentences)`,
		...drawForgetting(map, { width: Math.max(40, width), height: MAP_ROWS }),
		`${formatInt(survived.length)} of ${counted(map.chunks, 'chunk')} were ever cited; a cited chunk stayed cited for ${mean === null ? DASH : mean.toFixed(1)} steps on average${found.finished ? '' : ' (the run is not finished: some may stay longer)'}; the last summary cites ${last ? `${formatInt(last.cited)} of ${counted(last.cites.length, 'chunk')} read (${percent(last.share)})` : DASH}`,
	];
}
