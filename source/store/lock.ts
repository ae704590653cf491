import { createHash } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { badInput } from '../errors.ts';

/**
 * One booook process per session: the state is kept in memory and saved as changes to it, so two
 * writers would silently undo each other's work. The lock is a file created with O_EXCL; it
 * names its owner so a lock left by a killed process can be recognised and taken over at once.
 *
 * Taking over is the delicate part: "it is stale, so remove it" is two steps, and between them
 * another process may have taken the stale lock over and created a fresh one, which a plain unlink
 * would delete. So a takeover first creates, exclusively, a guard named after the stale lock's
 * content (`lock.takeover-<hash>`): of all the processes that saw the same stale lock, one gets the
 * guard, checks that the lock still holds that stale content, and only then removes it. Whoever
 * then creates the lock with O_EXCL holds it; the others see a live owner. A guard left by a taker
 * that was killed is itself a stale lock and is taken over the same way.
 *
 * An owner is dead when its pid is gone, when the pid is a zombie (killed, but its parent has not
 * reaped it: PID 1 of a container without an init does not), or when the pid now names another
 * process: the owner's start time, recorded beside its pid where /proc has it, differs.
 */

export interface LockOwner {
	pid: number;
	host: string;
	startedAt: string;
	/**
	 * The owner process's start time as /proc/PID/stat gives it (clock ticks since boot), which
	 * tells the owner from a later process given the same pid. Absent where there is no /proc, and
	 * in locks written before it was recorded.
	 */
	start?: string;
}

// A lock file whose content is not yet written is normal for the few microseconds between the
// exclusive create and the write; only an unreadable lock older than this is taken for debris.
const HALF_WRITTEN_GRACE_MS = 5_000;
const ATTEMPTS = 5;
// A lock is empty for the instant between its exclusive create and its write; a process that
// finds it so waits up to this long for the owner's name before it gives up.
const YOUNG_PATIENCE_MS = 1_000;
// How long to wait in all for another process that is taking a stale lock over (it needs a few
// milliseconds; the margin is for a loaded machine).
const TAKEOVER_PATIENCE_MS = 10_000;
const GUARD_PREFIX = '.takeover-';

const held = new Set<SessionLock>();
let exitHooked = false;

// Locks still held when the process exits (an uncaught error, process.exit) are removed
// synchronously: 'exit' listeners cannot wait for promises. A SIGKILL skips this, which is what the
// dead-pid takeover is for.
function releaseAllSync(): void {
	for (const lock of held) lock.releaseSync();
}

export class SessionLock {
	#released = false;
	#file: string;

	private constructor(
		file: string,
		readonly owner: LockOwner,
		private readonly content: string,
	) {
		this.#file = file;
	}

	get file(): string {
		return this.#file;
	}

	/** Takes the lock at `file` for session `id`, or throws a UserError naming who holds it. */
	static async acquire(file: string, id: string): Promise<SessionLock> {
		const start = Date.now();
		for (let attempt = 0, wait = 2; attempt < ATTEMPTS;) {
			const owner = ownerRecord();
			const content = `${JSON.stringify(owner)}\n`;
			const created = await createExclusive(file, content);
			if (created) {
				const lock = new SessionLock(file, owner, content);
				held.add(lock);
				if (!exitHooked) {
					exitHooked = true;
					process.on('exit', releaseAllSync);
				}
				await removeGuards(file);
				return lock;
			}
			const existing = await inspect(file);
			if (existing.kind === 'gone') {
				attempt++;
				continue;
			}
			if (existing.kind === 'held') throw heldError(id, file, existing.owner);
			if (existing.kind === 'young') {
				if (Date.now() - start > YOUNG_PATIENCE_MS) {
					throw badInput(`session "${id}" is being opened by another booook process; try again in a moment`);
				}
			} else if ((await takeOver(file, file, existing.text)) === 'removed') {
				attempt++;
				continue;
			}
			// Another process is creating the lock or taking the same stale lock over: it will hold
			// the lock in a moment, or have failed and left it free.
			if (Date.now() - start > TAKEOVER_PATIENCE_MS) break;
			await delay(wait);
			wait = Math.min(wait * 2, 100);
		}
		throw badInput(
			`could not take the lock of session "${id}" (${file}); another booook process keeps taking ` +
				`it. If no booook is running, delete ${file} and the ${basename(file)}${GUARD_PREFIX}* files beside it`,
		);
	}

	/** The lock's folder was renamed (a new session moved into place); the lock moved with it. */
	movedTo(file: string): void {
		this.#file = file;
	}

	get released(): boolean {
		return this.#released;
	}

	/** Removes the lock file if it is still ours. Idempotent. */
	async release(): Promise<void> {
		if (this.#released) return;
		this.#released = true;
		held.delete(this);
		const current = await readFile(this.file, 'utf8').catch(() => null);
		if (current === this.content) await unlink(this.file).catch(ignoreMissing);
	}

	releaseSync(): void {
		if (this.#released) return;
		this.#released = true;
		held.delete(this);
		try {
			if (readFileSync(this.file, 'utf8') === this.content) unlinkSync(this.file);
		} catch {
			// Gone already, or the directory was removed with it: nothing left to release.
		}
	}
}

async function createExclusive(file: string, content: string): Promise<boolean> {
	let handle;
	try {
		handle = await open(file, 'wx');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
		throw error;
	}
	try {
		await handle.writeFile(content, 'utf8');
		await handle.close();
	} catch (error) {
		// A lock we could not fill in must not be left behind looking half-written.
		await handle.close().catch(() => {});
		await unlink(file).catch(ignoreMissing);
		throw error;
	}
	return true;
}

type Inspection =
	{ kind: 'gone' } | { kind: 'held'; owner: LockOwner } | { kind: 'young' } | { kind: 'stale'; text: string };

/** The guard a takeover of the stale lock content `stale` creates beside the lock `lockFile`. */
export function takeoverGuard(lockFile: string, stale: string): string {
	const hash = createHash('sha256').update(stale, 'utf8').digest('hex').slice(0, 16);
	return `${lockFile}${GUARD_PREFIX}${hash}`;
}

/**
 * Removes `target` (the lock, or a guard left by a killed taker) if it still holds the stale
 * content `stale`, holding the guard named after that content while it checks and removes.
 * 'busy': another process holds that guard (it is doing the same); try again shortly.
 */
async function takeOver(
	lockFile: string,
	target: string,
	stale: string,
	depth = 0,
): Promise<'removed' | 'busy'> {
	const guard = takeoverGuard(lockFile, stale);
	const content = `${JSON.stringify(ownerRecord())}\n`;
	if (!(await createExclusive(guard, content))) {
		const other = await inspect(guard);
		// A guard is never left by a live process for long; one whose taker died is taken over in
		// turn (bounded: each level needs another process killed inside a few milliseconds).
		if (other.kind === 'stale' && depth < 3) await takeOver(lockFile, guard, other.text, depth + 1);
		return other.kind === 'gone' ? 'removed' : 'busy';
	}
	try {
		// Only the holder of this guard may remove a lock with this content, and the content is
		// unique to one owner, so what is checked here is what is removed.
		const now = await inspect(target);
		if (now.kind === 'stale' && now.text === stale) await unlink(target).catch(ignoreMissing);
		return 'removed';
	} finally {
		const mine = await readFile(guard, 'utf8').catch(() => null);
		if (mine === content) await unlink(guard).catch(ignoreMissing);
	}
}

/**
 * Guards left beside a lock by takers that were killed. Once this process holds the lock, every
 * guard there is about a lock content that is gone for good, so all of them are debris.
 */
async function removeGuards(lockFile: string): Promise<void> {
	const prefix = `${basename(lockFile)}${GUARD_PREFIX}`;
	const names = await readdir(dirname(lockFile)).catch(() => [] as string[]);
	await Promise.all(
		names.filter((n) => n.startsWith(prefix)).map((n) => unlink(join(dirname(lockFile), n)).catch(() => {})),
	);
}

/** Whether `name` is a takeover guard of the lock file named `lockName`. */
export function isTakeoverGuard(name: string, lockName: string): boolean {
	return name.startsWith(`${lockName}${GUARD_PREFIX}`);
}

/** The live process that holds the lock `file`, or null (no lock, or one a dead process left). */
export async function lockHolder(file: string): Promise<LockOwner | null> {
	const found = await inspect(file).catch(() => null);
	return found?.kind === 'held' ? found.owner : null;
}

async function inspect(file: string): Promise<Inspection> {
	let text: string;
	let mtimeMs: number;
	try {
		[text, { mtimeMs }] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone' };
		throw error;
	}
	const owner = parseOwner(text);
	if (!owner)
		return Date.now() - mtimeMs < HALF_WRITTEN_GRACE_MS ? { kind: 'young' } : { kind: 'stale', text };
	// A pid on another machine (a shared sessions dir) cannot be checked, so it counts as alive.
	if (owner.host !== os.hostname() || isAlive(owner.pid, owner.start)) return { kind: 'held', owner };
	return { kind: 'stale', text };
}

export function parseOwner(text: string): LockOwner | null {
	try {
		const value = JSON.parse(text) as Partial<LockOwner> | null;
		if (
			value &&
			Number.isInteger(value.pid) &&
			(value.pid as number) > 0 &&
			typeof value.host === 'string' &&
			typeof value.startedAt === 'string'
		) {
			const owner: LockOwner = { pid: value.pid as number, host: value.host, startedAt: value.startedAt };
			if (typeof value.start === 'string' && /^\d+$/u.test(value.start)) owner.start = value.start;
			return owner;
		}
	} catch {
		// Falls through: not an owner record.
	}
	return null;
}

/** This process as a lock names it: pid, host, when, and its start time where /proc has it. */
function ownerRecord(): LockOwner {
	const owner: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
	const start = ownStart();
	if (start !== null) owner.start = start;
	return owner;
}

let ownStartCache: string | null | undefined;
function ownStart(): string | null {
	if (ownStartCache === undefined) {
		const stat = procStat(process.pid);
		ownStartCache = stat !== null && stat !== 'gone' ? stat.start : null;
	}
	return ownStartCache;
}

/**
 * Whether the process `pid` of this host is running. A zombie (state Z: it has exited and only
 * waits to be reaped) is dead, and so is a pid that now names a process started at another time
 * than `start` (the pid was reused). Where /proc cannot tell, a pid that can be signalled counts
 * as alive.
 */
export function isAlive(pid: number, start?: string): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		// EPERM: the process exists but belongs to someone else.
		if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
	}
	const stat = procStat(pid);
	if (stat === 'gone') return false;
	if (stat === null) return true;
	if (stat.state === 'Z' || stat.state === 'X') return false;
	return start === undefined || stat.start === start;
}

/**
 * The state letter and start time of process `pid` from /proc/PID/stat; 'gone' when /proc exists
 * but has no such process; null when it cannot be read (no /proc: macOS; or hidden from us).
 */
export function procStat(pid: number): { state: string; start: string } | 'gone' | null {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch (error) {
		// A process that exited between the signal and the read, unless there is no /proc at all.
		return (error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self/stat')
			? 'gone'
			: null;
	}
	// "pid (comm) state ppid ... starttime ...": comm may hold spaces and parentheses, so the fields
	// are counted from the last ")"; the state is field 3 and the start time field 22.
	const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
	const state = fields[0];
	const start = fields[19];
	return state && start && /^\d+$/u.test(start) ? { state, start } : null;
}

function heldError(id: string, file: string, owner: LockOwner) {
	if (owner.host !== os.hostname()) {
		return badInput(
			`session "${id}" is open in a booook process on ${owner.host} (pid ${owner.pid}); close it first, or delete ${file} if that process is gone`,
		);
	}
	// Without /proc, or in a lock from before start times were recorded, the pid may also be one the
	// system gave to another program after the owner died, which no check here can tell apart: the
	// way out is named.
	return badInput(
		`session "${id}" is open in another booook process (pid ${owner.pid}); close it first, or if no booook is running, delete ${file}`,
	);
}

function ignoreMissing(error: unknown): void {
	if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
