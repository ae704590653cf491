import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listSessions } from '../../source/app/list-sessions.ts';
import { readCallLog } from '../../source/store/calls.ts';
import { booook } from './cli.ts';
import { tempDir } from './temp.ts';

const PRELOAD = fileURLToPath(new URL('./kill-at-sync.mjs', import.meta.url));

/**
 * One command of booook that changes a session, as the kill-at-each-write harness drives it (the way
 * SQLite tests crash safety): killed with SIGKILL right after each of its durable writes in turn,
 * then run again to its end.
 */
export interface KillCase {
	/** The session the command works on. */
	id: string;
	/** Makes the state the command starts from in a sessions folder (by commands never killed). */
	setup: (sessions: string) => Promise<void>;
	/** The command's arguments, for a sessions folder. */
	args: (sessions: string) => string[];
	/**
	 * The command that finishes the work after a kill (default: `args` again); `created`: whether the
	 * kill left the session made (a run killed after it is made goes on with `resume`).
	 */
	again?: (sessions: string, created: boolean) => string[];
	env?: Record<string, string>;
	/** What must come out the same as when the command is never killed (read from the folder). */
	outcome: (sessions: string) => Promise<unknown>;
	/** The prompts the fake API answered since the last call, when the command makes model calls. */
	asked?: () => string[];
}

export interface KillReport {
	/** Durable writes of the command never killed. */
	writes: number;
	/** The writes it was killed after. */
	killedAt: number[];
}

/** How one try at the work ended: its exit code or signal, and what it said (its stderr, or its screen). */
export interface Ended {
	code: number | null;
	signal: NodeJS.Signals | null;
	detail: string;
}

/**
 * Work that changes a session, as the harness drives it, whether a headless command (`killAtEachWrite`)
 * or a screen typed into in a terminal (`test/support/durable-walks.ts`).
 */
export interface KillWork {
	/** The session the work changes. */
	id: string;
	/** Makes the state the work starts from in a sessions folder (by commands never killed). */
	setup: (sessions: string) => Promise<void>;
	/**
	 * Does the work from its start in `sessions`, with `env` added to booook's environment (the
	 * preload's settings); `whole`: the try never killed, that the others are measured against.
	 */
	first: (sessions: string, env: Record<string, string>, whole: boolean) => Promise<Ended>;
	/** Finishes the work after a kill; `created`: whether the kill left the session made. */
	again: (sessions: string, created: boolean) => Promise<Ended>;
	/** What must come out the same as when the work is never killed (read from the folder). */
	outcome: (sessions: string) => Promise<unknown>;
	/** The prompts the fake API answered since the last call, when the work makes model calls. */
	asked?: () => string[];
	/** How many writes to kill after, unless BOOOOK_KILL_EVERY_WRITE=1 (default KILL_POINTS). */
	points?: number;
}

/**
 * Runs `c` once whole (counting its durable writes), then for each write k: from the same start,
 * kills it right after write k, checks that the session still lists and opens, runs it again to its
 * end, and checks that the outcome equals the whole run's and that no answer logged before the kill
 * was asked for again.
 */
export function killAtEachWrite(c: KillCase): Promise<KillReport> {
	const cli = async (args: string[], env: Record<string, string> = {}): Promise<Ended> => {
		const ended = await booook(args, { env: { ...c.env, ...env } });
		return { code: ended.code, signal: ended.signal, detail: ended.stderr };
	};
	return killEach({
		id: c.id,
		setup: c.setup,
		outcome: c.outcome,
		asked: c.asked,
		first: (sessions, env) => cli(c.args(sessions), env),
		again: (sessions, created) => cli((c.again ?? c.args)(sessions, created)),
	});
}

/** The harness itself: `killAtEachWrite`'s checks, for any work that `w` drives. */
export async function killEach(w: KillWork): Promise<KillReport> {
	const root = tempDir('kill-at-write');
	const start = join(root, 'start');
	await mkdir(start);
	await w.setup(start);
	const fresh = async (name: string) => {
		const dir = join(root, name);
		await cp(start, dir, { recursive: true });
		return dir;
	};
	const whole = await fresh('whole');
	const counter = join(root, 'writes');
	w.asked?.();
	const done = await w.first(whole, preload({ BOOOOK_SYNC_COUNT: counter }), true);
	assert.equal(done.code, 0, `the work never killed: ${done.detail}`);
	const writes = Number(await readFile(counter, 'utf8'));
	assert.ok(writes > 0, 'the work makes durable writes');
	const reference = await w.outcome(whole);
	const whole_asked = w.asked?.() ?? [];

	const killedAt: number[] = [];
	for (const k of killPoints(writes, w.points)) {
		const dir = await fresh(`kill-${k}`);
		const killed = await w.first(dir, preload({ BOOOOK_KILL_AT_SYNC: String(k) }), false);
		assert.equal(killed.signal, 'SIGKILL', `killed after write ${k} of ${writes}: ${killed.detail}`);
		killedAt.push(k);
		const answered = new Set((await readCallLog(join(dir, w.id, 'calls.jsonl'))).calls.map((r) => r.prompt));
		const beforeKill = w.asked?.() ?? [];
		// The session lists as itself, never as a problem, and opens for the work done again.
		// A creation cut short holds no work, and says so; anything else is a session that will not open.
		const listed = await listSessions(dir);
		const cutCreation = listed.problems.filter((p) => p.id === w.id && p.reason.includes('holds no work'));
		assert.deepEqual(
			listed.problems.filter((p) => !cutCreation.includes(p)),
			[],
			`after write ${k}: the folder lists without problems`,
		);
		assert.ok(
			cutCreation.length > 0 || listed.some((s) => s.id === w.id),
			`after write ${k}: ${w.id} is listed`,
		);
		const created = existsSync(join(dir, w.id, 'session.json'));
		const again = await w.again(dir, created);
		assert.equal(again.code, 0, `run again after write ${k}: ${again.detail}`);
		const after = w.asked?.() ?? [];
		assert.deepEqual(
			after.filter((p) => answered.has(p)),
			[],
			`after write ${k}: no answer logged before the kill is bought again`,
		);
		assert.ok(
			beforeKill.length + after.length <= whole_asked.length + 1,
			`after write ${k}: the killed work and its rerun asked ${beforeKill.length} + ${after.length} calls, the whole one ${whole_asked.length} (one in flight may be asked twice)`,
		);
		assert.deepEqual(await w.outcome(dir), reference, `after write ${k}: the same outcome as never killed`);
	}
	return { writes, killedAt };
}

/**
 * The writes to kill after. Every one when BOOOOK_KILL_EVERY_WRITE=1 (a full sweep, minutes per
 * command); else, to bound CI's time, `points` of them: the first few (the session made, the first
 * journal line and call), the last few (the closing writes) and evenly spaced ones between.
 */
function killPoints(writes: number, points = KILL_POINTS): number[] {
	const all = Array.from({ length: writes }, (_, i) => i + 1);
	if (process.env.BOOOOK_KILL_EVERY_WRITE === '1' || writes <= points) return all;
	const first = Math.min(4, Math.floor(points / 3));
	const last = Math.min(3, Math.floor(points / 4));
	const middle = all.slice(first, -last);
	const spaced = points - first - last;
	const picked = Array.from(
		{ length: spaced },
		(_, i) => middle[Math.floor(((i + 0.5) * middle.length) / spaced)]!,
	);
	return [...all.slice(0, first), ...new Set(picked), ...all.slice(-last)];
}

const KILL_POINTS = 12;

function preload(vars: Record<string, string>): Record<string, string> {
	return { NODE_OPTIONS: `--import=${PRELOAD}`, ...vars };
}
