import type { Chunk, Run, RunConfig, Usage } from '../domain.ts';
import { counted } from '../format/count.ts';
import { CONTEXT_SHARE, WORD_RATIO, expectedWords } from './budget.ts';
import { expectedMerges } from './hier.ts';
import { levelName } from './places.ts';
import type { PlanContext } from './planner.ts';
import { newRun, plannerFor } from './run.ts';
import { fill } from './templates.ts';

/**
 * What a run would do before any call: the calls per level or step and their tokens, exact where
 * the count is known now (level 0, incremental steps) and estimated where it depends on summary
 * lengths. `booook plan` prints it; `booook study` prices each cell of its grid with it.
 */

export interface PlanRow {
	name: string;
	calls: number;
	/** True when the count is known now (level 0, incremental steps); false for estimates. */
	exact: boolean;
	inputTokens: number;
	outputTokens: number;
	/** Tokens of its largest call, prompt plus output limit (of an estimated row, its mean call). */
	largest: number;
	/** What its output is, where the figure alone would puzzle (an incremental step's words follow a schedule). */
	note?: string;
}

export interface RunEstimate {
	rows: PlanRow[];
	calls: number;
	/** Tokens of the largest call of any row, prompt plus output limit: what a per-minute limit must hold at once. */
	largest: number;
	/** Tokens in and out of every row (nothing cached: a cache only lowers the cost). */
	usage: Usage;
	/** The part of `usage` that goes in a provider batch when the run has one (`goesInBatch`): level 0, or every incremental step. */
	batchable: Usage;
	/** Tokens of the final summary, as the rows assume it (what scoring it would read). */
	finalTokens: number;
}

/** The rows of a new run over `chunks` with `config`, and their totals. */
export function estimateRun(config: RunConfig, chunks: Chunk[], ctx: PlanContext): RunEstimate {
	const run = newRun(config, chunks);
	run.nodes.push(...plannerFor(config.method).expand(run, ctx));
	const rows = config.method === 'hier' ? hierRows(run, ctx) : incRows(run, ctx);
	if (config.clean)
		rows.push({
			name: 'clean',
			calls: 1,
			exact: true,
			inputTokens: config.maxSummary + ctx.tokens(fill(ctx.templates.clean, [''])),
			outputTokens: config.maxSummary,
			largest: 2 * config.maxSummary + ctx.tokens(fill(ctx.templates.clean, [''])),
		});
	// Rows before the clean step: a hierarchical run's first (level 0), or all of an incremental run's.
	const batchable = config.method === 'hier' ? rows.slice(0, 1) : rows.filter((r) => r.name !== 'clean');
	// The clean step edits the summary it is given: the last row before it says how long that is.
	const last = rows.filter((r) => r.name !== 'clean').at(-1)!;
	const finalTokens =
		config.method === 'hier'
			? Math.round(last.outputTokens / last.calls)
			: incFinalTokens(config, chunks.length);
	return {
		rows,
		calls: sum(rows, 'calls'),
		largest: Math.max(...rows.map((r) => r.largest)),
		usage: usageOf(rows),
		batchable: usageOf(batchable),
		finalTokens,
	};
}

function usageOf(rows: PlanRow[]): Usage {
	return { input: sum(rows, 'inputTokens'), output: sum(rows, 'outputTokens'), cached: 0 };
}

function sum<K extends 'calls' | 'inputTokens' | 'outputTokens'>(rows: PlanRow[], key: K): number {
	return rows.reduce((s, r) => s + r[key], 0);
}

function hierRows(run: Run, ctx: PlanContext): PlanRow[] {
	const { templates } = ctx;
	const init = ctx.tokens(fill(templates['hier-init'], ['', 0]));
	const merge = ctx.tokens(fill(templates['hier-merge-context'], ['', '', 0]));
	const g0 = run.nodes[0]!.budget.summaryTokens;
	const rows: PlanRow[] = [
		{
			name: `${levelName(0)} (summarize)`,
			calls: run.chunks.length,
			exact: true,
			inputTokens: run.chunks.reduce((s, c) => s + c.tokens + init, 0),
			outputTokens: run.chunks.length * g0,
			largest: Math.max(...run.chunks.map((c) => c.tokens)) + init + g0,
		},
	];
	let count = run.chunks.length;
	for (const { level, merges, limit, below, inputBudget } of expectedMerges(run.chunks.length, ctx)) {
		const context = (merges - 1) * Math.floor(inputBudget * CONTEXT_SHARE);
		rows.push({
			name: `${levelName(level)} (merge)`,
			calls: merges,
			exact: false,
			inputTokens: count * (below + 6) + merges * merge + context,
			outputTokens: merges * limit,
			largest: Math.ceil((count * (below + 6) + merges * merge + context) / merges) + limit,
		});
		count = merges;
	}
	return rows;
}

/** The running summary's tokens after the last of `steps` chunks, on the expected-words schedule. */
function incFinalTokens(config: RunConfig, steps: number): number {
	return Math.round(expectedWords(config.maxSummary, steps - 1, steps) / WORD_RATIO);
}

function incRows(run: Run, ctx: PlanContext): PlanRow[] {
	const { config, templates } = ctx;
	const steps = run.chunks.length;
	const init = ctx.tokens(fill(templates['inc-init'], ['', 0, 0]));
	const update = ctx.tokens(fill(templates['inc-update'], ['', '', 0, 0]));
	// The running summary is assumed to follow the expected-words schedule.
	const tokensAfter = (step: number) =>
		Math.round(expectedWords(config.maxSummary, step, steps) / WORD_RATIO);
	const rows: PlanRow[] = [
		{
			name: 'step 1 (summarize)',
			calls: 1,
			exact: true,
			inputTokens: run.chunks[0]!.tokens + init,
			outputTokens: tokensAfter(0),
			largest: run.chunks[0]!.tokens + init + tokensAfter(0),
			// The paper's schedule (Appendix J.1): the running summary is asked for its share of the
			// final length after each step, so the first step's summary is a small part of it.
			note:
				`asked for ${counted(expectedWords(config.maxSummary, 0, steps), 'word')}: the running summary's ` +
				`share after 1 of ${counted(steps, 'chunk')}, growing to ${counted(expectedWords(config.maxSummary, steps - 1, steps), 'word')} at the last`,
		},
	];
	if (steps > 1) {
		const updates = {
			name: `steps 2-${steps} (update)`,
			calls: steps - 1,
			exact: true,
			inputTokens: 0,
			outputTokens: 0,
			largest: 0,
			note: 'each rewrites the whole running summary, longer by a share each step',
		};
		for (let j = 1; j < steps; j++) {
			const input = run.chunks[j]!.tokens + update + tokensAfter(j - 1);
			updates.inputTokens += input;
			updates.outputTokens += tokensAfter(j);
			updates.largest = Math.max(updates.largest, input + tokensAfter(j));
		}
		rows.push(updates);
	}
	return rows;
}
