import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node } from '../domain.ts';
import { isAnnotationCall } from '../score/annotate.ts';
import { FILES } from './dirs.ts';
import { callRecordSchema, firstIssue, type CallRecord } from './schema.ts';

/**
 * calls.jsonl: one JSON line per provider call, only ever appended to. A killed process can leave
 * its last line cut short; readers skip such a line, and the next writer starts on a fresh line so
 * the fragment never swallows a good record.
 */
export class CallLog {
	#queue: Promise<void> = Promise.resolve();
	#checkedTail = false;

	constructor(readonly file: string) {}

	/** Appends one record. Appends are queued, so concurrent calls never interleave their bytes. */
	append(record: CallRecord): Promise<void> {
		const checked = callRecordSchema.safeParse(record);
		if (!checked.success) {
			return Promise.reject(
				new Error(`refusing to log an invalid call record (${firstIssue(checked.error)})`),
			);
		}
		const line = `${JSON.stringify(record)}\n`;
		const write = this.#queue.then(() => this.#write(line));
		// A failed append is reported to its caller and must not block the ones after it.
		this.#queue = write.catch(() => {});
		return write;
	}

	/** Waits for queued appends; never rejects (their callers got the errors). */
	flush(): Promise<void> {
		return this.#queue;
	}

	async #write(line: string): Promise<void> {
		// 'a' is O_APPEND: every write lands at the current end of the file, whatever else happened.
		const handle = await open(this.file, 'a+');
		try {
			if (!this.#checkedTail) {
				const { size } = await handle.stat();
				if (size > 0) {
					const last = Buffer.alloc(1);
					await handle.read(last, 0, 1, size - 1);
					if (last[0] !== 0x0a) line = `\n${line}`;
				}
			}
			await handle.writeFile(line, 'utf8');
			// A call logged is an answer never bought again, even after a power cut.
			await handle.sync();
			this.#checkedTail = true;
		} finally {
			await handle.close();
		}
	}

	read(): Promise<CallLogContents> {
		return readCallLog(this.file);
	}
}

export interface CallLogContents {
	calls: CallRecord[];
	/** Lines that were not a whole record (cut short by a kill): 1-based line numbers. */
	skipped: number[];
}

export async function readCallLog(file: string): Promise<CallLogContents> {
	let text: string;
	try {
		text = await readFile(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { calls: [], skipped: [] };
		throw error;
	}
	const calls: CallRecord[] = [];
	const skipped: number[] = [];
	const lines = text.split('\n');
	lines.forEach((line, i) => {
		if (line.trim() === '') return;
		const parsed = callRecordSchema.safeParse(parseJson(line));
		if (parsed.success) calls.push(parsed.data);
		else skipped.push(i + 1);
	});
	return { calls, skipped };
}

/**
 * What a session's BooookScore annotation calls cost, read from its call log without its lock: the
 * log is the one record of them (annotations keep no usage), so a scoring counts the same read
 * back after a restart as while it ran.
 */
export async function scoringTotals(dir: string, id: string): Promise<{ calls: number; cost: number }> {
	return (await loggedTotals(dir, id, { scoring: isAnnotationCall })).scoring;
}

/**
 * What the calls a session logged cost, for each group of owners `groups` picks (scoring's, memory
 * probes'), from one read of its log without its lock.
 */
export async function loggedTotals<K extends string>(
	dir: string,
	id: string,
	groups: Record<K, (owner: string) => boolean>,
): Promise<Record<K, { calls: number; cost: number }>> {
	const { calls } = await readCallLog(join(dir, id, FILES.calls));
	const totals = {} as Record<K, { calls: number; cost: number }>;
	for (const [name, owned] of Object.entries(groups) as [K, (owner: string) => boolean][]) {
		const picked = calls.filter((c) => owned(c.node));
		// A failed attempt is billed but is no call made, as in every other count.
		totals[name] = {
			calls: picked.filter((c) => c.error === undefined).length,
			cost: picked.reduce((sum, c) => sum + c.cost, 0),
		};
	}
	return totals;
}

function parseJson(line: string): unknown {
	try {
		return JSON.parse(line);
	} catch {
		return undefined;
	}
}

/**
 * How many logged calls prove that a run's saved state lacks work that was saved once (a journal
 * deleted, cut short or skipped). The engine logs a call only after saving the plan it was made for:
 * its node, the versions the node had, and the nodes it reads, done. So a call for a node the state
 * lacks, for a later version than the node has, or whose node reads one with no version, was made
 * from saves since lost; calls a kill left unsaved are none of these. Scoring calls (not `n<number>`) are not a node's.
 */
export function callsBeyondState(nodes: readonly Node[], calls: readonly CallRecord[]): number {
	const byId = new Map(nodes.map((n) => [n.id, n]));
	const hasVersion = (ref: string) => (byId.get(ref as Node['id'])?.versions.length ?? 0) > 0;
	let beyond = 0;
	for (const call of calls) {
		if (!/^n\d+$/u.test(call.node)) continue;
		const node = byId.get(call.node as Node['id']);
		const reads = node
			? [...node.inputs.filter((ref) => ref.startsWith('n')), ...(node.context ? [node.context] : [])]
			: [];
		if (!node || call.version > node.versions.length || !reads.every(hasVersion)) beyond += 1;
	}
	return beyond;
}
