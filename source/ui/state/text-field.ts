import type { Action, KeyPress } from '../keys/binding.ts';
import { clean } from '../../format/text.ts';

/**
 * The one text field of the app (a note, an annotation's questions, the session filter, the
 * new-run form's values, each line of the in-app editor) as plain state: the text and a cursor
 * counted in code points, changed by pure functions, one key press at a time. Its keys are the
 * keymap's text-entry actions (the `field` screen's bindings), so every field types alike.
 */

export interface TextField {
	text: string;
	cursor: number;
}

export type FieldEdit =
	| { kind: 'insert'; text: string }
	/** The character before the cursor. */
	| { kind: 'erase' }
	| { kind: 'left' }
	| { kind: 'right' }
	| { kind: 'start' }
	| { kind: 'end' };

/** A field holding `text`, the cursor after it. */
export function fieldOf(text: string): TextField {
	return { text, cursor: [...text].length };
}

export function editField(field: TextField, edit: FieldEdit): TextField {
	const chars = [...field.text];
	const at = Math.min(field.cursor, chars.length);
	switch (edit.kind) {
		case 'insert': {
			// One line: a pasted line break becomes a space.
			const typed = [...edit.text.replace(/\r\n?|\n/gu, ' ')];
			return {
				text: [...chars.slice(0, at), ...typed, ...chars.slice(at)].join(''),
				cursor: at + typed.length,
			};
		}
		case 'erase':
			return at === 0
				? field
				: { text: [...chars.slice(0, at - 1), ...chars.slice(at)].join(''), cursor: at - 1 };
		case 'left':
			return { ...field, cursor: Math.max(0, at - 1) };
		case 'right':
			return { ...field, cursor: Math.min(chars.length, at + 1) };
		case 'start':
			return { ...field, cursor: 0 };
		case 'end':
			return { ...field, cursor: chars.length };
	}
}

/** The edit a text-entry action makes (what is typed is cleaned as it goes in), or null for any other action. */
export function textEdit(action: Action | null, press: KeyPress): FieldEdit | null {
	switch (action) {
		case 'insert':
			return { kind: 'insert', text: clean(press.input) };
		case 'erase':
			return { kind: 'erase' };
		case 'left':
			return { kind: 'left' };
		case 'right':
			return { kind: 'right' };
		case 'lineStart':
			return { kind: 'start' };
		case 'lineEnd':
			return { kind: 'end' };
		default:
			return null;
	}
}

/**
 * What of the field shows in `width` columns: the text around the cursor, split at it, so the
 * cursor stays in view however long the text grows. Assumes one column per character, as notes are
 * written; a wide character only makes the window a little narrower than it could be.
 */
export function fieldWindow(field: TextField, width: number): { before: string; at: string; after: string } {
	const chars = [...field.text];
	const room = Math.max(2, width);
	const from = Math.max(0, field.cursor - room + 1);
	const shown = chars.slice(from, from + room);
	const cursor = field.cursor - from;
	return {
		before: shown.slice(0, cursor).join(''),
		at: shown[cursor] ?? ' ',
		after: shown.slice(cursor + 1).join(''),
	};
}

/** A key in a dialog's text field: the field edited, or done (enter) or cancel (esc). */
export function fieldAction(
	field: TextField,
	action: Action | null,
	press: KeyPress,
): TextField | 'done' | 'cancel' {
	if (action === 'save') return 'done';
	if (action === 'cancel') return 'cancel';
	const edit = textEdit(action, press);
	return edit ? editField(field, edit) : field;
}
