/**
 * Places (places.ts) scored by query likelihood: how likely the place, read as a bag of stems, is to
 * produce the sentence's stems, each place's counts smoothed toward the whole book's by a Dirichlet
 * prior (Zhai and Lafferty, 2001). BM25 saturates a term's count and weighs it by how many places
 * hold it; query likelihood weighs a term by how much more often the place uses it than the book
 * does, so a chapter that keeps coming back to a word (the sermons of the chapter that tells them)
 * stands out from one that names it once. The two err on different places, which is why their
 * ranks are fused rather than one replacing the other.
 */

/**
 * The Dirichlet prior's mass, in stems: the value its authors found good across collections and the
 * usual default (Lucene's, Indri's). Not fitted: on the development set (bench/evidence.ts --dev)
 * 300 to 2,000 placed about as many sentences.
 */
export const DIRICHLET_MU = 2000;

/** Stem counts of each place and of the whole book, for scoring places by query likelihood. */
export class PlaceLikelihood {
	readonly #counts: Map<string, number>[];
	readonly #lengths: number[];
	readonly #book = new Map<string, number>();
	readonly #bookLength: number;

	/** `places`: each place's stems (repeats counted), in place order. */
	constructor(
		places: readonly (readonly string[])[],
		readonly mu = DIRICHLET_MU,
	) {
		let total = 0;
		this.#lengths = [];
		this.#counts = places.map((stems) => {
			const counts = new Map<string, number>();
			for (const stem of stems) {
				counts.set(stem, (counts.get(stem) ?? 0) + 1);
				this.#book.set(stem, (this.#book.get(stem) ?? 0) + 1);
			}
			this.#lengths.push(stems.length);
			total += stems.length;
			return counts;
		});
		this.#bookLength = total;
	}

	/**
	 * Each of `places`' log-likelihood ratio against the book for `query` (stem to its weight in the
	 * query): the sum over the query's stems of weight × ln(p(stem | place) / p(stem | book)), with
	 * p(stem | place) = (count + mu × p(stem | book)) / (length + mu). A stem the book never uses is
	 * left out: it says nothing about where in the book the sentence is. Higher is likelier; a place
	 * that holds none of the stems scores below 0, the more so the longer it is.
	 */
	scores(query: ReadonlyMap<string, number>, places: Iterable<number>): Map<number, number> {
		const terms = [...query].flatMap(([stem, weight]) => {
			const inBook = this.#book.get(stem);
			return inBook ? [{ stem, weight, p: inBook / this.#bookLength }] : [];
		});
		const out = new Map<number, number>();
		for (const place of places) {
			const counts = this.#counts[place]!;
			const norm = this.#lengths[place]! + this.mu;
			let score = 0;
			for (const { stem, weight, p } of terms)
				score += weight * Math.log(((counts.get(stem) ?? 0) + this.mu * p) / norm / p);
			out.set(place, score);
		}
		return out;
	}
}
