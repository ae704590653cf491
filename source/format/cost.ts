import { counted } from './count.ts';

/** How costs are shown: US dollars, to the hundredth of a cent. */
export function usd(cost: number): string {
	return `$${cost.toFixed(4)}`;
}

/** A cost as shown: dollars when the model's price is known, else "cost unknown", never a false $0. */
export function costText(cost: number, priced: boolean): string {
	return priced ? usd(cost) : 'cost unknown';
}

/** A study cell's cost: its run's calls and its scoring's, the one figure the screen, the lines and the results show. */
export function cellCost(cell: { cost: number; scoring: { cost: number } | null }): number {
	return cell.cost + (cell.scoring?.cost ?? 0);
}

/** "12 calls, $0.0340": what calls cost. */
export function spentText(r: { calls: number; cost: number }): string {
	return `${counted(r.calls, 'call')}, ${usd(r.cost)}`;
}
