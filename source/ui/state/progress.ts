/** Progress figures the run screen, the score screen and the headless progress lines share. Pure. */

/** Seconds as "42s", "3m07s" or "1h05m" ("?" when not finite). */
export function formatSeconds(seconds: number): string {
	if (!Number.isFinite(seconds)) return '?';
	const s = Math.round(seconds);
	if (s < 60) return `${s}s`;
	if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
	return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * Seconds until `planned` calls are made when `done` are, at the pace of the `made` calls this
 * start made in `seconds` (calls recovered from an earlier start are not part of the pace): 0 when
 * nothing is left, null before there is a pace.
 */
export function remainingSeconds(planned: number, done: number, made: number, seconds: number): number | null {
	if (planned <= done) return 0;
	return made > 0 ? ((planned - done) * seconds) / made : null;
}

/** The ETA as a progress line prints it: "?" before there is a pace. */
export function etaText(planned: number, done: number, made: number, seconds: number): string {
	const left = remainingSeconds(planned, done, made, seconds);
	return left === null ? '?' : formatSeconds(left);
}

/** A whole number with thousands separators ("1,234,567"). Not toLocaleString: its first call loads ICU data, 10 ms of a run's first round. Here, with no imports, so the headless commands load none of the terminal app's packages for it. */
export function formatInt(n: number): string {
	return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/gu, ',');
}
