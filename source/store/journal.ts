import { join } from 'node:path';
import { replay, type Change } from './changes.ts';
import { FILES } from './dirs.ts';
import { readIfThere, replaceFile, stateFs } from './state-file.ts';

/**
 * changes.jsonl: what changed since session.json was last written whole, one line a save. Its
 * first line names the snapshot it continues (the snapshot's `updatedAt`); a journal naming
 * another snapshot is left over from a process stopped between writing a snapshot and removing
 * the journal it replaced, and is ignored. A line cut short by a killed process ends the journal.
 *
 * With it, a save writes what changed (constant in the session's size) instead of the whole state;
 * the state is written whole when a session is opened and closed, and when a change is not a growth
 * (see changes.ts).
 */
export class Journal {
	/** Whether this journal has a line yet. */
	#started = false;

	/** `base`: the `updatedAt` of session.json as it is on disk, which the next record continues. */
	constructor(
		readonly file: string,
		private base: string,
	) {}

	/** Whether records were written since the last snapshot. */
	get started(): boolean {
		return this.#started;
	}

	/** After a snapshot taken at `base`: the journal it replaces goes, and the next record starts a new one. */
	async restart(base: string): Promise<void> {
		this.base = base;
		this.#started = false;
		await stateFs.unlink(this.file).catch((error: NodeJS.ErrnoException) => {
			if (error.code !== 'ENOENT') throw error;
		});
	}

	async append(at: string, change: Change): Promise<void> {
		const line = `${JSON.stringify({ at, ...change })}\n`;
		if (this.#started) return stateFs.appendFile(this.file, line, 'utf8');
		// The first line and the header arrive together, so no journal exists without its header.
		await replaceFile(this.file, `${JSON.stringify({ base: this.base })}\n${line}`);
		this.#started = true;
	}
}

export function journalOf(sessionDir: string, base: string): Journal {
	return new Journal(join(sessionDir, FILES.journal), base);
}

/**
 * A session's state as its last save left it: session.json with the journal replayed over it, not
 * yet checked against the schema. Null when there is no session.json. Throws a SyntaxError when
 * session.json is not JSON.
 *
 * Read without a lock: a writer may replace session.json between the two reads; a journal that
 * continues a newer snapshot than the one read says so, and both are read again.
 */
export async function readSessionState(sessionDir: string): Promise<unknown> {
	const stateFile = join(sessionDir, FILES.state);
	for (let tries = 0; ; tries++) {
		const text = await readIfThere(stateFile);
		if (text === null) return null;
		const raw = JSON.parse(text) as unknown;
		if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
		const base = (raw as { updatedAt?: unknown }).updatedAt;
		const journal = parseJournal(await readIfThere(join(sessionDir, FILES.journal)));
		if (journal === null || journal.base < String(base)) return raw;
		if (journal.base === base) return replay(raw as Record<string, unknown>, journal.changes);
		// Written whole again between the two reads; the newest session.json holds it all.
		if (tries >= 5) return raw;
	}
}

function parseJournal(text: string | null): { base: string; changes: Change[] } | null {
	if (text === null) return null;
	const lines = text.split('\n');
	const header = parseLine(lines[0]!) as { base?: unknown } | undefined;
	if (typeof header?.base !== 'string') return null;
	const changes: Change[] = [];
	for (const line of lines.slice(1)) {
		if (line === '') continue;
		const change = parseLine(line) as (Change & { at?: unknown }) | undefined;
		// Cut short by a kill: nothing after it was written.
		if (typeof change !== 'object' || change === null) break;
		changes.push(change);
	}
	return { base: header.base, changes };
}

function parseLine(line: string): unknown {
	try {
		return JSON.parse(line);
	} catch {
		return undefined;
	}
}
