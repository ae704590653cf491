import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';

/**
 * The file-system calls that write session.json, in one object so a test can make one of them fail
 * (a full disk, a read-only or immutable file) where no real disk can be made to, for a root user.
 */
export const stateFs = { writeFile, rename, unlink };

/** The temporary file session.json is written to before it is renamed into place. */
export function tempFileOf(file: string): string {
	return join(dirname(file), `.${basename(file)}.tmp`);
}

/**
 * lowdb's adapter for session.json, and the one place it is written: the JSON goes to a temporary
 * file that is renamed over the old one, so a reader sees the old state or the new one, whole.
 * The JSON is taken when write() is called; while a write is under way, only the newest state
 * waiting after it is written (every caller waiting is answered by that write). A write that
 * fails removes its temporary file, and the old session.json stays as it was.
 */
export class StateFile<T> implements Adapter<T> {
	#tail: Promise<void> = Promise.resolve();
	#waiting: { text: string; done: Promise<void> } | null = null;

	constructor(readonly file: string) {}

	async read(): Promise<T | null> {
		let text: string;
		try {
			text = await readFile(this.file, 'utf8');
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
			throw error;
		}
		return JSON.parse(text) as T;
	}

	write(data: T): Promise<void> {
		const text = JSON.stringify(data, null, 2);
		if (this.#waiting) {
			this.#waiting.text = text;
			return this.#waiting.done;
		}
		const waiting: { text: string; done: Promise<void> } = { text, done: Promise.resolve() };
		waiting.done = this.#tail.then(() => {
			// From here on a newer state starts a write of its own.
			if (this.#waiting === waiting) this.#waiting = null;
			return this.#writeNow(waiting.text);
		});
		this.#waiting = waiting;
		this.#tail = waiting.done.catch(() => {});
		return waiting.done;
	}

	async #writeNow(text: string): Promise<void> {
		const temp = tempFileOf(this.file);
		try {
			await stateFs.writeFile(temp, text, 'utf8');
			await stateFs.rename(temp, this.file);
		} catch (error) {
			await stateFs.unlink(temp).catch(() => {});
			throw error;
		}
	}
}
