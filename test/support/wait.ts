/**
 * Waiting on state instead of sleeping a fixed time: a loaded machine only makes a test wait
 * longer, and a state that never comes fails with what was awaited instead of hanging.
 */

/** Lets timers and I/O run for `ms`; for pacing a fake, never for waiting on a result. */
export const settle = (ms = 10) => new Promise((r) => setTimeout(r, ms));

export interface Wait {
	/** Wall time before giving up. */
	ms?: number;
	/** Time between probes. */
	every?: number;
	/** What to show beside the timeout, e.g. the last frame probed. */
	detail?: () => string;
}

/**
 * Polls `probe` until it gives a truthy value, and returns that value; fails after `ms` of wall
 * time with "timed out waiting for `what`".
 */
export async function waitFor<T>(
	what: string,
	probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
	{ ms = 30_000, every = 5, detail }: Wait = {},
): Promise<T> {
	const end = Date.now() + ms;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}${detail ? `; ${detail()}` : ''}`);
		await settle(every);
	}
}
