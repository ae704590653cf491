import { execFileSync, spawnSync } from 'node:child_process';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;
export const noTmux = hasTmux ? false : 'tmux is not installed (CI installs it: apt-get install -y tmux)';

/**
 * A terminal for end-to-end tests: its own tmux server (a running server's environment would
 * leak in), one window of `columns`×`rows` running `command` through the shell, which stays after
 * the command ends so its last lines can be read. Waits poll the screen; none sleeps a fixed time.
 */
export function terminal(name: string, command: string, { columns = 100, rows = 30 } = {}) {
	const socket = `booook-${name}-${process.pid}`;
	const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
	// CI (set by CI systems) would make Ink print only the last frame.
	tmux('new-session', '-d', '-s', 'app', '-x', String(columns), '-y', String(rows), `env -u CI -u CONTINUOUS_INTEGRATION ${command}; echo "EXIT=$?"; sleep 120`);
	const screen = () => tmux('capture-pane', '-p', '-t', 'app');
	return {
		screen,
		history: () => tmux('capture-pane', '-p', '-S', '-', '-t', 'app'),
		/** Sends keys by tmux's names (Enter, C-s, Left); other words are typed as they are. */
		keys: (...keys: string[]) => void tmux('send-keys', '-t', 'app', ...keys),
		/** Types text literally, as fast as tmux sends it. */
		type: (text: string) => void tmux('send-keys', '-t', 'app', '-l', text),
		async waitFor(what: string, check: (s: string) => boolean, ms = 60_000): Promise<string> {
			const end = Date.now() + ms;
			for (;;) {
				const s = screen();
				if (check(s)) return s;
				if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the screen:\n${s}`);
				await new Promise((r) => setTimeout(r, 100));
			}
		},
		close: () => void spawnSync('tmux', ['-L', socket, 'kill-server']),
	};
}

/** A shell command line of `args`, each quoted. */
export function shellLine(args: readonly string[]): string {
	return args.map((a) => `'${a.replace(/'/gu, `'\\''`)}'`).join(' ');
}
