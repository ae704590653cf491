import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { badInput } from '../errors.ts';
import { checkSessionsDir } from './disk.ts';
import { SessionLock } from './lock.ts';
import { readIfThere, replaceFile } from './state-file.ts';

/**
 * A study's record: `<sessions dir>/<name>.study.json`, which session holds each cell of its grid.
 * The sessions hold everything else (a cell's progress is its session's), so the record stays
 * small and a study is resumed by opening the sessions it names. One process at a time: the
 * record is locked like a session (`.<name>.study.lock`), and written whole with a rename.
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
	/** Writes land in the order they were asked for; each caller gets its own error. */
	#writing: Promise<void> = Promise.resolve();

	private constructor(
		readonly file: string,
		readonly data: StudyRecordData,
		private readonly lock: SessionLock,
	) {}

	static fileOf(dir: string, name: string): string {
		return join(dir, `${name}.study.json`);
	}

	/** Reads the record without the lock (for a plan, or a look while the study runs); null when there is none. */
	static async peek(dir: string, name: string): Promise<StudyRecordData | null> {
		const file = StudyRecord.fileOf(dir, name);
		const text = await readIfThere(file);
		return text === null ? null : parse(file, text);
	}

	/** Opens (or starts) the record of study `name` for this process alone. */
	static async open(dir: string, name: string): Promise<StudyRecord> {
		await checkSessionsDir(dir);
		await mkdir(dir, { recursive: true });
		const lock = await SessionLock.acquire(join(dir, `.${name}.study.lock`), `${name} (a study)`);
		try {
			const now = new Date().toISOString();
			const data = (await StudyRecord.peek(dir, name)) ?? { schema: 1 as const, name, createdAt: now, updatedAt: now, cells: {} };
			return new StudyRecord(StudyRecord.fileOf(dir, name), data, lock);
		} catch (error) {
			await lock.release();
			throw error;
		}
	}

	/** Records where cell `key` stands, and writes the record whole. */
	set(key: string, session: string, status: string): Promise<void> {
		const current = this.data.cells[key];
		if (current?.session === session && current.status === status) return this.#writing;
		this.data.cells[key] = { session, status };
		this.data.updatedAt = new Date().toISOString();
		const text = `${JSON.stringify(this.data, null, 2)}\n`;
		const write = this.#writing.then(() => replaceFile(this.file, text));
		this.#writing = write.catch(() => {});
		return write;
	}

	async close(): Promise<void> {
		await this.#writing;
		await this.lock.release();
	}
}

function parse(file: string, text: string): StudyRecordData {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw badInput(`${file} is not JSON; move it away and run the study again (its sessions are found again by their ids)`);
	}
	const parsed = recordSchema.safeParse(value);
	if (!parsed.success) throw badInput(`${file} is not a study record booook can read; move it away and run the study again (its sessions are found again by their ids)`);
	return parsed.data;
}
