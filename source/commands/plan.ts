import { Command } from '@commander-js/extra-typings';
import type { Run, Usage } from '../domain.ts';
import type { ConfigInput } from '../config.ts';
import { callCost, findPrice, loadPrices } from '../llm/prices.ts';
import { CONTEXT_SHARE, WORD_RATIO, expectedWords } from '../summarize/budget.ts';
import { expectedMerges } from '../summarize/hier.ts';
import type { PlanContext } from '../summarize/planner.ts';
import { newRun, plannerFor } from '../summarize/run.ts';
import { fill } from '../summarize/templates.ts';
import { countTokens } from '../text/tokens.ts';
import type { Exit } from './flags.ts';
import { output, type Stream } from './output.ts';
import { configInput, loadBook, withRunOptions } from './run-config.ts';

export const spec = (exit: Exit) =>
	withRunOptions(
		new Command('plan')
			.description('show what a run would do, without any model call: tokens, chunks, calls per level or step, estimated cost')
			.argument('<book>', 'a .txt (UTF-8) or .epub file')
			.option('--json', 'print the plan as JSON'),
	).action(async (book, flags) => {
		exit(await planCommand(book, { config: configInput(flags), json: !!flags.json, prices: flags.prices }));
	});

interface PlanRow {
	name: string;
	calls: number;
	/** True when the count is known now (level 0, incremental steps); false for estimates. */
	exact: boolean;
	inputTokens: number;
	outputTokens: number;
}

/**
 * `booook plan BOOK`: what a run would do, without a model call — the book's tokens, the chunks, the
 * calls per level or step (estimates where summary lengths are not known yet) and their cost.
 */
export async function planCommand(path: string, opts: { config: ConfigInput; json: boolean; prices?: string; stdout?: Stream }): Promise<number> {
	const out = output(opts.stdout ?? process.stdout);
	const started = performance.now();
	const { config, chunks, book, loaded, templates } = await loadBook(path, opts.config);
	const chunkMs = performance.now() - started;
	const ctx: PlanContext = { config, templates, book: loaded.text, tokens: (t) => countTokens(t, config.encoding) };
	const run = newRun(config, chunks);
	run.nodes.push(...plannerFor(config.method).expand(run, ctx));
	const rows = config.method === 'hier' ? hierRows(run, ctx) : incRows(run, ctx);
	if (config.clean) rows.push({ name: 'clean', calls: 1, exact: true, inputTokens: config.maxSummary + ctx.tokens(fill(templates.clean, [''])), outputTokens: config.maxSummary });
	const usage: Usage = { input: sum(rows, 'inputTokens'), output: sum(rows, 'outputTokens'), cached: 0 };
	const prices = loadPrices(opts.prices);
	const cost = callCost(prices, config.model, usage, config.provider);
	const sizes = chunks.map((c) => c.tokens);
	const result = {
		book: { title: book.title, source: book.source, chars: book.chars, tokens: book.tokens },
		config,
		chunks: { count: chunks.length, min: Math.min(...sizes), mean: Math.round(book.tokens / chunks.length), max: Math.max(...sizes), ms: Math.round(chunkMs) },
		calls: { total: sum(rows, 'calls'), rows },
		estimate: { inputTokens: usage.input, outputTokens: usage.output, cost: cost.cost, priced: cost.known || config.provider === 'extractive', price: findPrice(prices, config.model)?.key ?? null },
	};
	if (opts.json) {
		out.json(result, 2);
		return 0;
	}
	const lines = [
		`${result.book.title}: ${book.tokens.toLocaleString('en-US')} tokens (${config.encoding}), ${chunks.length} chunks of at most ${config.chunkSize} (min ${result.chunks.min}, mean ${result.chunks.mean}, max ${result.chunks.max}); chunked in ${result.chunks.ms} ms`,
		`${config.method === 'hier' ? 'hierarchical merging' : 'incremental updating'} with ${config.provider === 'extractive' ? 'the extractive baseline (not an LLM)' : `${config.provider} ${config.model}`}, window ${config.contextWindow}, max summary ${config.maxSummary}:`,
		...rows.map((r) => `  ${r.name.padEnd(22)} ${r.exact ? '' : '~'}${r.calls} calls, ~${r.inputTokens.toLocaleString('en-US')} tokens in, ~${r.outputTokens.toLocaleString('en-US')} out`),
		`  total ${result.calls.total} calls (${config.method === 'hier' ? 'regenerations of invalid summaries' : 'compressions of an overlong running summary'} not included)`,
		result.estimate.priced
			? `estimated cost: $${cost.cost.toFixed(4)}`
			: `estimated cost: unknown — no price for "${config.model}"; add it to a prices file (see README)`,
	];
	out.line(lines.join('\n'));
	return 0;
}

function sum<K extends 'calls' | 'inputTokens' | 'outputTokens'>(rows: PlanRow[], key: K): number {
	return rows.reduce((s, r) => s + r[key], 0);
}

function hierRows(run: Run, ctx: PlanContext): PlanRow[] {
	const { templates } = ctx;
	const init = ctx.tokens(fill(templates['hier-init'], ['', 0]));
	const merge = ctx.tokens(fill(templates['hier-merge-context'], ['', '', 0]));
	const g0 = run.nodes[0]!.budget.summaryTokens;
	const rows: PlanRow[] = [{ name: 'level 0 (summarize)', calls: run.chunks.length, exact: true, inputTokens: run.chunks.reduce((s, c) => s + c.tokens + init, 0), outputTokens: run.chunks.length * g0 }];
	let count = run.chunks.length;
	for (const { level, merges, limit, below, inputBudget } of expectedMerges(run.chunks.length, ctx)) {
		const context = (merges - 1) * Math.floor(inputBudget * CONTEXT_SHARE);
		rows.push({ name: `level ${level} (merge)`, calls: merges, exact: false, inputTokens: count * (below + 6) + merges * merge + context, outputTokens: merges * limit });
		count = merges;
	}
	return rows;
}

function incRows(run: Run, ctx: PlanContext): PlanRow[] {
	const { config, templates } = ctx;
	const steps = run.chunks.length;
	const init = ctx.tokens(fill(templates['inc-init'], ['', 0, 0]));
	const update = ctx.tokens(fill(templates['inc-update'], ['', '', 0, 0]));
	// The running summary is assumed to follow the expected-words schedule.
	const tokensAfter = (step: number) => Math.round(expectedWords(config.maxSummary, step, steps) / WORD_RATIO);
	const rows: PlanRow[] = [{ name: 'step 1 (summarize)', calls: 1, exact: true, inputTokens: run.chunks[0]!.tokens + init, outputTokens: tokensAfter(0) }];
	if (steps > 1) {
		const updates = { name: `steps 2-${steps} (update)`, calls: steps - 1, exact: true, inputTokens: 0, outputTokens: 0 };
		for (let j = 1; j < steps; j++) {
			updates.inputTokens += run.chunks[j]!.tokens + update + tokensAfter(j - 1);
			updates.outputTokens += tokensAfter(j);
		}
		rows.push(updates);
	}
	return rows;
}
