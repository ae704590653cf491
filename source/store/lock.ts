import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import { badInput } from '../errors.ts';

/**
 * One booook process per session: lowdb keeps the state in memory and rewrites the whole file, so
 * two writers would silently undo each other's work. The lock is a file created with O_EXCL; it
 * names its owner so a lock left by a killed process can be recognised and taken over at once.
 */

export interface LockOwner {
	pid: number;
	host: string;
	startedAt: string;
}

// A lock file whose content is not yet written is normal for the few microseconds between the
// exclusive create and the write; only an unreadable lock older than this is taken for debris.
const HALF_WRITTEN_GRACE_MS = 5_000;
const ATTEMPTS = 5;

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

	private constructor(
		readonly file: string,
		readonly owner: LockOwner,
		private readonly content: string,
	) {}

	/** Takes the lock at `file` for session `id`, or throws a UserError naming who holds it. */
	static async acquire(file: string, id: string): Promise<SessionLock> {
		for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
			const owner: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
			const content = `${JSON.stringify(owner)}\n`;
			const created = await createExclusive(file, content);
			if (created) {
				const lock = new SessionLock(file, owner, content);
				held.add(lock);
				if (!exitHooked) {
					exitHooked = true;
					process.on('exit', releaseAllSync);
				}
				return lock;
			}
			const existing = await inspect(file);
			if (existing.kind === 'gone') continue;
			if (existing.kind === 'held') throw heldError(id, file, existing.owner);
			if (existing.kind === 'young') {
				throw badInput(`session "${id}" is being opened by another booook process; try again in a moment`);
			}
			// Stale: its owner is dead. Another process may be taking it over at the same moment;
			// whoever creates the new file first wins and the other sees a live owner next round.
			await unlink(file).catch(ignoreMissing);
		}
		throw badInput(`could not take the lock of session "${id}" (${file}); another booook process keeps taking it`);
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
	| { kind: 'gone' }
	| { kind: 'held'; owner: LockOwner }
	| { kind: 'young' }
	| { kind: 'stale' };

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
	if (!owner) return Date.now() - mtimeMs < HALF_WRITTEN_GRACE_MS ? { kind: 'young' } : { kind: 'stale' };
	// A pid on another machine (a shared sessions dir) cannot be checked, so it counts as alive.
	if (owner.host !== os.hostname() || isAlive(owner.pid)) return { kind: 'held', owner };
	return { kind: 'stale' };
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
			return { pid: value.pid as number, host: value.host, startedAt: value.startedAt };
		}
	} catch {
		// Falls through: not an owner record.
	}
	return null;
}

export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: the process exists but belongs to someone else.
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

function heldError(id: string, file: string, owner: LockOwner) {
	if (owner.host !== os.hostname()) {
		return badInput(
			`session "${id}" is open in a booook process on ${owner.host} (pid ${owner.pid}); close it first, or delete ${file} if that process is gone`,
		);
	}
	return badInput(`session "${id}" is open in another booook process (pid ${owner.pid}); close it first`);
}

function ignoreMissing(error: unknown): void {
	if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
