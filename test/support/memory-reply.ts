import { splitSentences } from '../../source/text/sentences.ts';
import { contentStems } from '../../source/text/stems.ts';
import { contentTokens } from '../../source/text/textrank.ts';

/**
 * The fake model's answers to the memory probes' prompts (the shipped templates' layout), read from
 * the prompt alone. A question is answered from whether each option's words are in the text shown,
 * so a summary that kept a scene's words recognizes the scene and one that lost them does not: memory
 * declines with distance as the summary's words drift. A scene is written as a few sentences of the
 * stretch's own content words, its names kept, its small words dropped: a paraphrase, not a copy.
 */

/**
 * The least share of an option's content words that must be in the text shown for the fake to
 * recognize the scene: a majority of what it says. Below it, the overlap is what any two passages
 * of a book share (names, common verbs), not the scene remembered.
 */
export const RECOGNIZED_SHARE = 0.5;

function between(prompt: string, open: string, close: string, from: 'first' | 'last'): string | null {
	const at = from === 'first' ? prompt.indexOf(open) : prompt.lastIndexOf(open);
	if (at < 0) return null;
	const end = prompt.lastIndexOf(close);
	return end < at + open.length ? null : prompt.slice(at + open.length, end);
}

/** The text a question prompt shows and its scene options (without "None of the above"), or null for another prompt. */
export function memoryQuestion(prompt: string): { shown: string; options: string[] } | null {
	const shown = between(
		prompt,
		'What you have read so far:\n',
		'\n\nQuestion: In what you have read so far',
		'first',
	);
	const listed = between(prompt, 'choose "None of the above".\n\n', '\n\nAnswer with one line', 'last');
	if (shown === null || listed === null) return null;
	const options = listed.split('\n').map((line) => line.replace(/^\d+\) /u, ''));
	return { shown, options: options.slice(0, -1) };
}

/** The stretch a scene prompt asks to summarize and the word limit, or null for another prompt. */
export function sceneStretch(prompt: string): { text: string; words: number } | null {
	const text = between(
		prompt,
		'Below is a stretch of a book:\n\n---\n\n',
		'\n\n---\n\nSummarize what happens',
		'first',
	);
	const words = /within (\d+) words, in a few sentences/u.exec(prompt);
	return text === null || !words ? null : { text, words: Number(words[1]) };
}

/** The share of `option`'s distinct content words that `shown` holds (0 for an option without any). */
export function recognizedShare(option: string, shown: ReadonlySet<string>): number {
	const stems = new Set(contentStems(option));
	if (stems.size === 0) return 0;
	return [...stems].filter((s) => shown.has(s)).length / stems.size;
}

/** The fake reader's choice: the best-recognized option if it reaches `RECOGNIZED_SHARE`, else "None of the above". */
export function fakeChoice(shown: string, options: readonly string[]): number {
	const known = new Set(contentStems(shown));
	let best = options.length;
	let bestShare = RECOGNIZED_SHARE;
	options.forEach((option, i) => {
		const share = recognizedShare(option, known);
		if (share >= bestShare && (best === options.length || share > bestShare)) {
			best = i;
			bestShare = share;
		}
	});
	return best;
}

/** Words per sentence of a fake scene, about a written sentence's. */
const SENTENCE_WORDS = 12;

/**
 * A fake scene of `text` within `words` words: sentences spread evenly over the stretch, each cut
 * to its content words (capitals kept, so names stay names), at most `SENTENCE_WORDS` of them.
 */
export function fakeScene(text: string, words: number): string {
	const sentences = splitSentences(text)
		.map((sentence) => {
			const content = new Set(contentTokens(sentence));
			const kept = (sentence.match(/[\p{L}\p{N}]+(?:['’]\p{L}+)*/gu) ?? []).filter((w) =>
				content.has(w.toLowerCase().replaceAll('’', "'")),
			);
			return kept.slice(0, SENTENCE_WORDS);
		})
		.filter((kept) => kept.length > 0);
	// Sentences of a few content words say who does what; a lone word ("Fortnight.") says nothing.
	const telling = sentences.filter((kept) => kept.length >= 3);
	const pool = telling.length > 0 ? telling : sentences;
	const count = Math.min(pool.length, Math.max(1, Math.floor(words / SENTENCE_WORDS)));
	const picked = Array.from({ length: count }, (_, i) => pool[Math.floor((i * pool.length) / count)]!);
	return picked.map((kept) => `${kept.join(' ').replace(/^./u, (c) => c.toUpperCase())}.`).join(' ');
}

/** A well-formed answer to either memory prompt, or null for other prompts. */
export function memoryReply(prompt: string): string | null {
	const asked = memoryQuestion(prompt);
	if (asked) return `Answer: ${fakeChoice(asked.shown, asked.options) + 1}`;
	const stretch = sceneStretch(prompt);
	return stretch ? fakeScene(stretch.text, stretch.words) : null;
}
