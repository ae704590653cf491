import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { badInput } from '../errors.ts';
import { checkSessionsDir } from './disk.ts';
import { SessionLock } from './lock.ts';
import { appendDurably, readIfThere, replaceFile, stateFs } from './state-file.ts';

/**
 * A study's record: `<sessions dir>/<name>.study.json`, which session holds each cell of its grid.
 * The sessions hold everything else (a cell's progress is its session's), so the record stays
 * small and a study is resumed by opening the sessions it names. One process at a time: the
 * record is locked like a session (`.<name>.study.lock`).
 *
 * A cell's change of state is one line appended to `.<name>.study.jsonl`, not the record written
 * whole: that would cost bytes in proportion to the cells at every change, quadratic over a study
 * of many books. The record is written whole (with a rename) when it is opened and closed, and
 * the journal then removed. A line repeats the cell's whole entry, so replaying a journal over a
 * record that already has it (a process killed between the rename and the removal) changes
 * nothing; a line cut short by a kill ends the journal.
 */

const recordSchema = z.strictObject({
	schema: z.literal(1),
	name: z.string(),
	createdAt: z.string(),
	updatedAt: z.string(),
	cells: z.record(z.string(), z.strictObject({ session: z.string(), status: z.string() })),
});

export type StudyRecordData = z.infer<typeof recordSchema>;

export class StudyRecord {
	#writing: Promise<void> = Promise.resolve();

	private constructor(
		readonly file: string,
		readonly journal: string,
		readonly data: StudyRecordData,
		private readonly lock: SessionLock,
	) {}

	static fileOf(dir: string, name: string): string {
		return join(dir, `${name}.study.json`);
	}

	static journalOf(dir: string, name: string): string {
		return join(dir, `.${name}.study.jsonl`);
	}

	/** Reads the record without the lock (for a plan, or a look while the study runs); null when there is none. */
	static async peek(dir: string, name: string): Promise<StudyRecordData | null> {
		const file = StudyRecord.fileOf(dir, name);
		// The journal first: a close between the two reads then leaves a record that holds it.
		const journal = await readIfThere(StudyRecord.journalOf(dir, name));
		const text = await readIfThere(file);
		if (text === null && journal === null) return null;
		const now = new Date().toISOString();
		return replay(
			text === null ? { schema: 1, name, createdAt: now, updatedAt: now, cells: {} } : parse(file, text),
			journal,
		);
	}

	/** Opens (or starts) the record of study `name` for this process alone. */
	static async open(dir: string, name: string): Promise<StudyRecord> {
		await checkSessionsDir(dir);
		await mkdir(dir, { recursive: true });
		const lock = await SessionLock.acquire(join(dir, `.${name}.study.lock`), `${name} (a study)`);
		try {
			const now = new Date().toISOString();
			const data = (await StudyRecord.peek(dir, name)) ?? {
				schema: 1 as const,
				name,
				createdAt: now,
				updatedAt: now,
				cells: {},
			};
			const record = new StudyRecord(
				StudyRecord.fileOf(dir, name),
				StudyRecord.journalOf(dir, name),
				data,
				lock,
			);
			// What a killed process left in the journal goes into the record, so the journal starts empty.
			await record.compact();
			return record;
		} catch (error) {
			await lock.release();
			throw error;
		}
	}

	/** Records where cell `key` stands: one line appended to the journal. */
	set(key: string, session: string, status: string): Promise<void> {
		const current = this.data.cells[key];
		if (current?.session === session && current.status === status) return this.#writing;
		this.data.cells[key] = { session, status };
		this.data.updatedAt = new Date().toISOString();
		const line = `${JSON.stringify({ at: this.data.updatedAt, cell: key, session, status })}\n`;
		return this.#queue(() => appendDurably(this.journal, line));
	}

	/** Writes the record whole, then removes the journal it holds. */
	compact(): Promise<void> {
		return this.#queue(async () => {
			await replaceFile(this.file, `${JSON.stringify(this.data, null, 2)}\n`);
			await stateFs.unlink(this.journal).catch((error: NodeJS.ErrnoException) => {
				if (error.code !== 'ENOENT') throw error;
			});
		});
	}

	async close(): Promise<void> {
		try {
			await this.#writing;
			await this.compact();
		} finally {
			await this.lock.release();
		}
	}

	/** Writes land in the order they were asked for; each caller gets its own error. */
	#queue(write: () => Promise<void>): Promise<void> {
		const done = this.#writing.then(write);
		this.#writing = done.catch(() => {});
		return done;
	}
}

const lineSchema = z.strictObject({
	at: z.string(),
	cell: z.string(),
	session: z.string(),
	status: z.string(),
});

/** The record with a journal's lines over it; the journal ends at its first line that does not read (cut by a kill). */
function replay(data: StudyRecordData, journal: string | null): StudyRecordData {
	if (journal === null) return data;
	const out = { ...data, cells: { ...data.cells } };
	for (const text of journal.split('\n')) {
		if (text === '') continue;
		let line;
		try {
			line = lineSchema.parse(JSON.parse(text));
		} catch {
			break;
		}
		out.cells[line.cell] = { session: line.session, status: line.status };
		if (line.at > out.updatedAt) out.updatedAt = line.at;
	}
	return out;
}

function parse(file: string, text: string): StudyRecordData {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw badInput(
			`${file} is not JSON; move it away and run the study again (its sessions are found again by their ids)`,
		);
	}
	const parsed = recordSchema.safeParse(value);
	if (!parsed.success)
		throw badInput(
			`${file} is not a study record booook can read; move it away and run the study again (its sessions are found again by their ids)`,
		);
	return parsed.data;
}
