import MiniSearch from 'minisearch';
import type { Chunk } from '../domain.ts';
import { contentStems, properNames, stem } from '../text/stems.ts';
import { contentTokens } from '../text/textrank.ts';
import { reciprocalRank } from './fusion.ts';
import { PASSAGE_SENTENCES, splitPassages, type Passage } from './passages.ts';
import { sentenceKey } from './provenance.ts';
import { sceneWindows, type SceneWindow } from './scene-windows.ts';
import { bookPlaces, type Place } from './places.ts';

/**
 * A passage ranked for a sentence: higher `score` (BM25+, minisearch's, of the passage alone) is
 * more alike in words. Hits are ordered by the passage's and its scene's ranks, so a later hit can
 * have the higher score.
 */
export interface Hit extends Passage {
	score: number;
	/** The passage holds the sentence word for word (whitespace collapsed). */
	verbatim: boolean;
}

const NONE: ReadonlySet<number> = new Set();

/** A hit as ranked: verbatim first (tier 0: of a direct chunk; 1: of another), the rest (tier 2) by fused rank, then by position. */
type Ranked = Hit & { tier: number; fused: number };

/** The best `size` hits offered, kept in order as they come. */
class Best {
	readonly items: Ranked[] = [];
	constructor(readonly size: number) {}

	static order(
		a: Pick<Ranked, 'tier' | 'fused' | 'index'>,
		b: Pick<Ranked, 'tier' | 'fused' | 'index'>,
	): number {
		return a.tier - b.tier || b.fused - a.fused || a.index - b.index;
	}

	offer(hit: Ranked): void {
		const { items, size } = this;
		if (items.length === size && Best.order(hit, items[size - 1]!) >= 0) return;
		let at = items.length;
		while (at > 0 && Best.order(hit, items[at - 1]!) < 0) at--;
		items.splice(at, 0, hit);
		if (items.length > size) items.pop();
	}
}

/**
 * `hits` (best first) in rounds over their places: the best hit of each place, places in the order
 * of their best hits, then each place's second, and so on; hits that hold the query word for word
 * stay first, as they are. So the first hits shown are as many different places as there are.
 */
export function inRounds<T extends Pick<Hit, 'index' | 'verbatim'>>(
	hits: readonly T[],
	placeOf: (hit: T) => number,
): T[] {
	const verbatim = hits.filter((h) => h.verbatim);
	const byPlace = new Map<number, T[]>();
	for (const hit of hits) {
		if (hit.verbatim) continue;
		const place = placeOf(hit);
		const list = byPlace.get(place);
		if (list) list.push(hit);
		else byPlace.set(place, [hit]);
	}
	const lists = [...byPlace.values()];
	const rounds: T[] = [];
	for (let round = 0; rounds.length + verbatim.length < hits.length; round++)
		for (const list of lists) if (round < list.length) rounds.push(list[round]!);
	return [...verbatim, ...rounds];
}
const NO_RANKS: ReadonlyMap<number, number> = new Map();

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
	/**
	 * Rank places first and passages by their scene windows too (the default), for a summary's
	 * sentence, which condenses a scene of some chapter. False for an atomic claim, which one passage
	 * tells, ranked by passages alone: on the labelled set's claims, scene windows lowered the share
	 * of sentences whose claims' passages show a right chapter, at 10 a claim, from 95% to 92%, and
	 * both chapters of a two-chapter sentence from 13 of 18 to 11.
	 */
	scenes?: boolean;
}

/** How a claim is ranked (faithfulness, and bench/evidence.ts measuring it): by passages alone. */
export const CLAIM_RANK = { scenes: false } as const satisfies RankOptions;

/**
 * The book's passages indexed once for lexical search (BM25+ through minisearch), so each sentence
 * of a summary costs two queries: one over the passages and one over their scene windows
 * (scene-windows.ts, pages of the book). Term statistics are the whole book's, whatever set of
 * chunks a query is limited to: how rare a word is in the book is what makes a shared word telling.
 * Words are matched by their stems (text/stems.ts) and the book's proper names count `NAME_BOOST`
 * times.
 *
 * Order: passages that hold the query word for word come first (a copied sentence's own place
 * beats a short passage that merely shares its rare word; among several, those of `direct` chunks
 * first). Then the passages that share a content word with the query, by the reciprocal-rank fusion
 * (fusion.ts) of the passage's rank and the rank of the best scene window that holds it: a
 * paraphrase names the scene's people in one clause and its acts in another, which the book tells
 * sentences apart, so the page that holds them all places a sentence better than the three sentences
 * that hold most of them (on the labelled set, the right chapter came first for 23 of 46
 * single-event sentences, against 17 by passages alone). Equal by position in the book, so the
 * order is deterministic. And a place at a time (places.ts, `#placeRanks`): the places (chapters)
 * are ranked first, and the passages come in rounds over them, each place's best passage in the
 * places' order, then each one's second, so the first three are three places rather than one
 * scene three times (on the labelled set, held out, the right chapter among the first three for 36
 * of 46 single-event sentences, against 30; 39 once places were ranked by their three best
 * passages rather than their best). A claim (`scenes: false`) is ranked by passages alone.
 */
export class PassageIndex {
	readonly passages: readonly Passage[];
	readonly #book: string;
	/** Each passage's text as queries are matched word for word, made when first needed. */
	readonly #keys: (string | undefined)[] = [];
	readonly #search: MiniSearch<{ id: number; stems: string }>;
	/** The scene windows' index, made on the first query that ranks by scenes (claims never do). */
	#scenes: MiniSearch<{ id: number; stems: string }> | null = null;
	readonly #windows: readonly SceneWindow[];
	/** Each passage's content stems, joined: what the scene index is made of. */
	readonly #joined: string[] = [];
	readonly #sets = new WeakMap<Iterable<number>, ReadonlySet<number>>();
	/** Passages holding each stem. */
	readonly #df = new Map<string, number>();
	readonly #names: ReadonlySet<string>;
	/** Each passage's content stems, made when first needed. */
	readonly #stems: (ReadonlySet<string> | undefined)[] = [];
	/** The book's places (places.ts): its chapters, or parts of a long one. */
	readonly places: readonly Place[];
	/** Each passage's place (index into `places`), by passage index. */
	readonly #placeOf: number[] = [];
	/** The places' index, made on the first query that ranks by places (claims never do). */
	#placeSearch: MiniSearch<{ id: number; stems: string }> | null = null;
	/** Each chunk's passages as a range of `passages` (they are in chunk order). */
	readonly #chunks = new Map<number, { from: number; to: number }>();

	constructor(book: string, chunks: readonly Chunk[], sentences = PASSAGE_SENTENCES) {
		this.#book = book;
		this.passages = splitPassages(book, chunks, sentences);
		this.#names = properNames(book);
		// Each passage is stemmed once, here, for the term counts and both indexes: they get its stems,
		// and only queries are tokenized and stemmed by minisearch.
		this.#search = this.#stemIndex();
		for (const p of this.passages) {
			const range = this.#chunks.get(p.chunk);
			if (range) range.to = p.index + 1;
			else this.#chunks.set(p.chunk, { from: p.index, to: p.index + 1 });
			const stems = contentStems(book.slice(p.start, p.end));
			for (const term of new Set(stems)) this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
			this.#joined.push(stems.join(' '));
			this.#search.add({ id: p.index, stems: this.#joined[p.index]! });
		}
		this.#windows = sceneWindows(this.passages);
		this.places = bookPlaces(book, this.passages);
		this.places.forEach((place, id) => {
			for (let p = place.from; p < place.to; p++) this.#placeOf[p] = id;
		});
	}

	/** The place (index into `places`) that holds a passage. */
	placeOf(passage: Pick<Passage, 'index'>): number {
		return this.#placeOf[passage.index]!;
	}

	/** The scene windows' index, made when first asked for. */
	#sceneIndex(): MiniSearch<{ id: number; stems: string }> {
		return (this.#scenes ??= this.#runsIndex(this.#windows));
	}

	/** The places' index, made when first asked for. */
	#placeIndex(): MiniSearch<{ id: number; stems: string }> {
		return (this.#placeSearch ??= this.#runsIndex(this.places));
	}

	/** An index of runs of passages (windows, places), each one text of its passages' stems. */
	#runsIndex(runs: readonly { from: number; to: number }[]): MiniSearch<{ id: number; stems: string }> {
		const index = this.#stemIndex();
		runs.forEach((run, id) =>
			index.add({
				id,
				stems: this.#joined
					.slice(run.from, run.to)
					.filter((s) => s !== '')
					.join(' '),
			}),
		);
		return index;
	}

	/** An index of texts given as their stems, searched by a query's stems, names boosted. */
	#stemIndex(): MiniSearch<{ id: number; stems: string }> {
		return new MiniSearch({
			fields: ['stems'],
			storeFields: [],
			// Stems hold no spaces (a token is a run of letters and digits, apostrophes inside).
			tokenize: (stems) => (stems === '' ? [] : stems.split(' ')),
			processTerm: (term) => term,
			searchOptions: {
				tokenize: contentTokens,
				processTerm: stem,
				boostTerm: (term) => (this.#names.has(term) ? NAME_BOOST : 1),
				combineWith: 'OR',
				prefix: false,
				fuzzy: false,
			},
		});
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
		const inScope = allowed ? (passage: number) => allowed.has(this.passages[passage]!.chunk) : null;
		// Best first (minisearch sorts by score), so a result's position is its rank.
		const results = this.#search.search(query, {
			filter: inScope ? (r) => inScope(r.id as number) : undefined,
		});
		const byPlaces = opts.scenes !== false;
		const sceneRank = byPlaces ? this.#sceneRanks(query, inScope) : NO_RANKS;
		const fusedOf = (passage: number, rank: number) =>
			reciprocalRank(rank) + reciprocalRank(sceneRank.get(passage));
		// Only the first `top` places can show a passage, each at most `top` of them.
		const places = byPlaces ? this.#placeRanks(query, results, fusedOf, allowed) : null;
		// Each list keeps its best `top` as the results go by: a common word matches thousands of
		// passages, and an object and a sort for each of them cost a long node's sentences more than
		// the search.
		const verbatim = new Best(top);
		const lists = new Map<number, Best>();
		const offer = (passage: Passage, score: number, holds: boolean, fused: number) => {
			if (holds) {
				verbatim.offer({ ...passage, score, verbatim: true, tier: direct.has(passage.chunk) ? 0 : 1, fused });
				return;
			}
			const place = places ? this.#placeOf[passage.index]! : -1;
			const rank = places ? (places.get(place) ?? Infinity) : 0;
			if (rank >= top) return;
			let list = lists.get(rank);
			if (!list) lists.set(rank, (list = new Best(top)));
			list.offer({ ...passage, score, verbatim: false, tier: 2, fused });
		};
		results.forEach((r, rank) => {
			const passage = this.passages[r.id as number]!;
			offer(passage, r.score, key !== '' && this.#key(passage).includes(key), fusedOf(passage.index, rank));
		});
		if (results.length === 0 && key !== '') {
			for (const passage of this.passages) {
				if ((!allowed || allowed.has(passage.chunk)) && this.#key(passage).includes(key))
					offer(passage, 0, true, 0);
			}
		}
		const ranked = [...lists.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, list]) => list.items);
		const hits = [...verbatim.items, ...(places ? inRounds(ranked, (h) => this.#placeOf[h.index]!) : ranked)];
		return hits.slice(0, top).map(({ tier: _, fused: __, ...hit }) => hit);
	}

	/**
	 * Each place's rank (from 0) for `query`, among the places that hold one of `results` (the
	 * passages that share a content word with it): the reciprocal-rank fusion of the place's own BM25
	 * rank, the chapter read as one text (a summary sentence condenses what a chapter tells over
	 * pages, its people in one, what they did in another), and the place's rank by its best
	 * `PLACE_PASSAGES` passages, each by its fused rank with its scene window (where the sentence's
	 * words stand together). Either alone placed fewer sentences on the development set
	 * (bench/evidence.ts --dev).
	 */
	#placeRanks(
		query: string,
		results: readonly { id: unknown }[],
		fusedOf: (passage: number, rank: number) => number,
		allowed: ReadonlySet<number> | null,
	): ReadonlyMap<number, number> {
		const filter = allowed
			? (r: { id: unknown }) => {
					const place = this.places[r.id as number]!;
					for (let p = place.from; p < place.to; p++) if (allowed.has(this.passages[p]!.chunk)) return true;
					return false;
				}
			: undefined;
		const own = ranksOf(this.#placeIndex().search(query, { filter }));
		// Each place's best PLACE_PASSAGES fused passage scores, best first.
		const bests = new Map<number, number[]>();
		results.forEach((r, rank) => {
			const place = this.#placeOf[r.id as number]!;
			const fused = fusedOf(r.id as number, rank);
			let list = bests.get(place);
			if (!list) bests.set(place, (list = []));
			if (list.length === PLACE_PASSAGES && fused <= list.at(-1)!) return;
			let at = list.length;
			while (at > 0 && list[at - 1]! < fused) at--;
			list.splice(at, 0, fused);
			if (list.length > PLACE_PASSAGES) list.pop();
		});
		const best = new Map([...bests].map(([place, list]) => [place, placeEvidence(list)]));
		const byPassage = new Map(
			[...best].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([place], rank) => [place, rank]),
		);
		const fused = (place: number) => reciprocalRank(own.get(place)) + reciprocalRank(byPassage.get(place));
		const order = [...best.keys()].sort((a, b) => fused(b) - fused(a) || a - b);
		return new Map(order.map((place, rank) => [place, rank]));
	}

	/**
	 * Each passage's best rank (from 0) among the scene windows that share a content word with
	 * `query`, counting only windows that hold a passage in scope.
	 */
	#sceneRanks(query: string, inScope: ((passage: number) => boolean) | null): ReadonlyMap<number, number> {
		const ranks = new Map<number, number>();
		const scenes = this.#sceneIndex().search(query, {
			filter: inScope
				? (r) => {
						const w = this.#windows[r.id as number]!;
						for (let p = w.from; p < w.to; p++) if (inScope(p)) return true;
						return false;
					}
				: undefined,
		});
		scenes.forEach((r, rank) => {
			const w = this.#windows[r.id as number]!;
			for (let p = w.from; p < w.to; p++) if (!ranks.has(p)) ranks.set(p, rank);
		});
		return ranks;
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

/**
 * How many of a place's best passages rank it. A summary sentence condenses a scene that its chapter
 * tells over several passages, while a later chapter that recalls the event (a letter, a talk about
 * it) holds one or two passages with its names and nouns: a place is ranked by how well its several
 * best passages match, not its single best one. Three, as many as a sentence's evidence shows by
 * default (evidence.ts `TOP_PASSAGES`); on the development set two to ten did about as well.
 */
const PLACE_PASSAGES = 3;

/**
 * A place's passage evidence from its best passages' fused scores (best first): their sum, the k-th
 * divided by k as a ranked list's gain is discounted (discounted cumulative gain), so the best
 * passage counts most, the second half as much, the third a third.
 */
function placeEvidence(scores: readonly number[]): number {
	return scores.reduce((sum, score, k) => sum + score / (k + 1), 0);
}

/** Each result's rank (from 0) by id, from minisearch's results (best first). */
function ranksOf(results: readonly { id: unknown }[]): Map<number, number> {
	return new Map(results.map((r, rank) => [r.id as number, rank]));
}
