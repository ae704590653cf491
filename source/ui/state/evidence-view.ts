import type { NodeRef, Run } from '../../domain.ts';
import { nodeEvidence, type SentenceEvidence } from '../../evidence/evidence.ts';
import { PassageIndex } from '../../evidence/rank.ts';
import { activeVersion, findNode } from '../../summarize/graph.ts';

/**
 * The evidence the run screen shows for a node's sentences, computed when asked and kept: the
 * book's passage index once per book (it takes a moment on a long book), and a node's evidence
 * until its active text changes (an edit or a re-run makes a new version, so a new key).
 */
let indexed: { book: string; chunks: Run['chunks']; index: PassageIndex } | null = null;
const kept = new Map<string, SentenceEvidence[]>();
const KEEP = 16;

function indexFor(run: Run, book: string): PassageIndex {
	if (!indexed || indexed.book !== book || indexed.chunks !== run.chunks) {
		indexed = { book, chunks: run.chunks, index: new PassageIndex(book, run.chunks) };
		kept.clear();
	}
	return indexed.index;
}

/** Each sentence of the node's active version with its evidence; null while the node has no text. */
export function evidenceOfNode(run: Run, book: string, id: NodeRef): SentenceEvidence[] | null {
	const node = findNode(run, id);
	const version = node ? activeVersion(node) : null;
	if (!node || !version) return null;
	const index = indexFor(run, book);
	const key = `${id}:${node.active}:${version.text.length}`;
	let evidence = kept.get(key);
	if (!evidence) {
		evidence = nodeEvidence(run, index, id);
		kept.set(key, evidence);
		if (kept.size > KEEP) kept.delete(kept.keys().next().value!);
	}
	return evidence;
}
