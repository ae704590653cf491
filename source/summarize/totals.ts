import { BATCH_PRICE, type Run, type Usage } from '../domain.ts';

/** What calls cost: counted as they are made (the engine, the annotator) or read back from a run. */

/** What the calls of a run or a scoring cost so far (billed attempts that failed included). */
export interface Totals extends Usage {
	cost: number;
	/** Calls answered. An attempt that failed (a connection refused, a broken stream) is billed but is no call done. */
	calls: number;
	/** USD the prompt cache saved: the calls' cost at the full input price minus what they cost. */
	saved: number;
}

export function emptyTotals(): Totals {
	return { input: 0, output: 0, cached: 0, cost: 0, calls: 0, saved: 0 };
}

export function addToTotals(
	totals: Totals,
	usage: Usage,
	cost: number,
	saved: number,
	answered = true,
): void {
	totals.input += usage.input;
	totals.output += usage.output;
	totals.cached += usage.cached;
	totals.cost += cost;
	totals.saved += saved;
	if (answered) totals.calls += 1;
}

/**
 * What the prompt cache saved on a call that cost `cost`: its cost at the full input price, less
 * that. `costOf` prices the call as it was made (a batched call at the batch price), so the batch's
 * discount is not counted as the cache's.
 */
export function cacheSaving(costOf: (usage: Usage) => number, usage: Usage, cost: number): number {
	return usage.cached > 0 ? Math.max(0, costOf({ ...usage, cached: 0 }) - cost) : 0;
}

/**
 * Usage and calls recorded in a run so far (a resumed run continues counting from here). What the
 * cache saved needs the prices: without `costOf` it counts as nothing.
 */
export function totalsOf(run: Run, costOf?: (usage: Usage) => number): Totals {
	const totals = emptyTotals();
	const batchCostOf = costOf && atBatchPrice(costOf);
	const add = (a: { usage: Usage; cost: number; batch?: string }, answered: boolean) => {
		const pricedAs = a.batch === undefined ? costOf : batchCostOf;
		addToTotals(totals, a.usage, a.cost, pricedAs ? cacheSaving(pricedAs, a.usage, a.cost) : 0, answered);
	};
	for (const node of run.nodes) {
		for (const a of [...node.pending, ...node.versions.flatMap((v) => v.attempts)]) add(a, true);
		for (const a of node.failed ?? []) add(a, false);
	}
	return totals;
}

/** What `costOf` charges for a call answered in a provider batch. */
export function atBatchPrice(costOf: (usage: Usage) => number): (usage: Usage) => number {
	return (usage) => costOf(usage) * BATCH_PRICE;
}
