/** Seconds as a clock reads them: "42s", "3m07s" or "1h05m" ("?" when not finite). */
export function formatSeconds(seconds: number): string {
	if (!Number.isFinite(seconds)) return '?';
	const s = Math.round(seconds);
	if (s < 60) return `${s}s`;
	if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
	return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Milliseconds in seconds, as a message says them: "1.5 s". */
export function secondsText(ms: number): string {
	return `${Number((ms / 1000).toFixed(1))} s`;
}

/** Milliseconds in minutes, or in seconds below one: "2.5 min", "42 s". */
export function minutesText(ms: number): string {
	const m = ms / 60_000;
	return m >= 1 ? `${Number(m.toFixed(1))} min` : `${Math.round(ms / 1000)} s`;
}
