import type { Chunk, Method, Run, RunConfig } from '../domain.ts';
import { hierarchical } from './hier.ts';
import { incremental } from './inc.ts';
import type { Planner } from './planner.ts';

export function newRun(config: RunConfig, chunks: Chunk[]): Run {
	return { config, status: 'planned', chunks, nodes: [], root: null, error: null };
}

export function plannerFor(method: Method): Planner {
	return method === 'hier' ? hierarchical : incremental;
}
