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
	/** Per range, words left out at its start and at its end (a span may be part of a sentence). */
	trims: [number, number][];
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
		const trims = state.trims.map((t) => [...t] as [number, number]);
		const current = ranges[ranges.length - 1]!;
		const trim = trims[trims.length - 1]!;
		if (input === '>' || input === '<') {
			if (input === '>') trim[0] += 1;
			else trim[1] += 1;
			return { ...state, trims };
		}
		if (input === '=') {
			trim[0] = 0;
			trim[1] = 0;
			return { ...state, trims };
		}
		// Moving or resizing the range starts again from whole sentences.
		const whole = (next: Adding): Adding => ({ ...next, trims: next.trims.map((t, i) => (i === next.trims.length - 1 ? [0, 0] : t)) });
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
			return { ...state, ranges, trims: [...trims, [0, 0]], linking: true };
		} else if (key.return) return { ...state, ranges, trims, step: 'questions' };
		else return state;
		return whole({ ...state, ranges, trims });
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

/**
 * The character span of sentences `range` of `text`, less `trim` words at each end; at least one
 * word always stays, so trimming too far keeps the last word standing rather than an empty span.
 */
export function spanOf(text: string, sentences: readonly { start: number; end: number }[], range: readonly [number, number], trim: readonly [number, number]): { start: number; end: number } {
	const from = sentences[range[0]]!.start;
	const to = sentences[range[1]]!.end;
	const words = [...text.slice(from, to).matchAll(/\S+/gu)].map((m) => ({ start: from + m.index, end: from + m.index + m[0].length }));
	if (words.length === 0) return { start: from, end: to };
	const first = Math.min(trim[0], words.length - 1);
	const lastWord = Math.max(first, words.length - 1 - trim[1]);
	return { start: words[first]!.start, end: words[lastWord]!.end };
}
