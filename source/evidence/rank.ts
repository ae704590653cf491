import MiniSearch from 'minisearch';
import type { Chunk } from '../domain.ts';
import { contentStems, properNames, stem } from '../text/stems.ts';
import { contentTokens } from '../text/textrank.ts';
import { PASSAGE_SENTENCES, splitPassages, type Passage } from './passages.ts';
import { sentenceKey } from './provenance.ts';

/** A passage ranked for a sentence: higher `score` (BM25+, minisearch's) is more alike in words. */
export interface Hit extends Passage {
	score: number;
	/** The passage holds the sentence word for word (whitespace collapsed). */
	verbatim: boolean;
}

const NONE: ReadonlySet<number> = new Set();

/**
 * How much more a proper name of the book counts in a query than another word of the same rarity.
 * A paraphrase rewords events but keeps who and where: the names are the words most likely to be
 * shared with the source passage, so a match on one is worth two on other words. A round factor, not
 * fitted: it tips ties between passages toward the one with the sentence's people and places without
 * letting a name alone outrank a passage that shares most of the sentence's other words.
 */
export const NAME_BOOST = 2;

/** What a query prefers beyond its words. */
export interface RankOptions {
	/** Chunks to search (all when absent). */
	chunks?: Iterable<number>;
	/** Among passages that hold the query word for word, those of these chunks come first. */
	direct?: Iterable<number>;
}

/**
 * The book's passages indexed once for lexical search (BM25+ through minisearch), so each sentence
 * of a summary costs one query. Term statistics are the whole book's, whatever set of chunks a
 * query is limited to: how rare a word is in the book is what makes a shared word telling. Words
 * are matched by their stems (text/stems.ts) and the book's proper names count `NAME_BOOST` times.
 *
 * Order: passages that hold the query word for word come first (a copied sentence's own place
 * beats a short passage that merely shares its rare word; among several, those of `direct` chunks
 * first), then by score; equal scores by position in the book, so the order is deterministic.
 */
export class PassageIndex {
	readonly passages: readonly Passage[];
	readonly #book: string;
	/** Each passage's text as queries are matched word for word, made when first needed. */
	readonly #keys: (string | undefined)[] = [];
	readonly #search: MiniSearch<{ id: number; stems: string }>;
	readonly #sets = new WeakMap<Iterable<number>, ReadonlySet<number>>();
	/** Passages holding each stem. */
	readonly #df = new Map<string, number>();
	readonly #names: ReadonlySet<string>;
	/** Each passage's content stems, made when first needed. */
	readonly #stems: (ReadonlySet<string> | undefined)[] = [];
	/** Each chunk's passages as a range of `passages` (they are in chunk order). */
	readonly #chunks = new Map<number, { from: number; to: number }>();

	constructor(book: string, chunks: readonly Chunk[], sentences = PASSAGE_SENTENCES) {
		this.#book = book;
		this.passages = splitPassages(book, chunks, sentences);
		this.#names = properNames(book);
		// Each passage is stemmed once, here, for both the term counts and the index: the index gets its
		// stems, and only queries are tokenized and stemmed by minisearch.
		this.#search = new MiniSearch({
			fields: ['stems'],
			storeFields: [],
			// Stems hold no spaces (a token is a run of letters and digits, apostrophes inside).
			tokenize: (stems) => (stems === '' ? [] : stems.split(' ')),
			processTerm: (term) => term,
			searchOptions: {
				tokenize: contentTokens,
				processTerm: stem,
				boostTerm: (term) => (this.#names.has(term) ? NAME_BOOST : 1),
			},
		});
		for (const p of this.passages) {
			const range = this.#chunks.get(p.chunk);
			if (range) range.to = p.index + 1;
			else this.#chunks.set(p.chunk, { from: p.index, to: p.index + 1 });
			const stems = contentStems(book.slice(p.start, p.end));
			for (const term of new Set(stems)) this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
			this.#search.add({ id: p.index, stems: stems.join(' ') });
		}
	}

	/**
	 * How telling a stem is in this book: BM25's inverse document frequency over the passages,
	 * ln(1 + (N - df + 0.5) / (df + 0.5)). A stem the book never uses weighs most of all.
	 */
	weight(term: string): number {
		const n = this.passages.length;
		const df = this.#df.get(term) ?? 0;
		return Math.log(1 + (n - df + 0.5) / (df + 0.5));
	}

	/**
	 * How much a stem tells about where in the book a sentence comes from: its weight, or 0 for a stem
	 * the book never uses (a paraphrase's own word names no place in the book, however rare it is).
	 */
	placeWeight(term: string): number {
		return this.#df.has(term) ? this.weight(term) : 0;
	}

	/** The passages of `chunk`, in reading order. */
	passagesOf(chunk: number): readonly Passage[] {
		const range = this.#chunks.get(chunk);
		return range ? this.passages.slice(range.from, range.to) : [];
	}

	/** The passage's content stems (text/stems.ts), kept once made. */
	stems(passage: Pick<Passage, 'index'>): ReadonlySet<string> {
		const p = this.passages[passage.index]!;
		return (this.#stems[p.index] ??= new Set(contentStems(this.#book.slice(p.start, p.end))));
	}

	/** The passage's text, as in the book. */
	text(passage: Pick<Passage, 'start' | 'end'>): string {
		return this.#book.slice(passage.start, passage.end);
	}

	/**
	 * The best `top` passages for `query`, limited to passages of `opts.chunks`. A passage that shares
	 * no content word with it is returned only when it holds the query word for word (a sentence of
	 * function words alone, "It was."), with score 0.
	 */
	rank(query: string, top: number, opts: RankOptions = {}): Hit[] {
		if (top <= 0) return [];
		const allowed = opts.chunks ? this.#setOf(opts.chunks) : null;
		const direct = opts.direct ? this.#setOf(opts.direct) : NONE;
		const key = sentenceKey(query);
		const results = this.#search.search(query, {
			combineWith: 'OR',
			prefix: false,
			fuzzy: false,
			filter: allowed ? (r) => allowed.has(this.passages[r.id as number]!.chunk) : undefined,
		});
		// The best `top` by (tier, score, position), picked as the results go by: a common word matches
		// thousands of passages, and an object and a sort for each of them cost a long node's
		// sentences more than the search.
		const best: (Hit & { tier: number })[] = [];
		const better = (
			a: { tier: number; score: number; index: number },
			b: { tier: number; score: number; index: number },
		) => a.tier - b.tier || b.score - a.score || a.index - b.index;
		const offer = (passage: Passage, score: number, verbatim: boolean) => {
			const tier = verbatim ? (direct.has(passage.chunk) ? 0 : 1) : 2;
			if (best.length === top && better({ tier, score, index: passage.index }, best[top - 1]!) >= 0) return;
			const hit = { ...passage, score, verbatim, tier };
			let at = best.length;
			while (at > 0 && better(hit, best[at - 1]!) < 0) at--;
			best.splice(at, 0, hit);
			if (best.length > top) best.pop();
		};
		for (const r of results) {
			const passage = this.passages[r.id as number]!;
			offer(passage, r.score, key !== '' && this.#key(passage).includes(key));
		}
		if (results.length === 0 && key !== '') {
			for (const passage of this.passages) {
				if ((!allowed || allowed.has(passage.chunk)) && this.#key(passage).includes(key))
					offer(passage, 0, true);
			}
		}
		return best.map(({ tier: _, ...hit }) => hit);
	}

	/**
	 * `items` as a set, made once per array: the sentences of a node share their chunk arrays (see
	 * `Tracer`), and a set of thousands of chunks made for each of a long node's sentences cost more
	 * than ranking it.
	 */
	#setOf(items: Iterable<number>): ReadonlySet<number> {
		if (items instanceof Set) return items;
		let set = this.#sets.get(items);
		if (!set) {
			set = new Set(items);
			this.#sets.set(items, set);
		}
		return set;
	}

	#key(passage: Passage): string {
		return (this.#keys[passage.index] ??= sentenceKey(this.#book.slice(passage.start, passage.end)));
	}
}
