import { Box, Text } from 'ink';
import type { StudyCell, StudyState } from '../../../engine/study-runner.ts';
import { costText } from '../../../format/cost.ts';
import { formatSeconds } from '../../../format/duration.ts';
import { Footer } from '../../components/Footer.tsx';
import { Help } from '../../components/Help.tsx';
import { ProgressHeader } from '../../components/ProgressHeader.tsx';
import { useNow } from '../../hooks.ts';
import { rateWaitText } from '../../../format/progress.ts';
import { studyScreen, type StudyScreenState } from './model.ts';
import { CELL_STATUS, cellDetail, cellTable } from './table.ts';
import { compactTable, fitTable } from '../../../format/study-table.ts';
import { clean, cutLines, textWidth, truncate, windowOf, wrap } from '../../../format/text.ts';
import { useTheme, type Tone } from '../../theme.ts';
import { counted } from '../../../format/count.ts';

/** Facts about the study the runner's state does not carry. */
export interface StudyInfo {
	name: string;
	/** The command that continues the study (its file as given, and the sessions folder when not the default). */
	again: string;
	/** Every cell's model has a price: costs are dollars, else "cost unknown". */
	priced: boolean;
}

/** The study's results as the headless command prints them: the table's cells (header first) and the lines under it. */
export interface StudyResults {
	table: string[][];
	notes: string[];
}

const PHASES: Record<StudyState['status'], { mark: string; tone: Tone | undefined }> = {
	idle: { mark: '○ starting', tone: 'muted' },
	running: { mark: '▶ running', tone: 'accent' },
	done: { mark: '✓ done', tone: 'ok' },
	failed: { mark: '✗ failed', tone: 'error' },
	cancelled: { mark: '■ stopped', tone: 'warn' },
};

// Title and totals above; the detail of the selected cell, a message and the keys below, and one
// row left free so the frame never fills the terminal (Ink would then clear it on every frame).
const FIXED_ROWS = 6;

/**
 * `booook study FILE` in the terminal: every cell with a live bar of its calls, its status, cost,
 * words and score; the study's totals and elapsed time above; once the study is over, its results
 * table (as the headless command prints it) above the cells.
 */
export function StudyScreen({
	state,
	cells,
	info,
	ui,
	results,
	width,
	rows,
}: {
	state: StudyState;
	cells: readonly StudyCell[];
	info: StudyInfo;
	ui: StudyScreenState;
	results: StudyResults | null;
	width: number;
	rows: number;
}) {
	const theme = useTheme();
	const now = useNow(state.status === 'running', state.startedAt ?? 0);
	if (ui.quitting) return <Text>Stopping: cancelling calls in flight and saving every session…</Text>;
	const header = <StudyHeader state={state} info={info} width={width} now={now} />;
	const cursor = Math.min(ui.cursor, Math.max(0, state.cells.length - 1));
	const selected = state.cells[cursor];
	// The selected cell's error and the message (how to continue) wrap onto a few rows, taken from the cells.
	const n = state.cells.length;
	const detailOf = (more: string) =>
		selected
			? cutLines(wrap(`${clean(selected.key)}${more}: ${cellDetail(selected)}`, width), 3, width)
			: [' '];
	// Its rows are counted with the longest "(i–j of n)" the cells' window can show.
	const detailRows = detailOf(` (${n}–${n} of ${n})`).length;
	const message = cutLines(wrap(clean(ui.message ?? endNote(state, info)), width), 3, width);
	const body = Math.max(4, rows - FIXED_ROWS - (detailRows - 1) - (message.length - 1));
	if (ui.mode === 'help') {
		return (
			<Box flexDirection="column" width={width}>
				{header}
				<Help screen="study" width={width} height={body + 2} scroll={ui.helpScroll} />
				<Footer screen={studyScreen(ui)} />
			</Box>
		);
	}
	const resultRows = results === null ? [] : resultLines(results, width);
	// The cells keep three rows at least (header and two cells); the results take the rest they need.
	const shownResults = resultRows.slice(0, Math.max(0, body - 3));
	const cellRows = body - shownResults.length - 1;
	const table = cellTable(cells, state.cells, width - 2);
	const shown = windowOf(
		state.cells.map((c, i) => ({ c, i })),
		cellRows,
		Math.max(0, cursor - Math.floor(cellRows / 2)),
	);
	const more =
		shown.total > shown.lines.length
			? ` (${shown.offset + 1}–${shown.offset + shown.lines.length} of ${shown.total})`
			: '';
	const detail = detailOf(more).slice(0, detailRows);
	return (
		<Box flexDirection="column" width={width}>
			{header}
			{shownResults.map((line, i) => (
				<Text
					key={`r${i}`}
					bold={i === 0}
					color={i === 0 ? theme.color('accent') : undefined}
					wrap="truncate-end"
				>
					{clean(line)}
				</Text>
			))}
			<Text bold wrap="truncate-end">{`  ${table.header}`}</Text>
			{shown.lines.map(({ c, i }) => (
				<Text
					key={c.key}
					inverse={i === cursor}
					color={theme.color(CELL_STATUS[c.status].tone)}
					wrap="truncate-end"
				>
					{`${i === cursor ? '›' : ' '} ${table.rows[i]}`}
				</Text>
			))}
			{detail.map((line, i) => (
				<Text key={`d${i}`} wrap="truncate-end" color={theme.color('muted')}>
					{line}
				</Text>
			))}
			{message.map((line, i) => (
				<Text key={`m${i}`} color={theme.color('accent')} wrap="truncate-end">
					{line}
				</Text>
			))}
			<Footer screen="study" />
		</Box>
	);
}

/** The results laid out for the width: what every row shares is said once above the table. */
function resultLines(results: StudyResults, width: number): string[] {
	const { caption, table } = compactTable(results.table);
	return [
		'Results',
		...(caption ? wrap(caption, width) : []),
		...(table.length > 0 ? fitTable(table, width) : []),
		...results.notes.flatMap((n) => wrap(n, width)),
	];
}

/** What the message line says when there is no message: how the study stands and how to go on. */
function endNote(state: StudyState, info: StudyInfo): string {
	const again = clean(info.again);
	switch (state.status) {
		case 'done':
			return 'Every cell is done. q quits (the table is printed again on the way out).';
		case 'failed':
			return `Some cells failed (see each cell's error). Fix the cause, then continue with: ${again}`;
		case 'cancelled':
			return `Stopped; every session is saved. Continue with: ${again}`;
		default:
			return ' ';
	}
}

function StudyHeader({
	state,
	info,
	width,
	now,
}: {
	state: StudyState;
	info: StudyInfo;
	width: number;
	now: number;
}) {
	const t = state.totals;
	const phase = PHASES[state.status];
	const counts = [
		`${t.done}/${t.cells} done`,
		t.active > 0 ? `${t.active} running` : null,
		t.failed > 0 ? `${t.failed} failed` : null,
	]
		.filter(Boolean)
		.join(', ');
	// While the account's rate limit holds calls back, that is the news: it takes the title's place.
	const limited = state.status === 'running' ? rateWaitText(state.rateLimit, now) : null;
	const title = truncate(
		limited ?? clean(`booook study ${info.name} · ${counts}`),
		Math.max(10, width - textWidth(phase.mark) - 2),
	);
	const elapsed = state.startedAt === null ? 0 : ((state.endedAt ?? now) - state.startedAt) / 1000;
	const waiting =
		state.batches && state.batches.waiting > 0
			? ` · ${counted(state.batches.waiting, 'batch', 'batches')} ${state.batches.answered}/${state.batches.requests}`
			: '';
	const facts = ` ${t.calls}/${Math.max(t.calls, t.expected)} calls · ${costText(t.cost, info.priced)}${waiting} · ${formatSeconds(elapsed)}`;
	return (
		<ProgressHeader
			title={title}
			waiting={limited !== null}
			mark={phase.mark}
			tone={phase.tone}
			ratio={state.status === 'done' ? 1 : t.expected > 0 ? t.calls / t.expected : 0}
			facts={facts}
			width={width}
		/>
	);
}
