import type { MemoryQuestion } from '../domain.ts';
import { collapseWhitespace } from '../text/runs.ts';

/**
 * What a reader who never looks at the summary scores from the options alone: always the longest
 * option, or always the shortest. NarrativeXL's lookahead and other-book questions are "symmetric
 * by design" (every option made the same way), so such a reader should do no better than a guess
 * among the scenes; one that does shows options that give the answer away. Pure.
 */

export interface ShortcutAccuracy {
	/** Share of the scene questions answered by always picking the longest option. */
	longest: number;
	/** Share of the scene questions answered by always picking the shortest option. */
	shortest: number;
	/** Scene questions counted: those whose answer is a scene, not "None of the above" (never picked by length). */
	n: number;
}

/** An option's length as the reader sees it: characters, with its whitespace as the prompt shows it. */
export function optionLength(text: string): number {
	return collapseWhitespace(text).trim().length;
}

/**
 * Accuracy of the longest-option and the shortest-option readers over the questions whose answer
 * is a scene; NaN for both when there are none. Options of equal length share the credit: a true
 * option tied with one other for longest counts a half, as a reader choosing among the tie at
 * random would score. Compare with a guess among the scenes (1/5 for five).
 */
export function shortcutAccuracy(
	questions: readonly Pick<MemoryQuestion, 'options' | 'answer'>[],
): ShortcutAccuracy {
	let longest = 0;
	let shortest = 0;
	let n = 0;
	for (const q of questions) {
		if (q.answer >= q.options.length) continue;
		n++;
		const lengths = q.options.map((o) => optionLength(o.text));
		const truth = lengths[q.answer]!;
		const max = Math.max(...lengths);
		const min = Math.min(...lengths);
		if (truth === max) longest += 1 / lengths.filter((l) => l === max).length;
		if (truth === min) shortest += 1 / lengths.filter((l) => l === min).length;
	}
	return n === 0 ? { longest: NaN, shortest: NaN, n } : { longest: longest / n, shortest: shortest / n, n };
}
