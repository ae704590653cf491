import { Box, Text } from 'ink';
import { screenRows, type EditorState } from '../state/editor.ts';
import { windowOf } from '../../format/text.ts';
import { useTheme } from '../theme.ts';

export interface EditorProps {
	title: string;
	state: EditorState;
	width: number;
	height: number;
}

/** A multi-line editor for when $EDITOR is not set (ctrl-s saves, esc cancels): the view of a buffer. */
export function Editor({ title, state, width, height }: EditorProps) {
	const theme = useTheme();
	const { rows, cursor } = screenRows(state, width);
	const bodyHeight = Math.max(1, height - 1);
	const shown = windowOf(rows, bodyHeight, Math.max(0, cursor.row - Math.floor(bodyHeight / 2)));
	return (
		<Box flexDirection="column">
			<Text bold wrap="truncate-end" color={theme.color('accent')}>
				{`${title}${state.dirty ? ' (changed)' : ''} · ctrl-s save as a new version · esc cancel`}
			</Text>
			{shown.lines.map((row, i) => {
				const r = shown.offset + i;
				if (r !== cursor.row)
					return (
						<Text key={r} wrap="truncate-end">
							{row === '' ? ' ' : row}
						</Text>
					);
				const cs = [...row];
				return (
					<Text key={r} wrap="truncate-end">
						{cs.slice(0, cursor.col).join('')}
						<Text inverse>{cs[cursor.col] ?? ' '}</Text>
						{cs.slice(cursor.col + 1).join('')}
					</Text>
				);
			})}
		</Box>
	);
}
