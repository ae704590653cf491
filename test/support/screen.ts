/**
 * Waiting on what a screen shows, for the screen tests: they poll the frame until it passes a
 * check instead of sleeping a fixed time, so a loaded machine only makes them wait longer.
 */

export const settle = (ms = 10) => new Promise((r) => setTimeout(r, ms));

/** Polls `frame` until it passes `check`; fails after `ms` of wall time with the last frame. */
export async function until(frame: () => string | undefined, check: (f: string) => boolean, what: string, ms = 30_000): Promise<string> {
	const end = Date.now() + ms;
	for (;;) {
		const f = frame() ?? '';
		if (check(f)) {
			// One more turn of the event loop: the effects of the render that drew this frame (such
			// as a new field's key handler) run before the test types into it.
			await settle();
			return f;
		}
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last frame:\n${f}`);
		await settle();
	}
}
