import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { flag, joined, said, type Said } from '../program.ts';
import { readSessionState } from './journal.ts';
import { FILES } from './dirs.ts';
import { checkSessionsDir } from './disk.ts';
import { creations, folderState } from './leftover.ts';
import { comparisonNameOf } from './comparison.ts';
import { lockHolder, type LockOwner } from './lock.ts';
import { firstIssue, migrate, SCHEMA_VERSION, sessionSchema, type SessionData } from './schema.ts';

/** A session read for the list, and the live process that has it open (scoring it, say), if any. */
export type ListedSession = SessionData & { openBy?: LockOwner };

export interface SessionProblem {
	id: string;
	file: string;
	/** Why, as a message (it may name a flag). */
	reason: Said;
}

/**
 * Reads every `<dir>/<id>/session.json` (with its journal) without taking locks: listing must work
 * while a run is going, and the atomic rename of each save means a reader sees the old or the new
 * file, whole. A missing sessions directory holds none. Creations cut short by a kill are reported
 * among the problems; ones under way are not read.
 */
export async function readSessions(
	dir: string,
): Promise<{ sessions: ListedSession[]; problems: SessionProblem[] }> {
	const sessions: ListedSession[] = [];
	const problems: SessionProblem[] = [];
	await checkSessionsDir(dir);
	let entries: Dirent[];
	try {
		entries = await readdir(dir, { withFileTypes: true });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
		entries = [];
	}
	// A comparison's folder (NAME.compare) sits beside the sessions it compares; it is none of them.
	const ids = entries
		.filter((e) => e.isDirectory() && !e.name.startsWith('.') && comparisonNameOf(e.name) === null)
		.map((e) => e.name);
	await Promise.all(
		ids.map(async (id) => {
			const [result, holder] = await Promise.all([
				readOne(id, join(dir, id, FILES.state)),
				lockHolder(join(dir, id, FILES.lock)),
			]);
			if ('reason' in result) problems.push(result);
			else sessions.push(holder ? { ...result, openBy: holder } : result);
		}),
	);
	for (const c of await creations(dir)) {
		if (c.alive) continue;
		problems.push({
			id: c.id,
			file: c.path,
			reason:
				`a creation of this session that was interrupted${c.owner ? ` (pid ${c.owner.pid} is gone)` : ''}; ` +
				`it holds no work, and the next run, import or scoring here removes it`,
		});
	}
	problems.sort((a, b) => a.id.localeCompare(b.id));
	return { sessions, problems };
}

async function readOne(id: string, file: string): Promise<SessionData | SessionProblem> {
	let raw: unknown;
	try {
		raw = await readSessionState(dirname(file));
	} catch (error) {
		if (error instanceof SyntaxError) return { id, file, reason: 'not valid JSON' };
		return { id, file, reason: `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
	}
	if (raw === null) {
		const state = await folderState(dirname(file));
		if (state.kind !== 'leftover') return { id, file, reason: 'no session.json' };
		if (state.alive)
			return {
				id,
				file,
				reason: `no session.json yet: a booook process (pid ${state.owner!.pid}) is creating it`,
			};
		const gone = state.owner ? ` (pid ${state.owner.pid} is gone)` : '';
		return {
			id,
			file,
			reason: joined(
				said`no session.json: its creation was interrupted${gone} and it holds no work; `,
				said`${flag('--session', id)} on a new run or import replaces it, or delete ${dirname(file)}`,
			),
		};
	}
	if (typeof raw === 'object' && raw !== null) raw = migrate(raw as Record<string, unknown>);
	const version = (raw as { schema?: unknown } | null)?.schema;
	if (typeof version !== 'number') return { id, file, reason: 'no schema version' };
	if (version !== SCHEMA_VERSION) return { id, file, reason: `unsupported schema version ${version}` };
	const parsed = sessionSchema.safeParse(raw);
	if (!parsed.success)
		return { id, file, reason: `does not match the session schema (${firstIssue(parsed.error)})` };
	if (parsed.data.id !== id) return { id, file, reason: `it says it is session "${parsed.data.id}"` };
	return parsed.data;
}
