import { join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { BatchPool } from '../engine/batch-pool.ts';
import { batchLine } from '../llm/batcher.ts';
import { loadPrices } from '../llm/prices.ts';
import { storedSessionScore } from '../score/session-score.ts';
import { sessionsDirArg } from '../store/dirs.ts';
import { resolveSessionsDir, Session } from '../store/session.ts';
import { folderState } from '../store/leftover.ts';
import { cellErrorTypes, ERROR_TYPE_KEY, errorTypeColumns, errorTypeTable } from '../study/error-types.ts';
import {
	alignTable,
	CONFIG_HEADER,
	configCells,
	csv,
	pairedDifferences,
	pairedLines,
	resultCsvTable,
	resultRows,
	resultTable,
	type CellOutcome,
} from '../study/results.ts';
import { scoringTotals } from '../store/calls.ts';
import { totalsOf } from '../summarize/totals.ts';
import { finalWords, runFinished } from '../summarize/graph.ts';
import { checkBaseUrl, keyVariable } from '../llm/base-url.ts';
import { defaultModel, defaultProvider, type AccountLimits } from '../llm/create.ts';
import { scorerOf, type Scorer } from '../study/scorer.ts';
import { statedLimits, studyError, type StudySpec } from '../study/spec.ts';
import { bookScoring } from './score.ts';
import { makeEngine, preferReactProduction, prepare } from './execute.ts';
import { interactive, PRICES_HELP, sessionsDirOption, type Exit } from './flags.ts';
import { cancelOnSignal } from './interrupt.ts';
import { output, safeText, type Stream } from './output.ts';
import { cellCost, StudyRunner, type CellWork, type StudyEvent } from '../engine/study-runner.ts';
import { planStudy, planTable, type PlannedCell, type StudyPlan } from './study-plan.ts';
import { rateWaitText } from '../ui/state/progress.ts';
import { fitTable } from '../ui/study-table.ts';
import { commandLine, shellWord } from '../program.ts';
import { usd } from '../format/cost.ts';

export const spec = (exit: Exit) =>
	new Command('study')
		.description(
			"run a grid of books × methods × models × chunk sizes × context windows, one session per cell, resumably; print a table like the paper's Table 2. In a terminal, a screen shows every cell's progress live (q quits; the same command continues)",
		)
		.argument(
			'<file>',
			"a study file (JSON, or YAML as .yaml/.yml): name, books or folder, methods, providers, chunkSizes, contextWindows, maxSummary, score, scorer, concurrency, batch (the providers' batch APIs, at half price)",
		)
		.option('--plan', "print every cell's expected calls and cost, and exit without a call")
		.option('--json', 'print the plan or the results as JSON (headless)')
		.option(
			'--csv',
			'print the results table as CSV (headless; with "score": true, each error type\'s count and percent as more columns)',
		)
		.option(
			'--headless',
			'no study screen: one line per cell on stderr, the results table on stdout (the default without a terminal)',
		)
		.addOption(sessionsDirOption())
		.option('--prices <file>', PRICES_HELP)
		.action(async (file, flags) => {
			const screen = !flags.plan && interactive({ headless: flags.headless || flags.csv, json: flags.json });
			exit(
				await studyCommand(file, {
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					plan: !!flags.plan,
					json: !!flags.json,
					csv: !!flags.csv,
					prices: flags.prices,
					interactive: screen,
				}),
			);
		});

export interface StudyOptions {
	sessionsDir: string;
	plan: boolean;
	json: boolean;
	csv: boolean;
	prices?: string;
	/** Show the study screen (a terminal, and no --headless, --json or --csv); else one line per cell on stderr. */
	interactive?: boolean;
	stdin?: NodeJS.ReadStream;
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
	const table = tableFor(opts.stdout ?? process.stdout);
	const prices = loadPrices(opts.prices, opts.env);
	const plan = await planStudy(file, prices);
	// Before anything is created or spent: every cell's scorer can be called.
	const scorers = plan.spec.score && !opts.plan ? checkScorers(plan, opts.env ?? process.env) : null;
	const before = await outcomes(plan, opts.sessionsDir);
	const status = (c: PlannedCell) => before.get(c.key)?.status ?? 'new';
	const calls = plan.cells.reduce((s, c) => s + c.calls, 0);
	const cost = plan.cells.reduce((s, c) => s + c.cost, 0);
	const total = `${plan.cells.length} cells, ~${calls} calls, estimated ${usd(cost)}${plan.cells.every((c) => c.priced) ? '' : ' (some models have no price)'}; at most ${plan.concurrency} calls at once`;
	if (opts.plan) {
		if (opts.json)
			stdout.json(
				{
					name: plan.spec.name,
					cells: plan.cells.map((c) => ({
						key: c.key,
						session: c.sessionId,
						book: c.book.path,
						method: c.method,
						provider: c.provider,
						model: c.model,
						chunkSize: c.chunkSize,
						contextWindow: c.contextWindow,
						chunks: c.chunks.length,
						calls: c.calls,
						cost: c.cost,
						priced: c.priced,
						status: status(c),
					})),
					calls,
					cost,
				},
				2,
			);
		else stdout.line(`${table(planTable(plan, status))}\n${total}`);
		return 0;
	}
	const batches = studyBatches(plan, opts);
	const runner = new StudyRunner({
		name: plan.spec.name,
		cells: plan.cells,
		concurrency: plan.concurrency,
		sessionsDir: opts.sessionsDir,
		work: cellWork(scorers, opts, batches, plan.spec),
		batches,
	});
	let ran: Awaited<ReturnType<typeof runner.start>>;
	if (opts.interactive) ran = await studyInteractive(plan, runner, opts);
	else {
		err.line(
			`study ${plan.spec.name}:\n${tableFor(opts.stderr ?? process.stderr)(planTable(plan, status))}\n${total}`,
		);
		runner.on(studyLines(opts.stderr ?? process.stderr, plan.cells.length));
		batches?.on((state, change, detail) => err.line(batchLine(state, change, detail)));
		ran = await cancelOnSignal(
			() => runner.cancel(),
			() => runner.start(),
		);
	}
	const after = await outcomes(plan, opts.sessionsDir);
	printResults(plan, after, opts, stdout, table);
	const done = plan.cells.filter((c) => after.get(c.key)?.status === 'done').length;
	err.line(`study ${plan.spec.name}: ${done}/${plan.cells.length} cells done`);
	if (ran === 'cancelled') {
		err.line(`interrupted; every session is saved. Continue with: ${continueStudy(file, opts.sessionsDir)}`);
		return 130;
	}
	return ran === 'failed' ? 1 : 0;
}

/** The command that continues the study where it stopped, as the user can paste it. */
function continueStudy(file: string, sessionsDir: string): string {
	return commandLine(`study ${shellWord(file)}${sessionsDirArg(sessionsDir)}`);
}

/** What the runner needs of the command: engines and annotators, made with the study's prices and keys. */
export function cellWork(
	scorers: Map<string, Scorer> | null,
	opts: Pick<StudyOptions, 'prices' | 'env'>,
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
				{ json: false, prices: opts.prices, env: opts.env, account: account(config.provider, config.model) },
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

/** The study's progress as lines on stderr, one per change of a cell's state (headless). */
export function studyLines(stderr: Stream, cells: number, now: () => number = Date.now) {
	const err = output(stderr);
	let waitSaid = 0;
	return (event: StudyEvent) => {
		if (event.type === 'rate-limit') {
			// A wait is said when one begins, at most twice a minute: a paced study waits before most calls.
			const waiting = rateWaitText(event, now());
			if (waiting && now() - waitSaid >= 30_000) {
				waitSaid = now();
				err.line(waiting);
			}
			return;
		}
		if (!('cell' in event)) return;
		const say = (text: string) => err.line(`[${event.index + 1}/${cells}] ${event.cell.key}: ${text}`);
		const { cell } = event;
		switch (event.type) {
			case 'cell-skipped':
				return say('done already, skipped');
			case 'cell-started':
				return say(`${event.resumed ? 'resumed' : 'started'} (session ${cell.session})`);
			case 'cell-ran':
				return say(
					event.status === 'done'
						? `done: ${cell.calls} calls, ${usd(cell.cost)}, ${cell.words ?? 0} words`
						: event.status === 'failed'
							? `failed: ${cell.error ?? 'unknown error'}`
							: event.status,
				);
			case 'cell-scored':
				if (event.already) return say('scored already');
				return say(
					`scored with ${event.scorer}: BooookScore ${cell.score === null ? 'n/a' : cell.score.toFixed(1)}${event.annotated && cell.scoring ? `, ${cell.scoring.calls} calls, ${usd(cell.scoring.cost)}; the cell: ${usd(cellCost(cell))}` : ''}`,
				);
			case 'cell-scoring-failed':
				return say(`scoring failed: ${event.error}`);
			case 'cell-error':
				return say(`failed: ${event.error}`);
		}
	};
}

/** The study's batchers when its file asks for batches (`"batch"`); null: every call streams. */
function studyBatches(plan: StudyPlan, opts: StudyOptions): BatchPool | null {
	const { batch } = plan.spec;
	return batch ? new BatchPool({ ...(batch === true ? {} : batch), env: opts.env }) : null;
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
			throw where(
				'"score": true needs an LLM to annotate the summaries: set OPENAI_API_KEY or ANTHROPIC_API_KEY, or name one with "scorer": { "provider": "openai", "model": "gpt-4o-mini" }',
			);
		}
		const key = keyVariable(scorer.provider);
		if (!env[key]?.trim())
			throw where(
				`scoring cell ${cell.key} with ${scorer.provider}/${scorer.model} needs ${key}: export it, or name another model with "scorer"`,
			);
		if (plan.spec.scorer?.baseUrl)
			checkBaseUrl(plan.spec.scorer.baseUrl, `study ${plan.file}: scorer.baseUrl`, key);
		scorers.set(cell.key, scorer);
	}
	return scorers;
}

/** Where each cell stands, read from its session without taking its lock. */
async function outcomes(plan: StudyPlan, dir: string): Promise<Map<string, CellOutcome>> {
	const found = new Map<string, CellOutcome>();
	for (const cell of plan.cells) {
		if ((await folderState(join(dir, cell.sessionId))).kind !== 'session') continue;
		const { data } = await Session.snapshot(dir, cell.sessionId);
		if (data.kind !== 'book') continue;
		const totals = totalsOf(data.run);
		const scoring = await scoringTotals(dir, cell.sessionId);
		const scored = storedSessionScore(data.summaries, data.annotations, data.run);
		const score = scored?.system.score ?? null;
		found.set(cell.key, {
			// A run done but left with stale nodes (an edit) is not done.
			status: runFinished(data.run) ? 'done' : data.run.status === 'done' ? 'running' : data.run.status,
			words: finalWords(data.run),
			calls: totals.calls,
			cost: totals.cost + scoring.cost,
			scoring: scoring.calls > 0 ? scoring : null,
			// The stored score is in percent; the results table takes a fraction (as the summaries' scores are).
			score: score === null ? null : score / 100,
			errorTypes: scored && cellErrorTypes(scored.system),
		});
	}
	return found;
}

/**
 * The study screen until the user quits: the runner starts at once; quitting cancels what is in
 * flight and waits for every session to be saved. Resolves how the study ended.
 */
async function studyInteractive(
	plan: StudyPlan,
	runner: StudyRunner<PlannedCell>,
	opts: StudyOptions,
): Promise<'done' | 'failed' | 'cancelled'> {
	preferReactProduction();
	const { renderStudyApp } = await import('../ui/study-app.tsx');
	const env = opts.env ?? process.env;
	await renderStudyApp({
		runner,
		info: {
			name: plan.spec.name,
			again: continueStudy(plan.file, opts.sessionsDir),
			priced: plan.cells.every((c) => c.priced),
		},
		start: () => runner.start(),
		results: async () => {
			return readResults(plan, opts.sessionsDir);
		},
		liveRun: (key) => {
			const live = runner.liveCell(key);
			const cell = plan.cells.find((c) => c.key === key);
			if (!live || !cell) return null;
			const { engine, session } = live;
			return {
				controls: engine,
				gate: engine.gate.state,
				info: {
					session: session.id,
					title: session.data.book.title,
					book: cell.book.loaded.text,
					provider: cell.provider,
					model: cell.model,
					isLLM: cell.provider !== 'extractive',
					priced: cell.priced,
				},
			};
		},
		env,
		stdout: (opts.stdout ?? process.stdout) as NodeJS.WriteStream,
		stderr: (opts.stderr ?? process.stderr) as NodeJS.WriteStream,
		stdin: opts.stdin,
	});
	// The screen ends once the study has stopped and saved (or could not start: this says why).
	return await runner.start();
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
	const { table, pairs } = studyResults(plan, found);
	return { table, notes: pairedLines(pairs) };
}

/** The one build of a study's results, for the screen and for what is printed: rows, paired differences, the table's cells. */
function studyResults(
	plan: StudyPlan,
	found: Map<string, CellOutcome>,
	bootstrap: { seed?: number; resamples?: number } = {},
) {
	const rows = resultRows(plan.cells, found, { score: !!plan.spec.score, ...bootstrap });
	const pairs = plan.spec.score ? pairedDifferences(plan.cells, found, bootstrap) : [];
	return { rows, pairs, table: resultTable(rows, { priced: plan.cells.every((c) => c.priced) }) };
}

/**
 * `booook report STUDY-FILE`: the results `booook study` prints at its end, from the sessions as
 * they stand, without creating, resuming or scoring anything.
 */
export async function studyReport(
	file: string,
	opts: {
		sessionsDir: string;
		json: boolean;
		csv: boolean;
		seed: number;
		resamples: number;
		env?: NodeJS.ProcessEnv;
		stdout?: Stream;
	},
): Promise<number> {
	const plan = await planStudy(file, loadPrices(undefined, opts.env));
	const stream = opts.stdout ?? process.stdout;
	printResults(
		plan,
		await outcomes(plan, opts.sessionsDir),
		{ json: opts.json, csv: opts.csv, seed: opts.seed, resamples: opts.resamples },
		output(stream),
		tableFor(stream),
	);
	return 0;
}

/**
 * How a table is printed on `stream`: laid out for the terminal's width when it is one (columns
 * shared by every row said once above, then fewer columns), whole when piped.
 */
function tableFor(stream: Stream): (table: string[][]) => string {
	const columns = 'isTTY' in stream && stream.isTTY === true ? stream.columns : undefined;
	return (table) => (columns ? fitTable(table, columns).join('\n') : alignTable(table));
}

function printResults(
	plan: StudyPlan,
	found: Map<string, CellOutcome>,
	opts: { json: boolean; csv: boolean; seed?: number; resamples?: number },
	stdout: ReturnType<typeof output>,
	layout: (table: string[][]) => string,
): void {
	const { rows, pairs, table } = studyResults(plan, found, { seed: opts.seed, resamples: opts.resamples });
	// Scored studies: error types as columns beside the results (CSV) or a table under them (text).
	const errors = plan.spec.score ? errorTypeColumns(rows.map((r) => r.errorTypes)) : null;
	if (opts.json) {
		stdout.json(
			{
				name: plan.spec.name,
				rows,
				pairs,
				cells: plan.cells.map((c) => ({
					key: c.key,
					session: c.sessionId,
					...(found.get(c.key) ?? { status: 'missing' }),
				})),
			},
			2,
		);
	} else if (opts.csv) {
		const values = resultCsvTable(rows, { priced: plan.cells.every((c) => c.priced) });
		const wide = errors ? values.map((row, i) => [...row, ...errors[i]!]) : values;
		stdout.text(safeText(csv(wide), '\r\n'), '\r\n');
	} else {
		const types = plan.spec.score
			? [
					'',
					layout(
						errorTypeTable(
							rows.map((r) => ({ config: configCells(r), errorTypes: r.errorTypes })),
							CONFIG_HEADER,
						),
					),
					ERROR_TYPE_KEY,
				]
			: [];
		stdout.line([layout(table), ...pairedLines(pairs), ...types].join('\n'));
	}
}
