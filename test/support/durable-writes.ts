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

/**
 * Runs `c` once whole (counting its durable writes), then for each write k: from the same start,
 * kills it right after write k, checks that the session still lists and opens, runs it again to its
 * end, and checks that the outcome equals the whole run's and that no answer logged before the kill
 * was asked for again.
 */
export async function killAtEachWrite(c: KillCase): Promise<KillReport> {
	const root = tempDir('kill-at-write');
	const start = join(root, 'start');
	await mkdir(start);
	await c.setup(start);
	const fresh = async (name: string) => {
		const dir = join(root, name);
		await cp(start, dir, { recursive: true });
		return dir;
	};
	const whole = await fresh('whole');
	const counter = join(root, 'writes');
	c.asked?.();
	const done = await booook(c.args(whole), { env: { ...c.env, ...preload({ BOOOOK_SYNC_COUNT: counter }) } });
	assert.equal(done.code, 0, `the command never killed: ${done.stderr}`);
	const writes = Number(await readFile(counter, 'utf8'));
	assert.ok(writes > 0, 'the command makes durable writes');
	const reference = await c.outcome(whole);
	const whole_asked = c.asked?.() ?? [];

	const killedAt: number[] = [];
	for (const k of killPoints(writes)) {
		const dir = await fresh(`kill-${k}`);
		const killed = await booook(c.args(dir), {
			env: { ...c.env, ...preload({ BOOOOK_KILL_AT_SYNC: String(k) }) },
		});
		assert.equal(killed.signal, 'SIGKILL', `killed after write ${k} of ${writes}: ${killed.stderr}`);
		killedAt.push(k);
		const answered = new Set((await readCallLog(join(dir, c.id, 'calls.jsonl'))).calls.map((r) => r.prompt));
		const beforeKill = c.asked?.() ?? [];
		// The session lists as itself, never as a problem, and opens for the command run again.
		// A creation cut short holds no work, and says so; anything else is a session that will not open.
		const listed = await listSessions(dir);
		const cutCreation = listed.problems.filter((p) => p.id === c.id && p.reason.includes('holds no work'));
		assert.deepEqual(
			listed.problems.filter((p) => !cutCreation.includes(p)),
			[],
			`after write ${k}: the folder lists without problems`,
		);
		assert.ok(
			cutCreation.length > 0 || listed.some((s) => s.id === c.id),
			`after write ${k}: ${c.id} is listed`,
		);
		const created = existsSync(join(dir, c.id, 'session.json'));
		const again = await booook((c.again ?? c.args)(dir, created), { env: c.env });
		assert.equal(again.code, 0, `run again after write ${k}: ${again.stderr}`);
		const after = c.asked?.() ?? [];
		assert.deepEqual(
			after.filter((p) => answered.has(p)),
			[],
			`after write ${k}: no answer logged before the kill is bought again`,
		);
		assert.ok(
			beforeKill.length + after.length <= whole_asked.length + 1,
			`after write ${k}: the killed command and its rerun asked ${beforeKill.length} + ${after.length} calls, the whole one ${whole_asked.length} (one in flight may be asked twice)`,
		);
		assert.deepEqual(await c.outcome(dir), reference, `after write ${k}: the same outcome as never killed`);
	}
	return { writes, killedAt };
}

/**
 * The writes to kill after. Every one when BOOOOK_KILL_EVERY_WRITE=1 (a full sweep, minutes per
 * command); else, to bound CI's time, the first four (the session made, the first journal line and
 * call), the last three (the closing writes) and evenly spaced ones between, KILL_POINTS in all.
 */
function killPoints(writes: number): number[] {
	const all = Array.from({ length: writes }, (_, i) => i + 1);
	if (process.env.BOOOOK_KILL_EVERY_WRITE === '1' || writes <= KILL_POINTS) return all;
	const middle = all.slice(4, -3);
	const spaced = KILL_POINTS - 7;
	const picked = Array.from(
		{ length: spaced },
		(_, i) => middle[Math.floor(((i + 0.5) * middle.length) / spaced)]!,
	);
	return [...all.slice(0, 4), ...new Set(picked), ...all.slice(-3)];
}

const KILL_POINTS = 12;

function preload(vars: Record<string, string>): Record<string, string> {
	return { NODE_OPTIONS: `--import=${PRELOAD}`, ...vars };
}
