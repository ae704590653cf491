import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Method, ProviderName, Run, RunStatus } from '../domain.ts';
import { loadTemplates } from '../prompts/load.ts';
import { storedScore } from '../score/session-score.ts';
import { expectedCalls } from '../summarize/planner.ts';
import { runFinished } from '../summarize/graph.ts';
import { plannerFor } from '../summarize/run.ts';
import type { Templates } from '../summarize/templates.ts';
import { totalsOf } from '../summarize/totals.ts';
import { countTokens, countWords } from '../text/tokens.ts';
import { readSessionState } from './journal.ts';
import { FILES } from './dirs.ts';
import { checkSessionsDir } from './disk.ts';
import { creations, folderState } from './leftover.ts';
import { firstIssue, migrate, SCHEMA_VERSION, sessionSchema, type SessionData } from './schema.ts';

export interface SessionSummary {
	id: string;
	/** A run over a book, or summaries imported from files (no method, provider or run). */
	kind: 'book' | 'collection';
	title: string;
	method: Method | null;
	provider: ProviderName | null;
	model: string | null;
	status: RunStatus | 'imported';
	/**
	 * A run's calls made out of the calls it is expected to make in all, the count its progress line
	 * and run screen show (a collection: its summaries, all there).
	 */
	progress: { done: number; total: number };
	createdAt: string;
	updatedAt: string;
	openedAt: string;
	/** Words of the final summary, once there is one. */
	finalWords?: number;
	/** BooookScore from the session's model annotations, once every sentence has one. */
	booookscore?: number;
}

export interface SessionProblem {
	id: string;
	file: string;
	reason: string;
}

/** The summaries, most recently updated first, plus the sessions that could not be read. */
export type SessionListing = SessionSummary[] & { problems: SessionProblem[] };

/**
 * Reads every `<dir>/<id>/session.json` without taking locks: listing must work while a run is
 * going, and the atomic rename of each save means a reader sees the old or the new file, whole.
 * A missing sessions directory is an empty list. Creations cut short by a kill are reported among
 * the problems; ones under way are not listed.
 */
export async function listSessions(dir: string): Promise<SessionListing> {
	const sessions: SessionSummary[] = [];
	const problems: SessionProblem[] = [];
	await checkSessionsDir(dir);
	let entries: Dirent[];
	try {
		entries = await readdir(dir, { withFileTypes: true });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
		entries = [];
	}
	const ids = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
	const templates = templatesOnce();
	await Promise.all(
		ids.map(async (id) => {
			const file = join(dir, id, FILES.state);
			const result = await readSummary(id, file, templates);
			if ('reason' in result) problems.push(result);
			else sessions.push(result);
		}),
	);
	for (const c of await creations(dir)) {
		if (c.alive) continue;
		problems.push({
			id: c.id,
			file: c.path,
			reason: `a creation of this session that was interrupted${c.owner ? ` (pid ${c.owner.pid} is gone)` : ''}; it holds no work, and the next run, import or scoring here removes it`,
		});
	}
	sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
	problems.sort((a, b) => a.id.localeCompare(b.id));
	return Object.assign(sessions, { problems });
}

async function readSummary(
	id: string,
	file: string,
	templates: (dir: string | null) => Promise<Templates>,
): Promise<SessionSummary | SessionProblem> {
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
			reason: `no session.json: its creation was interrupted${gone} and it holds no work; --session ${id} on a new run or import replaces it, or delete ${dirname(file)}`,
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
	return summarize(parsed.data, templates);
}

/**
 * The templates of each prompts folder, read once per listing. A folder gone or broken since the
 * run falls back to the shipped templates: the list still shows every session, and the estimate
 * (which reads only the templates' lengths) is at most slightly off until the run is resumed.
 */
function templatesOnce(): (dir: string | null) => Promise<Templates> {
	const read = new Map<string | null, Promise<Templates>>();
	return (dir) => {
		let templates = read.get(dir);
		if (!templates) {
			templates = loadTemplates(dir).catch(() => loadTemplates());
			read.set(dir, templates);
		}
		return templates;
	};
}

/** Calls made and calls expected in all, by the engine's own estimate (`expectedCalls`). */
async function callProgress(
	run: Run,
	templates: (dir: string | null) => Promise<Templates>,
): Promise<{ done: number; total: number }> {
	const { config } = run;
	const done = totalsOf(run).calls;
	// A finished run plans nothing more: no templates to read, no tokenizer to load.
	if (runFinished(run)) return { done, total: done };
	// The estimate reads the chunks' token counts and the templates, never the book's text.
	const ctx = {
		config,
		templates: await templates(config.prompts),
		book: '',
		tokens: (text: string) => countTokens(text, config.encoding),
	};
	return { done, total: expectedCalls(plannerFor(config.method), run, ctx, done) };
}

async function summarize(
	data: SessionData,
	templates: (dir: string | null) => Promise<Templates>,
): Promise<SessionSummary> {
	if (data.kind === 'collection') {
		return {
			id: data.id,
			kind: 'collection',
			title: data.title,
			method: null,
			provider: null,
			model: null,
			status: 'imported',
			progress: { done: data.summaries.length, total: data.summaries.length },
			createdAt: data.createdAt,
			updatedAt: data.updatedAt,
			openedAt: data.openedAt,
			...scoreOf(data),
		};
	}
	const { run } = data;
	const summary: SessionSummary = {
		id: data.id,
		kind: 'book',
		title: data.book.title,
		method: run.config.method,
		provider: run.config.provider,
		model: run.config.model,
		status: run.status,
		progress: await callProgress(run, templates),
		createdAt: data.createdAt,
		updatedAt: data.updatedAt,
		openedAt: data.openedAt,
	};
	const root = run.root === null ? undefined : run.nodes.find((n) => n.id === run.root);
	const final = root && root.active !== null ? root.versions[root.active] : undefined;
	if (final) summary.finalWords = countWords(final.text);
	return { ...summary, ...scoreOf(data) };
}

/** The score `booook score ID` would print without a call, when every sentence is annotated. */
function scoreOf(data: SessionData): { booookscore?: number } {
	const score = storedScore(data.summaries, data.annotations, data.kind === 'book' ? data.run : undefined);
	return score === null ? {} : { booookscore: score };
}
