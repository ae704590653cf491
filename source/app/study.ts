import { counted } from '../format/count.ts';
import { join } from 'node:path';
import { BatchPool } from '../engine/batch-pool.ts';
import { StudyRunner, type CellWork, type LiveCell, type StudyEvent } from '../engine/study-runner.ts';
import { checkBaseUrl, keyVariable } from '../llm/base-url.ts';
import { defaultModel, defaultProvider, type AccountLimits } from '../llm/create.ts';
import { storedSessionScore } from '../score/session-score.ts';
import { loggedTotals } from '../store/calls.ts';
import { isAnnotationCall } from '../score/annotate.ts';
import { estimateScoring } from '../score/estimate.ts';
import { fill } from '../summarize/templates.ts';
import { BATCH_PRICE } from '../domain.ts';
import { isProbeCall } from '../memory/prompt.ts';
import { finalMemory as finalFigures } from '../memory/results.ts';
import { callCost, loadPrices, type PriceTable } from '../llm/prices.ts';
import { folderState } from '../store/leftover.ts';
import { Session, type BookSessionData } from '../store/session.ts';
import { cellErrorTypes, ERROR_TYPE_KEY, errorTypeColumns, errorTypeTable } from '../study/error-types.ts';
import {
	CONFIG_HEADER,
	configCells,
	pairedDifferences,
	resultCsvTable,
	intervalLines,
	pairedLines,
	resultRows,
	resultTable,
	type CellOutcome,
} from '../study/results.ts';
import { scorerOf, type Scorer } from '../study/scorer.ts';
import { UserError } from '../errors.ts';
import { usd } from '../format/cost.ts';
import { percent } from '../format/percent.ts';
import { statedLimits, studyError, type StudySpec } from '../study/spec.ts';
import { finalWords, runFinished } from '../summarize/graph.ts';
import { totalsOf } from '../summarize/totals.ts';
import { memoryProbe, probeEstimate, type MemoryProbe } from './memory.ts';
import { makeEngine, prepare } from './run.ts';
import { bookScoring } from './score.ts';
import { planStudy, type PlannedCell, type StudyPlan } from './study-plan.ts';
import { said, type Said } from '../program.ts';

/** `booook study`: each cell's engine and scorer, the scorers checked, and where the cells stand. */

/** Calls and cost before they are made; `priced`: every model has a known price. */
export interface Estimate {
	calls: number;
	cost: number;
	priced: boolean;
}

/** How a study's run or its probes ended. */
export type StudyEnd = 'done' | 'failed' | 'cancelled';

/**
 * A study planned and checked, nothing written yet: its grid, where each cell stood when it was
 * read, and what it will cost; `run` runs its cells, then its memory probes.
 */
export interface OpenedStudy {
	readonly plan: StudyPlan;
	/** Each cell's status as read before the study runs ('new' when it has no session). */
	status(cell: PlannedCell): string;
	/** The grid's runs. */
	readonly runs: Estimate;
	/** BooookScore annotation of every cell (`"score": true`), else null. */
	readonly scoring: Estimate | null;
	/** Memory probes of every cell (`"memory"`), else null. */
	readonly probes: Estimate | null;
	/** All of it: the figure to weigh. */
	readonly all: Estimate;
	/**
	 * The study run: its cells (by the runner as `shown` shows it, else told to `onEvent`), then,
	 * unless they were cancelled, its memory probes (`"memory"`) in batches of their own. `signal`
	 * cancels what is in flight; every session is saved either way. Resolves how it ended.
	 */
	run(opts: StudyRunOptions): Promise<StudyEnd>;
	/** Where each cell stands now. */
	outcomes(): Promise<Map<string, CellOutcome>>;
}

/** A study's runner, before it starts: what its screen reads of it. */
export interface StudyRun {
	readonly runner: StudyRunner<PlannedCell>;
	/** The provider batches the cells' calls go in (`"batch"`), else null. */
	readonly batches: BatchPool | null;
	/** A running cell's engine and session, with the cell as planned; null once it is not running. */
	live(key: string): (LiveCell & { cell: PlannedCell }) | null;
	/** The results table (cells of text, header first) and the paired differences under it, as the sessions hold them now. */
	results(): Promise<{ table: string[][]; notes: string[] }>;
}

export interface StudyRunOptions {
	/** Cancels the calls in flight; the study then ends 'cancelled'. */
	signal: AbortSignal;
	/** Shows the cells' run (the study screen), starts it and resolves how it ended; else it runs unseen. */
	shown?: (run: StudyRun) => Promise<StudyEnd>;
	/** Each change of a cell's state, when the run is not shown. */
	onEvent?: (event: StudyEvent) => void;
	/** The provider batches of the cells (when not shown) and of the probes, before any is sent. */
	onBatches?: (batches: BatchPool) => void;
	/** What the memory probes say as they go. */
	say: ProbeLine;
}

/**
 * `booook study FILE` before anything runs: the grid planned (nothing is written if any cell cannot
 * run), and, unless only the plan is asked for (`planOnly`), every cell's scorer checked before any
 * session is created or anything spent.
 */
export async function openStudy(
	file: string,
	opts: { sessionsDir: string; prices?: string; env?: NodeJS.ProcessEnv; planOnly?: boolean },
): Promise<OpenedStudy> {
	const env = opts.env ?? process.env;
	const prices = loadPrices(opts.prices, opts.env);
	const plan = await planStudy(file, prices);
	const scorers = (plan.spec.score || plan.spec.memory) && !opts.planOnly ? checkScorers(plan, env) : null;
	const before = await outcomes(plan, opts.sessionsDir);
	const runs: Estimate = {
		calls: plan.cells.reduce((s, c) => s + c.calls, 0),
		cost: plan.cells.reduce((s, c) => s + c.cost, 0),
		priced: plan.cells.every((c) => c.priced),
	};
	const scoring = plan.spec.score ? scoringPlan(plan, prices, env) : null;
	const probes = plan.spec.memory ? probesPlan(plan, prices, env) : null;
	// The memory probes of the finished cells, in batches of their own (the runner closed its own as it ended).
	const probe: Probe = async ({ signal, say, onBatches }) => {
		const batches = studyBatches(plan, opts);
		if (batches) onBatches?.(batches);
		const ended = await probeStudy(plan, opts.sessionsDir, {
			prices: opts.prices,
			env: opts.env,
			batches,
			signal,
			say,
		});
		batches?.close();
		return ended;
	};
	return {
		plan,
		status: (c) => before.get(c.key)?.status ?? 'new',
		runs,
		scoring,
		probes,
		all: {
			calls: runs.calls + (scoring?.calls ?? 0) + (probes?.calls ?? 0),
			cost: runs.cost + (scoring?.cost ?? 0) + (probes?.cost ?? 0),
			priced: runs.priced && (scoring?.priced ?? true) && (probes?.priced ?? true),
		},
		run: (how) => runStudy(plan, studyRun(plan, scorers, opts), how, probe),
		outcomes: () => outcomes(plan, opts.sessionsDir),
	};
}

/** The memory probes of a study's finished cells, with `onBatches` told of their batches before any is sent. */
type Probe = (opts: {
	signal: AbortSignal;
	say: ProbeLine;
	onBatches?: (batches: BatchPool) => void;
}) => Promise<StudyEnd>;

/** The cells run (shown, or told to `onEvent`), then unless cancelled the memory probes: how it all ended. */
async function runStudy(
	plan: StudyPlan,
	run: StudyRun,
	{ signal, shown, onEvent, onBatches, say }: StudyRunOptions,
	probe: Probe,
): Promise<StudyEnd> {
	let ran: StudyEnd;
	if (shown) ran = await shown(run);
	else {
		const { runner, batches } = run;
		if (onEvent) runner.on(onEvent);
		if (batches) onBatches?.(batches);
		const cancel = () => runner.cancel();
		signal.addEventListener('abort', cancel);
		try {
			ran = await runner.start();
		} finally {
			signal.removeEventListener('abort', cancel);
		}
	}
	if (!plan.spec.memory || ran === 'cancelled') return ran;
	const probed = await probe({ signal, say, onBatches });
	return probed === 'done' ? ran : probed;
}

/** The runner of a study's cells not done yet, and the provider batches their calls go in. */
function studyRun(
	plan: StudyPlan,
	scorers: Map<string, Scorer> | null,
	opts: { sessionsDir: string; prices?: string; env?: NodeJS.ProcessEnv },
): StudyRun {
	const batches = studyBatches(plan, opts);
	const runner = new StudyRunner({
		name: plan.spec.name,
		cells: plan.cells,
		concurrency: plan.concurrency,
		sessionsDir: opts.sessionsDir,
		work: cellWork(plan.spec.score ? scorers : null, opts, batches, plan.spec),
		batches,
	});
	return {
		runner,
		batches,
		live: (key) => {
			const live = runner.liveCell(key);
			const cell = plan.cells.find((c) => c.key === key);
			return live && cell ? { ...live, cell } : null;
		},
		results: () => readResults(plan, opts.sessionsDir),
	};
}

/** What the runner needs: each cell's engine and annotator, made with the study's prices and keys. */
export function cellWork(
	scorers: Map<string, Scorer> | null,
	opts: { prices?: string; env?: NodeJS.ProcessEnv },
	batches: BatchPool | null = null,
	spec?: StudySpec,
): CellWork<PlannedCell> {
	const account = (provider: string, model: string): AccountLimits => ({
		limits: spec ? statedLimits(spec, provider, model, defaultModel) : {},
	});
	const work: CellWork<PlannedCell> = {
		engine: async (cell, session, queue) => {
			const { config } = session.data.run;
			const prepared = await prepare(
				config,
				await session.bookText(),
				{ prices: opts.prices, env: opts.env, account: account(config.provider, config.model) },
				cell.ctx.templates,
			);
			const batch = batches ? await batches.lane(cell, session, cell.key) : undefined;
			return makeEngine(session, prepared, { queue, batch });
		},
	};
	if (scorers) {
		work.scoring = async (cell, session, queue) => {
			const scorer = scorers.get(cell.key)!;
			const batch = batches ? await batches.lane(scorer, session, cell.key) : undefined;
			const { annotator } = await bookScoring(session, {
				env: opts.env,
				prices: opts.prices,
				provider: scorer.provider,
				model: scorer.model,
				baseUrl: scorer.baseUrl ?? undefined,
				queue,
				batch,
				account: account(scorer.provider, scorer.model),
			});
			return { annotator, scorer: `${scorer.provider}/${scorer.model}` };
		};
	}
	return work;
}

/** The study's batchers when its file asks for batches (`"batch"`); null: every call streams. */
export function studyBatches(plan: StudyPlan, opts: { env?: NodeJS.ProcessEnv }): BatchPool | null {
	const { batch } = plan.spec;
	return batch ? new BatchPool({ ...(batch === true ? {} : batch), env: opts.env }) : null;
}

/**
 * Each cell's scorer, checked: one that cannot be called (no API key, the extractive baseline, a
 * bad address) is a one-line error (exit 2) raised before any session is created.
 */
export function checkScorers(plan: StudyPlan, env: NodeJS.ProcessEnv): Map<string, Scorer> {
	const where = (message: string) => studyError(plan.file, message);
	const scorers = new Map<string, Scorer>();
	for (const cell of plan.cells) {
		const scorer = scorerOf(cell, plan.spec.scorer, defaultProvider(env), defaultModel);
		if (scorer.provider === 'extractive') {
			throw where(
				`${plan.spec.score ? '"score": true needs an LLM to annotate the summaries' : '"memory": true needs an LLM to answer the questions'}: ` +
					`set OPENAI_API_KEY or ANTHROPIC_API_KEY, or name one with "scorer": { "provider": "openai", "model": "gpt-4o-mini" }`,
			);
		}
		const key = keyVariable(scorer.provider);
		if (!env[key]?.trim())
			throw where(
				`${plan.spec.score ? 'scoring' : 'probing the memory of'} cell ${cell.key} with ${scorer.provider}/${scorer.model} ` +
					`needs ${key}: export it, or name another model with "scorer"`,
			);
		if (plan.spec.scorer?.baseUrl)
			checkBaseUrl(plan.spec.scorer.baseUrl, `study ${plan.file}: scorer.baseUrl`, key);
		scorers.set(cell.key, scorer);
	}
	return scorers;
}

/** Where each cell stands, read from its session without taking its lock. */
export async function outcomes(plan: StudyPlan, dir: string): Promise<Map<string, CellOutcome>> {
	const found = new Map<string, CellOutcome>();
	for (const cell of plan.cells) {
		if ((await folderState(join(dir, cell.sessionId))).kind !== 'session') continue;
		const { data } = await Session.snapshot(dir, cell.sessionId);
		if (data.kind !== 'book') continue;
		const totals = totalsOf(data.run);
		const { scoring, probes } = await loggedTotals(dir, cell.sessionId, {
			scoring: isAnnotationCall,
			probes: isProbeCall,
		});
		const scored = storedSessionScore(data.summaries, data.annotations, data.run);
		const score = scored?.system.score ?? null;
		found.set(cell.key, {
			// A run done but left with stale nodes (an edit) is not done.
			status: runFinished(data.run) ? 'done' : data.run.status === 'done' ? 'running' : data.run.status,
			words: finalWords(data.run),
			calls: totals.calls,
			cost: totals.cost + scoring.cost + probes.cost,
			scoring: scoring.calls > 0 ? scoring : null,
			// The stored score is in percent; the results table takes a fraction (as the summaries' scores are).
			score: score === null ? null : score / 100,
			errorTypes: scored && cellErrorTypes(scored.system),
			...finalMemory(data),
		});
	}
	return found;
}

/** The results as the sessions hold them now. */
export async function readResults(
	plan: StudyPlan,
	dir: string,
): Promise<{ table: string[][]; notes: string[] }> {
	return results(plan, await outcomes(plan, dir));
}

/** The results table as cells of text (header first), and the paired differences as lines: what the study screen shows. */
function results(plan: StudyPlan, found: Map<string, CellOutcome>): { table: string[][]; notes: string[] } {
	const { table, notes } = studyResults(plan, found);
	return { table, notes };
}

/**
 * The one build of a study's results, for the screen and for what is printed: rows, paired differences, the table's
 * cells and the lines under it; a scored study's error types as a table and as columns of the CSV beside the results.
 */
export function studyResults(
	plan: StudyPlan,
	found: Map<string, CellOutcome>,
	bootstrap: { seed?: number; resamples?: number } = {},
) {
	const memory = !!plan.spec.memory;
	const priced = plan.cells.every((c) => c.priced);
	const rows = resultRows(plan.cells, found, { score: !!plan.spec.score, memory, ...bootstrap });
	const pairs = plan.spec.score ? pairedDifferences(plan.cells, found, bootstrap) : [];
	const errors = plan.spec.score ? errorTypeColumns(rows.map((r) => r.errorTypes)) : null;
	const values = resultCsvTable(rows, { priced, memory });
	return {
		rows,
		pairs,
		table: resultTable(rows, { priced, memory }),
		notes: [...intervalLines(rows), ...pairedLines(pairs)],
		errorTypes: plan.spec.score
			? {
					table: errorTypeTable(
						rows.map((r) => ({ config: configCells(r), errorTypes: r.errorTypes })),
						CONFIG_HEADER,
					),
					key: ERROR_TYPE_KEY,
				}
			: null,
		csv: errors ? values.map((row, i) => [...row, ...errors[i]!]) : values,
	};
}

/**
 * The share of read-along questions about a session's final summary answered right, shown the
 * summary, with its floor and the options' giveaway on the same questions; nulls before any.
 */
function finalMemory(data: BookSessionData): Pick<CellOutcome, 'memory' | 'memoryFloor' | 'memoryShortcuts'> {
	const found = finalFigures(data.memoryQuestions ?? [], data.memoryAnswers ?? []);
	return {
		memory: found?.accuracy ?? null,
		memoryFloor: found?.floor ?? null,
		memoryShortcuts: found?.shortcuts ?? null,
	};
}

/** What a study's memory probes say as they go: one line per cell. */
export type ProbeLine = (cell: PlannedCell, text: Said) => void;

/**
 * The memory probes of a study's finished cells (`"memory"`), answered by each cell's scorer: the
 * hierarchical cells first, whose level-0 summaries are the other books' scenes for every cell. A
 * cell whose probe cannot be made (no other book's scenes yet) says why and the others go on.
 * Resolves how they ended; an interrupted probe keeps its answers for the same command to continue.
 */
export async function probeStudy(
	plan: StudyPlan,
	dir: string,
	opts: {
		prices?: string;
		env?: NodeJS.ProcessEnv;
		batches: BatchPool | null;
		signal: AbortSignal;
		say: ProbeLine;
	},
): Promise<'done' | 'failed' | 'cancelled'> {
	const env = opts.env ?? process.env;
	const asked = typeof plan.spec.memory === 'object' ? plan.spec.memory : {};
	const batches = opts.batches;
	const found = await outcomes(plan, dir);
	const cells = plan.cells
		.filter((c) => found.get(c.key)?.status === 'done')
		.sort((a, b) => Number(a.method === 'inc') - Number(b.method === 'inc'));
	let ended: 'done' | 'failed' = 'done';
	for (const cell of cells) {
		if (opts.signal.aborted) return 'cancelled';
		const scorer = scorerOf(cell, plan.spec.scorer, defaultProvider(env), defaultModel);
		let probe: MemoryProbe;
		try {
			probe = await memoryProbe({
				id: cell.sessionId,
				sessionsDir: dir,
				provider: scorer.provider,
				model: scorer.model,
				baseUrl: scorer.baseUrl ?? undefined,
				questions: asked.questions,
				steps: asked.steps,
				prices: opts.prices,
				account: { limits: statedLimits(plan.spec, scorer.provider, scorer.model, defaultModel) },
				env,
				...(batches ? { batch: (session: Session) => batches.lane(scorer, session, cell.key) } : {}),
			});
		} catch (error) {
			if (!(error instanceof UserError)) throw error;
			opts.say(cell, said`memory probes not made: ${error.said}`);
			ended = 'failed';
			continue;
		}
		try {
			const result = await probe.run(opts.signal);
			if (result.status === 'cancelled') return 'cancelled';
			if (result.status === 'failed') {
				opts.say(cell, `memory probes failed: ${result.error ?? 'unknown error'}`);
				ended = 'failed';
				continue;
			}
			for (const note of result.notes) opts.say(cell, note);
			const final = finalMemory((await Session.snapshot(dir, cell.sessionId)).data as BookSessionData);
			opts.say(
				cell,
				`memory probes: ${counted(result.answered, 'answer')} by ${scorer.provider}/${scorer.model} ` +
					`(${counted(result.calls, 'call')}, ${usd(result.cost)}); the final summary ${percent(final.memory ?? null)} ` +
					`right, ${percent(final.memoryFloor ?? null)} with the summary hidden`,
			);
		} finally {
			await probe.close();
		}
	}
	return ended;
}

/**
 * What scoring every cell's final summary would cost (with `"score": true`), as `booook score`
 * annotates it: one call per sentence of a summary as long as the run's estimate has it, with the
 * authors' prompt, by the cell's scorer; the prompt cache read after each summary's first call,
 * or, with `batch`, the batch price and no cache.
 */
export function scoringPlan(plan: StudyPlan, prices: PriceTable, env: NodeJS.ProcessEnv) {
	let calls = 0;
	let cost = 0;
	let priced = true;
	for (const cell of plan.cells) {
		const scorer = scorerOf(cell, plan.spec.scorer, defaultProvider(env), defaultModel);
		const estimate = estimateScoring({
			summaryTokens: cell.finalTokens,
			promptTokens: cell.ctx.tokens(fill(cell.ctx.templates.get_annotations, ['', ''])),
			cached: !plan.spec.batch,
		});
		const price = callCost(prices, scorer.model, estimate.usage, scorer.provider);
		calls += estimate.calls;
		cost += price.cost * (plan.spec.batch ? BATCH_PRICE : 1);
		priced &&= price.known;
	}
	return { calls, cost, priced };
}

/** A study's memory probes before any run: calls and cost by each cell's scorer (`"memory"`). */
export function probesPlan(plan: StudyPlan, prices: PriceTable, env: NodeJS.ProcessEnv) {
	const asked = typeof plan.spec.memory === 'object' ? plan.spec.memory : {};
	let calls = 0;
	let cost = 0;
	let priced = true;
	for (const cell of plan.cells) {
		const scorer = scorerOf(cell, plan.spec.scorer, defaultProvider(env), defaultModel);
		const estimate = probeEstimate({
			method: cell.method,
			chunks: cell.chunks.length,
			bookTokens: cell.book.info.tokens,
			maxSummary: cell.config.maxSummary,
			templates: cell.ctx.templates,
			...asked,
		});
		const price = callCost(
			prices,
			scorer.model,
			{ input: estimate.input, output: estimate.output, cached: 0 },
			scorer.provider,
		);
		calls += estimate.calls;
		cost += price.cost;
		priced &&= price.known;
	}
	return { calls, cost, priced };
}
