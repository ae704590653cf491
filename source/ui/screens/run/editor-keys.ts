import { actionFor, type KeyPress } from '../../keymap.ts';
import { clean } from '../../text.ts';
import { editKey, type EditorKey, type EditorState } from '../../state/editor.ts';

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

function editOf(press: KeyPress): EditorKey | null {
	if (press.leftArrow) return { kind: 'left' };
	if (press.rightArrow) return { kind: 'right' };
	if (press.upArrow) return { kind: 'up' };
	if (press.downArrow) return { kind: 'down' };
	if (press.home) return { kind: 'home' };
	if (press.end) return { kind: 'end' };
	if (press.return) return { kind: 'newline' };
	if (press.backspace) return { kind: 'backspace' };
	if (press.delete) return { kind: 'delete' };
	if (press.input && !press.ctrl && !press.meta) return { kind: 'insert', text: clean(press.input) };
	return null;
}
