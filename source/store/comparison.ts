import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { badInput, UserError } from '../errors.ts';
import { flag, said } from '../program.ts';
import {
	CRITERIA,
	type CompareRecord,
	type Contender,
	type Pair,
	type Assignment,
} from '../score/compare.ts';
import { CallLog } from './calls.ts';
import { checkSessionsDir } from './disk.ts';
import { COMPARE_SUFFIX } from './dirs.ts';
import { SessionLock } from './lock.ts';
import type { CallRecord } from './schema.ts';
import { appendDurably, readIfThere, replaceFile, stateFs } from './state-file.ts';

/**
 * A comparison on disk. It spans sessions (pairs of their summaries), so it has a folder of its own
 * beside them, `<sessions dir>/<name>.compare/` (the session list passes over it):
 *   comparison.json   what is compared: the summaries (their texts copied, so an edit later does
 *                     not change what was judged), the pairs with their shown order, who judges
 *                     which; written once, when the comparison is made (in a hidden folder renamed
 *                     into place, so a kill leaves none half made)
 *   judgments.jsonl   every verdict, note and undo, one line each, appended and flushed before the
 *                     screen says it is saved; an undo is a line too, so nothing is ever rewritten.
 *                     A line cut short by a kill is the file's last: it is cut off when the
 *                     comparison is opened again, before anything is appended after it
 *   calls.jsonl       the model judge's calls (the one call log format)
 *   lock              one process at a time, as a session's
 */

export { COMPARE_SUFFIX };
const FILES = {
	definition: 'comparison.json',
	judgments: 'judgments.jsonl',
	calls: 'calls.jsonl',
	lock: 'lock',
};
const CREATING = '.comparing-';

const choice = z.enum(['x', 'y', 'tie']);
const criterion = z.enum(CRITERIA);
const contenderSchema = z.strictObject({
	key: z.string(),
	session: z.string(),
	summary: z.string().nullable(),
	node: z.string().nullable(),
	version: z.int().nonnegative().nullable(),
	book: z.string(),
	bookKey: z.string(),
	method: z.enum(['hier', 'inc']).nullable(),
	provider: z.string().nullable(),
	model: z.string().nullable(),
	text: z.string(),
});
const definitionSchema = z.strictObject({
	schema: z.literal(1),
	name: z.string(),
	createdAt: z.string(),
	seed: z.int(),
	/** The study whose cells the summaries are, when it was made from a study file. */
	study: z.string().nullable(),
	assignment: z.discriminatedUnion('kind', [
		z.strictObject({ kind: z.literal('all') }),
		z.strictObject({
			kind: z.literal('split'),
			annotators: z.array(z.string().min(1)).min(1),
			overlap: z.int().nonnegative(),
		}),
	]),
	contenders: z.array(contenderSchema),
	pairs: z.array(z.strictObject({ id: z.string(), x: z.string(), y: z.string(), first: z.enum(['x', 'y']) })),
});
const recordSchema = z.discriminatedUnion('kind', [
	z.strictObject({
		kind: z.literal('verdict'),
		at: z.string(),
		annotator: z.string().min(1),
		origin: z.enum(['human', 'model']),
		pair: z.string(),
		choices: z.partialRecord(criterion, choice),
	}),
	z.strictObject({
		kind: z.literal('note'),
		at: z.string(),
		annotator: z.string().min(1),
		pair: z.string(),
		note: z.string().nullable(),
	}),
	z.strictObject({ kind: z.literal('undo'), at: z.string(), annotator: z.string().min(1) }),
]);

export interface ComparisonDefinition {
	schema: 1;
	name: string;
	createdAt: string;
	seed: number;
	study: string | null;
	assignment: Assignment;
	contenders: Contender[];
	pairs: Pair[];
}

/** A comparison read without its lock (for a report, or a look while it is judged). */
export interface ComparisonSnapshot {
	definition: ComparisonDefinition;
	records: CompareRecord[];
}

// A comparison's name is a folder's, as a session id is.
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/u;

export function checkComparisonName(name: string): string {
	if (!NAME_RE.test(name) || name.includes('..') || name.endsWith(COMPARE_SUFFIX))
		throw badInput(
			`"${name}" is not a valid comparison name; use letters, digits, ".", "_" and "-" (starting with a letter or digit, not ending in ${COMPARE_SUFFIX})`,
		);
	return name;
}

export function comparisonPath(dir: string, name: string): string {
	return join(dir, `${checkComparisonName(name)}${COMPARE_SUFFIX}`);
}

/** The comparison's folder name (`NAME.compare`) as its name, or null for any other. */
export function comparisonNameOf(folder: string): string | null {
	if (!folder.endsWith(COMPARE_SUFFIX)) return null;
	const name = folder.slice(0, -COMPARE_SUFFIX.length);
	return NAME_RE.test(name) ? name : null;
}

export class ComparisonStore {
	readonly #calls: CallLog;
	#records: CompareRecord[];
	#writing: Promise<void> = Promise.resolve();
	#closed = false;

	private constructor(
		readonly path: string,
		readonly definition: ComparisonDefinition,
		records: CompareRecord[],
		private readonly lock: SessionLock,
	) {
		this.#records = records;
		this.#calls = new CallLog(join(path, FILES.calls));
	}

	get records(): readonly CompareRecord[] {
		return this.#records;
	}

	/** The names of the comparisons in a sessions folder. */
	static async list(dir: string): Promise<string[]> {
		const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
			if (error.code === 'ENOENT') return [];
			throw error;
		});
		return entries.flatMap((e) => {
			const name = e.isDirectory() ? comparisonNameOf(e.name) : null;
			return name ? [name] : [];
		});
	}

	/** Reads a comparison without its lock; null when there is none of that name. */
	static async peek(dir: string, name: string): Promise<ComparisonSnapshot | null> {
		const path = comparisonPath(dir, name);
		const text = await readIfThere(join(path, FILES.definition));
		if (text === null) return null;
		const definition = parseDefinition(join(path, FILES.definition), text);
		const { records } = parseRecords(await readIfThere(join(path, FILES.judgments)));
		return { definition, records };
	}

	/**
	 * Makes the comparison whole in a hidden folder and renames it into place: a kill leaves no
	 * comparison half made. Refused when one of that name exists.
	 */
	static async create(dir: string, definition: ComparisonDefinition): Promise<ComparisonStore> {
		await checkSessionsDir(dir);
		await mkdir(dir, { recursive: true });
		const path = comparisonPath(dir, definition.name);
		const temp = await mkdtemp(join(dir, `${CREATING}${definition.name}-`));
		try {
			await replaceFile(join(temp, FILES.definition), `${JSON.stringify(definition, null, 1)}\n`);
			try {
				await rename(temp, path);
			} catch (error) {
				const code = (error as NodeJS.ErrnoException).code;
				if (code === 'ENOTEMPTY' || code === 'EEXIST')
					throw badInput(
						said`comparison "${definition.name}" already exists in ${dir}; give another ${flag('--name')}`,
					);
				throw error;
			}
			await stateFs.sync(dir);
		} catch (error) {
			await rm(temp, { recursive: true, force: true }).catch(() => {});
			throw error;
		}
		return ComparisonStore.open(dir, definition.name);
	}

	/** Opens a comparison for this process alone; a line a kill cut short is cut off first. */
	static async open(dir: string, name: string): Promise<ComparisonStore> {
		const path = comparisonPath(dir, name);
		const lock = await SessionLock.acquire(join(path, FILES.lock), `${name} (a comparison)`);
		try {
			const file = join(path, FILES.definition);
			const text = await readIfThere(file);
			if (text === null) throw new UserError(`there is no comparison "${name}" in ${dir}`);
			const definition = parseDefinition(file, text);
			const judgments = join(path, FILES.judgments);
			const read = parseRecords(await readIfThere(judgments));
			if (read.cut !== null) await replaceFile(judgments, read.cut);
			return new ComparisonStore(path, definition, read.records, lock);
		} catch (error) {
			await lock.release();
			throw error;
		}
	}

	/** Appends a record; resolves once it is on the disk. */
	record(record: CompareRecord): Promise<void> {
		if (this.#closed) return Promise.reject(new Error(`comparison "${this.definition.name}" is closed`));
		const checked = recordSchema.safeParse(record);
		if (!checked.success)
			return Promise.reject(new Error(`refusing to save a judgment: ${checked.error.issues[0]?.message}`));
		this.#records = [...this.#records, record];
		const line = `${JSON.stringify(record)}\n`;
		const done = this.#writing.then(() => appendDurably(join(this.path, FILES.judgments), line));
		this.#writing = done.catch(() => {});
		return done;
	}

	appendCall(record: CallRecord): Promise<void> {
		return this.#calls.append(record);
	}

	async calls(): Promise<CallRecord[]> {
		await this.#calls.flush();
		return (await this.#calls.read()).calls;
	}

	async close(): Promise<void> {
		if (this.#closed) return;
		this.#closed = true;
		try {
			await Promise.all([this.#writing, this.#calls.flush()]);
		} finally {
			await this.lock.release();
		}
	}
}

function parseDefinition(file: string, text: string): ComparisonDefinition {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw new UserError(`${file} is not JSON; the comparison cannot be read (the file was left unchanged)`);
	}
	const parsed = definitionSchema.safeParse(value);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new UserError(
			`${file} is not a comparison booook can read (${issue?.path.join('.')}: ${issue?.message}); the file was left unchanged`,
		);
	}
	return parsed.data as ComparisonDefinition;
}

/**
 * The records of judgments.jsonl. A line that does not read can only be the last one, cut short by
 * a kill (every append ends its line and is flushed before the next): `cut` is then the text
 * without it, for the next writer to put in place. One in the middle means the file was damaged.
 */
function parseRecords(text: string | null): { records: CompareRecord[]; cut: string | null } {
	if (text === null) return { records: [], cut: null };
	const lines = text.split('\n');
	const records: CompareRecord[] = [];
	let kept = 0;
	for (const [i, line] of lines.entries()) {
		if (line === '') continue;
		const parsed = recordSchema.safeParse(parseJson(line));
		if (!parsed.success) {
			if (lines.slice(i + 1).some((l) => l !== ''))
				throw new UserError(
					`line ${i + 1} of ${FILES.judgments} is damaged and judgments follow it; the file was left unchanged (remove that line to go on)`,
				);
			return { records, cut: text.slice(0, kept) };
		}
		records.push(parsed.data as CompareRecord);
		kept += line.length + 1;
	}
	return { records, cut: text.endsWith('\n') || text === '' ? null : `${text}\n` };
}

function parseJson(line: string): unknown {
	try {
		return JSON.parse(line);
	} catch {
		return undefined;
	}
}
