import type { NodeRef, Run } from '../domain.ts';
import { activeVersion, chunksUnder, dependencies, findNode, isChunkRef } from '../summarize/graph.ts';
import type { Span } from '../text/sentences.ts';
import { Aligner, type BookTerms } from './align.ts';
import { collapseWhitespace } from '../text/runs.ts';
import { eachSentenceSpan, type SplitOptions } from '../text/sentences.ts';

/**
 * Where a sentence of a node's summary can come from, by following the run's tree; no model call.
 *
 * A sentence is traced down through the nodes it was copied from: while a node that the current
 * node read (an input or, for a hierarchical merge, its context) holds the sentence word for word
 * (whitespace collapsed), the sentence was carried over from there. Where no such node holds it,
 * the node it was written in is its origin, and the chunks it can come from are the chunks under
 * that origin's inputs:
 * - hierarchical: a level-0 summary gives its one chunk; a merge the chunks under its inputs (not
 *   under its context: that is earlier text the merge was shown only to keep the story going);
 * - incremental: the running summary after step k has read chunks 0..k, so a sentence that first
 *   appeared at step k (present in every step since) gives those chunks, and one written at a
 *   compression the chunks of the summary it compressed.
 * A sentence the model rewrote at every level thus falls back to every chunk its node read; given
 * the book's passage index, the tracer also aligns it down the tree (align.ts) to the few chunks it
 * most likely comes from (`aligned`).
 */

export interface SentenceSource {
	/** Index in the project's sentence split of the text (the index BooookScore annotations use). */
	index: number;
	/** Range of the sentence in the node's text. */
	span: Span;
	text: string;
	/** The nodes the sentence was written in (more than one when it was carried from several). */
	origins: NodeRef[];
	/** Indices of the chunks it can come from, ascending. */
	chunks: number[];
	/**
	 * The chunks among those that an origin read itself rather than through a summary (a level-0
	 * summary's chunk, the chunk an incremental step added): where a sentence new at that node most
	 * likely comes from. Empty for a sentence written at a merge or a compression.
	 */
	direct: number[];
	/**
	 * The chunks among `chunks` that the sentence's origins lead to by aligning it down the tree
	 * (align.ts): what evidence is ranked in first. `chunks` itself when the tracer has no index or
	 * the alignment is weak.
	 */
	aligned: number[];
	/**
	 * The traced text is a version edited by hand: its sentences were not written from the node's
	 * inputs, so their alignment to them is weaker than a model's.
	 */
	edited: boolean;
}

/** How sentences are matched across nodes: whitespace collapsed, nothing else. */
export function sentenceKey(text: string): string {
	// Not a regex replace: on a node of megabytes its record of every match took hundreds of MB, and a
	// run of ten million ideographic spaces overflowed the stack with the `u` flag.
	return collapseWhitespace(text).trim();
}

/**
 * Walks one run's tree; remembers what it has worked out (node texts, chunks under a node), so
 * tracing every sentence of a node stays cheap. Make a new one after the run changes (an edit, a
 * new version, a re-plan): what it remembers would be stale.
 */
export class Tracer {
	readonly #run: Run;
	readonly #texts = new Map<NodeRef, string | null>();
	readonly #under = new Map<NodeRef, ReadonlySet<number>>();
	readonly #origins = new Map<string, { chunks: number[]; direct: number[] }>();
	readonly #aligner: Aligner | null;

	/** `index`: the book's passages, to align sentences down the tree with (align.ts); without it, no alignment. */
	constructor(run: Run, index?: BookTerms) {
		this.#run = run;
		this.#aligner = index ? new Aligner(run, index, this.#under) : null;
	}

	/** Every sentence of `text` (default: the node's active version) with its origins and chunks. */
	sources(node: NodeRef, text?: string): SentenceSource[] {
		return [...this.eachSource(node, text)];
	}

	/**
	 * The sources of `sources`, one at a time, so that a caller can show each and let it go: a node
	 * edited to megabytes has hundreds of thousands of sentences. With `wanted`, only the sentences
	 * of those indices are traced.
	 */
	*eachSource(
		node: NodeRef,
		text?: string,
		wanted?: ReadonlySet<number>,
		split: SplitOptions = {},
	): Generator<SentenceSource> {
		const n = findNode(this.#run, node);
		const own = text ?? (n ? (activeVersion(n)?.text ?? null) : null);
		if (own === null) throw new Error(n ? `node ${node} has no text yet` : `no node ${node} in this run`);
		const edited = n?.versions.some((v) => v.origin === 'edit' && v.text === own) ?? false;
		let index = -1;
		for (const span of eachSentenceSpan(own, split)) {
			index++;
			if (wanted && !wanted.has(index)) continue;
			const sentence = own.slice(span.start, span.end);
			const origins = this.origins(node, sentence);
			const tree = this.#chunksOf(origins);
			yield {
				index,
				span,
				text: sentence,
				origins,
				...tree,
				aligned: this.#aligned(origins, sentence, tree.chunks),
				edited,
			};
		}
	}

	/**
	 * The chunks under `origins` and those they read directly, ascending. Kept per set of origins
	 * (most sentences of a node share a few), and the arrays are shared: they are read, never changed.
	 * Worked out for each sentence, the chunks of a book of thousands cost more than the ranking.
	 */
	#chunksOf(origins: readonly NodeRef[]): { chunks: number[]; direct: number[] } {
		const key = origins.join(' ');
		let found = this.#origins.get(key);
		if (!found) {
			const chunks = new Set<number>();
			const direct = new Set<number>();
			for (const origin of origins) {
				for (const c of this.chunksUnder(origin)) chunks.add(c);
				for (const ref of findNode(this.#run, origin)?.inputs ?? [])
					if (isChunkRef(ref)) direct.add(Number(ref.slice(1)));
			}
			const ascending = (set: Set<number>) => [...set].sort((a, b) => a - b);
			found = { chunks: ascending(chunks), direct: ascending(direct) };
			this.#origins.set(key, found);
		}
		return found;
	}

	/** The chunks alignment leads `sentence` to from its origins (within `chunks`), or `chunks` without an index. */
	#aligned(origins: readonly NodeRef[], sentence: string, chunks: number[]): number[] {
		if (!this.#aligner) return chunks;
		const found = new Set<number>();
		for (const origin of origins) for (const c of this.#aligner.chunks(origin, sentence)) found.add(c);
		const aligned = chunks.filter((c) => found.has(c));
		return aligned.length === 0 || aligned.length === chunks.length ? chunks : aligned;
	}

	/** The nodes under `node` where `sentence` was written: `node` itself unless it read the sentence. */
	origins(node: NodeRef, sentence: string): NodeRef[] {
		const key = sentenceKey(sentence);
		const found = new Set<NodeRef>();
		const seen = new Set<NodeRef>();
		const walk = (id: NodeRef) => {
			if (seen.has(id)) return;
			seen.add(id);
			const n = findNode(this.#run, id);
			const holders = key === '' || !n ? [] : dependencies(n).filter((ref) => this.#text(ref)?.includes(key));
			if (holders.length === 0) found.add(id);
			else holders.forEach(walk);
		};
		walk(node);
		return [...found];
	}

	/** The chunks a node read, through its inputs, at any depth (a chunk ref: itself). */
	chunksUnder(ref: NodeRef): ReadonlySet<number> {
		return chunksUnder(this.#run, ref, this.#under);
	}

	/** A node's active text with whitespace collapsed (how containment is checked), or null. */
	#text(ref: NodeRef): string | null {
		if (!this.#texts.has(ref)) {
			const n = findNode(this.#run, ref);
			const version = n ? activeVersion(n) : null;
			this.#texts.set(ref, version ? sentenceKey(version.text) : null);
		}
		return this.#texts.get(ref)!;
	}
}
