import type { MemoryQuestion } from '../domain.ts';
import { collapseWhitespace } from '../text/runs.ts';

/**
 * What the options alone give away: a reader that never looks at the summary and always picks the
 * longest option (or the shortest) scores these shares. NarrativeXL's lookahead and other-book
 * questions are "symmetric by design" (every option made the same way), and then both stay near
 * a guess among the scenes; a true option made differently from the wrong ones (longer, shorter)
 * shows here first.
 */
export interface ShortcutAccuracy {
	/** The share of questions the longest option answers right. */
	longest: number;
	/** The share of questions the shortest option answers right. */
	shortest: number;
	/** Questions counted. */
	n: number;
}

/**
 * An option's length as the reader sees it: characters, whitespace as the prompt shows it. The
 * one length measure: the shortcut figure and the length range options are drawn from both use it.
 */
export function optionLength(text: string): number {
	return collapseWhitespace(text).trim().length;
}

/**
 * The shares of `questions` where the longest / the shortest option is the true one. Options tied
 * for longest (shortest) count as a guess among them: a share of 1/k where the true one is among k
 * tied. A question whose answer is "None of the above" counts as missed: the picker always picks a
 * scene. So the shares are the accuracy of two readers that read nothing but the options, on the
 * same footing as a reader's accuracy and chance. NaN shares when there is no question.
 */
export function shortcutAccuracy(
	questions: readonly Pick<MemoryQuestion, 'options' | 'answer'>[],
): ShortcutAccuracy {
	let longest = 0;
	let shortest = 0;
	for (const q of questions) {
		if (q.answer >= q.options.length) continue;
		const lengths = q.options.map((o) => optionLength(o.text));
		const truth = lengths[q.answer]!;
		const max = Math.max(...lengths);
		const min = Math.min(...lengths);
		if (truth === max) longest += 1 / lengths.filter((l) => l === max).length;
		if (truth === min) shortest += 1 / lengths.filter((l) => l === min).length;
	}
	const n = questions.length;
	return n === 0 ? { longest: NaN, shortest: NaN, n } : { longest: longest / n, shortest: shortest / n, n };
}
