import { splitSentences } from '../../source/text/sentences.ts';
import { contentStems } from '../../source/text/stems.ts';
import { contentTokens } from '../../source/text/textrank.ts';

/**
 * The fake model's answers to the memory probes' prompts (the shipped templates' layout), read from
 * the prompt alone. A question is answered from whether each option's words are in the text shown
 * (`fakeChoice`), so a summary that kept a scene's words recognizes the scene and one that lost them
 * does not: memory declines with distance as an incremental summary's words are replaced. A scene is written as a few sentences of the
 * stretch's own content words, its names kept, its small words dropped: a paraphrase, not a copy.
 */

/**
 * How much of one sentence of a scene the text shown must hold for the fake to recognize the
 * scene: nearly all its content words (nine in ten). A reader recognizes a scene by one event it
 * remembers, told with the same people and things; the words any two passages of a book share by
 * chance (its names, its common verbs) make up a sentence's words only now and then.
 */
export const HELD_SHARE = 0.9;
/** Sentences of fewer content words say too little to be recognized by ("Oh."). */
const TELLING_WORDS = 3;

function between(prompt: string, open: string, close: string, from: 'first' | 'last'): string | null {
	const at = from === 'first' ? prompt.indexOf(open) : prompt.lastIndexOf(open);
	if (at < 0) return null;
	const end = prompt.lastIndexOf(close);
	return end < at + open.length ? null : prompt.slice(at + open.length, end);
}

/**
 * The text a question prompt shows and its scene options (without "None of the above"), or null for
 * another prompt. The floor's prompt (prompts/memory-floor.txt) shows nothing: `shown` is empty and `floor` true.
 */
export function memoryQuestion(prompt: string): { shown: string; options: string[]; floor: boolean } | null {
	const shown = between(
		prompt,
		'What you have read so far:\n',
		'\n\nQuestion: In what you have read so far',
		'first',
	);
	const floor = prompt.startsWith('You are answering a question about a book without being shown any of it');
	const listed = between(prompt, 'choose "None of the above".\n\n', '\n\nAnswer with one line', 'last');
	if ((shown === null && !floor) || listed === null) return null;
	const options = listed.split('\n').map((line) => line.replace(/^\d+\) /u, ''));
	return { shown: shown ?? '', options: options.slice(0, -1), floor };
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

/** How many sentences of `option` the text shown holds (`HELD_SHARE` of their content words or more). */
export function heldSentences(option: string, shown: ReadonlySet<string>): number {
	return splitSentences(option).filter((sentence) => {
		const stems = [...new Set(contentStems(sentence))];
		return (
			stems.length >= TELLING_WORDS && stems.filter((s) => shown.has(s)).length >= HELD_SHARE * stems.length
		);
	}).length;
}

/**
 * The fake reader's choice: the option with the most sentences the text shown holds (the first of
 * equals), or "None of the above" when it holds none of any option.
 */
export function fakeChoice(shown: string, options: readonly string[]): number {
	const known = new Set(contentStems(shown));
	const held = options.map((option) => heldSentences(option, known));
	const best = Math.max(0, ...held);
	return best === 0 ? options.length : held.indexOf(best);
}

/** Words per sentence of a fake scene, about a written sentence's. */
const SENTENCE_WORDS = 12;

/**
 * Each sentence of `text` cut to its content words (capitals kept, so names stay names), at most
 * `SENTENCE_WORDS` of them; sentences without any are left out. What a paraphrase keeps of a
 * sentence, as far as word overlap can tell: who and what, without the book's wording.
 */
export function contentSentences(text: string): string[][] {
	return splitSentences(text)
		.map((sentence) => {
			const content = new Set(contentTokens(sentence));
			const kept = (sentence.match(/[\p{L}\p{N}]+(?:['’]\p{L}+)*/gu) ?? []).filter((w) =>
				content.has(w.toLowerCase().replaceAll('’', "'")),
			);
			return kept.slice(0, SENTENCE_WORDS);
		})
		.filter((kept) => kept.length > 0);
}

/**
 * A fake scene of `text` within `words` words: the sentences of the stretch that say most of it
 * (`salience`), in their order, each cut to its content words (capitals kept, so names stay names).
 */
export function fakeScene(text: string, words: number): string {
	const sentences = contentSentences(text);
	// Sentences of a few content words say who does what; a lone word ("Fortnight.") says nothing.
	const telling = sentences.filter((kept) => kept.length >= 3);
	const pool = telling.length > 0 ? telling : sentences;
	const count = Math.min(pool.length, Math.max(1, Math.floor(words / SENTENCE_WORDS)));
	const counts = stemCounts([text]);
	const picked = pool
		.map((kept, i) => ({ kept, i, p: salience(kept.join(' '), counts) }))
		.sort((a, b) => b.p - a.p || a.i - b.i)
		.slice(0, count)
		.sort((a, b) => a.i - b.i);
	return picked.map(({ kept }) => `${kept.join(' ').replace(/^./u, (c) => c.toUpperCase())}.`).join(' ');
}

/** How often `texts` use each content word (by its stem). */
export function stemCounts(texts: readonly string[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const stem of texts.flatMap((t) => contentStems(t))) counts.set(stem, (counts.get(stem) ?? 0) + 1);
	return counts;
}

/**
 * How much a sentence says of the text it comes from: the mean count, over its content words, of
 * how often that text uses the word. Names and the events a passage turns on come back often, so a
 * sentence naming them says more than one of passing words; a model's summary keeps those first.
 */
export function salience(sentence: string, counts: ReadonlyMap<string, number>): number {
	const stems = contentStems(sentence);
	return stems.length === 0 ? 0 : stems.reduce((n, s) => n + (counts.get(s) ?? 0), 0) / stems.length;
}

/** The scene a distortion prompt asks to change, or null for another prompt. */
export function distortionScene(prompt: string): string | null {
	return between(
		prompt,
		'Below is a summary of one scene of a book:\n\n---\n\n',
		'\n\n---\n\nRewrite this summary',
		'first',
	);
}

/**
 * A fake distortion of a scene: in each sentence its last word of four letters or more is put in
 * the place of the one before's (the last sentence's in the first), the rest kept; a scene of
 * one sentence loses that word for "elsewhere". Each sentence then tells something the book did not,
 * and no longer has all the words that make the fake reader recognize it, in nearly the same length.
 */
export function fakeDistortion(scene: string): string {
	const sentences = splitSentences(scene);
	const last = (s: string) => [...s.matchAll(/\p{L}{4,}/gu)].at(-1);
	const words = sentences.map((s) => last(s)?.[0] ?? null);
	return sentences
		.map((s, i) => {
			const at = last(s);
			if (!at) return s;
			const from = sentences.length > 1 ? words[(i + sentences.length - 1) % sentences.length] : null;
			const put = from && from !== at[0] ? from : 'elsewhere';
			return s.slice(0, at.index) + put + s.slice(at.index! + at[0].length);
		})
		.join(' ');
}

/** A well-formed answer to any memory prompt, or null for other prompts. */
export function memoryReply(prompt: string): string | null {
	const asked = memoryQuestion(prompt);
	if (asked) return `Answer: ${fakeChoice(asked.shown, asked.options) + 1}`;
	const distort = distortionScene(prompt);
	if (distort !== null) return fakeDistortion(distort);
	const stretch = sceneStretch(prompt);
	return stretch ? fakeScene(stretch.text, stretch.words) : null;
}
