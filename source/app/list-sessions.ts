import type { Method, ProviderName, Run, RunStatus } from '../domain.ts';
import { loadTemplates } from '../prompts/load.ts';
import { storedScore } from '../score/session-score.ts';
import { expectedCalls } from '../summarize/planner.ts';
import { runFinished } from '../summarize/graph.ts';
import { plannerFor } from '../summarize/run.ts';
import type { Templates } from '../summarize/templates.ts';
import { totalsOf } from '../summarize/totals.ts';
import { countTokens, countWords } from '../text/tokens.ts';
import { readSessions, type SessionProblem } from '../store/list.ts';
import type { SessionData } from '../store/schema.ts';

export type { SessionProblem } from '../store/list.ts';

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
	/** The live booook process that has the session open (a run, a scoring, a walk), if one has. */
	busy?: { pid: number };
}

/** The summaries, most recently updated first, plus the sessions that could not be read. */
export type SessionListing = SessionSummary[] & { problems: SessionProblem[] };

/** Every session in `dir` as a line of the list: what it is, how far it got, its summary's size and score. */
export async function listSessions(dir: string): Promise<SessionListing> {
	const { sessions, problems } = await readSessions(dir);
	const templates = templatesOnce();
	const summaries = await Promise.all(
		sessions.map(async ({ openBy, ...data }) => {
			const summary = await summarize(data, templates);
			return openBy ? { ...summary, busy: { pid: openBy.pid } } : summary;
		}),
	);
	summaries.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
	return Object.assign(summaries, { problems });
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
		// An imported summary was made by no method or model of booook's.
		method: run.imported ? null : run.config.method,
		provider: run.imported ? null : run.config.provider,
		model: run.imported ? null : run.config.model,
		status: run.imported ? 'imported' : run.status,
		// An imported run made no calls: count its one summary, as a collection counts its summaries.
		progress: run.imported ? { done: 1, total: 1 } : await callProgress(run, templates),
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
