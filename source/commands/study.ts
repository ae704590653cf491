import { join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import PQueue from 'p-queue';
import { errorMessage } from '../errors.ts';
import { BatchPool } from '../engine/batch-pool.ts';
import { batchLine } from '../llm/batcher.ts';
import { loadPrices } from '../llm/prices.ts';
import { storedScore } from '../score/session-score.ts';
import { bookSession, resolveSessionsDir, Session, type BookSessionData } from '../store/session.ts';
import { folderState } from '../store/leftover.ts';
import { StudyRecord } from '../store/study-record.ts';
import { alignTable, csv, pairedDifferences, pairedLines, resultRows, resultTable, type CellOutcome } from '../study/results.ts';
import { newRun } from '../summarize/run.ts';
import { totalsOf } from '../summarize/totals.ts';
import { countWords } from '../text/tokens.ts';
import { checkBaseUrl, keyVariable } from '../llm/base-url.ts';
import { defaultModel, defaultProvider } from '../llm/create.ts';
import { scorerOf, type Scorer } from '../study/scorer.ts';
import { studyError } from '../study/spec.ts';
import { bookScoring } from './score.ts';
import { makeEngine, prepare } from './execute.ts';
import { PRICES_HELP, sessionsDirOption, type Exit } from './flags.ts';
import { cancelOnSignal } from './interrupt.ts';
import { output, safeText, type Stream } from './output.ts';
import { finalSummary } from './show.ts';
import { planStudy, planTable, type PlannedCell, type StudyPlan } from './study-plan.ts';

export const spec = (exit: Exit) =>
	new Command('study')
		.description('run a grid of books × methods × models × chunk sizes × context windows, one session per cell, resumably; print a table like the paper\'s Table 2')
		.argument('<file>', 'a study file (JSON or YAML): name, books or folder, methods, providers, chunkSizes, contextWindows, maxSummary, score, scorer, concurrency, batch')
		.option('--plan', 'print every cell\'s expected calls and cost, and exit without a call')
		.option('--json', 'print the plan or the results as JSON')
		.option('--csv', 'print the results table as CSV')
		.addOption(sessionsDirOption())
		.option('--prices <file>', PRICES_HELP)
		.action(async (file, flags) => {
			exit(await studyCommand(file, { sessionsDir: resolveSessionsDir(flags.sessionsDir), plan: !!flags.plan, json: !!flags.json, csv: !!flags.csv, prices: flags.prices }));
		});

export interface StudyOptions {
	sessionsDir: string;
	plan: boolean;
	json: boolean;
	csv: boolean;
	prices?: string;
	env?: NodeJS.ProcessEnv;
	stdout?: Stream;
	stderr?: Stream;
}

/**
 * `booook study FILE`: plans the grid (nothing is written if any cell cannot run), prints it, then
 * runs every cell not done yet as an ordinary session — new ones created, unfinished ones resumed,
 * done ones skipped — with one limit on calls in flight across cells. Exit 0 when every cell is
 * done, 1 when one failed, 130 when interrupted (running the same command again continues).
 */
export async function studyCommand(file: string, opts: StudyOptions): Promise<number> {
	const stdout = output(opts.stdout ?? process.stdout);
	const err = output(opts.stderr ?? process.stderr);
	const prices = loadPrices(opts.prices, opts.env);
	const plan = await planStudy(file, prices);
	// Before anything is created or spent: every cell's scorer can be called.
	const scorers = plan.spec.score && !opts.plan ? checkScorers(plan, opts.env ?? process.env) : null;
	const before = await outcomes(plan, opts.sessionsDir);
	const status = (c: PlannedCell) => before.get(c.key)?.status ?? 'new';
	const calls = plan.cells.reduce((s, c) => s + c.calls, 0);
	const cost = plan.cells.reduce((s, c) => s + c.cost, 0);
	const total = `${plan.cells.length} cells, ~${calls} calls, estimated $${cost.toFixed(4)}${plan.cells.every((c) => c.priced) ? '' : ' (some models have no price)'}; at most ${plan.concurrency} calls at once`;
	if (opts.plan) {
		if (opts.json) stdout.json({ name: plan.spec.name, cells: plan.cells.map((c) => ({ key: c.key, session: c.sessionId, book: c.book.path, method: c.method, provider: c.provider, model: c.model, chunkSize: c.chunkSize, contextWindow: c.contextWindow, chunks: c.chunks.length, calls: c.calls, cost: c.cost, priced: c.priced, status: status(c) })), calls, cost }, 2);
		else stdout.line(`${alignTable(planTable(plan, status))}\n${total}`);
		return 0;
	}
	err.line(`study ${plan.spec.name}:\n${alignTable(planTable(plan, status))}\n${total}`);
	const ran = await runStudy(plan, scorers, opts);
	const after = await outcomes(plan, opts.sessionsDir);
	printResults(plan, after, opts, stdout);
	const done = plan.cells.filter((c) => after.get(c.key)?.status === 'done').length;
	err.line(`study ${plan.spec.name}: ${done}/${plan.cells.length} cells done`);
	if (ran === 'cancelled') {
		err.line(`interrupted; every session is saved. Continue with: booook study ${file}`);
		return 130;
	}
	return ran === 'failed' ? 1 : 0;
}

/** Runs the cells not done, up to `concurrency` cells open and calls in flight at once. */
async function runStudy(plan: StudyPlan, scorers: Map<string, Scorer> | null, opts: StudyOptions): Promise<'done' | 'failed' | 'cancelled'> {
	const err = output(opts.stderr ?? process.stderr);
	const record = await StudyRecord.open(opts.sessionsDir, plan.spec.name);
	const calls = new PQueue({ concurrency: plan.concurrency });
	const batches = studyBatches(plan, opts, err);
	// With batches every cell is open at once, so their batched calls go out together.
	const cells = new PQueue({ concurrency: batches ? plan.cells.length : plan.concurrency });
	// What a cancel stops: the engines running and the annotators scoring.
	const engines = new Set<{ cancel(): void }>();
	let cancelled = false;
	let failed = false;
	const say = (cell: PlannedCell, text: string) => err.line(`[${plan.cells.indexOf(cell) + 1}/${plan.cells.length}] ${cell.key}: ${text}`);
	const runCell = async (cell: PlannedCell) => {
		if (cancelled) return;
		try {
			const status = await runOne(cell);
			if (status === 'failed') failed = true;
		} catch (error) {
			failed = true;
			say(cell, `failed: ${errorMessage(error)}`);
			await record.set(cell.key, cell.sessionId, 'failed').catch(() => {});
		}
	};
	const runOne = async (cell: PlannedCell) => {
		const status = await runCellRun(cell);
		return status === 'done' && scorers && !cancelled ? scoreCell(cell, scorers.get(cell.key)!) : status;
	};
	/** BooookScore of a cell done, as `booook score ID` makes it; a cell scored already makes no call. */
	const scoreCell = async (cell: PlannedCell, scorer: Scorer) => {
		const { data } = await Session.snapshot(opts.sessionsDir, cell.sessionId);
		if (data.kind === 'book' && storedScore(data.summaries, data.annotations, data.run) !== null) {
			say(cell, 'scored already');
			return 'done';
		}
		const session = bookSession(await Session.open(opts.sessionsDir, cell.sessionId));
		try {
			const batch = batches ? await batches.lane(scorer, session, cell.key) : undefined;
			const { annotator } = await bookScoring(session, { env: opts.env, prices: opts.prices, provider: scorer.provider, model: scorer.model, baseUrl: scorer.baseUrl ?? undefined, queue: calls, batch });
			if (annotator) {
				engines.add(annotator);
				if (cancelled) annotator.cancel();
				let status;
				try {
					status = await annotator.start();
				} finally {
					engines.delete(annotator);
				}
				if (status === 'failed') {
					say(cell, `scoring failed: ${annotator.error ?? 'unknown error'}`);
					return 'failed';
				}
				if (status === 'cancelled') return 'cancelled';
			}
			const score = storedScore(session.data.summaries, session.data.annotations, session.data.run);
			const t = annotator?.totals;
			say(cell, `scored with ${scorer.provider}/${scorer.model}: BooookScore ${score === null ? 'n/a' : score.toFixed(1)}${t ? `, ${t.calls} calls, $${t.cost.toFixed(4)}` : ''}`);
			return 'done';
		} finally {
			await session.close();
		}
	};
	const runCellRun = async (cell: PlannedCell) => {
		const exists = (await folderState(join(opts.sessionsDir, cell.sessionId))).kind === 'session';
		if (exists) {
			const { data } = await Session.snapshot(opts.sessionsDir, cell.sessionId);
			if (data.kind === 'book' && data.run.status === 'done' && data.run.root) {
				say(cell, 'done already, skipped');
				await record.set(cell.key, cell.sessionId, 'done');
				return 'done';
			}
		}
		const session = exists
			? bookSession(await Session.open(opts.sessionsDir, cell.sessionId))
			: await Session.create(opts.sessionsDir, { id: cell.sessionId, book: cell.book.info, text: cell.book.loaded.text, run: newRun(cell.config, cell.chunks) });
		try {
			await record.set(cell.key, cell.sessionId, 'running');
			say(cell, `${exists ? 'resumed' : 'started'} (session ${cell.sessionId})`);
			const prepared = await prepare(session.data.run.config, await session.bookText(), { json: false, prices: opts.prices, env: opts.env }, cell.ctx.templates);
			const batch = batches ? await batches.lane(cell, session, cell.key) : undefined;
			const engine = makeEngine(session, prepared, { queue: calls, batch });
			engines.add(engine);
			// A cell that starts after a cancel stops at once.
			if (cancelled) engine.cancel();
			let status;
			try {
				status = await engine.start();
			} finally {
				engines.delete(engine);
				engine.dispose();
			}
			await record.set(cell.key, cell.sessionId, status);
			const totals = engine.totals;
			const words = finalWords(session.data);
			say(cell, status === 'done' ? `done: ${totals.calls} calls, $${totals.cost.toFixed(4)}, ${words ?? 0} words` : status === 'failed' ? `failed: ${session.data.run.error ?? 'unknown error'}` : status);
			return status;
		} finally {
			await session.close();
		}
	};
	try {
		await cancelOnSignal(
			() => {
				// Cells not started yet return at once (a cleared p-queue task would never settle).
				cancelled = true;
				for (const engine of engines) engine.cancel();
			},
			() => Promise.all(plan.cells.map((cell) => cells.add(() => runCell(cell)))),
		);
	} finally {
		batches?.close();
		await record.close();
	}
	return cancelled ? 'cancelled' : failed ? 'failed' : 'done';
}

/** The study's batchers when it asks for batches, each change of a batch one line on stderr. */
function studyBatches(plan: StudyPlan, opts: StudyOptions, err: ReturnType<typeof output>): BatchPool | null {
	const { batch } = plan.spec;
	if (!batch) return null;
	const pool = new BatchPool({ ...(batch === true ? {} : batch), env: opts.env });
	pool.on((state, change, detail) => err.line(batchLine(state, change, detail)));
	return pool;
}

/**
 * Each cell's scorer, checked: one that cannot be called (no API key, the extractive baseline, a
 * bad address) is a one-line error (exit 2) raised before any session is created.
 */
function checkScorers(plan: StudyPlan, env: NodeJS.ProcessEnv): Map<string, Scorer> {
	const where = (message: string) => studyError(plan.file, message);
	const scorers = new Map<string, Scorer>();
	for (const cell of plan.cells) {
		const scorer = scorerOf(cell, plan.spec.scorer, defaultProvider(env), defaultModel);
		if (scorer.provider === 'extractive') {
			throw where('"score": true needs an LLM to annotate the summaries: set OPENAI_API_KEY or ANTHROPIC_API_KEY, or name one with "scorer": { "provider": "openai", "model": "gpt-4o-mini" }');
		}
		const key = keyVariable(scorer.provider);
		if (!env[key]?.trim()) throw where(`scoring cell ${cell.key} with ${scorer.provider}/${scorer.model} needs ${key}: export it, or name another model with "scorer"`);
		if (plan.spec.scorer?.baseUrl) checkBaseUrl(plan.spec.scorer.baseUrl, `study ${plan.file}: scorer.baseUrl`, key);
		scorers.set(cell.key, scorer);
	}
	return scorers;
}

function finalWords(data: BookSessionData): number | null {
	const text = finalSummary(data.run);
	return text === null ? null : countWords(text);
}

/** Where each cell stands, read from its session without taking its lock. */
async function outcomes(plan: StudyPlan, dir: string): Promise<Map<string, CellOutcome>> {
	const found = new Map<string, CellOutcome>();
	for (const cell of plan.cells) {
		if ((await folderState(join(dir, cell.sessionId))).kind !== 'session') continue;
		const { data } = await Session.snapshot(dir, cell.sessionId);
		if (data.kind !== 'book') continue;
		const totals = totalsOf(data.run);
		const score = storedScore(data.summaries, data.annotations, data.run);
		const done = data.run.status === 'done' && data.run.root !== null;
		found.set(cell.key, {
			// A run done but left with stale nodes (an edit) is not done.
			status: done ? 'done' : data.run.status === 'done' ? 'running' : data.run.status,
			words: finalWords(data),
			calls: totals.calls,
			cost: totals.cost,
			// The stored score is in percent; the results table takes a fraction (as the summaries' scores are).
			score: score === null ? null : score / 100,
		});
	}
	return found;
}

function printResults(plan: StudyPlan, found: Map<string, CellOutcome>, opts: StudyOptions, stdout: ReturnType<typeof output>): void {
	const rows = resultRows(plan.cells, found, { score: !!plan.spec.score });
	const pairs = plan.spec.score ? pairedDifferences(plan.cells, found) : [];
	const table = resultTable(rows, { priced: plan.cells.every((c) => c.priced) });
	if (opts.json) {
		stdout.json({ name: plan.spec.name, rows, pairs, cells: plan.cells.map((c) => ({ key: c.key, session: c.sessionId, ...(found.get(c.key) ?? { status: 'missing' }) })) }, 2);
	} else if (opts.csv) stdout.text(safeText(csv(table.map((row) => row.map((cell) => (cell === '—' ? '' : cell)))), '\r\n'), '\r\n');
	else stdout.line([alignTable(table), ...pairedLines(pairs)].join('\n'));
}
