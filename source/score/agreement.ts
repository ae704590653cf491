import { counted } from '../format/count.ts';
/**
 * Agreement between two raters who labelled the same items (for example a person and the model
 * on each sentence: confusing or not). Item i of `a` and of `b` are the same item.
 */

function paired<T>(a: readonly T[], b: readonly T[]): void {
	if (a.length !== b.length)
		throw new RangeError(
			`raters labelled ${counted(a.length, 'item')} and ${counted(b.length, 'item')}; they must label the same items`,
		);
}

/** Share of items on which the raters agree, in [0, 1]; NaN when there are no items. */
export function percentAgreement<T>(a: readonly T[], b: readonly T[]): number {
	paired(a, b);
	if (a.length === 0) return Number.NaN;
	let same = 0;
	for (let i = 0; i < a.length; i++) if (Object.is(a[i], b[i])) same += 1;
	return same / a.length;
}

/**
 * Cohen's κ: agreement corrected for what the raters' own label frequencies would give by chance,
 * (p_o − p_e) ÷ (1 − p_e). It is 1 for perfect agreement and NaN when chance agreement is already
 * perfect (both raters always gave the same single label), where κ is undefined.
 */
export function cohenKappa<T>(a: readonly T[], b: readonly T[]): number {
	paired(a, b);
	const n = a.length;
	if (n === 0) return Number.NaN;
	const countA = new Map<T, number>();
	const countB = new Map<T, number>();
	for (let i = 0; i < n; i++) {
		countA.set(a[i]!, (countA.get(a[i]!) ?? 0) + 1);
		countB.set(b[i]!, (countB.get(b[i]!) ?? 0) + 1);
	}
	let expected = 0;
	for (const [label, ca] of countA) expected += (ca / n) * ((countB.get(label) ?? 0) / n);
	const observed = percentAgreement(a, b);
	return expected === 1 ? Number.NaN : (observed - expected) / (1 - expected);
}

/**
 * Krippendorff's α for nominal labels, for any number of raters and with missing ratings: each
 * unit lists the labels it got (`null` for a rater who did not judge it). α = 1 − D_o ÷ D_e from
 * the coincidence matrix, where a unit with m labels adds 1 ÷ (m − 1) for each ordered pair of
 * them; units with fewer than two labels carry no information and are skipped. NaN when the
 * labels never vary (chance disagreement is zero) or fewer than two units are pairable.
 */
export function krippendorffAlpha<T>(units: readonly (readonly (T | null)[])[]): number {
	const coincidences = new Map<T, Map<T, number>>();
	const add = (c: T, k: T, w: number) => {
		let row = coincidences.get(c);
		if (!row) coincidences.set(c, (row = new Map()));
		row.set(k, (row.get(k) ?? 0) + w);
	};
	for (const unit of units) {
		const values = unit.filter((v): v is T => v !== null);
		const m = values.length;
		if (m < 2) continue;
		for (let i = 0; i < m; i++)
			for (let j = 0; j < m; j++) if (i !== j) add(values[i]!, values[j]!, 1 / (m - 1));
	}
	const totals = new Map<T, number>();
	let n = 0;
	let disagreeing = 0;
	for (const [c, row] of coincidences) {
		for (const [k, w] of row) {
			totals.set(c, (totals.get(c) ?? 0) + w);
			n += w;
			if (!Object.is(c, k)) disagreeing += w;
		}
	}
	let expected = 0;
	for (const [c, nc] of totals) for (const [k, nk] of totals) if (!Object.is(c, k)) expected += nc * nk;
	if (n <= 1 || expected === 0) return Number.NaN;
	return 1 - ((n - 1) * disagreeing) / expected;
}
