import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../source/errors.ts';
import { SessionLock, type LockOwner } from '../../source/store/lock.ts';
import { tempDir } from '../support/temp.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Issue 24, item 8: a lock whose owner was killed but stays a zombie (its parent does not reap it,
 * as PID 1 of a container without an init does not) is taken over; so is a lock whose pid now
 * names another process (told apart by the start time the lock records beside the pid). Locks
 * without a start time still work, and the takeover stays exclusive.
 */

const LOCK_MODULE = fileURLToPath(new URL('../../source/store/lock.ts', import.meta.url));
const noProc = existsSync('/proc/self/stat') ? false : 'needs /proc (Linux)';
const host = os.hostname();

/** The state letter and start time of `pid` as /proc/PID/stat says them, or null when it is gone. */
function stat(pid: number): { state: string; start: string } | null {
	try {
		const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
		return { state: fields[0]!, start: fields[19]! };
	} catch {
		return null;
	}
}

function exited(proc: ChildProcess): Promise<void> {
	if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => proc.once('exit', () => resolve()));
}

/**
 * A zombie: a shell starts a child in the background, prints its pid and becomes `sleep` (exec),
 * which never waits for children. The child is then killed: it has exited, but nothing reaps it.
 */
async function zombie(t: { after: (fn: () => Promise<void>) => void }): Promise<number> {
	const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	t.after(async () => {
		// Its zombie child goes with it (reparented, then reaped).
		parent.kill('SIGKILL');
		await exited(parent);
	});
	const line = await new Promise<string>((resolve, reject) => {
		createInterface({ input: parent.stdout! }).once('line', resolve);
		parent.once('exit', () => reject(new Error('the zombie maker ended early')));
	});
	const pid = Number(line);
	// Only once the shell has become `sleep` is the child's parent one that never reaps.
	await waitFor(
		'the shell to become sleep',
		() => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() === 'sleep',
	);
	process.kill(pid, 'SIGKILL');
	await waitFor(`pid ${pid} to be a zombie`, () => stat(pid)?.state === 'Z');
	return pid;
}

async function refusal(promise: Promise<unknown>): Promise<UserError> {
	const error = await promise.then(
		() => assert.fail('expected the lock to be refused'),
		(e: unknown) => e,
	);
	assert.ok(error instanceof UserError, String(error));
	return error;
}

const readOwner = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as LockOwner;

test('a lock whose owner is a zombie (killed, never reaped) is taken over', { skip: noProc }, async (t) => {
	const pid = await zombie(t);
	// kill(pid, 0) still succeeds on a zombie: that alone made the lock look held.
	assert.doesNotThrow(() => process.kill(pid, 0));
	const file = path.join(tempDir('lock-zombie'), 'lock');
	await writeFile(file, `${JSON.stringify({ pid, host, startedAt: '2024-01-01T00:00:00.000Z' })}\n`);
	const lock = await SessionLock.acquire(file, 'z');
	assert.equal((await readOwner(file)).pid, process.pid);
	await lock.release();
	assert.ok(!existsSync(file));
});

test(
	"a lock records its owner's start time beside its pid, and one whose pid now names another process is taken over",
	{ skip: noProc },
	async (t) => {
		const dir = tempDir('lock-reused');
		const file = path.join(dir, 'lock');
		const lock = await SessionLock.acquire(file, 'r');
		const mine = await readOwner(file);
		assert.equal(mine.start, stat(process.pid)!.start, 'the start time of this process, from /proc');
		await lock.release();

		// A live process that is not the owner: its pid, with the start time of the process that held it before.
		const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600_000)'], { stdio: 'ignore' });
		t.after(async () => {
			sleeper.kill('SIGKILL');
			await exited(sleeper);
		});
		const live = await waitFor('the sleeper in /proc', () => stat(sleeper.pid!));
		const earlier = String(Number(live.start) - 1);
		await writeFile(
			file,
			`${JSON.stringify({ pid: sleeper.pid, host, startedAt: '2024-01-01T00:00:00.000Z', start: earlier })}\n`,
		);
		const taken = await SessionLock.acquire(file, 'r');
		assert.equal((await readOwner(file)).pid, process.pid);
		await taken.release();

		// The same pid with its own start time is its owner, alive: refused.
		await writeFile(
			file,
			`${JSON.stringify({ pid: sleeper.pid, host, startedAt: '2024-01-01T00:00:00.000Z', start: live.start })}\n`,
		);
		const held = await refusal(SessionLock.acquire(file, 'r'));
		assert.match(held.message, new RegExp(`\\(pid ${sleeper.pid}\\)`, 'u'));

		// A lock from before start times were recorded still works: a live pid holds it...
		await writeFile(
			file,
			`${JSON.stringify({ pid: sleeper.pid, host, startedAt: '2024-01-01T00:00:00.000Z' })}\n`,
		);
		await refusal(SessionLock.acquire(file, 'r'));
		// ...and a dead one does not.
		sleeper.kill('SIGKILL');
		await exited(sleeper);
		await waitFor('the sleeper to be gone', () => stat(sleeper.pid!) === null);
		const after = await SessionLock.acquire(file, 'r');
		assert.equal((await readOwner(file)).pid, process.pid);
		await after.release();
		assert.deepEqual(await readdir(dir), []);
	},
);

test(
	"four processes released at one instant on a zombie's lock: exactly one takes it over",
	{ skip: noProc },
	async (t) => {
		const pid = await zombie(t);
		const dir = tempDir('lock-zombie-race');
		const file = path.join(dir, 'lock');
		await writeFile(file, `${JSON.stringify({ pid, host, startedAt: '2024-01-01T00:00:00.000Z' })}\n`);
		const code = `
		const { SessionLock } = await import(${JSON.stringify(LOCK_MODULE)});
		process.on('SIGUSR1', async () => {
			try {
				await SessionLock.acquire(process.env.FILE, 'raced');
				console.log(JSON.stringify({ won: true }));
			} catch (e) {
				console.log(JSON.stringify({ won: false, message: e.message }));
			}
		});
		console.log('armed');
		setInterval(() => {}, 1000);`;
		const contenders = Array.from({ length: 4 }, () =>
			spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
				env: { ...process.env, FILE: file },
				stdio: ['pipe', 'pipe', 'inherit'],
			}),
		);
		t.after(async () => {
			for (const c of contenders) c.kill('SIGKILL');
			await Promise.all(contenders.map(exited));
		});
		const lines = contenders.map((c) => createInterface({ input: c.stdout })[Symbol.asyncIterator]());
		const next = async (i: number) => {
			const line = await lines[i]!.next();
			if (line.done) throw new Error(`contender ${i} ended`);
			return line.value as string;
		};
		for (let i = 0; i < contenders.length; i++) assert.equal(await next(i), 'armed');
		for (const c of contenders) c.kill('SIGUSR1');
		const outcomes = await Promise.all(
			contenders.map(async (c, i) => ({
				pid: c.pid!,
				...(JSON.parse(await next(i)) as { won: boolean; message?: string }),
			})),
		);
		const winners = outcomes.filter((o) => o.won);
		assert.equal(winners.length, 1, JSON.stringify(outcomes));
		assert.equal((await readOwner(file)).pid, winners[0]!.pid, 'the lock names its winner');
		for (const o of outcomes.filter((x) => !x.won)) {
			assert.ok(
				o.message!.includes(`(pid ${winners[0]!.pid})`) || o.message!.includes('is being opened'),
				o.message,
			);
		}
	},
);
