import { execFileSync, spawnSync } from 'node:child_process';
import { waitFor } from './wait.ts';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;
export const noTmux = hasTmux ? false : 'tmux is not installed (CI installs it: apt-get install -y tmux)';

/** Starts of tmux's server tried before the terminal is given up as unavailable. */
export const START_ATTEMPTS = 4;

/**
 * The machine, not booook, failed: tmux's server did not start (on a loaded machine `tmux
 * new-session` can end with "server exited unexpectedly"). A test that meets it is skipped with
 * this reason (see `inTerminal`), so CI does not go red for its environment.
 */
export class TerminalUnavailable extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'TerminalUnavailable';
	}
}

/**
 * A terminal for end-to-end tests: its own tmux server (a running server's environment would
 * leak in), one window of `columns`×`rows` running `command` through the shell, which stays after
 * the command ends so its last lines can be read. Waits poll the screen; none sleeps a fixed time.
 * Starting the server is tried START_ATTEMPTS times, each on a fresh socket; if it never starts,
 * this rejects with TerminalUnavailable. `cwd`: the folder the command starts in.
 */
export async function terminal(
	name: string,
	command: string,
	{ columns = 100, rows = 30, cwd = process.cwd() } = {},
) {
	// CI (set by CI systems) would make Ink print only the last frame.
	const line = `env -u CI -u CONTINUOUS_INTEGRATION ${command}; echo "EXIT=$?"; sleep 120`;
	const failures: string[] = [];
	let socket = '';
	for (let attempt = 1; ; attempt++) {
		socket = `booook-${name}-${process.pid}${attempt === 1 ? '' : `-${attempt}`}`;
		try {
			run(
				socket,
				'new-session',
				'-d',
				'-s',
				'app',
				'-c',
				cwd,
				'-x',
				String(columns),
				'-y',
				String(rows),
				line,
			);
			// A server that exits right after starting is no better than one that never started.
			run(socket, 'has-session', '-t', 'app');
			break;
		} catch (error) {
			failures.push(reason(error));
			spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
			if (attempt >= START_ATTEMPTS) {
				throw new TerminalUnavailable(
					`environment: tmux's server did not start in ${START_ATTEMPTS} attempts (${[...new Set(failures)].join('; ')}); the terminal test is skipped, not failed`,
				);
			}
			// The machine is loaded: give it a little longer each time.
			await new Promise((r) => setTimeout(r, 200 * 2 ** (attempt - 1)));
		}
	}
	const tmux = (...args: string[]) => run(socket, ...args);
	const screen = () => tmux('capture-pane', '-p', '-t', 'app');
	return {
		screen,
		history: () => tmux('capture-pane', '-p', '-S', '-', '-t', 'app'),
		/** Sends keys by tmux's names (Enter, C-s, Left); other words are typed as they are. */
		keys: (...keys: string[]) => void tmux('send-keys', '-t', 'app', ...keys),
		/** Resizes the window, as a user dragging the terminal's corner does. */
		resize: (columns: number, rows: number) =>
			void tmux('resize-window', '-t', 'app', '-x', String(columns), '-y', String(rows)),
		/** Types text literally, as fast as tmux sends it. */
		type: (text: string) => void tmux('send-keys', '-t', 'app', '-l', text),
		async waitFor(what: string, check: (s: string) => boolean, ms = 60_000): Promise<string> {
			let s = '';
			await waitFor(what, () => check((s = screen())), { ms, every: 100, detail: () => `the screen:\n${s}` });
			return s;
		},
		close: () => void spawnSync('tmux', ['-L', socket, 'kill-server']),
	};
}

export type Terminal = Awaited<ReturnType<typeof terminal>>;

function run(socket: string, ...args: string[]): string {
	return execFileSync('tmux', ['-L', socket, ...args], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
}

/** What tmux said when it failed, on one line. */
function reason(error: unknown): string {
	const stderr = (error as { stderr?: unknown }).stderr;
	const said = typeof stderr === 'string' ? stderr.trim() : '';
	return (said || (error instanceof Error ? error.message : String(error))).replace(/\s*\n\s*/gu, ' ');
}

/**
 * A terminal test's body: when the terminal cannot be had (TerminalUnavailable), the test is
 * skipped with that reason instead of failing. Whatever the body started before it asked for the
 * terminal must be released in `t.after` or a `finally` around the `terminal` call.
 */
export function inTerminal<T extends { skip: (message?: string) => void }>(
	body: (t: T) => Promise<void>,
): (t: T) => Promise<void> {
	return async (t) => {
		try {
			await body(t);
		} catch (error) {
			if (!(error instanceof TerminalUnavailable)) throw error;
			t.skip(error.message);
		}
	};
}

/** A shell command line of `args`, each quoted. */
export function shellLine(args: readonly string[]): string {
	return args.map((a) => `'${a.replace(/'/gu, `'\\''`)}'`).join(' ');
}
