import { stat } from 'node:fs/promises';
import { badInput, UserError } from '../errors.ts';

/**
 * What the file system can refuse a session, said so a person can act on it: a full disk, a file
 * that cannot be written, a sessions dir that is not a folder. Without this they surface as
 * "unexpected error: ENOSPC".
 */

const CAUSES: Record<string, { cause: string; fix: string }> = {
	ENOSPC: { cause: 'the disk is full', fix: 'free some space' },
	EDQUOT: { cause: 'the disk quota is used up', fix: 'free some space' },
	EROFS: { cause: 'the file system is read-only', fix: 'make it writable or choose another --sessions-dir' },
	EACCES: { cause: 'permission denied', fix: 'make the folder and its files writable' },
	EPERM: { cause: 'the operation is not permitted (a read-only or immutable file or folder)', fix: 'make it writable (chmod, and chattr -i for an immutable file)' },
	ENOTDIR: { cause: 'a part of the path is a file, not a folder', fix: 'move that file out of the way' },
	EISDIR: { cause: 'a folder is where a file should be', fix: 'move that folder out of the way' },
	EIO: { cause: 'the disk reported an input/output error', fix: 'check the disk' },
	EMFILE: { cause: 'too many files are open', fix: 'close other programs or raise the limit (ulimit -n)' },
	ENFILE: { cause: 'too many files are open', fix: 'close other programs' },
};

export function isDiskError(error: unknown): error is NodeJS.ErrnoException {
	const code = (error as NodeJS.ErrnoException | null)?.code;
	return typeof code === 'string' && code in CAUSES;
}

/**
 * A one-line error for a disk failure while doing `doing` to `file`, with what to do after the
 * fix (`then`). Exit code 1: the input was fine, the machine was not.
 */
export function diskError(error: NodeJS.ErrnoException, doing: string, file: string, then: string): UserError {
	const known = CAUSES[error.code ?? ''];
	const cause = known ? `${known.cause} (${error.code} at ${file})` : `${error.code ?? 'error'} at ${file}`;
	return new UserError(`${doing}: ${cause}; ${known?.fix ?? 'fix it'}, then ${then}`, 1);
}

/**
 * Refuses a sessions dir that exists but is not a folder (or sits under a file), before anything
 * is read or written there. A sessions dir that does not exist yet is fine.
 */
export async function checkSessionsDir(dir: string): Promise<void> {
	try {
		if ((await stat(dir)).isDirectory()) return;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ENOENT') return;
		if (code !== 'ENOTDIR') throw error;
		throw badInput(`the sessions dir ${dir} cannot be a folder: a part of its path is a file; choose another with --sessions-dir or BOOOOK_SESSIONS`);
	}
	throw badInput(`the sessions dir ${dir} is a file, not a folder; choose another with --sessions-dir or BOOOOK_SESSIONS, or move the file`);
}
