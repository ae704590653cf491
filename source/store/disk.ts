import { lstatSync } from 'node:fs';
import { lstat, readlink, stat } from 'node:fs/promises';
import { dirname, join, parse, resolve, sep } from 'node:path';
import { badInput, UserError } from '../errors.ts';
import { flag, joined, said, type Said } from '../program.ts';
import { FILES } from './dirs.ts';

/**
 * What the file system can refuse a session, said so a person can act on it: a full disk, a file
 * that cannot be written, a sessions dir that is not a folder. Without this they surface as
 * "unexpected error: ENOSPC".
 */

const CAUSES: Record<string, { cause: string; fix: Said }> = {
	ENOSPC: { cause: 'the disk is full', fix: 'free some space' },
	EDQUOT: { cause: 'the disk quota is used up', fix: 'free some space' },
	EROFS: {
		cause: 'the file system is read-only',
		fix: said`make it writable or choose another ${flag('--sessions-dir')}`,
	},
	EACCES: { cause: 'permission denied', fix: 'make the folder and its files writable' },
	EPERM: {
		cause: 'the operation is not permitted (a read-only or immutable file or folder)',
		fix: 'make it writable (chmod, and chattr -i for an immutable file)',
	},
	ENOTDIR: { cause: 'a part of the path is a file, not a folder', fix: 'move that file out of the way' },
	EISDIR: { cause: 'a folder is where a file should be', fix: 'move that folder out of the way' },
	EIO: { cause: 'the disk reported an input/output error', fix: 'check the disk' },
	EMFILE: { cause: 'too many files are open', fix: 'close other programs or raise the limit (ulimit -n)' },
	ENFILE: { cause: 'too many files are open', fix: 'close other programs' },
	ELOOP: { cause: 'a symbolic link on the path loops', fix: 'fix or remove that link' },
	ENAMETOOLONG: { cause: 'the path is too long', fix: 'choose a shorter path' },
};

/**
 * Codes the last layer (the CLI) names too, when nothing nearer the failure did: not disk failures
 * a save can meet, but what a folder changed under booook's feet leaves.
 */
const LATE_CAUSES: Record<string, { cause: string; fix: string }> = {
	ENOENT: {
		cause: 'it does not exist (removed while booook ran, or a symbolic link to nothing)',
		fix: 'restore it or fix the link',
	},
	ENOTEMPTY: { cause: 'a folder that should be empty is not', fix: 'move what is in it out of the way' },
	EEXIST: { cause: 'something is already there', fix: 'move it out of the way' },
	EBUSY: { cause: 'it is in use by another program', fix: 'close that program' },
};

/** What the file system call `syscall` was doing, for a message. */
const DOING: Record<string, string> = {
	open: 'open',
	read: 'read',
	write: 'write',
	stat: 'read',
	lstat: 'read',
	fstat: 'read',
	scandir: 'list the folder',
	opendir: 'list the folder',
	mkdir: 'create the folder',
	mkdtemp: 'create a folder in',
	rename: 'rename',
	unlink: 'remove',
	rmdir: 'remove the folder',
	rm: 'remove',
	copyfile: 'copy',
	readlink: 'read the link',
	access: 'reach',
	utime: 'touch',
	chmod: 'change the mode of',
	fsync: 'write',
	close: 'close',
};

export function isDiskError(error: unknown): error is NodeJS.ErrnoException {
	const code = (error as NodeJS.ErrnoException | null)?.code;
	return typeof code === 'string' && code in CAUSES;
}

/**
 * A one-line error for a disk failure while doing `doing` to `file`, with what to do after the
 * fix (`then`). Exit code 1: the input was fine, the machine was not.
 */
export function diskError(error: NodeJS.ErrnoException, doing: string, file: string, then: Said): UserError {
	const known = CAUSES[error.code ?? ''];
	const cause = known ? `${known.cause} (${error.code} at ${file})` : `${error.code ?? 'error'} at ${file}`;
	return new UserError(said`${doing}: ${cause}; ${known?.fix ?? 'fix it'}, then ${then}`, 1);
}

/**
 * Refuses a sessions dir that exists but is not a folder (or sits under a file), before anything
 * is read or written there. A sessions dir that does not exist yet is fine.
 */
export async function checkSessionsDir(dir: string): Promise<void> {
	const choose = said`choose another with ${flag('--sessions-dir')} or BOOOOK_SESSIONS`;
	try {
		if ((await stat(dir)).isDirectory()) return;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ENOENT' || code === 'ELOOP') {
			const link = await brokenLink(dir);
			if (link?.loops)
				throw badInput(
					said`the sessions dir ${dir} cannot be used: the symbolic link ${link.path} loops (ELOOP); fix or remove that link, or ${choose}`,
				);
			if (link) {
				throw badInput(
					joined(
						said`the sessions dir ${dir} cannot be used: the symbolic link ${link.path} points to `,
						said`${link.target}, which does not exist; create ${link.target}, remove the link, or ${choose}`,
					),
				);
			}
			if (code === 'ENOENT') return;
			throw badInput(
				said`the sessions dir ${dir} cannot be used: a symbolic link on its path loops (ELOOP); fix or remove that link, or ${choose}`,
			);
		}
		if (code !== 'ENOTDIR') throw error;
		throw badInput(said`the sessions dir ${dir} cannot be a folder: a part of its path is a file; ${choose}`);
	}
	throw badInput(said`the sessions dir ${dir} is a file, not a folder; ${choose}, or move the file`);
}

/**
 * The symbolic link that keeps `dir` from being reached or made: the first part of its path that
 * is a link which loops, or points to nothing (then creating `dir` there fails). Null when every
 * part that exists leads somewhere: the rest can be created.
 */
async function brokenLink(dir: string): Promise<{ path: string; target: string; loops: boolean } | null> {
	const absolute = resolve(dir);
	const { root } = parse(absolute);
	const parts = absolute.slice(root.length).split(sep).filter(Boolean);
	let path = root;
	for (const part of parts) {
		path = join(path, part);
		try {
			await stat(path);
			continue;
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code !== 'ENOENT' && code !== 'ELOOP') return null;
			const isLink = await lstat(path).then(
				(s) => s.isSymbolicLink(),
				() => false,
			);
			if (!isLink) return null;
			const target = await readlink(path).catch(() => '?');
			return { path, target: resolve(dirname(path), target), loops: code === 'ELOOP' };
		}
	}
	return null;
}

/**
 * An error of the file system that reached the CLI undescribed ("EISDIR: illegal operation on a
 * directory, read"), as one line naming the file, the cause and the fix; null for anything else.
 * A read of a folder opened as a file does not say which file it was: `sessionFolder`, the folder
 * of the session the command was given, is searched for a folder where a session file should be.
 */
export function describeFsError(error: unknown, sessionFolder?: string | null): UserError | null {
	const e = error as NodeJS.ErrnoException | null;
	if (!(e instanceof Error) || typeof e.code !== 'string' || typeof e.syscall !== 'string') return null;
	const known = CAUSES[e.code] ?? LATE_CAUSES[e.code];
	if (!known) return null;
	const file = e.path ?? (e.code === 'EISDIR' && sessionFolder ? folderForFile(sessionFolder) : undefined);
	const doing = DOING[e.syscall] ?? e.syscall;
	const dest = (e as { dest?: unknown }).dest;
	const what =
		file === undefined
			? `cannot ${doing} a file`
			: `cannot ${doing} ${file}${typeof dest === 'string' ? ` (to ${dest})` : ''}`;
	return new UserError(
		said`${what}: ${known.cause} (${e.code}); ${known.fix}, then run the same command again`,
		1,
	);
}

/** The first of a session's files that is a folder in `sessionFolder`. */
function folderForFile(sessionFolder: string): string | undefined {
	for (const name of Object.values(FILES)) {
		const file = join(sessionFolder, name);
		try {
			if (lstatSync(file).isDirectory()) return file;
		} catch {
			// Not there, or not reachable: not the one.
		}
	}
	return undefined;
}
