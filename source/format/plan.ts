import { usd } from './cost.ts';
import { counted, formatInt } from './count.ts';
import { formatSeconds } from './duration.ts';

/** What `plan` prints: the book's tokens and chunks, the calls per level or step, the cost, the limits' wait. */

/** A run's plan as app/plan.ts `planRun` makes it. */
interface Plan {
	book: { title: string; tokens: number };
	config: {
		method: string;
		provider: string;
		model: string;
		encoding: string;
		chunkSize: number;
		contextWindow: number;
		maxSummary: number;
	};
	chunks: { count: number; min: number; mean: number; max: number; ms: number };
	calls: {
		total: number;
		rows: readonly {
			name: string;
			exact: boolean;
			calls: number;
			inputTokens: number;
			outputTokens: number;
			note?: string;
		}[];
	};
	estimate: { inputTokens: number; outputTokens: number; cost: number; priced: boolean };
	limits: { tpm: number | null; rpm: number | null; seconds: number } | null;
}

export function planLines(result: Plan): string[] {
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
	return [
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
