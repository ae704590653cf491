import { Box, Text } from 'ink';
import { useEffect, useLayoutEffect, useState } from 'react';
import { Footer } from '../../components/Footer.tsx';
import { Help } from '../../components/Help.tsx';
import type { ScoreControls, SentenceVerdict } from '../../controls.ts';
import { useModel, useTerminalSize } from '../../hooks.ts';
import { useKeys } from '../../keys/KeysProvider.tsx';
import { init, update, type ScoreEffect } from './model.ts';
import { noConfusingText } from '../../state/score-view.ts';
import { styledLines } from '../../styled-lines.ts';
import { clean, cutLines, truncate, windowOf, wrap } from '../../../format/text.ts';
import { useTheme, type Tone } from '../../theme.ts';
import { scoreText } from '../../../format/number.ts';

const TONE: Record<SentenceVerdict, Tone> = {
	pending: 'muted',
	clear: 'ok',
	confusing: 'error',
	failed: 'warn',
};
/** Every verdict is also a mark before its sentence, so it reads without colour. */
const MARK: Record<SentenceVerdict, string> = { pending: '·', clear: '✓', confusing: '✗', failed: '?' };
const LEGEND = '✓ clear  ✗ confusing  ? unreadable  · waiting';
/** Rows the status line may wrap onto (an error says what failed and how to go on) before it is cut. */
const STATUS_ROWS = 3;

/**
 * The marks, one per sentence, in rows of `width`, and the legend after them: on the last row when
 * it fits there whole, else on a row of its own; never broken across rows.
 */
export function marksLayout(
	count: number,
	width: number,
): { rows: { from: number; to: number }[]; legendOwnRow: boolean } {
	const w = Math.max(1, width);
	const rows = Array.from({ length: Math.max(1, Math.ceil(count / w)) }, (_, i) => ({
		from: i * w,
		to: Math.min(count, (i + 1) * w),
	}));
	const last = rows.at(-1)!;
	return { rows, legendOwnRow: last.to - last.from + 2 + LEGEND.length > w };
}

/**
 * BooookScore of the final summary, live: each sentence takes its colour and mark as its
 * annotation arrives; ↑/↓ pick a confusing sentence to read its questions and types.
 */
export function ScoreScreen({
	controls,
	onBack,
	onQuit,
	onValidate,
}: {
	controls: ScoreControls;
	onBack: () => void;
	onQuit: () => void;
	onValidate?: () => void;
}) {
	const theme = useTheme();
	const { columns, rows } = useTerminalSize();
	const [, setTick] = useState(0);
	useEffect(() => controls.onChange(() => setTick((t) => t + 1)), [controls]);
	const sentences = controls.sentences();
	const confusing = sentences.filter((s) => s.verdict === 'confusing');
	const [ui, dispatch] = useModel(
		{ init, update },
		() => ({ confusing: controls.sentences().filter((s) => s.verdict === 'confusing').length }),
		(effect: ScoreEffect) =>
			effect.kind === 'quit' ? onQuit() : effect.kind === 'back' ? onBack() : onValidate?.(),
	);
	useKeys((press) => dispatch({ type: 'press', press }));
	const chosen = confusing[Math.min(ui.pick, confusing.length - 1)];

	const width = Math.max(20, columns - 4);
	type Style = { verdict: SentenceVerdict; picked: boolean };
	const ranges = sentences.flatMap((s) => [
		{ start: s.start, end: s.end, style: { verdict: s.verdict, picked: s === chosen } as Style },
	]);
	const lines = styledLines<Style>(controls.text, ranges, width);
	const done = sentences.filter((s) => s.verdict !== 'pending').length;
	// The frame is counted row by row so it stays below the terminal's height (a frame as tall as
	// the terminal scrolls its header away): the marks wrap, the questions are cut to a few rows.
	const marks = marksLayout(sentences.length, columns);
	const marksRows = marks.rows.length + (marks.legendOwnRow ? 1 : 0);
	const status = cutLines(wrap(clean(controls.status()), columns), STATUS_ROWS, columns);
	const detail = chosen
		? [
				...cutLines(wrap(`Questions: ${clean(chosen.questions)}`, columns), rows >= 30 ? 4 : 2, columns),
				truncate(`Types: ${chosen.types.join(', ')}`, columns),
			]
		: [noConfusingText(sentences.map((s) => s.verdict))];
	// Header and status, the box's borders, the marks, the sentence picked, the footer, one row free.
	const pane = Math.max(1, rows - (1 + status.length + 2 + marksRows + detail.length + 1 + 1));
	const pickedLine = lines.findIndex((l) => l.some((p) => p.style?.picked));
	const shown = windowOf(lines, pane, ui.offset ?? Math.max(0, pickedLine - Math.floor(pane / 3)));
	const shownFrom = shown.offset;
	useLayoutEffect(() => {
		dispatch({ type: 'layout', layout: { page: pane, shownFrom } });
	}, [dispatch, pane, shownFrom]);
	const score = controls.score();
	return (
		<Box flexDirection="column" width={columns}>
			<Text bold>
				{truncate(
					`BooookScore · ${clean(controls.book)} · ${clean(controls.annotator)} · ${done}/${sentences.length} sentences · ${scoreText(score)}`,
					columns,
				)}
			</Text>
			{status.map((line, i) => (
				<Text key={i} color={theme.color('muted')} wrap="truncate">
					{line}
				</Text>
			))}
			{ui.help ? (
				// In the summary's place, so the frame keeps its height.
				<Help screen="score" width={columns} height={pane + 2} scroll={ui.helpScroll} />
			) : (
				<Box flexDirection="column" borderStyle="single" paddingX={1} height={pane + 2}>
					{shown.lines.map((line, i) => (
						<Text key={i} wrap="truncate">
							{line.map((p, k) => (
								<Text
									key={k}
									color={p.style ? theme.color(TONE[p.style.verdict]) : undefined}
									inverse={p.style?.picked ?? false}
								>
									{p.text}
								</Text>
							))}
						</Text>
					))}
				</Box>
			)}
			{marks.rows.map((row, r) => (
				<Text key={r} wrap="truncate">
					{sentences.slice(row.from, row.to).map((s, i) => (
						<Text key={i} color={theme.color(TONE[s.verdict])}>
							{MARK[s.verdict]}
						</Text>
					))}
					{r === marks.rows.length - 1 && !marks.legendOwnRow ? `  ${LEGEND}` : ''}
				</Text>
			))}
			{marks.legendOwnRow ? <Text wrap="truncate">{LEGEND}</Text> : null}
			{detail.map((line, i) => (
				<Text key={i} wrap="truncate" color={chosen ? undefined : theme.color('muted')}>
					{line}
				</Text>
			))}
			<Footer screen="score" hide={onValidate ? [] : ['validate']} />
		</Box>
	);
}
