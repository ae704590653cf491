import type { ErrorType } from '../../../domain.ts';
import { LABELS } from '../../../score/labels.ts';
import type { Action, KeyPress } from '../../keys/binding.ts';
import { fieldOf, type TextField } from '../../state/text-field.ts';

/**
 * Adding one's own annotation: pick whole sentences as the span (a range; two ranges for a
 * relation), write the questions, tick the error types. Pure: the walk's model keeps the state
 * and hands it the actions the keymap found ('span' and 'types' screens); the questions are a text
 * field the model edits itself.
 */
export interface Adding {
	kind: 'adding';
	step: 'span' | 'questions' | 'types';
	/** Inclusive sentence ranges; the last one is the one being moved. */
	ranges: [number, number][];
	/** Per range, words left out at its start and at its end (a span may be part of a sentence). */
	trims: [number, number][];
	/** Started with `l`: a second span is picked after the first. */
	linking: boolean;
	questions: TextField;
	types: ErrorType[];
}

/** Picking starts on the sentence of the annotation being looked at. */
export function startAdding(sentence: number, linking: boolean): Adding {
	return {
		kind: 'adding',
		step: 'span',
		ranges: [[sentence, sentence]],
		trims: [[0, 0]],
		linking,
		questions: fieldOf(''),
		types: [],
	};
}

/** What an action does: the next state, null when cancelled, 'save' when it is complete. */
export type AddingResult = { adding: Adding | null; save?: true; message?: string };

/** The span step: move, resize and trim the last range, link a second, go on to the questions. */
export function spanAction(state: Adding, action: Action | null, sentences: number): AddingResult {
	if (action === 'cancel') return { adding: null };
	const last = sentences - 1;
	const ranges = state.ranges.map((r) => [...r] as [number, number]);
	const trims = state.trims.map((t) => [...t] as [number, number]);
	const current = ranges[ranges.length - 1]!;
	const trim = trims[trims.length - 1]!;
	// Moving or resizing the range starts again from whole sentences.
	const whole = (): AddingResult => ({
		adding: { ...state, ranges, trims: trims.map((t, i) => (i === trims.length - 1 ? [0, 0] : t)) },
	});
	switch (action) {
		case 'trimStart':
			trim[0] += 1;
			return { adding: { ...state, trims } };
		case 'trimEnd':
			trim[1] += 1;
			return { adding: { ...state, trims } };
		case 'whole':
			return whole();
		case 'left':
			if (current[0] === 0) return { adding: state };
			current[0] -= 1;
			current[1] -= 1;
			return whole();
		case 'right':
			if (current[1] >= last) return { adding: state };
			current[0] += 1;
			current[1] += 1;
			return whole();
		case 'grow':
			if (current[1] >= last) return { adding: state };
			current[1] += 1;
			return whole();
		case 'shrink':
			if (current[1] <= current[0]) return { adding: state };
			current[1] -= 1;
			return whole();
		case 'link': {
			if (ranges.length > 1) return { adding: state, message: 'a relation links two spans, not more' };
			const next = Math.min(last, current[1] + 1);
			return {
				adding: { ...state, ranges: [...ranges, [next, next]], trims: [...trims, [0, 0]], linking: true },
			};
		}
		case 'confirm':
			return { adding: { ...state, step: 'questions' } };
		default:
			return { adding: state };
	}
}

/** The types step: tick and untick by number, save once there are questions and a type. */
export function typesAction(state: Adding, action: Action | null, press: KeyPress): AddingResult {
	switch (action) {
		case 'cancel':
			return { adding: null };
		case 'toggle': {
			const label = LABELS[Number(press.input) - 1];
			if (!label) return { adding: state };
			const types = state.types.includes(label)
				? state.types.filter((t) => t !== label)
				: [...state.types, label];
			return { adding: { ...state, types } };
		}
		case 'save':
			if (state.types.length === 0)
				return { adding: state, message: 'tick at least one error type (1–8), or esc' };
			return { adding: state, save: true };
		default:
			return { adding: state };
	}
}

/**
 * The character span of sentences `range` of `text`, less `trim` words at each end; at least one
 * word always stays, so trimming too far keeps the last word standing rather than an empty span.
 */
export function spanOf(
	text: string,
	sentences: readonly { start: number; end: number }[],
	range: readonly [number, number],
	trim: readonly [number, number],
): { start: number; end: number } {
	const from = sentences[range[0]]!.start;
	const to = sentences[range[1]]!.end;
	const words = [...text.slice(from, to).matchAll(/\S+/gu)].map((m) => ({
		start: from + m.index,
		end: from + m.index + m[0].length,
	}));
	if (words.length === 0) return { start: from, end: to };
	const first = Math.min(trim[0], words.length - 1);
	const lastWord = Math.max(first, words.length - 1 - trim[1]);
	return { start: words[first]!.start, end: words[lastWord]!.end };
}
