import type { NodeRef, Run } from '../domain.ts';
import { activeVersion, chunksUnder, dependencies, findNode, isChunkRef } from '../summarize/graph.ts';
import { splitSentences } from '../text/sentences.ts';
import { contentStems } from '../text/stems.ts';
import type { Passage } from './passages.ts';

/**
 * Where a sentence the model wrote (or a person edited) comes from, by aligning it down the run's
 * own tree; no model call. Verbatim tracing (provenance.ts) stops where the model reworded a
 * sentence, and a final-summary sentence then "can come from" every chunk of the book. Here the
 * sentence is matched to the sentences of the summaries its node read, and followed down:
 * - hierarchical: a merge's sentence goes to the few inputs (or the context) holding the sentences
 *   most like it, each followed with its matched sentence, level by level down to level-0
 *   summaries and their chunks;
 * - incremental: a running summary's sentence goes back through the steps while the summary before
 *   a step held a sentence like it; where none did, its content first entered at that step, from
 *   the chunk the step read, if a passage of that chunk holds it as well (a third of its weight);
 *   through a compression it is followed the same way.
 * Where no summary a node read holds a sentence like it (the alignment is weak) and the chunk it
 * read does not either, the walk does not guess: it keeps every chunk under that node (a sentence
 * typed into the last step of an incremental run is not new at that step because nothing before
 * it is alike). So a sentence is never narrowed to a wrong place with confidence; at worst it is
 * not narrowed.
 */

/**
 * How alike two sentences must be for one to be taken as carried from the other: the weighted
 * cosine of their content stems (IDF weights). A sentence reworded by a summary keeps its names and
 * key nouns, most of its weight; two sentences that share only a name, a quarter of the weight or
 * less, fall below a third. Not fitted to any book.
 */
export const ALIGN_MIN = 1 / 3;

/**
 * At most this many sentences followed from one node: the one most like the sentence and, if one is
 * as like what that leaves unexplained, a second. A sentence that joins two events came from two
 * places; more would give back the "every chunk" that alignment is meant to narrow.
 */
export const ALIGN_KEEP = 2;

/** What alignment reads of the book: its passages and how much a stem tells of a place (a `PassageIndex` is one). */
export interface BookTerms {
	passagesOf(chunk: number): readonly Passage[];
	stems(passage: Passage): ReadonlySet<string>;
	placeWeight(term: string): number;
}

interface Terms {
	text: string;
	terms: ReadonlySet<string>;
	/** Sum of the terms' weights. */
	mass: number;
}

/** A run's tree with the sentences of its nodes split and stemmed once, for aligning many sentences. */
export class Aligner {
	readonly #run: Run;
	readonly #index: BookTerms;
	readonly #sentences = new Map<NodeRef, Terms[]>();
	readonly #under: Map<NodeRef, ReadonlySet<number>>;

	/** `index`: the book's passages and term weights; `under`: a shared memo of the chunks under nodes. */
	constructor(run: Run, index: BookTerms, under: Map<NodeRef, ReadonlySet<number>> = new Map()) {
		this.#run = run;
		this.#index = index;
		this.#under = under;
	}

	/** The chunks `sentence`, written at `node`, comes from by alignment, ascending. */
	chunks(node: NodeRef, sentence: string): number[] {
		const out = new Set<number>();
		this.#walk(node, this.#terms(sentence), out, new Set());
		return [...out].sort((a, b) => a - b);
	}

	#walk(ref: NodeRef, query: Terms, out: Set<number>, seen: Set<string>): void {
		const key = `${ref} ${query.text}`;
		if (seen.has(key)) return;
		seen.add(key);
		const node = findNode(this.#run, ref);
		if (!node) return;
		const direct = node.inputs.filter(isChunkRef).map((c) => Number(c.slice(1)));
		const candidates = dependencies(node).flatMap((dep) =>
			this.#of(dep).map((sentence) => ({ dep, sentence })),
		);
		// Greedy: the sentence most like the query, then the one most like what it leaves unexplained.
		let rest = query;
		let kept = 0;
		for (; kept < ALIGN_KEEP && rest.mass > 0; kept++) {
			let best: { dep: NodeRef; sentence: Terms; score: number } | null = null;
			for (const c of candidates) {
				const score = this.#similarity(rest, c.sentence);
				if (score >= ALIGN_MIN && score > (best?.score ?? 0)) best = { ...c, score };
			}
			if (!best) break;
			this.#walk(best.dep, best.sentence, out, seen);
			rest = this.#without(rest, best.sentence.terms);
		}
		if (kept > 0) return;
		// A level-0 summary read its chunk alone; a step that also read the summary so far took a
		// sentence from its chunk only if the chunk has it.
		const read = candidates.length === 0 ? direct : direct.filter((c) => this.#holds(c, query));
		const from = read.length > 0 ? read : chunksUnder(this.#run, ref, this.#under);
		for (const c of from) out.add(c);
	}

	/** A passage of `chunk` holds at least `ALIGN_MIN` of the query's weight. */
	#holds(chunk: number, query: Terms): boolean {
		if (query.mass === 0) return false;
		return this.#index.passagesOf(chunk).some((p) => {
			const held = this.#index.stems(p);
			let shared = 0;
			for (const t of query.terms) if (held.has(t)) shared += this.#weight(t);
			return shared >= ALIGN_MIN * query.mass;
		});
	}

	/** `query` without `terms`: what a matched sentence leaves unexplained. */
	#without(query: Terms, terms: ReadonlySet<string>): Terms {
		const left = new Set([...query.terms].filter((t) => !terms.has(t)));
		let mass = 0;
		for (const t of left) mass += this.#weight(t);
		return { text: query.text, terms: left, mass };
	}

	/** Weighted cosine of two sets of stems (0 when either is empty). */
	#weight(term: string): number {
		return this.#index.placeWeight(term);
	}

	#similarity(a: Terms, b: Terms): number {
		if (a.mass === 0 || b.mass === 0) return 0;
		let shared = 0;
		const [small, large] = a.terms.size <= b.terms.size ? [a, b] : [b, a];
		for (const t of small.terms) if (large.terms.has(t)) shared += this.#weight(t);
		return shared / Math.sqrt(a.mass * b.mass);
	}

	#of(ref: NodeRef): Terms[] {
		let list = this.#sentences.get(ref);
		if (!list) {
			const node = findNode(this.#run, ref);
			const text = node ? (activeVersion(node)?.text ?? '') : '';
			list = splitSentences(text).map((s) => this.#terms(s));
			this.#sentences.set(ref, list);
		}
		return list;
	}

	#terms(text: string): Terms {
		return this.#without({ text, terms: new Set(contentStems(text)), mass: 0 }, new Set());
	}
}
