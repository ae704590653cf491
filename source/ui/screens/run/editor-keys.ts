import { actionFor, type KeyPress } from '../../keymap.ts';
import { editKey, type EditorKey, type EditorState } from '../../state/editor.ts';
import { textEdit } from '../../state/text-field.ts';

/** What a key press does in the in-app editor: an edit of the buffer, or save, cancel or quit. */
export function editorPress(
	buffer: EditorState,
	press: KeyPress,
	width: number,
): { buffer: EditorState; action: 'save' | 'cancel' | 'quit' | null } {
	const action = actionFor('editor', press);
	if (action === 'save' || action === 'cancel' || action === 'quit') return { buffer, action };
	const edit = editOf(press);
	return { buffer: edit ? editKey(buffer, edit, width) : buffer, action: null };
}

/**
 * The editor types as every text field does (the keymap's text-entry actions); what only a text
 * of several lines has, a new line and moving up and down, is read from the press.
 */
function editOf(press: KeyPress): EditorKey | null {
	if (press.upArrow) return { kind: 'up' };
	if (press.downArrow) return { kind: 'down' };
	if (press.return) return { kind: 'newline' };
	return textEdit(actionFor('field', press), press);
}
