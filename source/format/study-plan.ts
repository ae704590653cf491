import { counted } from './count.ts';
import { usd } from './cost.ts';

/** A study's plan as `booook study` prints it before any call: its totals, and the whole plan as JSON. */

/** What calls are expected to cost (structurally app/study.ts's `Estimate`). */
interface Estimate {
	calls: number;
	cost: number;
	priced: boolean;
}

/** The estimates the totals read: the cells' runs, then the scoring and the probes when the study has them. */
export interface PlanEstimates {
	runs: Estimate;
	scoring: Estimate | null;
	probes: Estimate | null;
	all: Estimate;
}

/**
 * "8 cells, ~120 calls, estimated $0.42; at most 4 calls at once; then BooookScore annotation: ...":
 * the plan's totals on one line.
 */
export function planTotal(cells: number, concurrency: number, e: PlanEstimates): string {
	const { runs, scoring, probes, all } = e;
	const then = (what: string, p: Estimate | null) =>
		p
			? `; then ${what}: ~${counted(p.calls, 'call')}, estimated ${p.priced ? usd(p.cost) : 'at no known price'}`
			: '';
	const unpriced = (priced: boolean) => (priced ? '' : ' (some models have no price)');
	const inAll =
		scoring || probes
			? `; in all ~${counted(all.calls, 'call')}, estimated ${usd(all.cost)}${unpriced(all.priced)}`
			: '';
	return (
		`${counted(cells, 'cell')}, ~${counted(runs.calls, 'call')}, estimated ${usd(runs.cost)}` +
		`${unpriced(runs.priced)}; ` +
		`at most ${counted(concurrency, 'call')} at once${then('BooookScore annotation', scoring)}${then('memory probes', probes)}${inAll}`
	);
}

/** A cell of the plan as `--plan --json` reads it (structurally app/study-plan.ts's). */
interface PlannedCell {
	key: string;
	sessionId: string;
	book: { path: string };
	method: string;
	provider: string;
	model: string;
	chunkSize: number;
	contextWindow: number;
	chunks: readonly unknown[];
	calls: number;
	cost: number;
	priced: boolean;
}

/** `booook study FILE --plan --json`: every cell with its `status`, and the estimates. */
export function planJson<Cell extends PlannedCell>(
	name: string,
	cells: readonly Cell[],
	status: (cell: Cell) => string,
	e: PlanEstimates,
): object {
	return {
		name,
		cells: cells.map((c) => ({
			key: c.key,
			session: c.sessionId,
			book: c.book.path,
			method: c.method,
			provider: c.provider,
			model: c.model,
			chunkSize: c.chunkSize,
			contextWindow: c.contextWindow,
			chunks: c.chunks.length,
			calls: c.calls,
			cost: c.cost,
			priced: c.priced,
			status: status(c),
		})),
		calls: e.runs.calls,
		cost: e.runs.cost,
		...(e.scoring ? { scoring: e.scoring } : {}),
		...(e.probes ? { memory: e.probes } : {}),
		total: e.all,
	};
}
