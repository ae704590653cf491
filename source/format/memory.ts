import { formatInt, counted } from './count.ts';
import { DASH } from './missing.ts';
import { percent, percentInterval } from './percent.ts';
import { oneLine } from '../text/sanitize.ts';
import { retentionCurve } from './curve.ts';
import { drawForgetting, type ChartStep } from './forgetting-chart.ts';
import { fixed } from './number.ts';
import { spentText, usd } from './cost.ts';

/**
 * Memory results as `memory` prints them: per session and reader, the accuracy by how far back the
 * true scene lies, by question type and by summary asked, the wrong answers' choices, chance and
 * the ceiling, and the retention curve; several sessions side by side; the JSON.
 */

/*
 * The shapes shown, as much of them as is read: app/memory.ts's `SessionMemory`, memory/results.ts's
 * `Rate` and `MemoryResults`, memory/compare.ts's `FinalRow` (format/ sits below memory/).
 */

/** A share of right answers among `n` questions with its interval. */
export interface Rate {
	n: number;
	accuracy: number;
	low: number;
	high: number;
}

/** What always picking the longest, or the shortest, option scores of `n` questions. */
export interface Shortcuts {
	longest: number;
	shortest: number;
	n: number;
}

type QuestionType = 'lookahead' | 'other-book' | 'distortion';

export interface Results {
	overall: Rate;
	chance: number;
	unreadable: number;
	bins: readonly (Rate & { from: number; to: number; tokens: number })[];
	tokenBins: readonly (Rate & { from: number; to: number })[];
	none: Rate;
	byType: Record<QuestionType, Rate>;
	wrong: Record<QuestionType | 'none' | 'unreadable', number>;
	byTarget: readonly (Rate & { target: { step: number | null }; read: { fraction: number } })[];
	shortcuts: Shortcuts;
}

/** The questions of a side-by-side table: alike in all of these. */
export interface QuestionSet {
	seed: number;
	scenes: string | null;
	distractors: { from: 'level-0' | 'written' | 'both' | null; books: readonly string[] };
	renamed: boolean;
}

/** One reader's row of a final summary's question set, its floor and ceiling on the same questions. */
export type FinalRow = QuestionSet &
	Record<'accuracy' | 'none', Rate> &
	Record<'floor' | 'ceiling', Rate | null> & { reader: string; chance: number; shortcuts: Shortcuts };

/** A session's memory results. */
export interface SessionMemory {
	id: string;
	title: string;
	method: 'hier' | 'inc';
	readers: readonly {
		reader: string;
		shown: 'summary' | 'chunk' | 'none';
		results: Results;
		floor: Results | null;
	}[];
	names: { questions: number; renamed: number };
	final: readonly FinalRow[];
}

/** An incremental run's forgetting map (app/forgetting.ts `Forgetting`). */
export interface Forgetting {
	title: string;
	finished: boolean;
	map: {
		chunks: number;
		steps: readonly (ChartStep & { cited: number; share: number })[];
		survival: readonly { survived: number | null }[];
	};
}

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

/** What a reader was shown, as a block's heading says it. */
const SHOWN = {
	summary: 'shown the summary only',
	chunk: "shown the book's own text of each scene (ceiling)",
	none: 'shown nothing, only the questions (floor)',
} as const;

/** A rate in a column: "50.0% [21.5, 78.5]", or a dash for no question. */
function cell(r: Rate | undefined): string {
	return r === undefined || r.n === 0 ? DASH : percentInterval(r.accuracy, r);
}

/** "options alone: always picking the longest option scores 20.0%, the shortest 16.7% (of 30 questions)": what the options give away. */
export function shortcutLine(s: Shortcuts): string {
	const [longest, shortest] = [s.longest, s.shortest].map((share) => percent(s.n === 0 ? null : share));
	return `options alone: always picking the longest option scores ${longest}, the shortest ${shortest} (of ${counted(s.n, 'question')})`;
}

/** "floor (the same questions, the summary hidden) 20.0% [..] of 30", or that it was not asked. */
function floorNote(floor: Rate | undefined, words = 'the same questions, the summary hidden'): string {
	return floor ? `floor (${words}) ${rate(floor)}` : 'floor not asked';
}

/** ", names randomized" when this book's names were replaced by random ones (`--rename`), in all questions or some. */
function renamedNote({ names }: SessionMemory): string {
	if (names.renamed === 0) return '';
	return names.renamed === names.questions
		? ', names randomized'
		: `, names randomized in ${formatInt(names.renamed)} of ${counted(names.questions, 'question')}`;
}

function readerLines(one: SessionMemory, r: SessionMemory['readers'][number], width: number): string[] {
	const res = r.results;
	const floor = r.floor;
	const column = 'accuracy'.padEnd(22);
	const lines = [
		`${one.title} (${one.method === 'hier' ? 'hierarchical' : 'incremental'}, session ${one.id}${renamedNote(one)}): ${r.reader}, ${SHOWN[r.shown]}`,
		`  accuracy ${rate(res.overall)} (here and below, ${MEMORY_INTERVALS}); ${floorNote(floor?.overall)}; ` +
			`chance ${percent(res.chance)}${res.unreadable > 0 ? `; ${counted(res.unreadable, 'unreadable answer')} counted wrong` : ''}`,
		`  ${shortcutLine(res.shortcuts)}`,
		`  how far back the true scene lies    questions   tokens back   ${floor ? `${column}floor` : 'accuracy'}`,
	];
	const withFloor = (own: Rate, floorRate: Rate | undefined) =>
		floor ? `${cell(own).padEnd(22)}${cell(floorRate)}` : cell(own);
	res.bins.forEach((bin, i) =>
		lines.push(
			`    ${`${percent(bin.from, DASH, 0)} to ${percent(bin.to, DASH, 0)} of the book`.padEnd(32)} ` +
				`${formatInt(bin.n).padStart(9)}   ${(bin.n === 0 ? DASH : formatInt(Math.round(bin.tokens))).padStart(11)} ` +
				`  ${withFloor(bin, floor?.bins[i])}`,
		),
	);
	lines.push(
		`    ${'none of the options is true'.padEnd(32)} ${formatInt(res.none.n).padStart(9)}   ${DASH.padStart(11)}   ${withFloor(res.none, floor?.none)}`,
	);
	if (res.tokenBins.length > 0)
		lines.push(
			`${'  the same in tokens back'.padEnd(37)}questions   ${floor ? `${column}floor` : 'accuracy'}`,
			...res.tokenBins.map(
				(bin) =>
					`    ${(bin.from === 0 ? `under ${counted(bin.to, 'token')}` : `${formatInt(bin.from)} to ${counted(bin.to, 'token')}`).padEnd(32)} ` +
					`${formatInt(bin.n).padStart(9)}   ${withFloor(
						bin,
						floor?.tokenBins.find((b) => b.from === bin.from),
					)}`,
			),
		);
	lines.push(
		`  by question type: lookahead ${rate(res.byType.lookahead)}; other-book ${rate(res.byType['other-book'])}` +
			(res.byType.distortion.n > 0 ? `; distortion ${rate(res.byType.distortion)}` : '') +
			(floor
				? ` (floor: lookahead ${rate(floor.byType.lookahead)}; other-book ${rate(floor.byType['other-book'])}` +
					(floor.byType.distortion.n > 0 ? `; distortion ${rate(floor.byType.distortion)}` : '') +
					')'
				: ''),
		`  wrong answers chose: a lookahead scene ${res.wrong.lookahead}, an other-book scene ${res.wrong['other-book']}` +
			(res.byType.distortion.n > 0 ? `, a distorted scene ${res.wrong.distortion}` : '') +
			`, "None" when a scene was true ${res.wrong.none}` +
			(res.wrong.unreadable > 0 ? `, nothing readable ${res.wrong.unreadable}` : ''),
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

/** What a reader was shown, as `report` says it. */
const REPORT_SHOWN = {
	summary: 'shown the summaries',
	chunk: "shown the book's text (ceiling)",
	none: 'shown nothing (floor)',
} as const;

/** What `report` shows of the memory probes: each reader's accuracy beside its floor, chance, the options' giveaway, and the ceiling. */
export function memorySummaryLines(one: SessionMemory): string[] {
	return [
		`memory probes (NarrativeXL read-along questions; ${MEMORY_INTERVALS}${renamedNote(one)}; details: booook memory)`,
		...one.readers.flatMap((r) => [
			`  ${r.reader}, ${REPORT_SHOWN[r.shown]}: ${rate(r.results.overall)} right; ` +
				`${floorNote(r.floor?.overall, 'the summary hidden')}; chance ${percent(r.results.chance)}`,
			`    ${shortcutLine(r.results.shortcuts)}`,
		]),
	];
}

/** What a side-by-side table's questions are, said above it. */
function setLine(set: QuestionSet): string {
	const scenes =
		set.scenes === 'node'
			? "this book's scenes: the hierarchical run's level-0 summaries"
			: set.scenes === 'written'
				? "this book's scenes: written for the probe (--scenes)"
				: "this book's scenes: not known (no option is this book's)";
	const from = {
		'level-0': "their runs' level-0 summaries",
		written: 'written for the probe',
		both: "written for the probe and their runs' level-0 summaries",
	};
	const others =
		set.distractors.from === null
			? 'no other-book options'
			: `other books' scenes (${from[set.distractors.from]}): ${set.distractors.books.map((b) => oneLine(b)).join('; ')}`;
	const names = set.renamed ? "; this book's names randomized (--rename)" : '';
	return `final summaries, seed ${set.seed}; ${scenes}; ${others}${names}`;
}

/**
 * Several sessions side by side, like with like: only final summaries, in one table per question
 * set (seed, this book's scenes, the other books of the wrong options; app/memory.ts `finalTables`),
 * each row's floor and ceiling measured on its own questions. Rows asked different questions are in different tables.
 */
export function memoryTableLines(
	tables: readonly (readonly { one: SessionMemory; row: FinalRow }[])[],
): string[] {
	const header = [
		'session',
		'method',
		'book',
		'reader',
		'questions',
		'accuracy',
		'floor',
		'ceiling',
		'None',
		'chance',
		'longest',
		'shortest',
	];
	const share = (r: Rate | null) => (r === null || r.n === 0 ? DASH : percent(r.accuracy));
	const lines = [
		'side by side: final summaries only, one table per question set (rows in different tables were asked different questions and are not compared)',
		`  accuracy: shown the summary (${MEMORY_INTERVALS}); floor: the same questions with the summary hidden; ` +
			`ceiling: shown the book's text of each scene; None: the questions whose answer is "None of the above"; ` +
			'longest, shortest: always picking that option',
	];
	if (tables.length === 0) return [...lines, `  ${DASH} no final summary answered yet`];
	for (const table of tables) {
		const cells = table.map(({ one, row }) => [
			one.id,
			one.method,
			oneLine(one.title),
			row.reader,
			formatInt(row.accuracy.n),
			percentInterval(row.accuracy.accuracy, row.accuracy),
			share(row.floor),
			share(row.ceiling),
			share(row.none),
			percent(row.chance),
			percent(row.shortcuts.n === 0 ? null : row.shortcuts.longest),
			percent(row.shortcuts.n === 0 ? null : row.shortcuts.shortest),
		]);
		const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
		const line = (c: readonly string[]) =>
			c
				.map((x, i) => x.padEnd(widths[i]!))
				.join('  ')
				.trimEnd();
		lines.push(
			'',
			setLine(table[0]!.row),
			line(header),
			...cells.map(line),
			...(table.length === 1 ? ['(no other row was asked these questions: nothing to compare it with)'] : []),
		);
	}
	return lines;
}

/** The JSON of one session's results: what the tables show, as numbers. */
export function memoryJson(one: SessionMemory) {
	return {
		session: one.id,
		book: one.title,
		method: one.method,
		// Every rate's low and high are of this one kind.
		interval: { method: 'wilson', level: 0.95, over: 'questions' },
		readers: one.readers.map((r) => ({ reader: r.reader, shown: r.shown, ...r.results, floor: r.floor })),
		names: one.names,
		// The final summary's rows for a side-by-side comparison: compare only rows of the same key.
		final: one.final,
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
		`${formatInt(survived.length)} of ${counted(map.chunks, 'chunk')} were ever cited; a cited ` +
			`chunk stayed cited for ${fixed(mean, 1)} steps on average${found.finished ? '' : ' (the run is not finished: some may stay longer)'}; ` +
			`the last summary cites ${last ? `${formatInt(last.cited)} of ${counted(last.cites.length, 'chunk')} read (${percent(last.share)})` : DASH}`,
	];
}

/** What memory probes will ask and write (app/memory.ts `MemoryPlan`): questions, the floor's and ceiling's, scenes, calls, tokens, cost. */
export function planLine(
	plan: Record<
		'floorToAsk' | 'ceilingToAsk' | 'questionsToAsk' | 'scenesToWrite' | 'calls' | 'inputTokens' | 'cost',
		number
	> & {
		targets: readonly unknown[];
		priced: boolean;
	},
): string {
	const targets =
		plan.targets.length === 1 ? 'the final summary' : counted(plan.targets.length, 'summary', 'summaries');
	const again = [
		plan.floorToAsk > 0 && `${formatInt(plan.floorToAsk)} with the summary hidden (the floor)`,
		plan.ceilingToAsk > 0 && `${formatInt(plan.ceilingToAsk)} shown the book's text (the ceiling)`,
	].filter((x) => x !== false);
	return (
		`${counted(plan.questionsToAsk, 'question')} to ask of ${targets}${again.map((x) => `, ${x}`).join('')}, ` +
		`${counted(plan.scenesToWrite, 'scene')} to write: ${counted(plan.calls, 'call')}, about ${counted(plan.inputTokens, 'token')} ` +
		`in, ${plan.priced ? usd(plan.cost) : 'cost unknown (no price for the model)'}`
	);
}

/** "scenes 12/40", "answers 30/150", "steps placed 100/366": long work's progress. */
export function stageLine(p: { stage: string; done: number; total: number }): string {
	return `${p.stage} ${formatInt(p.done)}/${formatInt(p.total)}`;
}

/** A probe's end: the answers, what they cost, and the unreadable ones counted wrong. */
export function answeredLine(r: {
	answered: number;
	unreadable: number;
	calls: number;
	cost: number;
}): string {
	return `${counted(r.answered, 'answer')} (${spentText(r)})${r.unreadable > 0 ? `; ${r.unreadable} unreadable, counted wrong` : ''}`;
}

/** `memory --plan`'s line of one session: what its probe will ask and write, and with which model. */
export function memoryPlanLine(
	id: string,
	reader: { provider: string; model: string },
	plan: Parameters<typeof planLine>[0],
): string {
	return `${id}: ${planLine(plan)} with ${reader.provider}/${reader.model}`;
}

/** `memory --plan --json`'s object of one session. */
export function memoryPlanJson<Plan extends object>(
	id: string,
	reader: { provider: string; model: string },
	plan: Plan,
) {
	return { session: id, reader: `${reader.provider}/${reader.model}`, ...plan };
}

/** The line a session's probe starts with: the model and what it will ask and write. */
export function probingLine(
	id: string,
	reader: { provider: string; model: string },
	plan: Parameters<typeof planLine>[0],
): string {
	return `memory probes of ${id} with ${reader.provider}/${reader.model}: ${planLine(plan)}`;
}

/** A probe that did not finish: stopped (what was answered is saved) or failed, and the command that continues it. */
export function probeEndLine(
	r: { status: string; error: string | null; calls: number; cost: number },
	again: string,
): string {
	return r.status === 'cancelled'
		? `stopped (${spentText(r)}); what was answered is saved. Continue with: ${again}`
		: `memory probes failed: ${r.error ?? 'unknown error'}. Fix the cause, then continue with: ${again}`;
}

/** `memory`'s results: each session's, then the final summaries side by side (app/memory.ts `finalTables`). */
export function memoryResultLines(
	found: readonly SessionMemory[],
	tables: Parameters<typeof memoryTableLines>[0],
	width: number,
): string[] {
	const lines = found.flatMap((one) => memoryLines(one, width));
	// Side by side when there is more than one final summary's row: of several sessions, or of one asked several question sets.
	if (found.flatMap((f) => f.final).length > 1) lines.push(...memoryTableLines(tables));
	return lines;
}
