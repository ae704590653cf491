import type { Run } from '../domain.ts';
import { hierWindowProblem } from './hier.ts';
import { incWindowProblem } from './inc.ts';
import type { PlanContext } from './planner.ts';

/**
 * Why a run's calls cannot fit its context window, checked on the real worst case (the largest
 * chunk, the prompt as filled, the summary it reads and the output limit) before anything is
 * created; null when they fit.
 */
export function windowProblem(run: Run, ctx: PlanContext): string | null {
	return run.config.method === 'hier' ? hierWindowProblem(run, ctx) : incWindowProblem(run, ctx);
}
