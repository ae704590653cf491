/**
 * The terminal as Ink is shown it. Ink (6.x, ink.js `onRender`) writes `ansiEscapes.clearTerminal`
 * (erase the screen, erase the scrollback, cursor home) and then every line <Static> ever printed
 * whenever the frame it drew last is as tall as the terminal. The screens keep their frames a row
 * shorter than the terminal, but a resize that makes the terminal shorter makes the last frame too
 * tall until the screens draw again at the new size, and Ink's own resize handler draws at once: every
 * line the user had above the app was wiped (and the final summary printed again). Ink is given a
 * view of the terminal whose height no frame reaches; the screens read the real height
 * (`terminalRows`). The cost of a frame drawn too tall for a moment is a few of its rows left in the
 * scrollback, where the terminal scrolled them, never the user's lines.
 */

import type { RenderOptions } from 'ink';

const REAL = Symbol('booook: the terminal behind Ink’s view of it');

/** A height no frame reaches: Ink's full clear needs a frame at least this tall. */
const UNREACHED_ROWS = Number.MAX_SAFE_INTEGER;

type Viewed = NodeJS.WriteStream & { [REAL]?: NodeJS.WriteStream };

/** `stdout` as Ink is given it: everything as it is but the height, which no frame reaches. */
export function inkStdout(stdout: NodeJS.WriteStream = process.stdout): NodeJS.WriteStream {
	return new Proxy(stdout, {
		get(target, property) {
			if (property === REAL) return target;
			if (property === 'rows') return target.isTTY ? UNREACHED_ROWS : target.rows;
			const value: unknown = Reflect.get(target, property, target);
			// The stream's methods run on the stream itself (its listeners, its state).
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
		},
	});
}

/** The streams given, as Ink is given them (its defaults, the process's, for the others); stdout always as `inkStdout`. */
export function inkStreams(o: {
	stdout?: NodeJS.WriteStream;
	stdin?: NodeJS.ReadStream;
	stderr?: NodeJS.WriteStream;
}): RenderOptions {
	return {
		stdout: inkStdout(o.stdout),
		...(o.stdin ? { stdin: o.stdin } : {}),
		...(o.stderr ? { stderr: o.stderr } : {}),
	};
}

/** The terminal's real height, also behind Ink's view of it; undefined when the stream has none. */
export function terminalRows(stdout: NodeJS.WriteStream): number | undefined {
	return ((stdout as Viewed)[REAL] ?? stdout).rows;
}
