import type { MemoryQuestion } from '../domain.ts';
import { countWords } from '../text/tokens.ts';

/**
 * What the options alone give away: a reader that never looks at the summary and always picks the
 * longest option (or the shortest) scores these shares. NarrativeXL's lookahead and other-book
 * questions are "symmetric by design" (every option made the same way), and then both stay near
 * chance; a true option made differently from the wrong ones (longer, shorter) shows here first.
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
 * The shares of `questions` where the longest / the shortest option (by words) is the true one.
 * Options tied for longest (shortest) count as a guess among them: a share of 1/k where the true
 * one is among k tied. A question whose answer is "None of the above" counts as missed: the picker
 * always picks a scene. So the shares are the accuracy of two readers that read nothing but the
 * options, on the same footing as a reader's accuracy and chance. NaN shares when there is no question.
 */
export function shortcutAccuracy(questions: readonly MemoryQuestion[]): ShortcutAccuracy {
	let longest = 0;
	let shortest = 0;
	for (const q of questions) {
		const words = q.options.map((o) => countWords(o.text));
		const truth = q.answer < q.options.length ? q.answer : -1;
		if (truth < 0) continue;
		const pick = (extreme: number) => {
			const tied = words.filter((w) => w === extreme).length;
			return words[truth] === extreme ? 1 / tied : 0;
		};
		longest += pick(Math.max(...words));
		shortest += pick(Math.min(...words));
	}
	const n = questions.length;
	return { longest: n === 0 ? Number.NaN : longest / n, shortest: n === 0 ? Number.NaN : shortest / n, n };
}
