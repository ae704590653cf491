import type { Chunk, Method, Node, Run, RunConfig } from '../domain.ts';
import { hierarchical } from './hier.ts';
import { incremental } from './inc.ts';
import type { Planner } from './planner.ts';

export function newRun(config: RunConfig, chunks: Chunk[]): Run {
	return { config, status: 'planned', chunks, nodes: [], root: null, error: null };
}

export function plannerFor(method: Method): Planner {
	return method === 'hier' ? hierarchical : incremental;
}

/**
 * Which calls of a run go in a provider batch when the run has one: a hierarchical run's chunk
 * summaries (level 0, all independent, so all go out at once) and every step of an incremental run
 * (one at a time per book, so many books' steps go out together). A hierarchical run's merges form
 * chains of a few calls each, where a batch round per call would cost hours for a small saving, and
 * the clean step is one call: those are streamed.
 */
export function goesInBatch(method: Method, node: Pick<Node, 'kind' | 'level'>): boolean {
	if (node.kind === 'clean') return false;
	return method === 'inc' || (node.kind === 'summarize' && node.level === 0);
}
