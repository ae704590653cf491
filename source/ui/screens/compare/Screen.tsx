import { Box, Text, useApp } from 'ink';
import { useSyncExternalStore } from 'react';
import type { CompareWalk } from '../../../app/compare.ts';
import { CRITERIA, shownChoice, shownOrder, systemOf, type Criterion } from '../../../score/compare.ts';
import { CRITERION_NAME } from '../../../format/compare.ts';
import { WalkFoot, walkFootRows } from '../../components/WalkFoot.tsx';
import { Help } from '../../components/Help.tsx';
import { useKeyedModel, useTerminalSize } from '../../hooks.ts';
import { clean, textWidth, truncate, wrap } from '../../../format/text.ts';
import { useTheme } from '../../theme.ts';
import { reportSave } from '../walk.ts';
import {
	init,
	judged,
	SHOWN_WORD,
	screenOf,
	update,
	type CompareEffect,
	type CompareMsg,
	type CompareWorld,
	type Shown,
} from './model.ts';
import { useProgram } from '../../program-context.ts';

/** Side by side from this width; one above the other below it. */
const SIDE_BY_SIDE = 120;

/**
 * The blind comparison of two summaries of one book: A and B in the order drawn for the pair,
 * side by side on a wide terminal, one above the other on a narrow one; the four criteria under
 * them, each answered with a, b or t. Who made each summary is shown only once the pair is judged
 * on all four. Every key goes through the keymap into one update (model.ts).
 */
export function CompareScreen({
	walk,
	reportHint,
	onBack,
	onQuit,
}: {
	walk: CompareWalk;
	reportHint?: string;
	onBack?: () => void;
	onQuit?: () => void;
}) {
	useSyncExternalStore(walk.subscribe, walk.getVersion);
	const theme = useTheme();
	const program = useProgram();
	const { exit } = useApp();
	const { columns, rows } = useTerminalSize();
	const pairs = walk.pairs;

	const answersOf = () => {
		const mine = walk.judgments();
		return new Map(
			pairs.flatMap((p, i) => {
				const j = mine.get(p.id);
				if (!j) return [];
				const shown: Partial<Record<Criterion, Shown>> = {};
				for (const c of CRITERIA) if (j.choices[c]) shown[c] = shownChoice(p, j.choices[c]);
				return [[i, shown] as const];
			}),
		);
	};
	const world = (): CompareWorld => {
		const mine = walk.judgments();
		const latest = walk.latest();
		const at = latest ? pairs.findIndex((p) => p.id === latest.pair) : -1;
		return {
			pairs: pairs.length,
			answers: answersOf(),
			notes: new Map(
				pairs.flatMap((p, i) => (mine.get(p.id)?.note ? [[i, mine.get(p.id)!.note] as const] : [])),
			),
			latest:
				at === -1
					? null
					: { pair: at, criterion: latest!.criterion === null ? null : CRITERIA.indexOf(latest!.criterion) },
			page: Math.max(1, Math.floor((rows - 12) / 2)),
		};
	};

	const quit = () => (onQuit ? onQuit() : exit());
	const finished = `every pair is judged${reportHint ? `; see the results with ${reportHint}` : ''}`;
	const perform = (effect: CompareEffect, dispatch: (msg: CompareMsg) => void): void => {
		switch (effect.kind) {
			case 'quit':
				return quit();
			case 'back':
				return onBack ? onBack() : quit();
			case 'choose':
				return reportSave(
					walk.choose(pairs[effect.pair]!, effect.criterion, effect.choice),
					() => {
						const p = walk.progress();
						return p.judged === p.total ? `${effect.done} · ${finished}` : effect.done;
					},
					dispatch,
					program,
				);
			case 'note':
				return reportSave(walk.note(pairs[effect.pair]!, effect.note), () => effect.done, dispatch, program);
			case 'undo':
				return reportSave(
					walk.undo(),
					(undone) => (undone ? 'undone' : 'nothing to undo'),
					dispatch,
					program,
				);
		}
	};
	// The walk opens on the first pair not judged yet.
	const start = () => {
		const answers = answersOf();
		const open = pairs.findIndex((_, i) => !judged(answers.get(i)));
		return init(open === -1 ? 0 : open, { answers });
	};
	const ui = useKeyedModel({ init: start, update }, world, perform, (state) => screenOf(state.overlay));

	if (ui.overlay.kind === 'help')
		return (
			<Help screen="compare" width={columns} height={Math.max(3, rows - 1)} scroll={ui.overlay.scroll} />
		);
	const width = Math.max(20, columns - 2);
	if (pairs.length === 0) {
		return (
			<Box flexDirection="column">
				<Text>{clean(walk.name)}: no pairs to compare.</Text>
				<Text color={theme.color('muted')}>q quit</Text>
			</Box>
		);
	}

	const index = Math.min(ui.index, pairs.length - 1);
	const pair = pairs[index]!;
	const [first, second] = shownOrder(pair);
	const mine = walk.judgments().get(pair.id);
	const answers = answersOf().get(index) ?? {};
	const reveal = walk.reveal(pair);
	const { judged: done, total } = walk.progress();
	const note = mine?.note ?? null;

	const fixed =
		2 +
		1 +
		CRITERIA.length +
		(reveal ? 2 : 0) +
		(note ? 1 : 0) +
		walkFootRows(ui.overlay.kind === 'note' ? ui.overlay.field : null, ui.message ?? null) +
		1;
	const sideBySide = columns >= SIDE_BY_SIDE;
	const textOf = (key: string) => clean(walk.contender(key).text);
	const panes = (() => {
		if (sideBySide) {
			const w = Math.floor((width - 3) / 2);
			const height = Math.max(3, rows - fixed - 2);
			const a = [`A`, ...wrap(textOf(pair[first]), w)];
			const b = [`B`, ...wrap(textOf(pair[second]), w)];
			const from = Math.min(ui.scroll, Math.max(0, Math.max(a.length, b.length) - height));
			const lines: string[] = [];
			for (let i = 0; i < height; i++) {
				const row = i === 0 ? 0 : from + i;
				const left = a[row] ?? '';
				lines.push(`${left}${' '.repeat(Math.max(0, w - textWidth(left)))} │ ${b[row] ?? ''}`);
			}
			return lines;
		}
		const height = Math.max(2, Math.floor((rows - fixed - 2) / 2));
		const pane = (label: string, key: string) => {
			const lines = wrap(textOf(pair[key as 'x' | 'y']), width);
			const from = Math.min(ui.scroll, Math.max(0, lines.length - (height - 1)));
			return [label, ...lines.slice(from, from + height - 1)];
		};
		return [...pane('A', first), ...pane('B', second)];
	})();
	const who = (key: string) => {
		const c = walk.contender(key);
		return `${systemOf(c)} · session ${c.session}${c.summary ? ` (${c.summary})` : ''}`;
	};

	return (
		<Box flexDirection="column" width={columns}>
			<Text bold wrap="truncate">
				{truncate(`Compare · ${clean(walk.name)} · annotator ${clean(walk.annotator)}`, width)}
			</Text>
			<Text wrap="truncate" color={theme.color('accent')}>
				{truncate(
					`pair ${index + 1}/${pairs.length} · judged ${done}/${total} · ${clean(walk.book(pair))}`,
					width,
				)}
			</Text>
			{panes.map((line, i) => (
				<Text key={i} wrap="truncate" bold={line === 'A' || line === 'B'}>
					{truncate(line, width) || ' '}
				</Text>
			))}
			<Text color={theme.color('muted')} wrap="truncate">
				{'─'.repeat(Math.min(width, 60))}
			</Text>
			{CRITERIA.map((c, i) => {
				const given = answers[c];
				return (
					<Text key={c} wrap="truncate" color={i === ui.criterion ? theme.color('accent') : undefined}>
						{truncate(
							`${i === ui.criterion ? '▸' : ' '} ${CRITERION_NAME[c].padEnd(28)} ${given ? SHOWN_WORD[given] : '·'}`,
							width,
						)}
					</Text>
				);
			})}
			{reveal ? (
				<>
					<Text wrap="truncate" color={theme.color('ok')}>
						{truncate(`A was ${clean(who(pair[first]))}`, width)}
					</Text>
					<Text wrap="truncate" color={theme.color('ok')}>
						{truncate(`B was ${clean(who(pair[second]))}`, width)}
					</Text>
				</>
			) : null}
			{note ? <Text wrap="truncate">{truncate(`note: ${clean(note)}`, width)}</Text> : null}
			<WalkFoot
				note={ui.overlay.kind === 'note' ? ui.overlay.field : null}
				message={ui.message ?? null}
				width={width}
				screen={screenOf(ui.overlay)}
			/>
		</Box>
	);
}
