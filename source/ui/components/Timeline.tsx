import { Text } from 'ink';
import type { NodeRef } from '../../domain.ts';
import { stepsOf, stepsTotal, type NodeView, type ViewState } from '../state/view.ts';
import { STATUS_TONE, useTheme } from '../theme.ts';
import { markOf } from './Tree.tsx';

/** A compression is drawn apart from updates, so the steps that shortened the summary stand out. */
export const COMPRESS_MARK = '▿';

function stepMark(n: NodeView): string {
	return n.kind === 'compress' && n.status === 'done' ? COMPRESS_MARK : markOf(n);
}

/** Every incremental step as a mark, the shown one inverted; long runs show the window around it. */
export function Timeline({
	view,
	current,
	width,
}: {
	view: ViewState;
	current: NodeRef | null;
	width: number;
}) {
	const theme = useTheme();
	const steps = stepsOf(view);
	const at = Math.max(
		0,
		steps.findIndex((n) => n.id === current),
	);
	const room = Math.max(4, width - 16);
	const start = Math.min(Math.max(0, at - Math.floor(room / 2)), Math.max(0, steps.length - room));
	const shown = steps.slice(start, start + room);
	return (
		<Text wrap="truncate-end">
			<Text bold>{`call ${at + 1}/${stepsTotal(view)} `.padEnd(14)}</Text>
			{start > 0 ? '…' : ''}
			{shown.map((n) => (
				<Text key={n.id} inverse={n.id === current} color={theme.color(STATUS_TONE[n.status])}>
					{stepMark(n)}
				</Text>
			))}
			{start + room < steps.length ? '…' : ''}
		</Text>
	);
}
