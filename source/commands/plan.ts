import { Command } from '@commander-js/extra-typings';
import type { ConfigInput } from '../config.ts';
import { planRun } from '../app/plan.ts';
import type { Exit } from './flags.ts';
import { output, type Stream } from './output.ts';
import { configInput, withRunAndLimitOptions } from './run-config.ts';
import { usd } from '../format/cost.ts';
import { formatInt, counted } from '../format/count.ts';
import { formatSeconds } from '../format/duration.ts';
import type { StatedLimits } from '../llm/rate-limit.ts';

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
	const result = await planRun(path, opts);
	if (opts.json) {
		out.json(result, 2);
		return 0;
	}
	const { config } = result;
	const method = config.method === 'hier' ? 'hierarchical merging' : 'incremental updating';
	const model =
		config.provider === 'extractive'
			? 'the extractive baseline (not an LLM)'
			: `${config.provider} ${config.model}`;
	const unplanned =
		config.method === 'hier'
			? 'regenerations of invalid summaries'
			: 'compressions of an overlong running summary';
	const lines = [
		`${result.book.title}: ${counted(result.book.tokens, 'token')} (${config.encoding}), ${counted(result.chunks.count, 'chunk')} ` +
			`of at most ${config.chunkSize} (min ${result.chunks.min}, mean ${result.chunks.mean}, max ${result.chunks.max}); ` +
			`chunked in ${result.chunks.ms} ms`,
		`${method} with ${model}, window ${config.contextWindow}, max summary ${config.maxSummary}:`,
		...result.calls.rows.map(
			(r) =>
				`  ${r.name.padEnd(22)} ${r.exact ? '' : '~'}${counted(r.calls, 'call')}, ~${counted(r.inputTokens, 'token')} ` +
				`in, ~${formatInt(r.outputTokens)} out${r.note ? ` (${r.note})` : ''}`,
		),
		`  total ${counted(result.calls.total, 'call')} (${unplanned} not included)`,
		result.estimate.priced
			? `estimated cost: ${usd(result.estimate.cost)}`
			: `estimated cost: unknown — no price for "${config.model}"; add it to a prices file (see docs/providers.md, "Prices")`,
		...(result.limits
			? [
					limitsLine(
						result.limits,
						result.calls.total,
						result.estimate.inputTokens + result.estimate.outputTokens,
					),
				]
			: []),
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
		limits.tpm ? counted(limits.tpm, 'token') : null,
		limits.rpm ? counted(limits.rpm, 'request') : null,
	]
		.filter(Boolean)
		.join(' and ');
	const time =
		limits.seconds > 0
			? `about ${formatSeconds(limits.seconds)} of waiting for the limits`
			: 'no wait for the limits (the first minute holds it all)';
	return (
		`under ${under} a minute: ${time}; ~${counted(tokens, 'token')} asked for in ${counted(calls, 'call')} ` +
		`(prompts plus output limits), the calls' own time not counted`
	);
}
