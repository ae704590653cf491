import { counted } from '../format/count.ts';
import { join } from 'node:path';
import { replayChecked, type Change } from './changes.ts';
import { FILES } from './dirs.ts';
import { appendDurably, readIfThere, replaceFile, stateFs } from './state-file.ts';

/**
 * changes.jsonl: what changed since session.json was last written whole, one line an operation
 * (session.ts). Its first line names the snapshot it continues (the snapshot's `updatedAt`); a journal naming
 * another snapshot is left over from a process stopped between writing a snapshot and removing
 * the journal it replaced, and is ignored. A line cut short by a killed process ends the journal.
 * Anything else that leaves saves unread (a line cut short with saves after it, a skipped journal
 * holding what session.json lacks) is reported, once, by the command that reads it.
 *
 * With it, an operation writes what it changed (constant in the session's size) instead of the
 * whole state; the state is written whole when a session is opened and closed, and by `remove` (the
 * journal records only additions; see changes.ts).
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

	/** Appends a record made by `recordLine`. */
	async append(line: string): Promise<void> {
		if (this.#started) return appendDurably(this.file, line);
		// The first line and the header arrive together, so no journal exists without its header.
		await replaceFile(this.file, `${JSON.stringify({ base: this.base })}\n${line}`);
		this.#started = true;
	}
}

/**
 * The journal line of `change`, made at `at`. Made when the change is, not when it is written: the
 * objects it holds may change again before the write.
 */
export function recordLine(at: string, change: Change): string {
	return `${JSON.stringify({ at, ...change })}\n`;
}

export function journalOf(sessionDir: string, base: string): Journal {
	return new Journal(join(sessionDir, FILES.journal), base);
}

/**
 * A session's state as its last save left it: session.json with the journal replayed over it, not
 * yet checked against the schema. Null when there is no session.json. Throws a SyntaxError when
 * session.json is not JSON.
 */
export async function readSessionState(sessionDir: string): Promise<unknown> {
	return (await readSessionStateChecked(sessionDir)).raw;
}

/**
 * The state as `readSessionState` reads it, and what went wrong with the journal, if anything: a
 * journal cut short before its last line, one that continues another snapshot, or one skipped
 * though it holds work session.json lacks. Each of those loses saves without a word otherwise.
 *
 * Read without a lock: a writer may replace session.json between the two reads; a journal that
 * continues a newer snapshot than the one read says so, and both are read again.
 */
export async function readSessionStateChecked(
	sessionDir: string,
): Promise<{ raw: unknown; problem: string | null }> {
	const stateFile = join(sessionDir, FILES.state);
	for (let tries = 0; ; tries++) {
		const text = await readIfThere(stateFile);
		if (text === null) return { raw: null, problem: null };
		const raw = JSON.parse(text) as unknown;
		if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { raw, problem: null };
		const state = raw as Record<string, unknown>;
		const base = String(state.updatedAt);
		const journal = parseJournal(await readIfThere(join(sessionDir, FILES.journal)));
		if (journal === null) return { raw, problem: null };
		if (journal.base === null)
			return {
				raw,
				problem: `${FILES.journal} has no readable first line, so none of its ${counted(journal.lines, 'save')} were read`,
			};
		if (journal.base === base) {
			const { state: replayed, skipped } = replayChecked(state, journal.changes);
			return { raw: replayed, problem: cutProblem(journal) ?? skippedProblem(journal, skipped) };
		}
		// Left over from a process stopped between a snapshot and removing the journal it replaced:
		// the snapshot holds it all, unless session.json was changed or replaced by hand.
		if (journal.base < base)
			return {
				raw,
				problem: holdsMore(state, journal.changes)
					? `${FILES.journal} was skipped because ${FILES.state} records a later save than the one it continues, though it holds saves ${FILES.state} lacks`
					: null,
			};
		// Written whole again between the two reads; the newest session.json holds it all.
		if (tries >= 5)
			return {
				raw,
				problem: `${FILES.journal} continues a later save than ${FILES.state} (an older copy put back?), so it was not read`,
			};
	}
}

interface ParsedJournal {
	/** The snapshot it continues; null when its first line is not a header. */
	base: string | null;
	changes: Change[];
	/** The 1-based line number of each of `changes`. */
	at: number[];
	/** Lines that hold a save (all but the header). */
	lines: number;
	/** The 1-based number of the first line that is not a whole save, if one is not. */
	cutAt: number | null;
}

function parseJournal(text: string | null): ParsedJournal | null {
	if (text === null) return null;
	const lines = text.split('\n');
	const saves = lines.slice(1).filter((line) => line !== '').length;
	const header = parseLine(lines[0]!) as { base?: unknown } | undefined;
	// A header is written with the first save, in one rename: none, and no save, is no journal.
	if (typeof header?.base !== 'string')
		return saves === 0 ? null : { base: null, changes: [], at: [], lines: saves, cutAt: null };
	const changes: Change[] = [];
	const at: number[] = [];
	let cutAt: number | null = null;
	for (const [i, line] of lines.entries()) {
		if (i === 0 || line === '') continue;
		const change = parseLine(line) as (Change & { at?: unknown }) | undefined;
		// Cut short: nothing after it is read (a later save may rest on what it held).
		if (typeof change !== 'object' || change === null || Array.isArray(change)) {
			cutAt = i + 1;
			break;
		}
		changes.push(change);
		at.push(i + 1);
	}
	return { base: header.base, changes, at, lines: saves, cutAt };
}

/**
 * A line cut short is what a killed process leaves as the journal's last line: nothing after it
 * was written, so nothing is lost. Saves after it mean the file was damaged.
 */
function cutProblem(journal: ParsedJournal): string | null {
	if (journal.cutAt === null) return null;
	const after = journal.lines - journal.changes.length - 1;
	if (after === 0) return null;
	return `line ${journal.cutAt} of ${FILES.journal} is cut short, so the ${counted(after, 'save')} after it ${after === 1 ? 'was' : 'were'} not read`;
}

/**
 * Records that could not be applied (see `replayChecked`): the first is named by its line, with why.
 * What they held is missing from the state, so the command that needs it does it again (a call
 * whose answer is in calls.jsonl is not bought again).
 */
function skippedProblem(
	journal: ParsedJournal,
	skipped: readonly { index: number; problem: string }[],
): string | null {
	const [first] = skipped;
	if (!first) return null;
	const others = skipped.length - 1;
	const also = others > 0 ? ` (and ${counted(others, 'later line')})` : '';
	return `line ${journal.at[first.index]} of ${FILES.journal} could not be applied (${first.problem}) and was skipped${also}`;
}

/**
 * Whether a skipped journal holds what the state lacks: a node it lacks or with fewer versions, or
 * a summary or annotation it lacks (none of these are ever removed, so a snapshot taken after the
 * journal holds them all).
 */
function holdsMore(state: Record<string, unknown>, changes: readonly Change[]): boolean {
	const run = state.run as { nodes?: unknown } | undefined;
	const versions = new Map<string, number>();
	for (const node of Array.isArray(run?.nodes) ? (run.nodes as { id?: unknown; versions?: unknown }[]) : []) {
		versions.set(String(node?.id), Array.isArray(node?.versions) ? node.versions.length : 0);
	}
	const ids = (name: 'summaries' | 'annotations') =>
		new Set(
			(Array.isArray(state[name]) ? (state[name] as { id?: unknown }[]) : []).map((item) => String(item?.id)),
		);
	const summaries = ids('summaries');
	const annotations = ids('annotations');
	for (const change of changes) {
		for (const node of Array.isArray(change.nodes) ? change.nodes : []) {
			const saved = versions.get(String(node?.id));
			if (saved === undefined || (Array.isArray(node?.versions) && node.versions.length > saved)) return true;
		}
		if (Array.isArray(change.summaries) && change.summaries.some((s) => !summaries.has(String(s?.id))))
			return true;
		if (Array.isArray(change.annotations) && change.annotations.some((a) => !annotations.has(String(a?.id))))
			return true;
	}
	return false;
}

function parseLine(line: string): unknown {
	try {
		return JSON.parse(line);
	} catch {
		return undefined;
	}
}
