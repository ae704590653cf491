import { contentStems } from '../text/stems.ts';
import { sentenceKey } from './provenance.ts';
import type { Passage } from './passages.ts';
import type { PassageIndex } from './rank.ts';

/**
 * How well a sentence is supported by its evidence, in [0, 1]: the share of the sentence's content
 * that its best passage holds, read with the passage on either side of it in its chunk (its scene:
 * an event told over a page names its people in one sentence and what they did in the next).
 * Content is the sentence's content words by stem, each weighted by how telling it is in this
 * book (its IDF, `PassageIndex.weight`), so a shared name or rare word counts for much and a shared
 * "went" for little, and a word the book never uses (a detail the book does not have) weighs most
 * of all against the score.
 *
 * - 1: every content word of the sentence is in one passage (a copied sentence);
 * - a faithful paraphrase keeps the rare words (names, places, objects) and rewords the common
 *   ones, so it holds most of its weight;
 * - an invented sentence that uses the book's names finds them, but not the rest of what it says,
 *   in any one passage.
 *
 * The best single passage, not the union of several: a sentence that joins two places is judged
 * claim by claim (each claim has its own evidence), and a union of passages would let any sentence
 * of the book's words collect its support from everywhere.
 */
export interface Support {
	/** In [0, 1]; 0 for a sentence with no content word that no passage holds word for word. */
	support: number;
	/** Below `WEAK_SUPPORT`: show it as weakly supported. */
	weak: boolean;
}

/**
 * Below this, less than a third of what the sentence says (by weight) is in its best passage's scene.
 * A sentence states who did what (to whom, where): about three telling parts. A scene that holds at
 * most one of the three, and not the rarest, does not support it, and a reader should check it
 * before resting anything on it. A paraphrase rewords freely, so "supported" asks for a third rather
 * than most; the figure is this argument's, not fitted to any book.
 */
export const WEAK_SUPPORT = 1 / 3;

/** The support of `sentence` by the best of `passages` (passages of the book `index` was built on). */
export function supportOf(
	sentence: string,
	passages: readonly Pick<Passage, 'index'>[],
	index: PassageIndex,
): Support {
	const terms = [...new Set(contentStems(sentence))];
	const total = terms.reduce((sum, t) => sum + index.weight(t), 0);
	let best = 0;
	for (const p of passages) {
		const around = scene(p, index);
		let share: number;
		if (total === 0) {
			// Function words only ("It was."): supported only where the scene holds it word for word.
			const key = sentenceKey(sentence);
			const text = index.text({ start: around[0]!.start, end: around.at(-1)!.end });
			share = key !== '' && sentenceKey(text).includes(key) ? 1 : 0;
		} else {
			const held = around.map((q) => index.stems(q));
			share = terms.reduce((sum, t) => sum + (held.some((h) => h.has(t)) ? index.weight(t) : 0), 0) / total;
		}
		best = Math.max(best, share);
	}
	return { support: best, weak: best < WEAK_SUPPORT };
}

/** The passage with its neighbours in its chunk, in reading order. */
function scene(passage: Pick<Passage, 'index'>, index: PassageIndex): Passage[] {
	const all = index.passages;
	const self = all[passage.index]!;
	return [all[passage.index - 1], self, all[passage.index + 1]].filter(
		(p): p is Passage => p !== undefined && p.chunk === self.chunk,
	);
}

/**
 * A sentence finds some support in a book when its best passage's scene holds at least this share
 * of what it says (by weight): one telling part in four. A sentence of another book's summary
 * shares the book's common words (went, house, letter) and rarely its names, which weigh little
 * against the names and places the book never uses. On the three shared books, sentences of another
 * book's summaries reached it 1 in 5 at most, paraphrases of the book itself more than half.
 */
export const SOME_SUPPORT = 1 / 4;

/**
 * A summary reads as another book's when fewer than this share of its sentences find some support
 * (between the two figures above), over at least `FOREIGN_SENTENCES` sentences: fewer say too little
 * to tell a summary that rewords everything from one of another book.
 */
export const FOREIGN_SHARE = 1 / 3;
export const FOREIGN_SENTENCES = 3;

/** How many of a summary's sentences find some support in the book, and whether that few makes it read as another book's. */
export function bookMatch(supports: readonly number[]): {
	sentences: number;
	supported: number;
	foreign: boolean;
} {
	const supported = supports.filter((s) => s >= SOME_SUPPORT).length;
	const sentences = supports.length;
	return {
		sentences,
		supported,
		foreign: sentences >= FOREIGN_SENTENCES && supported < FOREIGN_SHARE * sentences,
	};
}
