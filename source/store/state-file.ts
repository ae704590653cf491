import { appendFile, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * The file-system calls that write session.json and its journal, in one object so a test can make
 * one of them fail (a full disk, a read-only or immutable file) where no real disk can be made to,
 * for a root user.
 */
export const stateFs = { writeFile, appendFile, rename, unlink, sync };

/** Flushes a file's or a folder's content to the disk (a folder's: the names a rename changed). */
async function sync(path: string): Promise<void> {
	const handle = await open(path, 'r');
	try {
		await handle.sync();
	} finally {
		await handle.close();
	}
}

/**
 * Appends `text` to `file` and flushes it to the disk before resolving: a journal line that resolved
 * is a save a power cut does not take back (see docs/sessions.md).
 */
export async function appendDurably(file: string, text: string): Promise<void> {
	await stateFs.appendFile(file, text, 'utf8');
	await stateFs.sync(file);
}

/** The temporary file `file` is written to before it is renamed into place. */
export function tempFileOf(file: string): string {
	return join(dirname(file), `.${basename(file)}.tmp`);
}

/** A file's text, or null when there is no such file. */
export async function readIfThere(file: string): Promise<string | null> {
	try {
		return await readFile(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
		throw error;
	}
}

/**
 * Replaces `file` with `text` (or bytes) whole: the text goes to a temporary file that is renamed over the old
 * one, so a reader sees the old content or the new, never a mix. The temporary file is flushed to
 * the disk before the rename and the folder after it: otherwise a power cut soon after could leave
 * the new name pointing at a file whose content never reached the disk (an empty session.json). A
 * write that fails removes its temporary file, and the old file stays as it was.
 */
export async function replaceFile(file: string, text: string | Uint8Array): Promise<void> {
	const temp = tempFileOf(file);
	try {
		await stateFs.writeFile(temp, text, 'utf8');
		await stateFs.sync(temp);
		await stateFs.rename(temp, file);
		await stateFs.sync(dirname(file));
	} catch (error) {
		await stateFs.unlink(temp).catch(() => {});
		throw error;
	}
}
