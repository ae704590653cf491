import type { SessionSummary } from '../../../app/list-sessions.ts';
import { statusWord } from '../../../format/sessions.ts';
import { actionFor } from '../../keymap.ts';
import type { Action, KeyPress, Place } from '../../keys/binding.ts';
import { helpScroll } from '../../state/help-keys.ts';
import { formInput, formKey, formOf, type FormDefaults, type FormState, type NewRunInput } from './form.ts';
import { clean } from '../../../format/text.ts';
import { stay, type Step, type Update } from '../../model.ts';
import { editField, fieldOf, textEdit, type TextField } from '../../state/text-field.ts';

/**
 * The home screen's state and what its keys do: a pure update from (state, message) to the next
 * state and the effects to carry out (choose a session, delete one, check the form's values).
 */

export type HomeMode = 'list' | 'filter' | 'confirm' | 'form' | 'help';

export interface HomeState {
	mode: HomeMode;
	/** Index into the sessions the filter lets through. */
	cursor: number;
	/** Text a session must contain to be listed (its id, book, method, model or status). */
	filter: TextField;
	form: FormState;
	message: string | null;
	helpScroll: number;
	/** The form's values are being checked: enter again does nothing until that is done. */
	checking: boolean;
	/** Asked before the session chosen is shown (mode `confirm`): open it all the same? */
	question: HomeQuestion | null;
}

/** A session chosen lost saved work: the warning, to be read before its run is shown or goes on. */
export interface HomeQuestion {
	id: string;
	warning: string;
}

export type HomeChoice =
	| { kind: 'open' | 'resume' | 'validate' | 'compare'; id: string }
	| { kind: 'new'; input: NewRunInput }
	/** To the question the screen was opened with. */
	| { kind: 'answer'; yes: boolean }
	| { kind: 'quit' };

export type HomeEffect =
	| { kind: 'choose'; choice: HomeChoice }
	| { kind: 'delete'; id: string }
	| { kind: 'check'; input: NewRunInput };

export type HomeMsg =
	{ type: 'press'; press: KeyPress } | { type: 'say'; message: string } | { type: 'checked' };

/** What the home screen reads when a message arrives. */
export interface HomeWorld {
	/** Every saved session, in the list's order (null while they are read). */
	sessions: readonly SessionSummary[] | null;
	defaults: FormDefaults;
	/** Rows of a page of help. */
	page: number;
}

export function init(defaults: FormDefaults, question: HomeQuestion | null = null): HomeState {
	return {
		mode: question ? 'confirm' : 'list',
		cursor: 0,
		filter: fieldOf(''),
		form: formOf(defaults),
		message: null,
		helpScroll: 0,
		checking: false,
		question,
	};
}

/** The sessions the filter lets through (all of them without one). */
export function visible(sessions: readonly SessionSummary[], filter: string): SessionSummary[] {
	const needle = filter.trim().toLowerCase();
	if (!needle) return [...sessions];
	return sessions.filter((s) =>
		[s.id, s.title, s.method ?? '', s.model ?? '', statusWord(s.status)].some((field) =>
			field.toLowerCase().includes(needle),
		),
	);
}

export function homeScreen(ui: HomeState): Place {
	return ui.mode === 'list' ? 'home' : ui.mode;
}

type Result = Step<HomeState, HomeEffect>;
const none = (state: HomeState): Result => stay(state);

export const update: Update<HomeState, HomeMsg, HomeEffect, HomeWorld> = (ui, msg, ctx) => {
	if (msg.type === 'say') return none({ ...ui, message: msg.message });
	if (msg.type === 'checked') return none({ ...ui, checking: false });
	const { press } = msg;
	const action = actionFor(homeScreen(ui), press);
	if (action === 'quit') return { state: ui, effects: [{ kind: 'choose', choice: { kind: 'quit' } }] };
	// The list may have shrunk since the last key (a delete, a reload).
	const last = Math.max(0, visible(ctx.sessions ?? [], ui.filter.text).length - 1);
	const next: HomeState = { ...ui, message: null, cursor: Math.min(ui.cursor, last) };
	switch (ui.mode) {
		case 'help': {
			const scroll = helpScroll(ui.helpScroll, action, ctx.page);
			return none(scroll === null ? { ...next, mode: 'list' } : { ...next, helpScroll: scroll });
		}
		case 'confirm': {
			if (ui.question) {
				if (action !== 'confirm' && action !== 'cancel') return none(ui);
				return {
					state: ui,
					effects: [{ kind: 'choose', choice: { kind: 'answer', yes: action === 'confirm' } }],
				};
			}
			const selected = selectedSession(next, ctx);
			if (action === 'confirm' && selected)
				return { state: { ...next, mode: 'list' }, effects: [{ kind: 'delete', id: selected.id }] };
			return none(action === 'cancel' ? { ...next, mode: 'list' } : ui);
		}
		case 'form':
			return formPress(next, press, action, ctx);
		case 'filter':
			return none(filterPress(next, press, action, ctx));
		case 'list':
			return listKey(next, action, ctx);
	}
};

/** The session under the cursor, among those the filter lets through. */
export function selectedSession(ui: HomeState, ctx: Pick<HomeWorld, 'sessions'>): SessionSummary | undefined {
	return visible(ctx.sessions ?? [], ui.filter.text)[ui.cursor];
}

function listKey(ui: HomeState, action: Action | null, ctx: HomeWorld): Result {
	const shown = visible(ctx.sessions ?? [], ui.filter.text);
	const selected = shown[ui.cursor];
	const choose = (choice: HomeChoice): Result => ({ state: ui, effects: [{ kind: 'choose', choice }] });
	switch (action) {
		case 'help':
			return none({ ...ui, mode: 'help', helpScroll: 0 });
		case 'up':
			return none({ ...ui, cursor: Math.max(0, ui.cursor - 1) });
		case 'down':
			return none({ ...ui, cursor: Math.min(Math.max(0, shown.length - 1), ui.cursor + 1) });
		case 'filter':
			return none({ ...ui, mode: 'filter' });
		case 'back':
			return none(ui.filter.text ? { ...ui, filter: fieldOf(''), cursor: 0 } : ui);
		case 'validate':
		case 'compare':
			return selected ? choose({ kind: action, id: selected.id }) : none(ui);
		case 'open':
		case 'resume':
			if (!selected) return none(ui);
			// A collection has nothing to run: opening it walks its annotations.
			return choose(
				selected.kind === 'collection'
					? { kind: 'validate', id: selected.id }
					: { kind: action, id: selected.id },
			);
		case 'delete':
			return none(selected ? { ...ui, mode: 'confirm' } : ui);
		case 'newRun':
			return none({ ...ui, mode: 'form', form: formOf(ctx.defaults) });
		case 'score':
			return none({
				...ui,
				message: 'Open a finished session first (enter), then press b on its run screen.',
			});
		default:
			return none(ui);
	}
}

function filterPress(ui: HomeState, press: KeyPress, action: Action | null, ctx: HomeWorld): HomeState {
	const count = visible(ctx.sessions ?? [], ui.filter.text).length;
	switch (action) {
		case 'open':
			return { ...ui, mode: 'list' };
		case 'cancel':
			return { ...ui, mode: 'list', filter: fieldOf(''), cursor: 0 };
		case 'up':
			return { ...ui, cursor: Math.max(0, ui.cursor - 1) };
		case 'down':
			return { ...ui, cursor: Math.min(Math.max(0, count - 1), ui.cursor + 1) };
	}
	const edit = textEdit(actionFor('field', press), press);
	if (!edit) return ui;
	const filter = editField(ui.filter, edit);
	// A new filter lists other sessions: the cursor starts again at the first.
	return { ...ui, filter, cursor: filter.text === ui.filter.text ? ui.cursor : 0 };
}

function formPress(ui: HomeState, press: KeyPress, action: Action | null, ctx: HomeWorld): Result {
	if (action === 'cancel') return none({ ...ui, mode: 'list' });
	if (action === 'save' || action === 'open') {
		const input = formInput(ui.form, ctx.defaults);
		if ('error' in input) return none({ ...ui, message: input.error });
		if (ui.checking) return none(ui);
		return { state: { ...ui, checking: true }, effects: [{ kind: 'check', input }] };
	}
	if (action) return none({ ...ui, form: formKey(ui.form, { action }, ctx.defaults) });
	// The form's text fields type as every text field does.
	const text = actionFor('field', press);
	switch (text) {
		case 'insert':
			return none({ ...ui, form: formKey(ui.form, { type: clean(press.input) }, ctx.defaults) });
		case 'erase':
			return none({ ...ui, form: formKey(ui.form, { backspace: true }, ctx.defaults) });
		case 'lineStart':
		case 'lineEnd':
			return none({ ...ui, form: formKey(ui.form, { action: text }, ctx.defaults) });
		default:
			return none(ui);
	}
}
