import { Box, Text, useInput } from 'ink';
import { useRef, useState } from 'react';
import { actionFor } from '../keymap.ts';
import { cursorRow, editKey, editorOf, rowsOf, textOf, type EditorKey } from '../state/editor.ts';
import { clean, windowOf } from '../text.ts';
import { useTheme } from '../theme.ts';

export interface EditorProps {
	title: string;
	text: string;
	width: number;
	height: number;
	onSave: (text: string) => void;
	onCancel: () => void;
	onQuit: () => void;
}

/** A multi-line editor for when $EDITOR is not set: ctrl-s saves, esc cancels. */
export function Editor({ title, text, width, height, onSave, onCancel, onQuit }: EditorProps) {
	const theme = useTheme();
	// What is edited is the text as shown: control sequences a model wrote do not survive an edit.
	const [state, setState] = useState(() => editorOf(clean(text)));
	// Keys can arrive faster than renders: edits apply to the newest buffer, not the rendered one.
	const latest = useRef(state);
	useInput((input, key) => {
		const action = actionFor('editor', { ...key, input });
		if (action === 'save') return onSave(textOf(latest.current));
		if (action === 'cancel') return onCancel();
		if (action === 'quit') return onQuit();
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
		if (edit) {
			latest.current = editKey(latest.current, edit, width);
			setState(latest.current);
		}
	});
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
