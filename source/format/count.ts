/**
 * A whole number with thousands separators ("1,234,567"). Not toLocaleString: its first call loads
 * ICU data, 10 ms of a run's first round.
 */
export function formatInt(n: number): string {
	return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/gu, ',');
}

/**
 * "1 sentence", "3 sentences", "12,000 tokens": a count with thousands separators and its noun
 * (`plural` for one that takes no plain s). Every count a line prints with its noun goes through
 * here (test/repo/plurals.test.ts holds source/ to it): a hand-written plural reads "1 calls".
 */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
	return `${formatInt(n)} ${n === 1 ? noun : plural}`;
}

/** A count in a few characters, for a crowded line: 950, "12k", "1.2M". */
export function compact(n: number): string {
	if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
	if (n >= 1e4) return `${Math.round(n / 1e3)}k`;
	return String(n);
}
