/** How fractions are shown as percentages, in lines, tables and JSON. */
import { DASH } from './missing.ts';

/** A fraction in percentage points, no sign: 0.1234 → "12.3". */
export function points(fraction: number, digits = 1): string {
	return (100 * fraction).toFixed(digits);
}

/** A difference in percentage points, with its sign: "+12.3", "-4.0". */
export function signedPoints(fraction: number): string {
	return `${fraction >= 0 ? '+' : ''}${points(fraction)}`;
}

/** A fraction as a percentage: 0.1234 → "12.3%"; null (nothing to divide) reads as `missing`. */
export function percent(fraction: number | null, missing = DASH, digits = 1): string {
	return fraction === null ? missing : `${points(fraction, digits)}%`;
}

/** An estimate and its interval: "83.3% [70.1, 92.0]", or "83.3%" alone when it has none (bounds null). */
export function percentInterval(
	estimate: number,
	interval: { low: number | null; high: number | null },
): string {
	return interval.low === null || interval.high === null
		? percent(estimate)
		: `${percent(estimate)} [${points(interval.low)}, ${points(interval.high)}]`;
}

/**
 * `part` of `whole` in percentage points: 3 of 8 → "37.5". Multiplied before it is divided, so
 * the last digit is the one these figures have always printed.
 */
export function shareOf(part: number, whole: number, digits = 1): string {
	return ((100 * part) / whole).toFixed(digits);
}

/** A fraction as a percentage for a program to read: a number rounded to 0.01 (0.12345 → 12.35). */
export function percentNumber(fraction: number): number {
	return Math.round(fraction * 10_000) / 100;
}
