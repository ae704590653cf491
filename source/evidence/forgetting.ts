import type { NodeRef, Run } from '../domain.ts';
import { stepSummaries } from '../summarize/inc.ts';
import { rankedFor, tracerFor } from './evidence.ts';
import type { PassageIndex } from './rank.ts';

/**
 * What an incremental run's running summary forgets, read offline from the evidence alignment: after
 * each step, which of the chunks read so far its sentences still cite. A sentence cites the chunk
 * `evidence` places it in (its best passage, ranked in its aligned chunks first), as in coverage.
 */
export interface ForgettingStep {
	/** The step (the chunk it read), counted from 0. */
	step: number;
	/** The node holding the running summary after the step. */
	node: NodeRef;
	sentences: number;
	/** Sentences citing each chunk read so far (chunks 0..step). */
	cites: number[];
	/** Chunks read so far that are cited at all, and their share of the `step + 1` read. */
	cited: number;
	share: number;
}

/** How long a chunk stayed in the running summary. */
export interface ChunkSurvival {
	chunk: number;
	/**
	 * The last step whose running summary cites it, or null when none does. The run's last done step
	 * when it is still cited there: for a run not finished, it may last longer.
	 */
	lastCited: number | null;
	/** Steps from the one that read it to `lastCited` (0: cited only while it was being read), or null. */
	survived: number | null;
}

export interface ForgettingMap {
	/** Chunks of the book, read or not. */
	chunks: number;
	/** The steps that are done, in order. */
	steps: ForgettingStep[];
	/** Each chunk read by a done step, in order. */
	survival: ChunkSurvival[];
}

/** What one step's running summary cites: for each sentence, the chunk it cites, or null. */
export interface StepCitations {
	step: number;
	node: NodeRef;
	cited: readonly (number | null)[];
}

/**
 * The forgetting map of an incremental run: every done step's running summary placed in the book,
 * sentence by sentence. Pure and offline; `onStep` hears of each step done (to show progress: a
 * long book's steps take seconds).
 */
export function forgettingMap(
	run: Run,
	index: PassageIndex,
	onStep?: (done: number, steps: number) => void,
): ForgettingMap {
	if (run.config.method !== 'inc') throw new Error('a forgetting map is made of an incremental run');
	// One tracer for every step: a step's summary aligns back through the steps before it, whose
	// sentences it then has split and stemmed already.
	const tracer = tracerFor(run, index);
	// A sentence carried over from step to step keeps its origins, so its place: ranked once, not at
	// every step that still holds it (a long book's running summaries are mostly carried sentences).
	const placed = new Map<string, number | null>();
	const steps = stepSummaries(run);
	const cited = steps.map(({ step, node }, done) => {
		const chunks: (number | null)[] = [];
		for (const s of tracer.eachSource(node)) {
			const key = `${s.origins.join(' ')}\n${s.text}`;
			let chunk = placed.get(key);
			if (chunk === undefined) {
				chunk = rankedFor(index, s, s.text, 1)[0]?.chunk ?? null;
				placed.set(key, chunk);
			}
			chunks.push(chunk);
		}
		onStep?.(done + 1, steps.length);
		return { step, node, cited: chunks };
	});
	return forgettingFrom(run.chunks.length, cited);
}

/** The forgetting map of a book of `chunks` from what each done step's running summary cites. */
export function forgettingFrom(chunks: number, steps: readonly StepCitations[]): ForgettingMap {
	const lastCited: (number | null)[] = [];
	const rows = steps.map(({ step, node, cited }) => {
		const cites = Array.from({ length: step + 1 }, () => 0);
		for (const c of cited) if (c !== null && c >= 0 && c <= step) cites[c]!++;
		cites.forEach((n, c) => {
			if (n > 0) lastCited[c] = step;
		});
		const count = cites.filter((n) => n > 0).length;
		return { step, node, sentences: cited.length, cites, cited: count, share: count / (step + 1) };
	});
	const read = (steps.at(-1)?.step ?? -1) + 1;
	const survival = Array.from({ length: read }, (_, chunk) => {
		const last = lastCited[chunk] ?? null;
		return { chunk, lastCited: last, survived: last === null ? null : last - chunk };
	});
	return { chunks, steps: rows, survival };
}
