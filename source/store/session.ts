import { sessionsDirArg } from '../config.ts';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Low } from 'lowdb';
import type { Book, Node, NodeRef, Run, ScoredSummary, Walk } from '../domain.ts';
import { chunkPlace } from '../format/places.ts';
import { badInput, UserError } from '../errors.ts';
import { CallLog, callsBeyondState, readCallLog } from './calls.ts';
import {
	assignNode,
	changeProblem,
	headOf,
	patchedNode,
	type Change,
	type ListName,
	type NodePatch,
	type RunPatch,
} from './changes.ts';
import { checkSessionId, FILES, newSessionId } from './dirs.ts';
import { checkSessionsDir, diskError, isDiskError } from './disk.ts';
import {
	CREATING_PREFIX,
	folderState,
	missingSessionError,
	removeLeftover,
	sweepCreations,
} from './leftover.ts';
import { SessionLock } from './lock.ts';
import { DurableJsonFile } from './durable-file.ts';
import { stateFs } from './state-file.ts';
import { journalOf, readSessionStateChecked, recordLine, type Journal } from './journal.ts';
import {
	firstIssue,
	migrate,
	SCHEMA_VERSION,
	sessionSchema,
	type BookSessionData,
	type CallRecord,
	type CollectionSessionData,
	type SessionData,
	type StateView,
} from './schema.ts';
import { finalSummaryPin, scoredSummaries } from './scored-summaries.ts';
import { flag, next, said, type Next, type Said } from '../program.ts';
import { counted } from '../format/count.ts';

export {
	SCHEMA_VERSION,
	type BookSessionData,
	type CallRecord,
	type CollectionSessionData,
	type SessionData,
	type StateView,
} from './schema.ts';

/**
 * One session on disk, open for writing by this process only:
 *   <dir>/<id>/book.txt      the normalized book text, written once
 *   <dir>/<id>/session.json  SessionData, whole (lowdb, through a temp file flushed and renamed: never torn)
 *   <dir>/<id>/changes.jsonl what changed since session.json was written (journal.ts)
 *   <dir>/<id>/calls.jsonl   every provider call, append-only
 *   <dir>/<id>/lock          who has it open
 *
 * API keys never reach these files: no domain type has a field for one, and the strict schema
 * refuses unknown fields on every save.
 *
 * The state changes only through typed operations (`updateNode`, `addNodes`, `updateRun`, `append`
 * and those built on them), each of which applies its change and writes it to the journal; `remove`
 * (an undone verdict) writes the state whole. Outside store/, `data` is a read-only view.
 */

type ListItem<L extends ListName> = NonNullable<SessionData[L]>[number];

export class Session<D extends SessionData = SessionData> {
	// Typed as any session so a Session<BookSessionData> can be passed where a Session is wanted.
	#db: Low<SessionData>;
	#lock: SessionLock;
	#calls: CallLog;
	#journal: Journal;
	/** A write failed, so the journal lacks what it held: the next change writes the state whole. */
	#stale = false;
	#text: string | null;
	/** Writes in the order their saves were asked for; never rejects (each caller gets its own error). */
	#saving: Promise<void> = Promise.resolve();
	#closed = false;
	/** What was wrong with the journal this session was read with (see `readSessionStateChecked`). */
	#journalProblem: string | null = null;
	/**
	 * The command that continues this session's work, named when a write fails: `resume` for a run,
	 * `score` for a collection; a command doing other work there (validate, score of a run) says so.
	 */
	continueWith: Next;

	private constructor(
		readonly id: string,
		readonly path: string,
		data: D,
		lock: SessionLock,
		text: string | null,
	) {
		this.#db = new Low(new DurableJsonFile(join(path, FILES.state), () => this.#saving), data);
		this.#journal = journalOf(path, data.updatedAt);
		this.#lock = lock;
		this.#calls = new CallLog(join(path, FILES.calls));
		this.#text = text;
		this.continueWith = continueCommand(data, dirname(path));
	}

	/** The session's state, to read; it changes through the operations below. */
	get data(): StateView<D> {
		return this.#state as StateView<D>;
	}

	/** The state itself, for the operations below (and the whole writes) to change. */
	get #state(): D {
		return this.#db.data as D;
	}

	/** A new session for a run over one book; book.txt is written once, here. */
	static async create(
		dir: string,
		init: { id?: string; book: Book; text: string; run: Run },
	): Promise<Session<BookSessionData>> {
		if (sha256(init.text) !== init.book.sha256)
			throw new Error('create: book.sha256 is not the sha256 of the text');
		return Session.#make(
			dir,
			init.id ?? newSessionId(init.book.title, new Date(), Math.random),
			init.text,
			(common) => ({
				...common,
				kind: 'book',
				book: init.book,
				run: init.run,
			}),
		);
	}

	/**
	 * A new collection session holding imported summaries with their annotations and judgments,
	 * all given at once: the session exists whole or not at all.
	 */
	static async createCollection(
		dir: string,
		init: Pick<
			CollectionSessionData,
			'title' | 'sources' | 'summaries' | 'annotations' | 'judgments' | 'runs'
		> & { id?: string },
	): Promise<Session<CollectionSessionData>> {
		return Session.#make(
			dir,
			init.id ?? newSessionId(init.title, new Date(), Math.random),
			null,
			(common) => ({
				...common,
				kind: 'collection',
				title: init.title,
				sources: init.sources,
				runs: init.runs,
				summaries: init.summaries,
				annotations: init.annotations,
				judgments: init.judgments,
			}),
		);
	}

	/**
	 * Builds the session in a hidden folder and renames it to `<dir>/<id>` once it is whole, so a
	 * process killed while creating leaves no folder that looks like a session (see leftover.ts).
	 */
	static async #make<T extends SessionData>(
		dir: string,
		requestedId: string,
		text: string | null,
		build: (common: Omit<BookSessionData, 'kind' | 'book' | 'run'>) => T,
	): Promise<Session<T>> {
		const id = checkSessionId(requestedId);
		const sessionDir = join(dir, id);
		const failed = (error: unknown) =>
			isDiskError(error)
				? diskError(
						error,
						`cannot create session "${id}"`,
						error.path ?? dir,
						'run the same command again (nothing was created)',
					)
				: error;
		await checkSessionsDir(dir);
		await makeRoomFor(dir, id);
		let temp: string | null = null;
		let lock: SessionLock | null = null;
		try {
			await mkdir(dir, { recursive: true });
			await sweepCreations(dir);
			temp = await mkdtemp(join(dir, `${CREATING_PREFIX}${id}-`));
			lock = await SessionLock.acquire(join(temp, FILES.lock), id);
			if (text !== null) {
				await writeFile(join(temp, FILES.book), text, { encoding: 'utf8', flag: 'wx' });
				await stateFs.sync(join(temp, FILES.book));
			}
			const now = new Date().toISOString();
			const data = build({
				schema: SCHEMA_VERSION,
				id,
				createdAt: now,
				updatedAt: now,
				openedAt: now,
				summaries: [],
				annotations: [],
				judgments: [],
			});
			checkState(id, data);
			await new DurableJsonFile(join(temp, FILES.state)).write(data);
			try {
				// Renaming a folder onto a folder that is not empty fails: two creators cannot both win.
				await rename(temp, sessionDir);
			} catch (error) {
				const code = (error as NodeJS.ErrnoException).code;
				if (code === 'ENOTEMPTY' || code === 'EEXIST') throw await alreadyExists(id, dir);
				throw error;
			}
			temp = null;
			lock.movedTo(join(sessionDir, FILES.lock));
			// The folder's new name, on the disk: a power cut now leaves the session, not the hidden folder.
			await stateFs.sync(dir);
			return new Session<T>(id, sessionDir, data, lock, text ?? '');
		} catch (error) {
			// Nothing partial is left behind: the hidden folder was ours alone, so all of it goes.
			lock?.releaseSync();
			if (temp !== null) await rm(temp, { recursive: true, force: true }).catch(() => {});
			throw failed(error);
		}
	}

	/**
	 * The session as it is on disk, read without taking the lock: for commands that only look
	 * (show, export) while a run may be writing it. Each save is an atomic rename, so the read is
	 * one whole state.
	 */
	static async snapshot(
		dir: string,
		id: string,
	): Promise<{ data: SessionData; text: string; journal: string | null }> {
		return readState(dir, id);
	}

	/**
	 * One line saying that saves of a session read with `snapshot` were lost, or null: the journal was
	 * deleted, cut short or skipped, so the state lacks work that was saved once.
	 */
	static lostWork(dir: string, read: { data: SessionData; journal: string | null }): Promise<Said | null> {
		return lostWorkWarning(continueCommand(read.data, dir), read.data, read.journal, () =>
			readCallLog(join(dir, read.data.id, FILES.calls)).then((log) => log.calls),
		);
	}

	static async open(dir: string, id: string): Promise<Session> {
		const sessionDir = join(dir, id);
		await stateFileOf(dir, id);
		// Lock before reading, so the state read is not one another process is about to replace.
		const lock = await SessionLock.acquire(join(sessionDir, FILES.lock), id).catch((error: unknown) => {
			throw isDiskError(error)
				? diskError(
						error,
						`cannot open session "${id}"`,
						error.path ?? sessionDir,
						'run the same command again',
					)
				: error;
		});
		try {
			const { data, text, journal } = await readState(dir, id);
			data.openedAt = new Date().toISOString();
			const session = new Session<SessionData>(id, sessionDir, data, lock, text);
			session.#journalProblem = journal;
			// Nothing has been done yet: what to do after fixing the disk is this same command. Written
			// whole, so the journal of the last process is folded in.
			await session.#write('run the same command again');
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
	 * Sets fields of node `id` (in place: whoever holds the node sees them) and journals the node
	 * whole. Refused, changing nothing, when the node would not match the schema.
	 */
	updateNode(id: NodeRef, patch: NodePatch): Promise<void> {
		const node = this.#run().nodes.find((n) => n.id === id);
		if (!node) return Promise.reject(new Error(`session "${this.id}" has no node ${id}`));
		const next = patchedNode(node, patch);
		return this.#change({ nodes: [next] }, () => assignNode(node, next));
	}

	/** Adds nodes to the run's plan. */
	addNodes(...nodes: Node[]): Promise<void> {
		return this.#change({ nodes }, () => this.#run().nodes.push(...nodes));
	}

	/** Sets the run's own fields (its status, error, final node, settings). */
	updateRun(patch: RunPatch): Promise<void> {
		const data = this.#state as BookSessionData;
		const next = { ...data, run: { ...this.#run(), ...patch } };
		return this.#change({ head: headOf(next) }, () => Object.assign(data.run, patch));
	}

	/** Appends items to one of the session's lists (summaries, annotations, judgments, verdicts). */
	append<L extends ListName>(list: L, ...items: ListItem<L>[]): Promise<void> {
		const data = this.#state;
		return this.#change({ [list]: items }, () => {
			(data[list] ??= [] as never[]).push(...(items as never[]));
		});
	}

	/**
	 * The summaries the session's score covers (see `scoredSummaries`). A run's final summary not
	 * pinned yet is pinned first, through the journal, so that nothing naming it (an annotation, a
	 * verdict) can reach the disk without it.
	 */
	async scoredSummaries(): Promise<ScoredSummary['id'][]> {
		const { ids, pin } = scoredSummaries(this.data, dirname(this.path));
		if (pin) await this.append('summaries', pin);
		return ids;
	}

	/** The run's final summary, pinned as `scoredSummaries` pins it. */
	async pinFinalSummary(): Promise<ScoredSummary['id']> {
		const { id, pin } = finalSummaryPin(bookSession(this).data, dirname(this.path));
		if (pin) await this.append('summaries', pin);
		return id;
	}

	/**
	 * Records a validation walk begun, once: a walk begun before with the same validator, mode, seed
	 * and fraction keeps its record (and its start). Resolves whether it was recorded now.
	 */
	async beginWalk(walk: Walk): Promise<boolean> {
		const same = (w: Walk) =>
			w.validator === walk.validator &&
			w.mode === walk.mode &&
			w.seed === walk.seed &&
			w.fraction === walk.fraction;
		if (this.#state.walks?.some(same)) return false;
		const data = this.#state;
		const walks = [...(data.walks ?? []), walk];
		await this.#change({ head: headOf({ ...data, walks }) }, () => {
			data.walks = walks;
		});
		return true;
	}

	/**
	 * Removes items, found by identity, from one of the lists (an undone verdict). The journal
	 * records only what is added, so this writes the state whole: undo is rare, and the write atomic.
	 */
	remove<L extends ListName>(list: L, items: readonly ListItem<L>[]): Promise<void> {
		const current = this.#state[list] as ListItem<L>[] | undefined;
		let removed = 0;
		for (const item of items) {
			const at = current?.indexOf(item) ?? -1;
			if (at === -1) continue;
			current!.splice(at, 1);
			removed++;
		}
		if (removed === 0) return Promise.resolve();
		return this.#write(said`continue with: ${this.continueWith}`);
	}

	#run(): Run {
		const data = this.#state;
		if (data.kind !== 'book') throw new Error(`session "${this.id}" holds no run`);
		return data.run;
	}

	/**
	 * Checks `change` against the state, applies it, and writes its journal record (or the state
	 * whole, when a write failed before it).
	 */
	#change(change: Change, apply: () => void): Promise<void> {
		if (this.#closed) return Promise.reject(new Error(`session "${this.id}" is closed`));
		const data = this.#state;
		const problem = changeProblem(data, change);
		if (problem) return Promise.reject(new Error(`refusing to save session "${this.id}": ${problem}`));
		apply();
		if (this.#together) {
			this.#together.changes.push(change);
			return this.#together.written;
		}
		return this.#record(change);
	}

	/** The operations of a `together` in progress, and the promise of their one record. */
	#together: { changes: Change[]; written: Promise<void> } | null = null;

	/**
	 * Runs `make`, whose operations (updateNode, addNodes, updateRun, append, called before it
	 * returns) are written as one journal record: a kill keeps all of them or none. An edit and the
	 * stale marks of what reads it are one change; written apart, a kill between them left readers
	 * done from the old text, and the run finished without them. Resolves once the record is written.
	 */
	together(make: () => void): Promise<void> {
		if (this.#together) {
			make();
			return this.#together.written;
		}
		let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
		const written = new Promise<void>((resolve, reject) => {
			settle = { resolve, reject };
		});
		// The operations' own promises are this one, and callers may keep only the one they are given.
		written.catch(() => {});
		const batch = { changes: [] as Change[], written };
		this.#together = batch;
		try {
			make();
		} finally {
			this.#together = null;
			// What `make` changed before it threw is in the state: it is written all the same.
			const record =
				batch.changes.length === 0 ? Promise.resolve() : this.#record(mergedChange(batch.changes));
			record.then(settle!.resolve, settle!.reject);
		}
		return written;
	}

	/** Writes the record of a change already applied (or the state whole, when a write failed before it). */
	#record(change: Change): Promise<void> {
		const data = this.#state;
		const then = said`continue with: ${this.continueWith}`;
		if (this.#stale) return this.#write(then);
		data.updatedAt = new Date().toISOString();
		const line = recordLine(data.updatedAt, change);
		return this.#track(
			this.#saving.then(() => this.#journal.append(line)),
			then,
		);
	}

	/** Writes the state whole through lowdb, then starts a new journal that continues it. */
	#write(then: Said): Promise<void> {
		if (this.#closed) return Promise.reject(new Error(`session "${this.id}" is closed`));
		const data = this.#state;
		try {
			data.updatedAt = this.#nextSnapshotTime();
			checkState(this.id, data);
		} catch (error) {
			return Promise.reject(error);
		}
		const base = data.updatedAt;
		this.#stale = false;
		// Low.write hands the data to the adapter at once, which takes its text now and writes it after
		// the writes asked before (see DurableJsonFile).
		return this.#track(
			this.#db.write().then(() => this.#journal.restart(base)),
			then,
		);
	}

	/** Makes `write` the last write asked for; a failure names the disk and the way on. */
	#track(write: Promise<void>, then: Said): Promise<void> {
		const written = write.catch((error: unknown) => {
			this.#stale = true;
			throw isDiskError(error)
				? diskError(
						error,
						`cannot save session "${this.id}"`,
						error.path ?? this.path,
						said`${then} (what was saved before is intact)`,
					)
				: error;
		});
		this.#saving = written.catch(() => {});
		return written;
	}

	/** A snapshot's time names it in the journal that follows it, so no two may share one. */
	#lastSnapshot = 0;
	#nextSnapshotTime(): string {
		this.#lastSnapshot = Math.max(Date.now(), Date.parse(this.#state.updatedAt) + 1, this.#lastSnapshot + 1);
		return new Date(this.#lastSnapshot).toISOString();
	}

	appendCall(record: CallRecord): Promise<void> {
		if (this.#closed) return Promise.reject(new Error(`session "${this.id}" is closed`));
		return this.#calls.append(record).catch((error: unknown) => {
			throw isDiskError(error)
				? diskError(
						error,
						`cannot log a call of session "${this.id}"`,
						error.path ?? this.#calls.file,
						said`continue with: ${this.continueWith} (what was saved before is intact)`,
					)
				: error;
		});
	}

	/**
	 * One line saying that saves were lost before this session was opened (see `Session.lostWork`),
	 * or null; the way on it names is `continueWith`. Ask before the state changes: it is measured
	 * against the state as it was read.
	 */
	lostWork(): Promise<Said | null> {
		return lostWorkWarning(this.continueWith, this.#state, this.#journalProblem, () => this.calls());
	}

	/** The call log; a line cut short by a killed process is skipped, not an error. */
	async calls(): Promise<CallRecord[]> {
		await this.#calls.flush();
		return (await this.#calls.read()).calls;
	}

	/**
	 * Waits for pending writes, folds the journal into session.json, then releases the lock.
	 * Idempotent. A fold that fails loses nothing: the journal still holds what it would have written.
	 */
	async close(): Promise<void> {
		if (this.#closed) return;
		try {
			await this.#saving;
			if (this.#journal.started) await this.#write('').catch(() => {});
			this.#closed = true;
			await Promise.all([this.#saving, this.#calls.flush()]);
		} finally {
			this.#closed = true;
			await this.#lock.release();
		}
	}
}

/** Never write what open() would refuse: a bad save would make the whole session unreadable. */
function checkState(id: string, data: SessionData): void {
	const checked = sessionSchema.safeParse(data);
	if (!checked.success) throw new Error(`refusing to save session "${id}": ${firstIssue(checked.error)}`);
}

/**
 * The id is taken: the way on depends on what holds it (a run resumes; a collection is scored and an
 * imported summary read, neither ever resumed: there is nothing to run).
 */
async function alreadyExists(id: string, dir: string): Promise<UserError> {
	type Held = { kind?: unknown; run?: { imported?: unknown } };
	const held = await new DurableJsonFile<Held>(join(dir, id, FILES.state)).read().catch(
		// Unreadable or corrupt: the message still names the id that is taken.
		() => null,
	);
	const where = sessionsDirArg(dir);
	const way =
		held?.kind === 'collection'
			? said`score it with: ${next('score', `${id}${where}`)}`
			: held?.run?.imported
				? said`read it with: ${next('evidence', `${id}${where}`)}`
				: said`resume it with: ${next('resume', `${id}${where}`)}`;
	return badInput(
		said`session "${id}" already exists in ${dir}; choose another ${flag('--session')} or ${way}`,
	);
}

/**
 * Refuses an id that is taken; removes the leftover of an interrupted creation of that id (when no
 * live process has it), which holds no work.
 */
async function makeRoomFor(dir: string, id: string): Promise<void> {
	const sessionDir = join(dir, id);
	const state = await folderState(sessionDir);
	if (state.kind === 'missing') return;
	if (state.kind === 'session') throw await alreadyExists(id, dir);
	if (state.kind === 'other') {
		throw badInput(
			said`${sessionDir} already exists and is not a session (it has no ${FILES.state}); choose another ${flag('--session')}, or move it away`,
		);
	}
	if (state.alive) {
		throw badInput(
			said`session "${id}" is being created by another booook process${state.owner ? ` (pid ${state.owner.pid})` : ''}; choose another ${flag('--session')}`,
		);
	}
	await removeLeftover(dir, id);
}

/** The session's state file, or a one-line error when there is no such session. */
async function stateFileOf(dir: string, id: string): Promise<string> {
	checkSessionId(id);
	await checkSessionsDir(dir);
	const stateFile = join(dir, id, FILES.state);
	if (!(await exists(stateFile))) throw await missingSessionError(dir, id);
	return stateFile;
}

/**
 * Reads and checks session.json and book.txt; whatever is wrong is reported, never repaired. A
 * damaged journal does not stop the reading (what it lost may be made again); it is `journal`.
 */
async function readState(
	dir: string,
	id: string,
): Promise<{ data: SessionData; text: string; journal: string | null }> {
	const stateFile = await stateFileOf(dir, id);
	const sessionDir = join(dir, id);
	let raw: unknown;
	let journal: string | null;
	try {
		({ raw, problem: journal } = await readSessionStateChecked(sessionDir));
		if (typeof raw === 'object' && raw !== null) raw = migrate(raw as Record<string, unknown>);
	} catch (error) {
		if (!(error instanceof SyntaxError)) throw error;
		throw corrupt(id, stateFile, `not valid JSON: ${error.message}`);
	}
	const version = typeof raw === 'object' && raw !== null ? (raw as { schema?: unknown }).schema : undefined;
	if (typeof version !== 'number') throw corrupt(id, stateFile, 'it has no schema version');
	if (version !== SCHEMA_VERSION) {
		throw new UserError(
			`session "${id}" cannot be opened: ${stateFile} has schema version ${version}, which this booook ` +
				`does not support (it reads versions 1 to ${SCHEMA_VERSION}); the file was left unchanged`,
		);
	}
	const parsed = sessionSchema.safeParse(raw);
	if (!parsed.success) throw corrupt(id, stateFile, firstIssue(parsed.error));
	const data = raw as SessionData;
	if (data.id !== id) throw corrupt(id, stateFile, `it belongs to session "${data.id}"`);
	if (data.kind === 'collection') return { data, text: '', journal };
	const text = await readSessionBook(dir, data);
	// Chunks are character ranges of book.txt; one outside it would be read as empty or cut text.
	const outside = data.run.chunks.find((c) => c.start > c.end || c.end > text.length);
	if (outside) {
		throw corrupt(
			id,
			stateFile,
			`${chunkPlace(outside.index, data.run.chunks.length)} spans characters ${outside.start} to ${outside.end}, outside the book's ${text.length}`,
		);
	}
	return { data, text, journal };
}

/**
 * The book text of a session already read (by `readSessions` or `snapshot`), checked against the
 * hash its state holds, without reading the state again.
 */
export async function readSessionBook(dir: string, data: BookSessionData): Promise<string> {
	const bookFile = join(dir, data.id, FILES.book);
	const text = await readFile(bookFile, 'utf8').catch(() => null);
	if (text === null) throw corrupt(data.id, bookFile, 'book.txt is missing or unreadable');
	if (sha256(text) !== data.book.sha256)
		throw corrupt(data.id, bookFile, `its sha256 does not match the one in ${FILES.state}`);
	return text;
}

/** The command that continues a session's work: `resume` for a run, `score` for a collection. */
function continueCommand(data: SessionData, dir: string): Next {
	return next(data.kind === 'book' ? 'resume' : 'score', `${data.id}${sessionsDirArg(dir)}`);
}

/**
 * Says that saves were lost: the journal's own problem when it has one, else the calls the log holds
 * for work the state lacks (a journal deleted leaves no trace but those). The way on is the usual
 * one: answers still in calls.jsonl are taken from there, not bought again (see CallRunner.recover).
 */
async function lostWorkWarning(
	way: Next,
	data: StateView<SessionData>,
	journal: string | null,
	calls: () => Promise<CallRecord[]>,
): Promise<Said | null> {
	let problem = journal;
	// A call log that cannot be read is reported by what needs it (a run); a look at the session goes on.
	const logged = problem === null && data.kind === 'book' ? await calls().catch(() => null) : null;
	if (logged !== null && data.kind === 'book') {
		const beyond = callsBeyondState(data.run.nodes, logged);
		if (beyond > 0)
			problem = `${FILES.calls} holds ${counted(beyond, 'call')} for work missing from ${FILES.state} and ${FILES.journal} (was ${FILES.journal} deleted?)`;
	}
	if (problem === null) return null;
	const then =
		data.kind === 'book'
			? said`${way} reuses the answers in ${FILES.calls} instead of buying them again, but edits in the lost saves are gone`
			: said`what the lost saves held is gone; continue with: ${way}`;
	return said`session "${data.id}" lost saved work: ${problem}; ${then}`;
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
		// ENOTDIR: a file named like the session stands where its folder would be.
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ENOENT' || code === 'ENOTDIR') return false;
		throw error;
	}
}

// The store's whole public surface from one module.
export { newSessionId } from './dirs.ts';

/** The session as a run over a book, or a one-line error for a collection (which has nothing to run). */
export function bookSession(session: Session): Session<BookSessionData> {
	if (session.data.kind !== 'book') {
		throw badInput(
			said`session "${session.id}" is an imported collection of summaries, not a run; score it with: ${next(
				'score',
				`${session.id}${sessionsDirArg(dirname(session.path))}`,
			)}`,
		);
	}
	return session as Session<BookSessionData>;
}

/** Changes made one after another, as one record: nodes and list items in their order, the last head. */
function mergedChange(changes: readonly Change[]): Change {
	const merged: Record<string, unknown[]> & { head?: Change['head'] } = {};
	for (const change of changes) {
		for (const [key, value] of Object.entries(change)) {
			if (key === 'head') merged.head = value as Change['head'];
			else merged[key] = [...(merged[key] ?? []), ...(value as unknown[])];
		}
	}
	return merged as Change;
}
