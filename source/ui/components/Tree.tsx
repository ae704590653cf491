import { Box, Text } from 'ink';
import { memo } from 'react';
import type { NodeRef } from '../../domain.ts';
import { levelsOf, levelTotal, type NodeView, type ViewState } from '../state/view.ts';
import { MARKS, OVER_BUDGET_MARK, STATUS_TONE, useTheme } from '../theme.ts';

const LABEL_WIDTH = 6;
const COUNT_WIDTH = 10;

export function markOf(n: NodeView): string {
	return n.status === 'done' && n.overBudget ? OVER_BUDGET_MARK : MARKS[n.status];
}

interface Row {
	label: string;
	nodes: NodeView[];
	done: number;
	total: number;
}

/**
 * Lines of the tree: one level after another, each as marks that wrap to `perLine`; a level with
 * more nodes than `linesPerLevel` lines hold shows the window around the selection (or what runs).
 */
export function treeRows(view: ViewState, selected: NodeRef | null, width: number, height: number): Row[] {
	const levels = levelsOf(view);
	if (levels.length === 0) return [];
	const perLine = Math.max(4, width - LABEL_WIDTH - COUNT_WIDTH);
	const shown = levels.slice(0, Math.max(1, height));
	// Every level gets a line; the lines left go to the levels that need more, lowest first.
	const lines = shown.map(() => 1);
	let spare = Math.max(0, height - shown.length);
	shown.forEach((level, i) => {
		const extra = Math.min(spare, Math.ceil(level.nodes.length / perLine) - 1);
		lines[i]! += extra;
		spare -= extra;
	});
	const rows: Row[] = [];
	shown.forEach((level, i) => {
		const done = level.nodes.filter((n) => n.status === 'done').length;
		const capacity = perLine * lines[i]!;
		let nodes = level.nodes;
		if (nodes.length > capacity) {
			let focus = nodes.findIndex((n) => n.id === selected);
			if (focus < 0) focus = nodes.findIndex((n) => n.status === 'running');
			if (focus < 0) focus = nodes.length - 1;
			const start = Math.min(Math.max(0, focus - Math.floor(capacity / 2)), nodes.length - capacity);
			nodes = nodes.slice(start, start + capacity);
		}
		for (let at = 0; at < nodes.length; at += perLine) {
			rows.push({
				label: at === 0 ? level.label : '',
				nodes: nodes.slice(at, at + perLine),
				done,
				// The clean step is one node; a level's count is the run's estimate until all of it is planned.
				total:
					level.label === 'clean' ? level.nodes.length : levelTotal(view, level.level, level.nodes.length),
			});
		}
	});
	return rows.slice(0, Math.max(1, height));
}

/** Levels as rows of status marks; the selected node is shown inverted. */
export const Tree = memo(function Tree({
	view,
	selected,
	width,
	height,
}: {
	view: ViewState;
	selected: NodeRef | null;
	width: number;
	height: number;
}) {
	const theme = useTheme();
	const rows = treeRows(view, selected, width, height);
	return (
		<Box flexDirection="column">
			{rows.map((row, r) => {
				// Consecutive marks of one status are one Text, so a wide level costs a few elements.
				const runs: { key: string; text: string; status: NodeView['status']; selected: boolean }[] = [];
				for (const n of row.nodes) {
					const sel = n.id === selected;
					const last = runs.at(-1);
					if (last && !sel && !last.selected && last.status === n.status) last.text += markOf(n);
					else runs.push({ key: n.id, text: markOf(n), status: n.status, selected: sel });
				}
				return (
					<Box key={r}>
						<Box width={LABEL_WIDTH} flexShrink={0}>
							<Text bold>{row.label}</Text>
						</Box>
						<Box flexGrow={1}>
							<Text wrap="truncate-end">
								{runs.map((run) => (
									<Text key={run.key} inverse={run.selected} color={theme.color(STATUS_TONE[run.status])}>
										{run.text}
									</Text>
								))}
							</Text>
						</Box>
						<Box width={COUNT_WIDTH} flexShrink={0} justifyContent="flex-end">
							<Text dimColor>{row.label ? `${row.done}/${row.total}` : ''}</Text>
						</Box>
					</Box>
				);
			})}
		</Box>
	);
});
