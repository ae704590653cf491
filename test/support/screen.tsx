/**
 * Waiting on what a screen shows, for the screen tests: they poll the frame until it passes a
 * check instead of sleeping a fixed time, so a loaded machine only makes them wait longer.
 */

import type { DOMElement } from 'ink';
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
// Not exported by Ink: its instance per output stream, whose root node holds the <Static> it draws.
import inkInstances from '../../node_modules/ink/build/instances.js';
import { Root } from '../../source/ui/root.tsx';
import { themeFor } from '../../source/ui/theme.ts';
import { KEYS } from './keys.ts';
import { settle, waitFor } from './wait.ts';

/** Renders a screen as the app does: inside the theme and the one keyboard reader. */
export function renderScreen(screen: ReactElement, env: NodeJS.ProcessEnv = {}) {
	return render(
		<Root theme={themeFor(env)} program="booook">
			{screen}
		</Root>,
	);
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

/**
 * The `<Static>` Ink draws from on every frame of a rendered screen: none, one in the tree, or one
 * already unmounted. Ink 6.8 keeps drawing the last one mounted after it is gone, reading its size
 * from freed layout memory that the allocator hands to the next node: any number, and a height in
 * the millions filled the heap (ink issue 904).
 */
export function inkStatic(app: Pick<ReturnType<typeof render>, 'stdout'>): 'none' | 'mounted' | 'unmounted' {
	const ink = inkInstances.get(app.stdout as unknown as NodeJS.WriteStream) as unknown as {
		rootNode: DOMElement;
	};
	const node = ink.rootNode.staticNode;
	if (!node) return 'none';
	let up: DOMElement | undefined = node;
	while (up && up !== ink.rootNode) up = up.parentNode;
	return up ? 'mounted' : 'unmounted';
}
