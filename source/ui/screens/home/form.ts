import type { NewRunDefaults, NewRunForm } from '../../../app/home.ts';
import type { Method, ProviderName } from '../../../domain.ts';
import { errorMessage } from '../../../errors.ts';
import { checkBaseUrl, keyVariable } from '../../../llm/base-url.ts';
import type { Action } from '../../keys/binding.ts';
import { editField, type FieldEdit, type TextField } from '../../state/text-field.ts';
import { MIN_CHUNK_SIZE } from '../../../text/chunk.ts';

/** The new-run form: a book path, method, provider, model, server and chunk size, with defaults shown. */

export const FIELDS = ['book', 'method', 'provider', 'model', 'baseUrl', 'chunkSize'] as const;
export type Field = (typeof FIELDS)[number];

export const FIELD_LABELS: Record<Field, string> = {
	book: 'book file (.txt or .epub)',
	method: 'method',
	provider: 'provider',
	model: 'model',
	baseUrl: 'base URL (server)',
	chunkSize: 'chunk size (tokens)',
};

const METHODS: readonly Method[] = ['hier', 'inc'];
const PROVIDERS: readonly ProviderName[] = ['openai', 'anthropic', 'extractive'];

/** The form's defaults and what it states: the home use case's own types (app/home.ts). */
export type FormDefaults = NewRunDefaults;

export interface FormState {
	focus: Field;
	book: string;
	method: Method;
	provider: ProviderName;
	model: string;
	/** Once the model is typed, changing the provider no longer replaces it. */
	modelTyped: boolean;
	baseUrl: string;
	/** Once the base URL is typed, changing the provider no longer replaces it. */
	baseUrlTyped: boolean;
	chunkSize: string;
	/** The cursor in the focused text field, in code points. */
	cursor: number;
}

export type NewRunInput = NewRunForm;

export function formOf(defaults: FormDefaults): FormState {
	return {
		focus: 'book',
		book: '',
		method: defaults.method,
		provider: defaults.provider,
		model: defaults.models[defaults.provider],
		modelTyped: false,
		baseUrl: defaults.baseUrls[defaults.provider],
		baseUrlTyped: false,
		chunkSize: String(defaults.chunkSize),
		cursor: 0,
	};
}

export function isChoice(field: Field): boolean {
	return field === 'method' || field === 'provider';
}

export type FormKey = { action: Action } | { type: string } | { backspace: true };

type TextName = 'book' | 'model' | 'baseUrl' | 'chunkSize';

/**
 * The form after a key: fields move with ↑↓/tab, choices cycle with ←→, text fields are text
 * fields (text-field.ts): the cursor moves with ←→ and home/end, typing goes in at it.
 */
export function formKey(state: FormState, key: FormKey, defaults: FormDefaults): FormState {
	const at = FIELDS.indexOf(state.focus);
	const focus = (field: Field): FormState => ({
		...state,
		focus: field,
		cursor: [...(formField(state, field)?.text ?? '')].length,
	});
	if ('action' in key) {
		switch (key.action) {
			case 'up':
				return focus(FIELDS[(at + FIELDS.length - 1) % FIELDS.length]!);
			case 'down':
			case 'nextPane':
				return focus(FIELDS[(at + 1) % FIELDS.length]!);
			case 'left':
			case 'right': {
				const delta = key.action === 'left' ? -1 : 1;
				if (state.focus === 'method') return { ...state, method: cycle(METHODS, state.method, delta) };
				if (state.focus === 'provider') {
					const provider = cycle(PROVIDERS, state.provider, delta);
					return {
						...state,
						provider,
						model: state.modelTyped ? state.model : defaults.models[provider],
						baseUrl: state.baseUrlTyped ? state.baseUrl : defaults.baseUrls[provider],
					};
				}
				return edit(state, { kind: key.action });
			}
			case 'lineStart':
				return edit(state, { kind: 'start' });
			case 'lineEnd':
				return edit(state, { kind: 'end' });
			default:
				return state;
		}
	}
	if ('backspace' in key) return edit(state, { kind: 'erase' });
	const typed = state.focus === 'chunkSize' ? key.type.replace(/\D/gu, '') : key.type.replace(/[\r\n]/gu, '');
	return edit(state, { kind: 'insert', text: typed });
}

/** A text field of the form (null for a choice), with the cursor where the focused one has it. */
export function formField(state: FormState, name: Field): TextField | null {
	return isChoice(name) ? null : { text: state[name as TextName], cursor: state.cursor };
}

/** The focused text field edited (a choice takes no text). */
function edit(state: FormState, change: FieldEdit): FormState {
	const current = formField(state, state.focus);
	if (!current) return state;
	const name = state.focus as TextName;
	const field = editField(current, change);
	const typed = change.kind === 'insert' || change.kind === 'erase';
	return {
		...state,
		[name]: field.text,
		cursor: field.cursor,
		modelTyped: state.modelTyped || (typed && name === 'model'),
		baseUrlTyped: state.baseUrlTyped || (typed && name === 'baseUrl'),
	};
}

/** The form's values, or why they cannot start a run. */
export function formInput(state: FormState, defaults: FormDefaults): NewRunInput | { error: string } {
	const book = state.book.trim();
	if (!book) return { error: 'Type the path of a .txt or .epub file.' };
	if (!state.model.trim()) return { error: 'Type a model name.' };
	const chunkSize = Number(state.chunkSize);
	// Checked here, in the form's words: the run's own check names the --chunk-size flag, which the form has not.
	if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE)
		return { error: `The chunk size is a whole number of tokens, at least ${MIN_CHUNK_SIZE}.` };
	const server = serverOf(state, defaults);
	if (typeof server === 'object' && server !== null) return server;
	return {
		book,
		method: state.method,
		provider: state.provider,
		model: state.model.trim(),
		baseUrl: server,
		chunkSize,
	};
}

/**
 * The base URL the run is given, checked in the form's words: null when it is the environment's
 * (the session then follows $*_BASE_URL, as a run started without --base-url does) or when the
 * baseline, which calls no server, is chosen.
 */
function serverOf(state: FormState, defaults: FormDefaults): string | null | { error: string } {
	const url = state.baseUrl.trim();
	if (state.provider === 'extractive' || url === '' || url === defaults.baseUrls[state.provider]) return null;
	try {
		return checkBaseUrl(url, 'The base URL', keyVariable(state.provider));
	} catch (error) {
		return { error: errorMessage(error) };
	}
}

function cycle<T>(values: readonly T[], value: T, delta: number): T {
	const at = values.indexOf(value);
	return values[(at + delta + values.length) % values.length]!;
}
