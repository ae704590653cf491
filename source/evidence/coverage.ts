import type { Chunk, Run } from '../domain.ts';
import { eachEvidence, type SentenceEvidence } from './evidence.ts';
import type { PassageIndex } from './rank.ts';
import type { DenseVectors } from './rerank.ts';

/**
 * Which parts of the book a summary draws on. A sentence cites one chunk: the chunk of its best
 * evidence passage. One citation per sentence (rather than every chunk whose passages pass a
 * score threshold) keeps the numbers comparable across books and summaries, since BM25 scores
 * have no fixed scale; a sentence with no passage sharing a word with it cites nothing.
 *
 * A chunk's position is its middle character over the book's length, in [0, 1]; the book is cut
 * into parts (tenths by default) and halves by that position.
 */
export interface Coverage {
	/** Chunks in the book. */
	chunks: number;
	/** Sentences of the summary, and how many of them cite a chunk. */
	sentences: number;
	citing: number;
	/** Sentences citing each chunk, by chunk index. */
	citations: number[];
	/** Chunks cited by at least one sentence, and their share of all chunks, in [0, 1]. */
	cited: number;
	share: number;
	/** Mean position of the cited chunk over citing sentences, in [0, 1] (0.5: no lean); null when none cite. */
	meanPosition: number | null;
	/** The book in equal parts by position: chunks in each, how many are cited, the share cited (null: no chunk). */
	parts: { from: number; to: number; chunks: number; cited: number; share: number | null }[];
	/** Share of chunks cited in the first and second half, and second over first (null when the first is 0). */
	halves: { first: number | null; second: number | null; ratio: number | null };
	/**
	 * Whether later parts are cited less, read from `halves` and nothing else: a second measure of
	 * the same lean (a regression slope over the chunks) disagreed with the halves whenever the
	 * uncited chunks sat at the very end of a half, and two readings of one lean that can point
	 * opposite ways defend neither. 'even' within LEAN_BAND of the first half's share; null when
	 * a half has no chunk or neither half is cited.
	 */
	lean: 'less' | 'more' | 'even' | null;
}

/** How far apart the halves' shares may be (relative to the first) and still read as no lean. */
export const LEAN_BAND = 0.1;

/** The lean of the second half against the first, from their shares of chunks cited. */
export function leanOf(first: number | null, second: number | null): Coverage['lean'] {
	if (first === null || second === null || (first === 0 && second === 0)) return null;
	if (second < first * (1 - LEAN_BAND)) return 'less';
	if (second > first * (1 + LEAN_BAND)) return 'more';
	return 'even';
}

/** The chunk each sentence cites: its top passage's, or null. */
export function citedChunks(evidence: readonly SentenceEvidence[]): (number | null)[] {
	return evidence.map((s) => s.passages[0]?.chunk ?? null);
}

/** Coverage of a book of `chunks` (and `length` characters) by sentences citing `cited` (chunk index or null each). */
export function coverageOf(
	chunks: readonly Chunk[],
	length: number,
	cited: readonly (number | null)[],
	parts = 10,
): Coverage {
	if (!Number.isInteger(parts) || parts < 1)
		throw new Error(`parts must be a whole number of at least 1, got ${parts}`);
	const position = chunks.map((c) => (length > 0 ? (c.start + c.end) / 2 / length : 0));
	const citations = chunks.map(() => 0);
	let sum = 0;
	let citing = 0;
	for (const c of cited) {
		if (c === null || c < 0 || c >= chunks.length) continue;
		citations[c]!++;
		sum += position[c]!;
		citing++;
	}
	const isCited = citations.map((n) => (n > 0 ? 1 : 0));
	const shareOf = (pick: (i: number) => boolean) => {
		const idx = chunks.map((_, i) => i).filter(pick);
		return { chunks: idx.length, cited: idx.filter((i) => isCited[i]).length };
	};
	const ratioOf = (a: { chunks: number; cited: number }) => (a.chunks ? a.cited / a.chunks : null);
	const bucket = (p: number) => Math.min(parts - 1, Math.floor(p * parts));
	const first = ratioOf(shareOf((i) => position[i]! < 0.5));
	const second = ratioOf(shareOf((i) => position[i]! >= 0.5));
	return {
		chunks: chunks.length,
		sentences: cited.length,
		citing,
		citations,
		cited: isCited.reduce<number>((a, b) => a + b, 0),
		share: chunks.length ? isCited.reduce<number>((a, b) => a + b, 0) / chunks.length : 0,
		meanPosition: citing ? sum / citing : null,
		parts: Array.from({ length: parts }, (_, k) => {
			const s = shareOf((i) => bucket(position[i]!) === k);
			return { from: k / parts, to: (k + 1) / parts, ...s, share: ratioOf(s) };
		}),
		halves: { first, second, ratio: first && second !== null ? second / first : null },
		lean: leanOf(first, second),
	};
}

/**
 * Coverage of the run's final summary (its root), or null before the run has one. Each sentence's
 * evidence is let go once its cited chunk is noted, so a summary of any length holds one number per
 * sentence; `onSentence` hears how many are done and the best passage of the last (to place it).
 * With `dense`, each sentence's passages are reranked by embeddings (rerank.ts).
 */
export function finalCoverage(
	run: Run,
	book: string,
	index: PassageIndex,
	parts = 10,
	onSentence?: (done: number, evidence: SentenceEvidence) => void,
	dense?: DenseVectors,
): Coverage | null {
	if (!run.root) return null;
	const cited: (number | null)[] = [];
	for (const s of eachEvidence(run, index, run.root, { top: 1, dense })) {
		cited.push(s.passages[0]?.chunk ?? null);
		onSentence?.(cited.length, s);
	}
	return coverageOf(run.chunks, book.length, cited, parts);
}
