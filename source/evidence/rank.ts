import MiniSearch from 'minisearch';
import type { Chunk } from '../domain.ts';
import { contentTokens } from '../text/textrank.ts';
import { PASSAGE_SENTENCES, splitPassages, type Passage } from './passages.ts';
import { sentenceKey } from './provenance.ts';

/** A passage ranked for a sentence: higher `score` (BM25+, minisearch's) is more alike in words. */
export interface Hit extends Passage {
	score: number;
	/** The passage holds the sentence word for word (whitespace collapsed). */
	verbatim: boolean;
}

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
 * query is limited to: how rare a word is in the book is what makes a shared word telling.
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
	readonly #search: MiniSearch<{ id: number; text: string }>;

	constructor(book: string, chunks: readonly Chunk[], sentences = PASSAGE_SENTENCES) {
		this.#book = book;
		this.passages = splitPassages(book, chunks, sentences);
		this.#search = new MiniSearch({ fields: ['text'], storeFields: [], tokenize: contentTokens, processTerm: (term) => term });
		this.#search.addAll(this.passages.map((p) => ({ id: p.index, text: book.slice(p.start, p.end) })));
	}

	/**
	 * The best `top` passages for `query`, limited to passages of `opts.chunks`. A passage that shares
	 * no content word with it is returned only when it holds the query word for word (a sentence of
	 * function words alone, "It was."), with score 0.
	 */
	rank(query: string, top: number, opts: RankOptions = {}): Hit[] {
		if (top <= 0) return [];
		const allowed = opts.chunks ? new Set(opts.chunks) : null;
		const direct = new Set(opts.direct ?? []);
		const key = sentenceKey(query);
		const results = this.#search.search(query, {
			combineWith: 'OR',
			prefix: false,
			fuzzy: false,
			filter: allowed ? (r) => allowed.has(this.passages[r.id as number]!.chunk) : undefined,
		});
		const hits = results.map((r) => {
			const passage = this.passages[r.id as number]!;
			const verbatim = key !== '' && this.#key(passage).includes(key);
			return { ...passage, score: r.score, verbatim, tier: verbatim ? (direct.has(passage.chunk) ? 0 : 1) : 2 };
		});
		if (hits.length === 0 && key !== '') {
			for (const passage of this.passages) {
				if ((!allowed || allowed.has(passage.chunk)) && this.#key(passage).includes(key)) hits.push({ ...passage, score: 0, verbatim: true, tier: direct.has(passage.chunk) ? 0 : 1 });
			}
		}
		hits.sort((a, b) => a.tier - b.tier || b.score - a.score || a.index - b.index);
		return hits.slice(0, top).map(({ tier: _, ...hit }) => hit);
	}

	#key(passage: Passage): string {
		return (this.#keys[passage.index] ??= sentenceKey(this.#book.slice(passage.start, passage.end)));
	}
}
