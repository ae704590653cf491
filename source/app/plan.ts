import type { ConfigInput } from '../config.ts';
import { callCost, findPrice, loadPrices } from '../llm/prices.ts';
import { badInput } from '../errors.ts';
import { limitedSeconds, oversized, type StatedLimits } from '../llm/rate-limit.ts';
import { estimateRun } from '../summarize/estimate.ts';
import type { PlanContext } from '../summarize/planner.ts';
import { countTokens } from '../text/tokens.ts';
import { loadBook } from './run.ts';

/**
 * `booook plan BOOK`: what a run would do, without a model call — the book's tokens, the chunks, the
 * calls per level or step (estimates where summary lengths are not known yet), their cost, and the
 * least time the account's stated limits allow.
 */
export async function planRun(
	path: string,
	opts: { config: ConfigInput; prices?: string; limits?: StatedLimits },
) {
	const started = performance.now();
	const { config, chunks, book, loaded, templates } = await loadBook(path, opts.config);
	const chunkMs = performance.now() - started;
	const ctx: PlanContext = {
		config,
		templates,
		book: loaded.text,
		tokens: (t) => countTokens(t, config.encoding),
	};
	const { rows, calls, usage, largest } = estimateRun(config, chunks, ctx);
	const limited =
		config.provider !== 'extractive' && (opts.limits?.tpm || opts.limits?.rpm) ? opts.limits! : null;
	// The run would fail on its first such call: no time "of waiting" is worth printing.
	if (limited?.tpm && largest > limited.tpm)
		throw badInput(oversized('tokens', largest, limited.tpm, true).message);
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
	return result;
}
