import { usd } from './cost.ts';
import { counted } from './count.ts';

/** A model judging a comparison, as `booook compare --model` says it on stderr. */

/** What `judgingEnded` reads: structurally engine/compare-judge.ts's result, and whether the model has a price. */
export interface JudgingResult {
	status: 'done' | 'cancelled' | 'failed';
	error: string | null;
	totals: { calls: number; cost: number };
	priced: boolean;
	judge: string;
	judged: number;
	unreadable: number;
}

export function judgingStarted(name: string, judge: string): string {
	return `judging comparison ${name} with ${judge}: one call per pair it has not judged, the two summaries in the order shown to people`;
}

/** How the judging ended, with `again`: the command that continues it. */
export function judgingEnded(result: JudgingResult, again: string): string {
	const cost = `${counted(result.totals.calls, 'call')}, ${result.priced ? usd(result.totals.cost) : 'cost unknown (no price for the model)'}`;
	if (result.status === 'cancelled')
		return `interrupted after ${counted(result.judged, 'pair')} judged (${cost}); they are saved. Continue with: ${again}`;
	if (result.status === 'failed')
		return `judging failed: ${result.error ?? 'unknown error'}. Fix the cause, then continue with: ${again}`;
	const unreadable =
		result.unreadable > 0
			? `; ${counted(result.unreadable, 'answer')} could not be read (those pairs stay unjudged; the same command asks again)`
			: '';
	return `${result.judge} judged ${counted(result.judged, 'pair')} (${cost})${unreadable}`;
}
