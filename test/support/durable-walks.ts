import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type { SessionData } from '../../source/store/schema.ts';
import { Session } from '../../source/store/session.ts';
import { BIN } from './cli.ts';
import { killEach, type Bought, type Ended, type KillReport } from './durable-writes.ts';
import { shellLine, terminal, type Terminal } from './tmux.ts';
import { waitFor } from './wait.ts';

/**
 * The kill-at-each-write harness (durable-writes.ts) for the screens: the work is keys typed into
 * booook in a tmux terminal, step by step, each waited on (its screen, and its writes on the disk:
 * a session's, or what `read` reads, a comparison beside the sessions).
 * A try killed part way is opened again and continued from the step its session is at: the
 * uninterrupted try records the session's outcome after each step, and the continuation, once the
 * screen has settled, finds the last step whose outcome the session holds and types the steps
 * after it. A session holding an outcome no step left (a verdict lost or recorded twice, an edit
 * whose readers were never made again) fails there, with what it holds.
 */

/** One step of a screen's work: keys, and what shows that they were taken (`T`: what its writes land in). */
export interface Step<T = SessionData> {
	/** What the step does, for failures. */
	name: string;
	/** Types the step's keys. */
	keys: (term: Terminal) => void;
	/** The screen once the step is done. */
	shown: (screen: string) => boolean;
	/** The session (or what `read` reads) once the step's writes are on the disk. */
	landed: (data: T) => boolean;
}

export interface ScreenWork<T = SessionData> {
	/**
	 * The session the screen changes; null when it changes none of them (a comparison, in a folder
	 * of its own beside them): then `read` says what it changes, and every session is checked as
	 * killEach checks them.
	 */
	id: string | null;
	/** What the steps' `landed` read, null while it does not exist (default: session `id`'s state). */
	read?: (sessions: string) => Promise<T | null>;
	/** Makes the state the work starts from in a sessions folder (by commands never killed). */
	setup: (sessions: string) => Promise<void>;
	/** booook's arguments that open the screen, for a sessions folder. */
	command: (sessions: string) => string[];
	/** Those that open it again after a kill (default: `command`). */
	again?: (sessions: string) => string[];
	/** Added to the terminal's environment (a key, $EDITOR). */
	env?: Record<string, string>;
	/** The screen open and settled: what opening it writes (a walk begun, a resumed run's calls) is on the disk. */
	ready: (screen: string) => boolean;
	/** Checks what the screen shows once open, each time it is opened (after a kill too); throws when it is wrong. */
	check?: (screen: string, sessions: string) => Promise<void>;
	steps: readonly Step<T>[];
	/**
	 * What must come out the same as when never killed, read from the folder; it also tells the steps
	 * apart, so each step must change it.
	 */
	outcome: (sessions: string) => Promise<unknown>;
	/** The prompts the fake API answered since the last call, when the work makes model calls. */
	asked?: () => Bought[];
	/** The screen's work in one try may take this long on a loaded machine (default 60 s). */
	ms?: number;
	/** How many writes to kill after (default SCREEN_POINTS; every one with BOOOOK_KILL_EVERY_WRITE=1). */
	points?: number;
}

/**
 * Fewer than a headless command's: each try starts the app twice (killed, then continued), about
 * seconds each on a loaded machine.
 */
const SCREEN_POINTS = 6;

/** `killEach` over a screen: each try is a terminal, killed after write k or quit with q at its end. */
export function killScreenAtEachWrite<T = SessionData>(w: ScreenWork<T>): Promise<KillReport> {
	const read =
		w.read ?? (async (sessions: string) => (await Session.snapshot(sessions, w.id!)).data as unknown as T);
	// The outcome at the start and after each step of the try never killed.
	const checkpoints: unknown[] = [];
	let tries = 0;
	const open = (args: string[], env: Record<string, string>) =>
		terminal(
			`kill-${tries++}`,
			shellLine([
				'env',
				...Object.entries({ ...w.env, ...env }).map(([k, v]) => `${k}=${v}`),
				process.execPath,
				BIN,
				...args,
			]),
			{ columns: 110, rows: 34 },
		);
	const ms = w.ms ?? 60_000;

	/** Types `steps`, each once the last is shown and on the disk, then q; stops where the process dies. */
	async function drive(
		term: Terminal,
		sessions: string,
		steps: readonly Step<T>[],
		record: boolean,
	): Promise<Ended> {
		for (const step of steps) {
			if (exited(term.screen())) break;
			step.keys(term);
			await waitFor(
				`step "${step.name}" (or the process killed)`,
				async () => {
					const screen = term.screen();
					if (exited(screen)) return true;
					if (!step.shown(screen)) return false;
					const data = await read(sessions);
					return data !== null && step.landed(data);
				},
				{ ms, every: 50, detail: () => `the screen:\n${term.screen()}` },
			);
			if (record && !exited(term.screen())) checkpoints.push(await w.outcome(sessions));
		}
		if (!exited(term.screen())) term.keys('q');
		return ended(await term.waitFor('the app to end', exited, ms));
	}

	/** The screen open and settled, or the process gone; once open, what it shows checked. */
	const opened = async (term: Terminal, sessions: string) => {
		const screen = await term.waitFor(
			'the screen to open (or the process killed)',
			(s) => exited(s) || w.ready(s),
			ms,
		);
		if (!exited(screen)) await w.check?.(screen, sessions);
		return screen;
	};

	return killEach({
		id: w.id,
		setup: w.setup,
		outcome: w.outcome,
		asked: w.asked,
		points: w.points ?? SCREEN_POINTS,
		first: async (sessions, env, whole) => {
			const term = await open(w.command(sessions), env);
			try {
				// Opening may write (a walk begun, a summary pinned): the first point is the screen open.
				await opened(term, sessions);
				if (whole) checkpoints.push(await w.outcome(sessions));
				return await drive(term, sessions, w.steps, whole);
			} finally {
				term.close();
			}
		},
		again: async (sessions) => {
			const term = await open((w.again ?? w.command)(sessions), {});
			try {
				if (exited(await opened(term, sessions))) return ended(term.screen());
				const now = await w.outcome(sessions);
				// The last: an undo leaves the outcome of an earlier step, and the steps after it redo nothing twice.
				let at = checkpoints.length - 1;
				while (at >= 0 && !isDeepStrictEqual(checkpoints[at], now)) at--;
				assert.notEqual(
					at,
					-1,
					`opened again, the session holds what no step of the uninterrupted work left:\n${JSON.stringify(now, null, 1)}\nthe steps left:\n${checkpoints.map((c) => JSON.stringify(c)).join('\n')}`,
				);
				return await drive(term, sessions, w.steps.slice(at), false);
			} finally {
				term.close();
			}
		},
	});
}

// The terminal's shell prints the command's status once it ends (see tmux.ts `terminal`).
const EXIT = /EXIT=(\d+)/u;

function exited(screen: string): boolean {
	return EXIT.test(screen);
}

/** How the app ended, from its status: 128 + 9 is a SIGKILL. */
function ended(screen: string): Ended {
	const status = Number(EXIT.exec(screen)![1]);
	return status === 137
		? { code: null, signal: 'SIGKILL', detail: screen }
		: { code: status, signal: null, detail: screen };
}
