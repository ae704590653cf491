import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { customIdOf, type BatchEntry, type BatchRecords } from '../llm/batcher.ts';
import { readCallLog } from './calls.ts';
import { FILES, sessionPath } from './dirs.ts';
import { readIfThere } from './state-file.ts';

/**
 * batches.jsonl in a session: which provider batch each of its batched requests went out in. It is
 * written (and synced) once the batch is created, before anything relies on it, so a process
 * killed while the batch runs finds it again and waits for it instead of paying for it twice.
 * A request given up on (its batch gave it an error) is marked `settled`, so it is not waited for again.
 */

const batchEntrySchema = z.strictObject({
	/** The request's id in the batch: session, owner, version and attempt (see `customIdOf`). */
	customId: z.string().min(1),
	/** The provider's batch id. */
	batch: z.string().min(1),
	/** sha256 of what was asked (model, prompt, limits): a request rebuilt differently is not this one. */
	hash: z.string().min(1),
	provider: z.string(),
	model: z.string(),
	at: z.string(),
	/** The batch answered it with an error that was given up on. */
	settled: z.literal('errored').optional(),
});

export class BatchJournal implements BatchRecords {
	#entries: BatchEntry[];
	#queue: Promise<void> = Promise.resolve();

	private constructor(
		readonly file: string,
		entries: BatchEntry[],
	) {
		this.#entries = entries;
	}

	/** The journal of the session folder `sessionPath`; a line cut short by a kill is skipped. */
	static async open(sessionPath: string): Promise<BatchJournal> {
		const file = join(sessionPath, FILES.batches);
		const text = (await readIfThere(file)) ?? '';
		const entries: BatchEntry[] = [];
		for (const line of text.split('\n')) {
			if (line.trim() === '') continue;
			const parsed = batchEntrySchema.safeParse(parseJson(line));
			if (parsed.success) entries.push(parsed.data);
		}
		return new BatchJournal(file, entries);
	}

	get entries(): readonly BatchEntry[] {
		return this.#entries;
	}

	/** The batch to wait for `customId` in: its latest entry, when it asked the same (`hash`) and was not given up on. */
	find(customId: string, hash: string): string | null {
		for (let i = this.#entries.length - 1; i >= 0; i--) {
			const entry = this.#entries[i]!;
			if (entry.customId !== customId) continue;
			return entry.hash === hash && entry.settled === undefined ? entry.batch : null;
		}
		return null;
	}

	/** Appends entries and syncs the file; appends are queued so lines never interleave. */
	append(entries: BatchEntry[]): Promise<void> {
		if (entries.length === 0) return this.#queue;
		this.#entries.push(...entries);
		const text = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
		const write = this.#queue.then(async () => {
			const handle = await open(this.file, 'a+');
			try {
				// A killed process may have cut the last line short: start on a fresh one.
				const { size } = await handle.stat();
				const last = Buffer.alloc(1);
				if (size > 0) await handle.read(last, 0, 1, size - 1);
				await handle.writeFile(size > 0 && last[0] !== 0x0a ? `\n${text}` : text, 'utf8');
				await handle.sync();
			} finally {
				await handle.close();
			}
		});
		this.#queue = write.catch(() => {});
		return write;
	}
}

/**
 * The requests of a session still out in provider batches: the latest entry of each, not given up
 * on, whose answer is not in the call log. A command that makes the calls itself (resume, score)
 * would pay for these twice; running the session's study again waits for them.
 */
export async function awaitedInBatches(dir: string, id: string): Promise<BatchEntry[]> {
	const path = sessionPath(dir, id);
	// No such session (or no readable folder): opening it says what is wrong.
	if (
		!(await stat(path).then(
			(s) => s.isDirectory(),
			() => false,
		))
	)
		return [];
	const journal = await BatchJournal.open(path);
	if (journal.entries.length === 0) return [];
	const { calls } = await readCallLog(join(path, FILES.calls));
	const answered = new Set(
		calls
			.filter((c) => c.batch !== undefined)
			.map((c) => customIdOf(id, { owner: c.node, version: c.version, attempt: c.attempt })),
	);
	const latest = new Map(journal.entries.map((e) => [e.customId, e]));
	return [...latest.values()].filter((e) => e.settled === undefined && !answered.has(e.customId));
}

function parseJson(line: string): unknown {
	try {
		return JSON.parse(line);
	} catch {
		return undefined;
	}
}
