import type { Adapter } from 'lowdb';
import { readIfThere, replaceFile } from './state-file.ts';

/**
 * lowdb's adapter for session.json. lowdb's own file adapter renames a temporary file into place
 * without flushing either to the disk; this one writes through `replaceFile`, which does.
 *
 * A session's writes go in the order they are asked for (a snapshot, then the journal records that
 * continue it): `write` takes the text at once, so it holds the state as it was when asked, and
 * writes it once the writes `before` stands for are done.
 */
export class DurableJsonFile<T> implements Adapter<T> {
	constructor(
		readonly file: string,
		private readonly before: () => Promise<void> = () => Promise.resolve(),
	) {}

	/** The file's content, parsed; null when there is no such file. Throws a SyntaxError when it is not JSON. */
	async read(): Promise<T | null> {
		const text = await readIfThere(this.file);
		return text === null ? null : (JSON.parse(text) as T);
	}

	write(data: T): Promise<void> {
		// Indented: session.json is written whole only at opening, closing and a change no operation names.
		const text = JSON.stringify(data, null, 2);
		return this.before().then(() => replaceFile(this.file, text));
	}
}
