import { sessionsDirArg } from '../config.ts';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { badInput, UserError } from '../errors.ts';
import { FILES } from './dirs.ts';
import { isAlive, isTakeoverGuard, parseOwner, SessionLock, type LockOwner } from './lock.ts';
import { tempFileOf } from './state-file.ts';
import { flag, joined, next, said, shellWord } from '../program.ts';

/**
 * Sessions whose creation was cut short. A new session is made whole in a hidden folder
 * `.creating-<id>-XXXXXX` that is renamed to `<id>` at the end, so a kill leaves that hidden
 * folder, not a session. Older booook versions created `<id>` directly and could leave it with a
 * lock and no session.json. Both hold no work (no call is made before a session is whole); they are
 * recognised here, reported, and removed once the lock inside shows no live process has them.
 */

export const CREATING_PREFIX = '.creating-';
// mkdtemp adds six characters after the "-" that ends `.creating-<id>-`.
const CREATION_RE = /^\.creating-(.+)-[A-Za-z0-9]{6}$/u;

// A creation folder without its lock yet is a creator between making the folder and locking it,
// unless it is older than this.
const LOCKLESS_GRACE_MS = 60_000;

export type FolderState =
	| { kind: 'missing' }
	| { kind: 'session' }
	/** Only what a creation writes before session.json: a lock, book.txt, a temp file, or nothing. */
	| { kind: 'leftover'; owner: LockOwner | null; alive: boolean }
	/** No session.json but other files, or a file: not ours to judge or remove. */
	| { kind: 'other'; file: boolean };

/** What `<sessionDir>` is: a session, the leftover of an interrupted creation, or something else. */
export async function folderState(sessionDir: string): Promise<FolderState> {
	let names: string[];
	try {
		names = await readdir(sessionDir);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ENOENT') return { kind: 'missing' };
		if (code === 'ENOTDIR') return { kind: 'other', file: true };
		throw error;
	}
	if (names.includes(FILES.state)) return { kind: 'session' };
	const creationFiles = new Set<string>([FILES.lock, FILES.book, basename(tempFileOf(FILES.state))]);
	if (!names.every((n) => creationFiles.has(n) || isTakeoverGuard(n, FILES.lock)))
		return { kind: 'other', file: false };
	const owner = parseOwner(await readFile(join(sessionDir, FILES.lock), 'utf8').catch(() => ''));
	return { kind: 'leftover', owner, alive: owner !== null && isLive(owner) };
}

function isLive(owner: LockOwner): boolean {
	// A pid on another machine cannot be checked, so it counts as alive (as for the lock).
	return owner.host !== os.hostname() || isAlive(owner.pid);
}

/**
 * Removes the leftover `<dir>/<id>` under its lock: the lock is taken first (a dead creator's is
 * taken over, a live one refuses), and the folder is checked again while it is held.
 */
export async function removeLeftover(dir: string, id: string): Promise<void> {
	const sessionDir = join(dir, id);
	let lock: SessionLock;
	try {
		lock = await SessionLock.acquire(join(sessionDir, FILES.lock), id);
	} catch (error) {
		// Another process removed it first.
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
		throw error;
	}
	try {
		const state = await folderState(sessionDir);
		if (state.kind === 'leftover') await rm(sessionDir, { recursive: true, force: true });
	} finally {
		await lock.release();
	}
}

export interface Creation {
	id: string;
	path: string;
	owner: LockOwner | null;
	/** A process is creating it now (or may be: no lock yet, and the folder is young). */
	alive: boolean;
}

/** The hidden creation folders in `dir`, finished or cut short. */
export async function creations(dir: string): Promise<Creation[]> {
	const names = await readdir(dir).catch(() => [] as string[]);
	const found: Creation[] = [];
	for (const name of names) {
		const match = CREATION_RE.exec(name);
		if (!match) continue;
		const path = join(dir, name);
		const text = await readFile(join(path, FILES.lock), 'utf8').catch(() => null);
		const owner = text === null ? null : parseOwner(text);
		let alive = owner !== null && isLive(owner);
		if (owner === null) {
			// No lock (or one being written): a creator may be between its two first steps.
			const { mtimeMs } = await stat(text === null ? path : join(path, FILES.lock)).catch(() => ({
				mtimeMs: 0,
			}));
			alive = Date.now() - mtimeMs < LOCKLESS_GRACE_MS;
		}
		found.push({ id: match[1]!, path, owner, alive });
	}
	return found;
}

/**
 * Removes the creation folders left by killed processes. Best effort: this is tidying, and a folder
 * that cannot be removed now is tried again by the next creation.
 */
export async function sweepCreations(dir: string): Promise<void> {
	for (const c of await creations(dir)) {
		if (c.alive) continue;
		try {
			const lock = await SessionLock.acquire(join(c.path, FILES.lock), c.id);
			await rm(c.path, { recursive: true, force: true });
			await lock.release();
		} catch {
			// A live creator after all, or removed by another process meanwhile.
		}
	}
}

/** Why `<dir>/<id>` with no session.json cannot be opened, as a one-line error. */
export async function missingSessionError(dir: string, id: string): Promise<UserError> {
	const sessionDir = join(dir, id);
	const state = await folderState(sessionDir);
	if (state.kind === 'leftover') {
		const pid = state.owner ? ` (pid ${state.owner.pid})` : '';
		if (state.alive)
			return badInput(
				`session "${id}" is still being created by another booook process${pid}; try again once it has started`,
			);
		const again = said`start it again with ${flag('--session', id)} (that replaces the leftover), or delete ${sessionDir}`;
		return badInput(
			joined(
				said`session "${id}" was never created whole: the booook process creating it${pid} `,
				said`stopped before it wrote ${FILES.state}, so ${sessionDir} holds no work; ${again}`,
			),
		);
	}
	if (state.kind === 'other') {
		const what = state.file
			? `${sessionDir} is a file, not a session folder`
			: `${join(sessionDir, FILES.state)} is missing (${sessionDir} holds other files)`;
		return new UserError(
			`session "${id}" cannot be opened: ${what}; it was left unchanged: restore ${FILES.state}, or move ${sessionDir} away`,
		);
	}
	const creating = (await creations(dir)).find((c) => c.id === id && c.alive);
	if (creating) {
		return badInput(
			`session "${id}" is still being created by another booook process${creating.owner ? ` (pid ${creating.owner.pid})` : ''}; try again once it has started`,
		);
	}
	const found = await elsewhere(dir, id);
	if (found)
		return badInput(
			said`no session "${id}" in ${dir}, but there is one in ${found}: give ${flag('--sessions-dir', shellWord(found))}`,
		);
	return badInput(
		joined(
			said`no session "${id}" in ${dir}; give the folder that holds it with ${flag('--sessions-dir', 'DIR')}, `,
			said`or list the sessions there with: ${next('sessions', sessionsDirArg(dir).trim())}`,
		),
	);
}

/**
 * Sessions folders a session is often in when it is not in the one looked in: this checkout's own
 * (where `npm start` keeps them), the one of the folder the user typed npm's command in, and
 * $BOOOOK_SESSIONS. The first other one that holds `id`, or null.
 */
async function elsewhere(dir: string, id: string): Promise<string | null> {
	const candidates = [
		OWN_SESSIONS,
		process.env.INIT_CWD ? join(process.env.INIT_CWD, 'sessions') : null,
		process.env.BOOOOK_SESSIONS ? resolve(process.env.BOOOOK_SESSIONS) : null,
	];
	for (const candidate of candidates) {
		if (candidate === null || resolve(candidate) === resolve(dir)) continue;
		if ((await folderState(join(candidate, id)).catch(() => null))?.kind === 'session') return candidate;
	}
	return null;
}

/** The sessions folder of this checkout: where `npm start` keeps sessions (source/ and dist/ alike sit beside it). */
const OWN_SESSIONS = fileURLToPath(new URL('../../sessions', import.meta.url));
