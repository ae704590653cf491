import { actionFor } from '../../keymap.ts';
import type { KeyPress } from '../../keys/binding.ts';
import { editKey, type EditorKey, type EditorState } from '../../state/editor.ts';
import { textEdit } from '../../state/text-field.ts';

/**
 * What a key press does in the in-app editor: an edit of the buffer, or save, cancel or quit. The
 * editor types as every text field does (the keymap's text-entry actions), plus what only a text
 * of several lines has: a new line and moving up and down.
 */
export function editorPress(
	buffer: EditorState,
	press: KeyPress,
	width: number,
): { buffer: EditorState; action: 'save' | 'cancel' | 'quit' | null } {
	const action = actionFor('editor', press);
	if (action === 'save' || action === 'cancel' || action === 'quit') return { buffer, action };
	const edit: EditorKey | null =
		action === 'up' || action === 'down' || action === 'newline' ? { kind: action } : textEdit(action, press);
	return { buffer: edit ? editKey(buffer, edit, width) : buffer, action: null };
}
