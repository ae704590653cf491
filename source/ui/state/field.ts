import type { Action, KeyPress } from '../keymap.ts';

/**
 * A one-line text field (a note, the questions of an annotation) as plain state: the text and a
 * cursor counted in code points, changed by pure functions, one key press at a time.
 */

export interface Field {
	text: string;
	cursor: number;
}

export type FieldEdit =
	| { kind: 'insert'; text: string }
	| { kind: 'erase' }
	| { kind: 'left' }
	| { kind: 'right' }
	| { kind: 'start' }
	| { kind: 'end' };

/** A field holding `text`, the cursor after it. */
export function fieldOf(text: string): Field {
	return { text, cursor: [...text].length };
}

export function editField(field: Field, edit: FieldEdit): Field {
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

/**
 * What of the field shows in `width` columns: the text around the cursor, split at it, so the
 * cursor stays in view however long the text grows. Assumes one column per character, as notes are
 * written; a wide character only makes the window a little narrower than it could be.
 */
export function fieldWindow(field: Field, width: number): { before: string; at: string; after: string } {
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

/** A key in a text field: the field edited, or done (enter) or cancel (esc). */
export function fieldAction(field: Field, action: Action | null, press: KeyPress): Field | 'done' | 'cancel' {
	switch (action) {
		case 'save':
			return 'done';
		case 'cancel':
			return 'cancel';
		case 'insert':
			return editField(field, { kind: 'insert', text: press.input });
		case 'erase':
			return editField(field, { kind: 'erase' });
		case 'left':
			return editField(field, { kind: 'left' });
		case 'right':
			return editField(field, { kind: 'right' });
		case 'lineStart':
			return editField(field, { kind: 'start' });
		case 'lineEnd':
			return editField(field, { kind: 'end' });
		default:
			return field;
	}
}
