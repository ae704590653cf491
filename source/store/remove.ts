import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FILES, sessionPath } from './dirs.ts';
import { SessionLock } from './lock.ts';

/** Removes a session's directory, once no other process has it open (its lock is taken first). */
export async function deleteSession(dir: string, id: string): Promise<void> {
	const path = sessionPath(dir, id);
	const lock = await SessionLock.acquire(join(path, FILES.lock), id);
	try {
		await rm(path, { recursive: true, force: true });
	} finally {
		await lock.release();
	}
}
