/** How decimals are shown: every figure a line prints with decimals goes through here (test/repo/numbers.test.ts). */
import { DASH } from './missing.ts';

/** `x` with `digits` decimals, "0.50"; null (nothing to show) reads as `missing`. */
export function fixed(x: number | null, digits: number, missing = DASH): string {
	return x === null ? missing : x.toFixed(digits);
}

/** `x` to `digits` decimals at most, without trailing zeros: 2.50 → "2.5", 3.00 → "3". */
export function rounded(x: number, digits: number): string {
	return String(Number(x.toFixed(digits)));
}

/** A BooookScore as shown, one decimal ("66.7"); null or undefined (not scored) reads as `missing`. */
export function scoreText(score: number | null | undefined, missing = DASH): string {
	return fixed(score ?? null, 1, missing);
}

/** An agreement coefficient (κ, α, τ) as shown, three decimals; NaN (undefined for the data) reads as the dash. */
export function coefficient(x: number): string {
	return Number.isNaN(x) ? DASH : x.toFixed(3);
}
