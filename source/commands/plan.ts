import { Command } from '@commander-js/extra-typings';
import type { ConfigInput } from '../config.ts';
import { callCost, findPrice, loadPrices } from '../llm/prices.ts';
import { estimateRun } from '../summarize/estimate.ts';
import type { PlanContext } from '../summarize/planner.ts';
import { countTokens } from '../text/tokens.ts';
import type { Exit } from './flags.ts';
import { output, type Stream } from './output.ts';
import { loadBook } from '../app/run.ts';
import { configInput, withRunAndLimitOptions } from './run-config.ts';
import { formatInt, formatSeconds } from '../ui/state/progress.ts';
import { limitedSeconds, type StatedLimits } from '../llm/rate-limit.ts';

export const spec = (exit: Exit) =>
	withRunAndLimitOptions(
		new Command('plan')
			.description(
				'show what a run would do, without any model call: tokens, chunks, calls per level or step, estimated cost',
			)
			.argument('<book>', 'a .txt (UTF-8) or .epub file')
			.option('--json', 'print the plan as JSON'),
	).action(async (book, flags) => {
		exit(
			await planCommand(book, {
				config: configInput(flags),
				json: !!flags.json,
				prices: flags.prices,
				limits: { tpm: flags.tpm ?? null, rpm: flags.rpm ?? null },
			}),
		);
	});

/**
 * `booook plan BOOK`: what a run would do, without a model call — the book's tokens, the chunks, the
 * calls per level or step (estimates where summary lengths are not known yet) and their cost.
 */
export async function planCommand(
	path: string,
	opts: { config: ConfigInput; json: boolean; prices?: string; limits?: StatedLimits; stdout?: Stream },
): Promise<number> {
	const out = output(opts.stdout ?? process.stdout);
	const started = performance.now();
	const { config, chunks, book, loaded, templates } = await loadBook(path, opts.config);
	const chunkMs = performance.now() - started;
	const ctx: PlanContext = {
		config,
		templates,
		book: loaded.text,
		tokens: (t) => countTokens(t, config.encoding),
	};
	const { rows, calls, usage } = estimateRun(config, chunks, ctx);
	const limited =
		config.provider !== 'extractive' && (opts.limits?.tpm || opts.limits?.rpm) ? opts.limits! : null;
	const prices = loadPrices(opts.prices);
	const cost = callCost(prices, config.model, usage, config.provider);
	const sizes = chunks.map((c) => c.tokens);
	const result = {
		book: { title: book.title, source: book.source, chars: book.chars, tokens: book.tokens },
		config,
		chunks: {
			count: chunks.length,
			min: Math.min(...sizes),
			mean: Math.round(book.tokens / chunks.length),
			max: Math.max(...sizes),
			ms: Math.round(chunkMs),
		},
		calls: { total: calls, rows },
		estimate: {
			inputTokens: usage.input,
			outputTokens: usage.output,
			cost: cost.cost,
			priced: cost.known || config.provider === 'extractive',
			price: findPrice(prices, config.model)?.key ?? null,
		},
		// The least time the account's limits allow (the plan's output figures are the calls' output limits, what the limits count).
		limits: limited
			? {
					tpm: limited.tpm ?? null,
					rpm: limited.rpm ?? null,
					seconds: Math.round(limitedSeconds(calls, usage.input + usage.output, limited)),
				}
			: null,
	};
	if (opts.json) {
		out.json(result, 2);
		return 0;
	}
	const lines = [
		`${result.book.title}: ${formatInt(book.tokens)} tokens (${config.encoding}), ${chunks.length} chunks of at most ${config.chunkSize} (min ${result.chunks.min}, mean ${result.chunks.mean}, max ${result.chunks.max}); chunked in ${result.chunks.ms} ms`,
		`${config.method === 'hier' ? 'hierarchical merging' : 'incremental updating'} with ${config.provider === 'extractive' ? 'the extractive baseline (not an LLM)' : `${config.provider} ${config.model}`}, window ${config.contextWindow}, max summary ${config.maxSummary}:`,
		...rows.map(
			(r) =>
				`  ${r.name.padEnd(22)} ${r.exact ? '' : '~'}${r.calls} calls, ~${formatInt(r.inputTokens)} tokens in, ~${formatInt(r.outputTokens)} out`,
		),
		`  total ${result.calls.total} calls (${config.method === 'hier' ? 'regenerations of invalid summaries' : 'compressions of an overlong running summary'} not included)`,
		result.estimate.priced
			? `estimated cost: $${cost.cost.toFixed(4)}`
			: `estimated cost: unknown — no price for "${config.model}"; add it to a prices file (see docs/providers.md, "Prices")`,
		...(result.limits ? [limitsLine(result.limits, calls, usage.input + usage.output)] : []),
	];
	out.line(lines.join('\n'));
	return 0;
}

/** "under 30,000 tokens a minute: about 12m30s of waiting: ~405,000 tokens asked for (prompts plus output limits)". */
function limitsLine(
	limits: { tpm: number | null; rpm: number | null; seconds: number },
	calls: number,
	tokens: number,
): string {
	const under = [
		limits.tpm ? `${formatInt(limits.tpm)} tokens` : null,
		limits.rpm ? `${formatInt(limits.rpm)} requests` : null,
	]
		.filter(Boolean)
		.join(' and ');
	const time =
		limits.seconds > 0
			? `about ${formatSeconds(limits.seconds)} of waiting for the limits`
			: 'no wait for the limits (the first minute holds it all)';
	return `under ${under} a minute: ${time}; ~${formatInt(tokens)} tokens asked for in ${calls} calls (prompts plus output limits), the calls' own time not counted`;
}
