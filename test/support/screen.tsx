/**
 * Waiting on what a screen shows, for the screen tests: they poll the frame until it passes a
 * check instead of sleeping a fixed time, so a loaded machine only makes them wait longer.
 */

import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { Root } from '../../source/ui/root.tsx';
import { themeFor } from '../../source/ui/theme.ts';

/** Renders a screen as the app does: inside the theme and the one keyboard reader. */
export function renderScreen(screen: ReactElement, env: NodeJS.ProcessEnv = {}) {
	return render(<Root theme={themeFor(env)}>{screen}</Root>);
}

export const settle = (ms = 10) => new Promise((r) => setTimeout(r, ms));

/** Polls `frame` until it passes `check`; fails after `ms` of wall time with the last frame. */
export async function until(
	frame: () => string | undefined,
	check: (f: string) => boolean,
	what: string,
	ms = 30_000,
): Promise<string> {
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
