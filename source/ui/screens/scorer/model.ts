import type { ScorerChoice, ScorerQuestion, ScoringProvider } from '../../../app/score-model.ts';
import { errorMessage } from '../../../errors.ts';
import { checkBaseUrl, keyVariable } from '../../../llm/base-url.ts';
import { commandLine, shellWord } from '../../../program.ts';
import { actionFor } from '../../keymap.ts';
import type { KeyPress } from '../../keys/binding.ts';
import { stay, type Step, type Update } from '../../model.ts';
import { editField, fieldOf, textEdit, type FieldEdit, type TextField } from '../../state/text-field.ts';

/**
 * The question `b` asks on a run with no model of its own (the extractive baseline): which
 * provider, model and server annotate its final summary. Pure: keys in, the choice out as an
 * effect; the screen carries it out and says why it could not start, if it could not.
 */

export const SCORER_FIELDS = ['provider', 'model', 'baseUrl'] as const;
export type ScorerField = (typeof SCORER_FIELDS)[number];

export const SCORER_LABELS: Record<ScorerField, string> = {
	provider: 'provider',
	model: 'model',
	baseUrl: 'base URL (server)',
};

const PROVIDERS: readonly ScoringProvider[] = ['openai', 'anthropic'];

export interface ScorerState {
	focus: ScorerField;
	provider: ScoringProvider;
	model: TextField;
	baseUrl: TextField;
	/** Typed, a field no longer follows the provider. */
	typed: { model: boolean; baseUrl: boolean };
	/** Why the scoring did not start (a bad address, a missing key), shown under the fields. */
	message: string | null;
	/** The choice is being set up: enter again does nothing until it is. */
	starting: boolean;
}

export type ScorerEffect = { kind: 'start'; choice: ScorerChoice } | { kind: 'back' } | { kind: 'quit' };

export type ScorerMsg =
	| { type: 'press'; press: KeyPress }
	/** The scoring could not start: why. */
	| { type: 'refused'; message: string };

/** The question's defaults, or (`last`) what was chosen the last time it was asked, kept as typed. */
export function init(question: ScorerQuestion, last: ScorerChoice | null = null): ScorerState {
	const provider = last?.provider ?? question.provider;
	return {
		focus: 'provider',
		provider,
		model: fieldOf(last?.model ?? question.models[provider]),
		baseUrl: fieldOf(last?.baseUrl ?? question.baseUrls[provider]),
		typed: { model: last !== null, baseUrl: last !== null && last.baseUrl !== null },
		message: null,
		starting: false,
	};
}

type Result = Step<ScorerState, ScorerEffect>;

export const update: Update<ScorerState, ScorerMsg, ScorerEffect, ScorerQuestion> = (
	state,
	msg,
	question,
) => {
	if (msg.type === 'refused') return stay({ ...state, message: msg.message, starting: false });
	const action = actionFor('form', msg.press);
	const next = { ...state, message: null };
	switch (action) {
		case 'quit':
			return { state, effects: [{ kind: 'quit' }] };
		case 'cancel':
			return { state, effects: [{ kind: 'back' }] };
		case 'save':
		case 'open':
			return start(state, question);
		case 'up':
		case 'down':
		case 'nextPane': {
			const at = SCORER_FIELDS.indexOf(state.focus);
			const step = action === 'up' ? SCORER_FIELDS.length - 1 : 1;
			const focus = SCORER_FIELDS[(at + step) % SCORER_FIELDS.length]!;
			const field = focus === 'provider' ? null : state[focus];
			return stay({ ...next, focus, ...(field && { [focus]: fieldOf(field.text) }) });
		}
		case 'left':
		case 'right':
			if (state.focus === 'provider') return stay(cycled(next, action === 'left' ? -1 : 1, question));
			return stay(edited(next, { kind: action }));
	}
	const edit = textEdit(actionFor('field', msg.press), msg.press);
	return edit ? stay(edited(next, edit)) : stay(state);
};

/** The other provider, with its model and server unless those were typed. */
function cycled(state: ScorerState, delta: number, question: ScorerQuestion): ScorerState {
	const at = PROVIDERS.indexOf(state.provider);
	const provider = PROVIDERS[(at + delta + PROVIDERS.length) % PROVIDERS.length]!;
	return {
		...state,
		provider,
		model: state.typed.model ? state.model : fieldOf(question.models[provider]),
		baseUrl: state.typed.baseUrl ? state.baseUrl : fieldOf(question.baseUrls[provider]),
	};
}

function edited(state: ScorerState, edit: FieldEdit): ScorerState {
	if (state.focus === 'provider') return state;
	const name = state.focus;
	const typed = edit.kind === 'insert' || edit.kind === 'erase';
	return {
		...state,
		[name]: editField(state[name], edit),
		typed: { ...state.typed, [name]: state.typed[name] || typed },
	};
}

function start(state: ScorerState, question: ScorerQuestion): Result {
	if (state.starting) return stay(state);
	const choice = scorerChoice(state, question);
	if ('error' in choice) return stay({ ...state, message: choice.error });
	return { state: { ...state, message: null, starting: true }, effects: [{ kind: 'start', choice }] };
}

/**
 * The fields as a choice, or why they are not one. A server that is the environment's is left to
 * it (null), as `booook score` without --base-url leaves it.
 */
export function scorerChoice(state: ScorerState, question: ScorerQuestion): ScorerChoice | { error: string } {
	const model = state.model.text.trim();
	if (!model) return { error: 'Type a model name.' };
	const url = state.baseUrl.text.trim();
	if (url === '' || url === question.baseUrls[state.provider])
		return { provider: state.provider, model, baseUrl: null };
	try {
		return {
			provider: state.provider,
			model,
			baseUrl: checkBaseUrl(url, 'The base URL', keyVariable(state.provider)),
		};
	} catch (error) {
		return { error: errorMessage(error) };
	}
}

/** The same scoring from a shell, for a person who would rather run it there. */
export function scoreCommand(state: ScorerState, question: ScorerQuestion, program: string): string {
	const url = state.baseUrl.text.trim();
	const words = [
		commandLine(program, question.command),
		'--provider',
		state.provider,
		'--model',
		shellWord(state.model.text.trim()),
	];
	if (url) words.push('--base-url', shellWord(url));
	return words.join(' ');
}
