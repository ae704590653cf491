import type { ErrorType } from '../../domain.ts';
import { LABELS } from '../../score/labels.ts';

/**
 * Adding one's own annotation: pick whole sentences as the span (a range; two ranges for a
 * relation), write the questions, tick the error types. Pure: the screen keeps the state.
 */
export interface Adding {
	kind: 'adding';
	step: 'span' | 'questions' | 'types' | 'save';
	/** Inclusive sentence ranges; the last one is the one being moved. */
	ranges: [number, number][];
	/** Started with `l`: a second span is picked after the first. */
	linking: boolean;
	questions: string;
	types: ErrorType[];
}

interface Key {
	input: string;
	key: { leftArrow?: boolean; rightArrow?: boolean; return?: boolean; escape?: boolean };
}

/** The next state after a key, or null when the user cancelled. */
export function addingReducer(state: Adding, { input, key }: Key, sentences: number): Adding | null {
	if (key.escape) return null;
	const last = sentences - 1;
	if (state.step === 'span') {
		const ranges = state.ranges.map((r) => [...r] as [number, number]);
		const current = ranges[ranges.length - 1]!;
		if (key.leftArrow && current[0] > 0) {
			current[0] -= 1;
			current[1] -= 1;
		} else if (key.rightArrow && current[1] < last) {
			current[0] += 1;
			current[1] += 1;
		} else if (input === ']' && current[1] < last) current[1] += 1;
		else if (input === '[' && current[1] > current[0]) current[1] -= 1;
		else if (input === 'l' && ranges.length === 1) {
			const next = Math.min(last, current[1] + 1);
			ranges.push([next, next]);
			return { ...state, ranges, linking: true };
		} else if (key.return) return { ...state, ranges, step: 'questions' };
		return { ...state, ranges };
	}
	if (state.step === 'types') {
		const n = Number(input);
		if (n >= 1 && n <= LABELS.length) {
			const label = LABELS[n - 1]!;
			const types = state.types.includes(label) ? state.types.filter((t) => t !== label) : [...state.types, label];
			return { ...state, types };
		}
		if (key.return && state.types.length > 0 && state.questions.trim() !== '') return { ...state, step: 'save' };
		return state;
	}
	return state;
}
