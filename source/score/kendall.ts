/**
 * Kendall's τ-b between two paired lists of scores, as LongEval (§3.2, Figure 4) uses it to ask
 * whether a partial annotation ranks summaries as the full one does. τ-b rather than τ-a because
 * per-summary faithful shares tie often (two summaries both at 100%), and τ-b corrects for ties on
 * either side. No well-kept small npm package does just this, and it is a dozen lines; the O(n²)
 * pair count is fine for the handful of summaries a session holds.
 */

/**
 * τ-b = (C − D) ÷ √((C + D + Tx)(C + D + Ty)), where over all pairs i < j, C are concordant, D
 * discordant, Tx tied in `x` only and Ty tied in `y` only (pairs tied in both count nowhere).
 * NaN when undefined: fewer than two pairs' worth of items, or one side constant.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number {
	if (x.length !== y.length) throw new RangeError(`τ needs paired scores; got ${x.length} and ${y.length}`);
	let concordant = 0;
	let discordant = 0;
	let tiedX = 0;
	let tiedY = 0;
	for (let i = 0; i < x.length; i++) {
		for (let j = i + 1; j < x.length; j++) {
			const dx = Math.sign(x[j]! - x[i]!);
			const dy = Math.sign(y[j]! - y[i]!);
			if (dx === 0 && dy === 0) continue;
			if (dx === 0) tiedX += 1;
			else if (dy === 0) tiedY += 1;
			else if (dx === dy) concordant += 1;
			else discordant += 1;
		}
	}
	const denominator = Math.sqrt((concordant + discordant + tiedX) * (concordant + discordant + tiedY));
	return denominator === 0 ? Number.NaN : (concordant - discordant) / denominator;
}
