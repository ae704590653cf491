import { runsOf } from './runs.ts';

/**
 * TextRank over sentences (Mihalcea & Tarau 2004) with LexRank's similarity (Erkan & Radev 2004):
 * a graph whose nodes are sentences and whose edge weights are the cosine similarity of their
 * TF-IDF vectors, scored with weighted PageRank. A sentence ranks high when it shares rare words
 * with many other sentences, which is what "central to the text" means here. Pure: no I/O, no
 * clock, no randomness; equal input gives bit-for-bit equal scores.
 */

export interface RankOptions {
	/** PageRank damping factor: the chance of following an edge rather than jumping anywhere. */
	damping?: number;
	/** Stop when the scores move less than this (L1 distance) in one iteration. */
	tolerance?: number;
	/** Upper bound on iterations, so a pathological graph still returns promptly. */
	maxIterations?: number;
}

/** An undirected weighted graph as adjacency lists: `neighbors[i][k]` has weight `weights[i][k]`. */
export interface Graph {
	size: number;
	neighbors: number[][];
	weights: number[][];
}

const DEFAULTS: Required<RankOptions> = { damping: 0.85, tolerance: 1e-10, maxIterations: 200 };

// Function words carry no topic; left in, they tie every sentence to every other and flatten the
// ranking. IDF alone only damps them, because in a few hundred sentences even "the" misses many.
const STOPWORDS = new Set(
	(
		'a about above after again against all am an and any are as at be because been before being below between both ' +
		'but by can could did do does doing down during each few for from further had has have having he her here hers ' +
		'herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on ' +
		'once only or other our ours ourselves out over own same she should so some such than that the their theirs them ' +
		'themselves then there these they this those through to too under until up very was we were what when where ' +
		'which while who whom why will with would you your yours yourself yourselves ' +
		"i'm i've i'd i'll you're you've you'd you'll he's she's it's we're we've they're they've that's there's " +
		"don't doesn't didn't isn't wasn't aren't weren't won't wouldn't can't couldn't shouldn't hasn't haven't hadn't " +
		'said says say one also upon us'
	).split(' '),
);

// Letters and digits, keeping inner apostrophes ("didn't", "Anne’s") so contractions stay one word.
// As `/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu`, in constant stack: a summary sentence can be a word of megabytes (see runs.ts).
const LETTERS = '[\\p{L}\\p{N}]';

/** Lowercase word tokens of a sentence, in order (punctuation dropped, curly apostrophes unified). */
export function wordTokens(sentence: string): string[] {
	const lower = sentence.toLowerCase();
	const out: string[] = [];
	for (const [start, end] of runsOf(lower, LETTERS, "'’"))
		out.push(lower.slice(start, end).replaceAll('’', "'"));
	return out;
}

/** The tokens that count for similarity: word tokens without stopwords. */
export function contentTokens(sentence: string): string[] {
	return wordTokens(sentence).filter((w) => !STOPWORDS.has(w));
}

/**
 * The cosine-similarity graph of TF-IDF vectors, one node per token list. Built through an inverted
 * index so only pairs that share a term are visited: sparse texts cost far less than n².
 */
export function similarityGraph(docs: readonly (readonly string[])[]): Graph {
	const n = docs.length;
	const df = new Map<string, number>();
	const tfs = docs.map((doc) => {
		const tf = new Map<string, number>();
		for (const term of doc) tf.set(term, (tf.get(term) ?? 0) + 1);
		for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
		return tf;
	});

	// Smoothed IDF (as scikit-learn's default) stays positive, so a term in every sentence still
	// links them instead of vanishing; sublinear TF stops one repeated word from dominating.
	// Each document keeps, per term, its unit-vector weight and its place in the term's postings.
	const postings = new Map<string, { docs: number[]; weights: number[] }>();
	const vectors = tfs.map((tf, doc) => {
		const entries: { list: { docs: number[]; weights: number[] }; at: number; weight: number }[] = [];
		let norm = 0;
		for (const [term, count] of tf) {
			const weight = (1 + Math.log(count)) * (1 + Math.log((1 + n) / (1 + df.get(term)!)));
			let list = postings.get(term);
			if (!list) postings.set(term, (list = { docs: [], weights: [] }));
			entries.push({ list, at: list.docs.length, weight });
			list.docs.push(doc);
			list.weights.push(weight);
			norm += weight * weight;
		}
		norm = Math.sqrt(norm);
		for (const e of entries) {
			e.weight /= norm;
			e.list.weights[e.at] = e.weight;
		}
		return entries;
	});

	// Dot products of unit vectors for pairs i < j, summed into a dense scratch row: typed-array
	// adds instead of map lookups keep a dense 600-sentence text in tens of milliseconds.
	const neighbors: number[][] = Array.from({ length: n }, () => []);
	const weights: number[][] = Array.from({ length: n }, () => []);
	const row = new Float64Array(n);
	const touched: number[] = [];
	for (let i = 0; i < n; i++) {
		for (const { list, at, weight } of vectors[i]!) {
			for (let k = at + 1; k < list.docs.length; k++) {
				const j = list.docs[k]!;
				if (row[j] === 0) touched.push(j);
				row[j] = row[j]! + weight * list.weights[k]!;
			}
		}
		// Sorted so neighbour order, and hence every float in PageRank, depends only on the input.
		touched.sort((a, b) => a - b);
		for (const j of touched) {
			const w = row[j]!;
			row[j] = 0;
			if (!(w > 0)) continue;
			neighbors[i]!.push(j);
			weights[i]!.push(w);
			neighbors[j]!.push(i);
			weights[j]!.push(w);
		}
		touched.length = 0;
	}
	return { size: n, neighbors, weights };
}

/**
 * Weighted PageRank: each node passes its score to its neighbours in proportion to edge weight.
 * Nodes without edges spread theirs evenly, so the scores always sum to 1.
 */
export function pageRank(graph: Graph, options: RankOptions = {}): Float64Array {
	const { damping, tolerance, maxIterations } = { ...DEFAULTS, ...options };
	const n = graph.size;
	let scores = new Float64Array(n).fill(n === 0 ? 0 : 1 / n);
	if (n === 0) return scores;
	const outWeight = graph.weights.map((ws) => ws.reduce((s, w) => s + w, 0));
	// Incoming edges flattened into typed arrays (CSR), each with the share of its source's score it
	// carries: the inner loop below then runs over plain numbers, hundreds of thousands per pass.
	const offsets = new Int32Array(n + 1);
	for (let j = 0; j < n; j++) offsets[j + 1] = offsets[j]! + graph.neighbors[j]!.length;
	const sources = new Int32Array(offsets[n]!);
	const shares = new Float64Array(offsets[n]!);
	for (let j = 0; j < n; j++) {
		const ns = graph.neighbors[j]!;
		const ws = graph.weights[j]!;
		for (let k = 0; k < ns.length; k++) {
			sources[offsets[j]! + k] = ns[k]!;
			shares[offsets[j]! + k] = ws[k]! / outWeight[ns[k]!]!;
		}
	}
	for (let iter = 0; iter < maxIterations; iter++) {
		let dangling = 0;
		for (let i = 0; i < n; i++) if (outWeight[i] === 0) dangling += scores[i]!;
		const base = (1 - damping) / n + (damping * dangling) / n;
		const next = new Float64Array(n);
		for (let j = 0; j < n; j++) {
			let inflow = 0;
			for (let e = offsets[j]!; e < offsets[j + 1]!; e++) inflow += scores[sources[e]!]! * shares[e]!;
			next[j] = base + damping * inflow;
		}
		let delta = 0;
		for (let i = 0; i < n; i++) delta += Math.abs(next[i]! - scores[i]!);
		scores = next;
		if (delta < tolerance) break;
	}
	return scores;
}

/** TextRank scores of sentences (same order as given; they sum to 1). */
export function textRank(sentences: readonly string[], options: RankOptions = {}): Float64Array {
	return pageRank(similarityGraph(sentences.map(contentTokens)), options);
}

/** Indices by descending score; equal scores keep their original order (earlier first). */
export function rankOrder(scores: ArrayLike<number>): number[] {
	return Array.from({ length: scores.length }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
}
