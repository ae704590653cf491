/**
 * Waiting on what a screen shows, for the screen tests: they poll the frame until it passes a
 * check instead of sleeping a fixed time, so a loaded machine only makes them wait longer.
 */

import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { Root } from '../../source/ui/root.tsx';
import { themeFor } from '../../source/ui/theme.ts';
import { KEYS } from './keys.ts';
import { settle, waitFor } from './wait.ts';

/** Renders a screen as the app does: inside the theme and the one keyboard reader. */
export function renderScreen(screen: ReactElement, env: NodeJS.ProcessEnv = {}) {
	return render(<Root theme={themeFor(env)}>{screen}</Root>);
}

/**
 * Writes keys to a rendered screen one at a time; each is handled as it is written. A lone escape
 * is held by Ink until its next turn (it could start a sequence): that turn passes before the next
 * key, or the key would read as alt-key.
 */
export async function pressKeys(
	app: Pick<ReturnType<typeof render>, 'stdin'>,
	...keys: string[]
): Promise<void> {
	for (const key of keys) {
		app.stdin.write(key);
		if (key === KEYS.escape) await new Promise((r) => setImmediate(r));
	}
}

/**
 * Gives a rendered screen's terminal a new size and tells the screen, as the terminal does when
 * its window is resized (`rows` stays as it was if not given).
 */
export function resize(app: Pick<ReturnType<typeof render>, 'stdout'>, columns: number, rows?: number): void {
	Object.defineProperty(app.stdout, 'columns', { value: columns, configurable: true });
	if (rows !== undefined) Object.defineProperty(app.stdout, 'rows', { value: rows, configurable: true });
	app.stdout.emit('resize');
}

/** Polls `frame` until it passes `check`; fails after `ms` of wall time with the last frame. */
export async function until(
	frame: () => string | undefined,
	check: (f: string) => boolean,
	what: string,
	ms = 30_000,
): Promise<string> {
	let f = '';
	await waitFor(what, () => check((f = frame() ?? '')), { ms, every: 10, detail: () => `last frame:\n${f}` });
	// One more turn of the event loop: the effects of the render that drew this frame (such as a
	// new field's key handler) run before the test types into it.
	await settle();
	return f;
}
