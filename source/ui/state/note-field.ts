import type { Action, KeyPress } from '../keys/binding.ts';
import { fieldAction, type TextField } from './text-field.ts';

/**
 * A key in the field where a note on a verdict is written (both walks have one): the field still
 * open, closed with nothing to save (and why), or the note to save (null removes it).
 */
export type NoteKey =
	| { type: 'edit'; field: TextField }
	| { type: 'close'; message: string | null }
	| { type: 'save'; note: string | null; done: string };

export function noteKey(field: TextField, before: string, action: Action | null, press: KeyPress): NoteKey {
	const edited = fieldAction(field, action, press);
	if (edited === 'cancel') return { type: 'close', message: null };
	if (edited !== 'done') return { type: 'edit', field: edited };
	const note = field.text.trim();
	if (note === before)
		return {
			type: 'close',
			message: note === '' ? 'no note written; nothing saved' : 'note unchanged; nothing saved',
		};
	return { type: 'save', note: note === '' ? null : note, done: note === '' ? 'note removed' : 'note saved' };
}
