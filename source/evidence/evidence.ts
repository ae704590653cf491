import type { NodeRef, Run } from '../domain.ts';
import { Tracer, type SentenceSource } from './provenance.ts';
import type { Hit, PassageIndex, RankOptions } from './rank.ts';
import { denseSupport, fusedRank, type DenseVectors, type Rank } from './rerank.ts';
import { supportOf, type Support } from './support.ts';

/** Passages shown per sentence unless told. */
export const TOP_PASSAGES = 3;

/** A sentence of a summary, where it can come from (chunks), and the passages of those chunks most like it. */
export interface SentenceEvidence extends SentenceSource, Support {
	/**
	 * Best first: those of its aligned chunks, then, to make up `top`, the rest of its chunks'; empty
	 * when no passage of its chunks shares a word with it.
	 */
	passages: Hit[];
	/** Support by the embeddings (rerank.ts `denseSupport`), when they were asked for and the sentence has a vector. */
	denseSupport?: number;
}

export interface EvidenceOptions {
	/** Passages per sentence (default 3). */
	top?: number;
	/** The text to trace, when not the node's active version (a pinned scored version). */
	text?: string;
	/** Only these sentence indices (default: every sentence). */
	sentences?: readonly number[];
	/** A tracer already made for this run (with the index's weights, to align), to share its memory across calls. */
	tracer?: Tracer;
	/**
	 * Whether a line break ends a sentence (default true). A scored summary is cut as BooookScore
	 * counts it (`units`), so its sentence numbers are the ones its verdicts name.
	 */
	lineBreaks?: boolean;
	/** Rerank BM25's passages by these embeddings (rerank.ts); absent: BM25 alone, offline. */
	dense?: DenseVectors;
}

/**
 * The evidence for each sentence of `node`'s summary: its candidate chunks by the tree, the best
 * passages of those chunks by BM25 (its aligned chunks' first), and how well they support it
 * (support.ts). Pure and offline; `index` is built once per book.
 */
export function nodeEvidence(
	run: Run,
	index: PassageIndex,
	node: NodeRef,
	opts: EvidenceOptions = {},
): SentenceEvidence[] {
	return [...eachEvidence(run, index, node, opts)];
}

/**
 * `nodeEvidence` one sentence at a time, each worked out when it is asked for: what a command
 * shows as it goes, holding one sentence's evidence rather than a long node's all at once.
 */
export function* eachEvidence(
	run: Run,
	index: PassageIndex,
	node: NodeRef,
	opts: EvidenceOptions = {},
): Generator<SentenceEvidence> {
	const top = opts.top ?? TOP_PASSAGES;
	const tracer = opts.tracer ?? tracerFor(run, index);
	const wanted = opts.sentences ? new Set(opts.sentences) : undefined;
	const rank = opts.dense && fusedRank(index, opts.dense);
	for (const s of tracer.eachSource(node, opts.text, wanted, { lineBreaks: opts.lineBreaks })) {
		// Support is the sentence's, not the view's: always of its first TOP_PASSAGES (what
		// bench/evidence.ts measures), so `--top 1`, `--top 50` and coverage (which shows one) agree.
		const ranked = rankedFor(index, s, s.text, Math.max(top, TOP_PASSAGES), rank);
		const judged = ranked.slice(0, TOP_PASSAGES);
		const dense = opts.dense && denseSupport(opts.dense, s.text, judged);
		yield {
			...s,
			passages: ranked.slice(0, top),
			...supportOf(s.text, judged, index),
			...(typeof dense === 'number' ? { denseSupport: dense } : {}),
		};
	}
}

/**
 * The best `top` passages for `text` (the sentence, or a claim of it) among the sentence's chunks:
 * those of its aligned chunks first, then the rest's to make up `top`. A passage that holds the text
 * word for word is its place whatever the alignment says (a copied line such as "Who is there?" can
 * align to another scene's sentence). `rank` is BM25's unless told (a rerank by embeddings,
 * rerank.ts), `how` whether it ranks by scenes too (not for a claim: `CLAIM_RANK`).
 */
export function rankedFor(
	index: PassageIndex,
	s: SentenceSource,
	text: string,
	top: number,
	rank: Rank = (query, n, opts) => index.rank(query, n, opts),
	how: Pick<RankOptions, 'scenes'> = {},
): Hit[] {
	const wide = rank(text, top, { chunks: s.chunks, direct: s.direct, ...how });
	// Not narrowed (the aligned chunks are all of them): the wide ranking is the ranking.
	if (s.aligned.length === s.chunks.length || wide[0]?.verbatim) return wide;
	const passages = rank(text, top, { chunks: s.aligned, direct: s.direct, ...how });
	const have = new Set(passages.map((p) => p.index));
	for (const p of wide) if (passages.length < top && !have.has(p.index)) passages.push(p);
	return passages;
}

/** A tracer of `run` that aligns sentences with the weights of `index`'s book. */
export function tracerFor(run: Run, index: PassageIndex): Tracer {
	return new Tracer(run, index);
}

/** The evidence of the run's final summary (its root), or null before the run has one. */
export function finalEvidence(
	run: Run,
	index: PassageIndex,
	opts: EvidenceOptions = {},
): SentenceEvidence[] | null {
	return run.root ? nodeEvidence(run, index, run.root, opts) : null;
}
