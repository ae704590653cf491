import type { NodeRef } from '../domain.ts';
import { bookPlace, type BookPlace } from '../evidence/book-place.ts';
import { eachEvidence, TOP_PASSAGES, type SentenceEvidence } from '../evidence/evidence.ts';
import { sentenceKey } from '../evidence/provenance.ts';
import type { DenseVectors } from '../evidence/rerank.ts';
import { activeVersion, getNode } from '../summarize/graph.ts';
import { madeWithoutCall } from '../summarize/version.ts';
import { sentenceCount } from '../text/sentences.ts';
import { evidenceSession, type EvidenceSession } from './evidence-session.ts';

/**
 * `booook evidence`: where each sentence of a run's node comes from, found one sentence at a time
 * so that a node of megabytes streams out in memory that does not grow with it.
 */

/** One sentence's evidence, with what showing it needs from the book and the run. */
/** Passages shown per sentence unless `--top` says. */
export const EVIDENCE_TOP = TOP_PASSAGES;

export interface PlacedSentence {
	evidence: SentenceEvidence;
	/** The sentence, whitespace collapsed. */
	sentence: string;
	/** Each of `evidence.passages`, in its order: its place in the book and its text, whitespace collapsed. */
	passages: { place: BookPlace; text: string }[];
	/** The nodes it was written at, and how each was made when not by a model (`edited by hand`, `imported text`). */
	origins: { node: NodeRef; madeBy: string | null }[];
}

export interface EvidenceReading {
	/** The session read: `--embeddings` reads its book's and node's vectors from it. */
	session: EvidenceSession;
	title: string;
	node: NodeRef;
	final: boolean;
	/** How many sentences the node has. */
	sentences: number;
	chunks: number;
	chapters: number;
	/** `sentences`: only these, by index from 0. */
	each(opts: { top: number; sentences?: readonly number[]; dense?: DenseVectors }): Generator<PlacedSentence>;
}

/** Session `id`'s node (default: the final summary), checked as `evidenceSession` checks it. */
export async function readEvidence(dir: string, id: string, node?: NodeRef): Promise<EvidenceReading> {
	const s = await evidenceSession(dir, id, node, 'evidence');
	const run = s.data.run;
	return {
		session: s,
		title: s.data.book.title,
		node: s.node,
		final: s.final,
		sentences: sentenceCount(activeVersion(getNode(run, s.node))!.text),
		chunks: run.chunks.length,
		get chapters() {
			return s.chapters.length;
		},
		*each(opts) {
			for (const e of eachEvidence(run, s.index, s.node, opts))
				yield {
					evidence: e,
					sentence: sentenceKey(e.text),
					passages: e.passages.map((p) => ({
						place: bookPlace(s.chapters, s.book.length, p.start),
						text: sentenceKey(s.book.slice(p.start, p.end)),
					})),
					origins: e.origins.map((ref) => ({
						node: ref,
						madeBy: madeWithoutCall(activeVersion(getNode(run, ref))),
					})),
				};
		},
	};
}
