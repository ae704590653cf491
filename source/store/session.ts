import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { Book, Run } from '../domain.ts';
import { badInput, UserError } from '../errors.ts';
import { CallLog } from './calls.ts';
import { checkSessionId, FILES, newSessionId } from './dirs.ts';
import { SessionLock } from './lock.ts';
import { firstIssue, migrate, SCHEMA_VERSION, sessionSchema, type BookSessionData, type CallRecord, type CollectionSessionData, type SessionData } from './schema.ts';

export { SCHEMA_VERSION, type BookSessionData, type CallRecord, type CollectionSessionData, type SessionData } from './schema.ts';

/**
 * One session on disk, open for writing by this process only:
 *   <dir>/<id>/book.txt      the normalized book text, written once
 *   <dir>/<id>/session.json  SessionData (lowdb's JSONFile: temp file + rename, so never torn)
 *   <dir>/<id>/calls.jsonl   every provider call, append-only
 *   <dir>/<id>/lock          who has it open
 *
 * API keys never reach these files: no domain type has a field for one, and the strict schema
 * refuses unknown fields on every save.
 */

export class Session<D extends SessionData = SessionData> {
	// Typed as any session so a Session<BookSessionData> can be passed where a Session is wanted.
	#db: Low<SessionData>;
	#lock: SessionLock;
	#calls: CallLog;
	#text: string | null;
	#saving: Promise<void> = Promise.resolve();
	#closed = false;

	private constructor(
		readonly id: string,
		readonly path: string,
		data: D,
		lock: SessionLock,
		text: string | null,
	) {
		// JSONFile, not JSONFilePreset: the preset swaps in a memory adapter when NODE_ENV=test.
		this.#db = new Low<SessionData>(new JSONFile<SessionData>(join(path, FILES.state)), data);
		this.#lock = lock;
		this.#calls = new CallLog(join(path, FILES.calls));
		this.#text = text;
	}

	/** The session's state; the engine mutates it in place and calls save(). */
	get data(): D {
		return this.#db.data as D;
	}

	/** A new session for a run over one book; book.txt is written once, here. */
	static async create(dir: string, init: { id?: string; book: Book; text: string; run: Run }): Promise<Session<BookSessionData>> {
		if (sha256(init.text) !== init.book.sha256) throw new Error('create: book.sha256 is not the sha256 of the text');
		return Session.#make(dir, init.id ?? newSessionId(init.book.title, new Date(), Math.random), init.text, (common) => ({
			...common,
			kind: 'book',
			book: init.book,
			run: init.run,
		}));
	}

	/**
	 * A new collection session holding imported summaries with their annotations and judgments,
	 * all given at once: the session exists whole or not at all.
	 */
	static async createCollection(
		dir: string,
		init: Pick<CollectionSessionData, 'title' | 'sources' | 'summaries' | 'annotations' | 'judgments' | 'runs'> & { id?: string },
	): Promise<Session<CollectionSessionData>> {
		return Session.#make(dir, init.id ?? newSessionId(init.title, new Date(), Math.random), null, (common) => ({
			...common,
			kind: 'collection',
			title: init.title,
			sources: init.sources,
			runs: init.runs,
			summaries: init.summaries,
			annotations: init.annotations,
			judgments: init.judgments,
		}));
	}

	static async #make<T extends SessionData>(
		dir: string,
		requestedId: string,
		text: string | null,
		build: (common: Omit<BookSessionData, 'kind' | 'book' | 'run'>) => T,
	): Promise<Session<T>> {
		const id = checkSessionId(requestedId);
		const sessionDir = join(dir, id);
		await mkdir(dir, { recursive: true });
		try {
			// Without `recursive`, mkdir is the atomic "does it exist" check: two creators cannot both win.
			await mkdir(sessionDir);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
				throw badInput(
					`session "${id}" already exists in ${dir}; choose another --session or resume it with: booook resume ${id}`,
				);
			}
			throw error;
		}
		let lock: SessionLock | null = null;
		try {
			lock = await SessionLock.acquire(join(sessionDir, FILES.lock), id);
			if (text !== null) await writeFile(join(sessionDir, FILES.book), text, { encoding: 'utf8', flag: 'wx' });
			const now = new Date().toISOString();
			const data = build({ schema: SCHEMA_VERSION, id, createdAt: now, updatedAt: now, openedAt: now, summaries: [], annotations: [], judgments: [] });
			const session = new Session<T>(id, sessionDir, data, lock, text ?? '');
			await session.save();
			return session;
		} catch (error) {
			// Nothing partial is left behind: the directory was ours alone, so all of it goes.
			lock?.releaseSync();
			await rm(sessionDir, { recursive: true, force: true });
			throw error;
		}
	}

	/**
	 * The session as it is on disk, read without taking the lock: for commands that only look
	 * (show, export) while a run may be writing it. Each save is an atomic rename, so the read is
	 * one whole state.
	 */
	static async snapshot(dir: string, id: string): Promise<{ data: SessionData; text: string }> {
		return readState(dir, id);
	}

	static async open(dir: string, id: string): Promise<Session> {
		const sessionDir = join(dir, id);
		await stateFileOf(dir, id);
		// Lock before reading, so the state read is not one another process is about to replace.
		const lock = await SessionLock.acquire(join(sessionDir, FILES.lock), id);
		try {
			const { data, text } = await readState(dir, id);
			data.openedAt = new Date().toISOString();
			const session = new Session<SessionData>(id, sessionDir, data, lock, text);
			await session.save();
			return session;
		} catch (error) {
			await lock.release();
			throw error;
		}
	}

	async bookText(): Promise<string> {
		this.#text ??= await readFile(join(this.path, FILES.book), 'utf8');
		return this.#text;
	}

	/**
	 * Writes the current state. The JSON is taken when save() is called; lowdb's writer (steno)
	 * renames a complete temp file into place and, when saves overlap, writes only the newest
	 * pending state after the current write, so the file always ends at the last saved state.
	 */
	save(): Promise<void> {
		if (this.#closed) return Promise.reject(new Error(`session "${this.id}" is closed`));
		const data = this.#db.data;
		data.updatedAt = new Date().toISOString();
		// Never write what open() would refuse: a bad save would make the whole session unreadable.
		const checked = sessionSchema.safeParse(data);
		if (!checked.success) {
			return Promise.reject(new Error(`refusing to save session "${this.id}": ${firstIssue(checked.error)}`));
		}
		const write = this.#db.write();
		this.#saving = this.#saving.then(
			() => write.catch(() => {}),
			() => write.catch(() => {}),
		);
		return write;
	}

	appendCall(record: CallRecord): Promise<void> {
		if (this.#closed) return Promise.reject(new Error(`session "${this.id}" is closed`));
		return this.#calls.append(record);
	}

	/** The call log; a line cut short by a killed process is skipped, not an error. */
	async calls(): Promise<CallRecord[]> {
		await this.#calls.flush();
		return (await this.#calls.read()).calls;
	}

	/** Waits for pending writes, then releases the lock. Idempotent. */
	async close(): Promise<void> {
		if (this.#closed) return;
		this.#closed = true;
		try {
			await Promise.all([this.#saving, this.#calls.flush()]);
		} finally {
			await this.#lock.release();
		}
	}
}

/** The session's state file, or a one-line error when there is no such session. */
async function stateFileOf(dir: string, id: string): Promise<string> {
	checkSessionId(id);
	const stateFile = join(dir, id, FILES.state);
	if (!(await exists(stateFile))) {
		throw badInput(`no session "${id}" in ${dir}; list the sessions there with: booook sessions`);
	}
	return stateFile;
}

/** Reads and checks session.json and book.txt; whatever is wrong is reported, never repaired. */
async function readState(dir: string, id: string): Promise<{ data: SessionData; text: string }> {
	const stateFile = await stateFileOf(dir, id);
	const sessionDir = join(dir, id);
	const adapter = new JSONFile<unknown>(stateFile);
	let raw: unknown;
	try {
		raw = await adapter.read();
		if (typeof raw === 'object' && raw !== null) raw = migrate(raw as Record<string, unknown>);
	} catch (error) {
		if (!(error instanceof SyntaxError)) throw error;
		throw corrupt(id, stateFile, `not valid JSON: ${error.message}`);
	}
	const version = typeof raw === 'object' && raw !== null ? (raw as { schema?: unknown }).schema : undefined;
	if (typeof version !== 'number') throw corrupt(id, stateFile, 'it has no schema version');
	if (version !== SCHEMA_VERSION) {
		throw new UserError(
			`session "${id}" cannot be opened: ${stateFile} has schema version ${version}, which this booook does not support (it reads versions 1 to ${SCHEMA_VERSION}); the file was left unchanged`,
		);
	}
	const parsed = sessionSchema.safeParse(raw);
	if (!parsed.success) throw corrupt(id, stateFile, firstIssue(parsed.error));
	const data = raw as SessionData;
	if (data.id !== id) throw corrupt(id, stateFile, `it belongs to session "${data.id}"`);
	if (data.kind === 'collection') return { data, text: '' };
	const bookFile = join(sessionDir, FILES.book);
	const text = await readFile(bookFile, 'utf8').catch(() => null);
	if (text === null) throw corrupt(id, bookFile, 'book.txt is missing or unreadable');
	if (sha256(text) !== data.book.sha256) {
		throw corrupt(id, bookFile, `its sha256 does not match the one in ${FILES.state}`);
	}
	return { data, text };
}

function corrupt(id: string, file: string, reason: string): UserError {
	return new UserError(
		`session "${id}" cannot be opened: ${file} is corrupt (${reason}); the file was left unchanged`,
	);
}

function sha256(text: string): string {
	return createHash('sha256').update(text, 'utf8').digest('hex');
}

async function exists(file: string): Promise<boolean> {
	try {
		await stat(file);
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
		throw error;
	}
}

// The store's whole public surface from one module.
export { resolveSessionsDir, newSessionId } from './dirs.ts';
export { listSessions, type SessionSummary, type SessionProblem, type SessionListing } from './list.ts';

/** The session as a run over a book, or a one-line error for a collection (which has nothing to run). */
export function bookSession(session: Session): Session<BookSessionData> {
	if (session.data.kind !== 'book') {
		throw badInput(`session "${session.id}" is an imported collection of summaries, not a run; score it with: booook score ${session.id}`);
	}
	return session as Session<BookSessionData>;
}
