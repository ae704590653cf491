import { Box, Text, type Key } from 'ink';
import { actionFor } from '../keymap.ts';
import { cursorRow, editKey, rowsOf, type EditorKey, type EditorState } from '../state/editor.ts';
import { clean, windowOf } from '../text.ts';
import { useTheme } from '../theme.ts';

export interface EditorProps {
	title: string;
	state: EditorState;
	width: number;
	height: number;
}

/**
 * What a key does in the in-app editor: an edit of the buffer, or save, cancel or quit. The screen
 * that owns the editor reads keys itself and calls this, so a key typed the moment the editor opens
 * reaches the buffer (an editor with its own input handler would miss keys until it is mounted).
 */
export function editorInput(state: EditorState, input: string, key: Key, width: number): { state: EditorState; action: 'save' | 'cancel' | 'quit' | null } {
	const action = actionFor('editor', { ...key, input });
	if (action === 'save' || action === 'cancel' || action === 'quit') return { state, action };
	let edit: EditorKey | null = null;
	if (key.leftArrow) edit = { kind: 'left' };
	else if (key.rightArrow) edit = { kind: 'right' };
	else if (key.upArrow) edit = { kind: 'up' };
	else if (key.downArrow) edit = { kind: 'down' };
	else if (key.home) edit = { kind: 'home' };
	else if (key.end) edit = { kind: 'end' };
	else if (key.return) edit = { kind: 'newline' };
	else if (key.backspace) edit = { kind: 'backspace' };
	else if (key.delete) edit = { kind: 'delete' };
	else if (input && !key.ctrl && !key.meta) edit = { kind: 'insert', text: clean(input) };
	return { state: edit ? editKey(state, edit, width) : state, action: null };
}

/** A multi-line editor for when $EDITOR is not set (ctrl-s saves, esc cancels): the view of a buffer. */
export function Editor({ title, state, width, height }: EditorProps) {
	const theme = useTheme();
	const rows = rowsOf(state, width);
	const cursor = cursorRow(state, width);
	const bodyHeight = Math.max(1, height - 1);
	const shown = windowOf(rows, bodyHeight, Math.max(0, cursor.row - Math.floor(bodyHeight / 2)));
	return (
		<Box flexDirection="column">
			<Text bold wrap="truncate-end" color={theme.color('accent')}>
				{`${title}${state.dirty ? ' (changed)' : ''} · ctrl-s save as a new version · esc cancel`}
			</Text>
			{shown.lines.map((row, i) => {
				const r = shown.offset + i;
				if (r !== cursor.row) return <Text key={r} wrap="truncate-end">{row.text === '' ? ' ' : row.text}</Text>;
				const cs = [...row.text];
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
