import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Book, Run } from '../../source/domain.ts';
import { makeConfig } from '../../source/config.ts';
import { UserError } from '../../source/errors.ts';
import { newRun } from '../../source/summarize/run.ts';
import { SessionLock, takeoverGuard, type LockOwner } from '../../source/store/lock.ts';
import { Session } from '../../source/store/session.ts';
import { firstLine } from '../support/children.ts';
import { tempDir } from '../support/temp.ts';

const ROOT = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const SESSION_MODULE = path.join(ROOT, 'source', 'store', 'session.ts');
const LOCK_MODULE = path.join(ROOT, 'source', 'store', 'lock.ts');
const TEXT = 'Call me Ishmael. Some years ago, never mind how long precisely.\n';

function init(id: string) {
	const book: Book = {
		title: 'Whale',
		sha256: createHash('sha256').update(TEXT, 'utf8').digest('hex'),
		source: 'whale.txt',
		chars: TEXT.length,
		tokens: 15,
	};
	const run: Run = newRun(
		makeConfig({
			provider: 'extractive',
			model: 'textrank',
			method: 'inc',
			temperature: 0,
			concurrency: 1,
			seed: 7,
		}),
		[{ index: 0, start: 0, end: TEXT.length, tokens: 15 }],
	);
	return { id, book, text: TEXT, run };
}

async function closedSession(dir: string, id: string): Promise<string> {
	const s = await Session.create(dir, init(id));
	await s.close();
	return path.join(dir, id, 'lock');
}

async function readOwner(file: string): Promise<LockOwner> {
	return JSON.parse(await readFile(file, 'utf8')) as LockOwner;
}

/**
 * A second node process that opens the session. `mode`: 'try' reports the outcome and exits;
 * 'hold' prints "ready" and keeps the session open until stdin ends; 'exit' calls process.exit
 * without closing.
 */
function child(dir: string, id: string, mode: 'try' | 'hold' | 'exit'): ChildProcessWithoutNullStreams {
	const code = `
		const { Session } = await import(${JSON.stringify(SESSION_MODULE)});
		try {
			const s = await Session.open(process.env.DIR, process.env.ID);
			if (process.env.MODE === 'exit') { console.log('ready'); process.exit(0); }
			if (process.env.MODE === 'try') { console.log(JSON.stringify({ ok: true })); await s.close(); }
			else {
				console.log('ready');
				process.stdin.resume();
				process.stdin.on('end', async () => { await s.close(); console.log('closed'); });
			}
		} catch (e) {
			console.log(JSON.stringify({ ok: false, message: e.message, exitCode: e.exitCode }));
		}`;
	return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
		cwd: ROOT,
		env: { ...process.env, DIR: dir, ID: id, MODE: mode },
	});
}

function exited(proc: ChildProcessWithoutNullStreams): Promise<void> {
	if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => proc.once('exit', () => resolve()));
}

async function refusal(promise: Promise<unknown>): Promise<UserError> {
	const error = await promise.then(
		() => assert.fail('expected the open to be refused'),
		(e: unknown) => e,
	);
	assert.ok(error instanceof UserError, String(error));
	assert.equal(error.exitCode, 2);
	return error;
}

test('a second open in the same process is refused with the pid message', async (t) => {
	const dir = tempDir('lock', t);
	const first = await Session.create(dir, init('same'));
	t.after(() => first.close());
	const error = await refusal(Session.open(dir, 'same'));
	const lockFile = path.join(dir, 'same', 'lock');
	assert.equal(
		error.message,
		`session "same" is open in another booook process (pid ${process.pid}); close it first, or if no booook is running, delete ${lockFile}`,
	);
	// The refused open did not disturb the holder's lock.
	assert.equal((await readOwner(path.join(dir, 'same', 'lock'))).pid, process.pid);
	await first.updateRun({ status: 'cancelled' });
});

test('an open from another process is refused while this one holds the session', async (t) => {
	const dir = tempDir('lock', t);
	const held = await Session.create(dir, init('shared'));
	t.after(() => held.close());
	const proc = child(dir, 'shared', 'try');
	const result = JSON.parse(await firstLine(proc));
	await exited(proc);
	assert.equal(result.ok, false);
	assert.equal(result.exitCode, 2);
	assert.equal(
		result.message,
		`session "shared" is open in another booook process (pid ${process.pid}); close it first, or if no booook is running, delete ${path.join(dir, 'shared', 'lock')}`,
	);
});

test('this process is refused while another process holds the session, and admitted after it closes', async (t) => {
	const dir = tempDir('lock', t);
	await closedSession(dir, 'theirs');
	const proc = child(dir, 'theirs', 'hold');
	t.after(() => {
		proc.kill('SIGKILL');
		return exited(proc);
	});
	assert.equal(await firstLine(proc), 'ready');
	const error = await refusal(Session.open(dir, 'theirs'));
	assert.ok(error.message.includes(`(pid ${proc.pid})`), error.message);

	proc.stdin.end();
	await exited(proc);
	const mine = await Session.open(dir, 'theirs');
	await mine.close();
});

test('a lock left by a SIGKILLed process is taken over at once', async (t) => {
	const dir = tempDir('lock', t);
	const lockFile = await closedSession(dir, 'killed');
	const proc = child(dir, 'killed', 'hold');
	assert.equal(await firstLine(proc), 'ready');
	proc.kill('SIGKILL');
	await exited(proc);
	// The killed process could not clean up: its lock is still there.
	assert.equal((await readOwner(lockFile)).pid, proc.pid);

	const resumed = await Session.open(dir, 'killed');
	assert.equal((await readOwner(lockFile)).pid, process.pid);
	await resumed.close();
	assert.ok(!existsSync(lockFile));
});

test('a process that exits without closing releases its lock', async (t) => {
	const dir = tempDir('lock', t);
	const lockFile = await closedSession(dir, 'exiting');
	const proc = child(dir, 'exiting', 'exit');
	assert.equal(await firstLine(proc), 'ready');
	await exited(proc);
	assert.ok(!existsSync(lockFile));
});

test('close releases the lock so the session can be opened again', async (t) => {
	const dir = tempDir('lock', t);
	const lockFile = await closedSession(dir, 'again');
	assert.ok(!existsSync(lockFile));
	const s = await Session.open(dir, 'again');
	assert.ok(existsSync(lockFile));
	await s.close();
	await s.close();
	assert.ok(!existsSync(lockFile));
	await (await Session.open(dir, 'again')).close();
});

test('SessionLock: live owners refuse, dead and debris locks are taken over', async (t) => {
	const dir = tempDir('lock', t);
	const file = path.join(dir, 'lock');
	const write = (owner: Partial<LockOwner> | string) =>
		writeFile(file, typeof owner === 'string' ? owner : JSON.stringify(owner));
	const host = os.hostname();
	const startedAt = new Date().toISOString();

	// A live process of this host (a sleeping child).
	const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
	t.after(() => {
		sleeper.kill('SIGKILL');
	});
	await write({ pid: sleeper.pid!, host, startedAt });
	const live = await refusal(SessionLock.acquire(file, 'x'));
	assert.ok(live.message.includes(`(pid ${sleeper.pid})`));

	// The same pid on another host cannot be checked, so it is respected and named.
	await write({ pid: sleeper.pid!, host: 'elsewhere.example', startedAt });
	const remote = await refusal(SessionLock.acquire(file, 'x'));
	assert.ok(remote.message.includes('elsewhere.example') && remote.message.includes(file), remote.message);

	// The same process once it is dead.
	sleeper.kill('SIGKILL');
	await new Promise((resolve) => sleeper.once('exit', resolve));
	await write({ pid: sleeper.pid!, host, startedAt });
	const taken = await SessionLock.acquire(file, 'x');
	assert.equal((await readOwner(file)).pid, process.pid);
	await taken.release();
	assert.ok(!existsSync(file));

	// An empty lock is a create whose write has not happened yet: waited for a moment, then refused
	// while fresh...
	await write('');
	const young = await refusal(SessionLock.acquire(file, 'x'));
	assert.ok(young.message.includes('being opened'));
	// ...and debris of a process killed in between once it is old.
	const old = new Date(Date.now() - 60_000);
	await utimes(file, old, old);
	const fromDebris = await SessionLock.acquire(file, 'x');
	assert.equal((await readOwner(file)).pid, process.pid);
	await fromDebris.release();
});

test('SessionLock.release leaves a lock that is no longer its own', async (t) => {
	const dir = tempDir('lock', t);
	const file = path.join(dir, 'lock');
	const lock = await SessionLock.acquire(file, 'x');
	const other = JSON.stringify({ pid: 1, host: os.hostname(), startedAt: new Date().toISOString() });
	await writeFile(file, other);
	await lock.release();
	assert.equal(await readFile(file, 'utf8'), other);
});

/** The pid of a process that has exited: a lock naming it is stale. */
async function deadPid(): Promise<number> {
	const proc = spawn(process.execPath, ['-e', '']);
	await new Promise((resolve) => proc.once('exit', resolve));
	return proc.pid!;
}

/**
 * A process that takes the lock `file` when it gets SIGUSR1, so that several can be released at one
 * instant. Lines in: "arm FILE", "release". Lines out: "armed", the outcome as JSON, "released".
 */
function contender() {
	const code = `
		const { SessionLock } = await import(${JSON.stringify(LOCK_MODULE)});
		const { createInterface } = await import('node:readline');
		let file = null;
		let lock = null;
		process.on('SIGUSR1', async () => {
			try {
				lock = await SessionLock.acquire(file, 'raced');
				console.log(JSON.stringify({ won: true }));
			} catch (e) {
				console.log(JSON.stringify({ won: false, message: e.message }));
			}
		});
		for await (const line of createInterface({ input: process.stdin })) {
			if (line.startsWith('arm ')) { file = line.slice(4); console.log('armed'); }
			if (line === 'release') { await lock.release(); lock = null; console.log('released'); }
		}`;
	const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT });
	const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
	let err = '';
	proc.stderr.on('data', (d) => (err += d));
	const next = async (): Promise<string> => {
		const line = await lines.next();
		if (line.done) throw new Error(`contender ${proc.pid} ended: ${err}`);
		return line.value;
	};
	return { proc, next, send: (line: string) => proc.stdin.write(`${line}\n`) };
}

test('four processes released at one instant on a stale lock: exactly one wins, every round', async (t) => {
	const dir = tempDir('lock', t);
	const file = path.join(dir, 'lock');
	const host = os.hostname();
	const dead = await deadPid();
	const contenders = Array.from({ length: 4 }, contender);
	t.after(async () => {
		for (const c of contenders) c.proc.kill('SIGKILL');
		await Promise.all(contenders.map((c) => exited(c.proc)));
	});
	const ROUNDS = 24;
	for (let round = 0; round < ROUNDS; round++) {
		// Even rounds: a lock whose owner died. Odd rounds: an empty lock left long ago by a process
		// killed between creating and filling it.
		if (round % 2 === 0) {
			await writeFile(
				file,
				`${JSON.stringify({ pid: dead, host, startedAt: new Date(Date.UTC(2024, 0, 1, 0, 0, round)).toISOString() })}\n`,
			);
		} else {
			await writeFile(file, '');
			const old = new Date(Date.now() - 60_000);
			await utimes(file, old, old);
		}
		for (const c of contenders) c.send(`arm ${file}`);
		for (const c of contenders) assert.equal(await c.next(), 'armed');
		for (const c of contenders) c.proc.kill('SIGUSR1');
		const outcomes = await Promise.all(
			contenders.map(async (c) => ({
				c,
				...(JSON.parse(await c.next()) as { won: boolean; message?: string }),
			})),
		);
		const winners = outcomes.filter((o) => o.won);
		assert.equal(winners.length, 1, `round ${round}: ${winners.length} winners`);
		const winner = winners[0]!.c;
		assert.equal((await readOwner(file)).pid, winner.proc.pid, `round ${round}: the lock names its winner`);
		// A loser names the winner; only if the winner stalled for a second between creating its
		// lock and writing its name (a very loaded machine) does it say the session is being opened.
		for (const o of outcomes.filter((x) => !x.won)) {
			assert.ok(
				o.message!.includes(`(pid ${winner.proc.pid})`) || o.message!.includes('is being opened'),
				`round ${round}: ${o.message}`,
			);
		}
		winner.send('release');
		assert.equal(await winner.next(), 'released');
		assert.deepEqual(await readdir(dir), [], `round ${round}: no lock or guard left`);
	}
});

test('a takeover guard left by a killed taker does not keep the stale lock forever', async (t) => {
	const dir = tempDir('lock', t);
	const file = path.join(dir, 'lock');
	const host = os.hostname();
	const dead = await deadPid();
	const stale = `${JSON.stringify({ pid: dead, host, startedAt: '2024-01-01T00:00:00.000Z' })}\n`;
	await writeFile(file, stale);
	// The taker died holding the guard, before it removed the lock.
	await writeFile(
		takeoverGuard(file, stale),
		`${JSON.stringify({ pid: dead, host, startedAt: '2024-01-01T00:00:01.000Z' })}\n`,
	);
	const lock = await SessionLock.acquire(file, 'x');
	assert.equal((await readOwner(file)).pid, process.pid);
	assert.deepEqual(await readdir(dir), ['lock']);
	await lock.release();
});

test('a lock held by a live (or reused) pid is refused with the lock file and how to clear it', async (t) => {
	const dir = tempDir('lock', t);
	const file = path.join(dir, 'lock');
	// This test process stands for a pid the system gave to another program: alive, not booook.
	await writeFile(
		file,
		JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: '2024-01-01T00:00:00.000Z' }),
	);
	const error = await refusal(SessionLock.acquire(file, 'reused'));
	assert.ok(error.message.includes(`delete ${file}`), error.message);
	assert.ok(error.message.includes('if no booook is running'), error.message);
});
