import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { ProviderName, Usage } from '../domain.ts';
import { badInput, errorMessage } from '../errors.ts';
import { flag, said } from '../program.ts';

/** USD per 1M tokens. */
export interface ModelPrice {
	input: number;
	/** Input tokens read from the provider's prompt cache. */
	cachedInput: number;
	output: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

const FREE: ModelPrice = { input: 0, cachedInput: 0, output: 0 };

/**
 * List prices when this table was written (they change: a prices.json overrides any entry).
 * A dated or aliased name (`gpt-4o-2024-08-06`, `claude-3-5-sonnet-20241022`, `-latest`) finds
 * its family; a newer version (`claude-opus-4-7`) does not silently take an older one's price.
 * Anthropic bills cache writes at 1.25× input; calls report no separate write count here, so
 * writes are billed at the input rate and costs of cached Anthropic runs are slightly low.
 */
export const BUILTIN_PRICES: PriceTable = {
	'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
	'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
	'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
	'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
	'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
	'gpt-4-turbo': { input: 10, cachedInput: 10, output: 30 },
	'gpt-4-turbo-preview': { input: 10, cachedInput: 10, output: 30 },
	'gpt-4-0125-preview': { input: 10, cachedInput: 10, output: 30 },
	'gpt-4-1106-preview': { input: 10, cachedInput: 10, output: 30 },
	'gpt-4': { input: 30, cachedInput: 30, output: 60 },
	'gpt-3.5-turbo': { input: 0.5, cachedInput: 0.5, output: 1.5 },
	'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
	'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
	'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
	o3: { input: 2, cachedInput: 0.5, output: 8 },
	'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
	'claude-3-haiku': { input: 0.25, cachedInput: 0.03, output: 1.25 },
	'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, output: 4 },
	'claude-3-5-sonnet': { input: 3, cachedInput: 0.3, output: 15 },
	'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, output: 15 },
	'claude-sonnet-4': { input: 3, cachedInput: 0.3, output: 15 },
	'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, output: 15 },
	'claude-sonnet-4-6': { input: 3, cachedInput: 0.3, output: 15 },
	'claude-opus-4': { input: 15, cachedInput: 1.5, output: 75 },
	'claude-opus-4-1': { input: 15, cachedInput: 1.5, output: 75 },
	'claude-opus-4-5': { input: 5, cachedInput: 0.5, output: 25 },
	'claude-opus-4-6': { input: 5, cachedInput: 0.5, output: 25 },
	'claude-haiku-4-5': { input: 1, cachedInput: 0.1, output: 5 },
	// Embeddings (`--embeddings`): input only.
	'text-embedding-3-small': { input: 0.02, cachedInput: 0.02, output: 0 },
	// The extractive baseline's model name: it runs locally.
	textrank: FREE,
};

const priceSchema = z
	.object({
		input: z.number().nonnegative(),
		cachedInput: z.number().nonnegative().optional(),
		output: z.number().nonnegative(),
	})
	.strict();
const fileSchema = z.record(z.string().min(1), priceSchema);

/**
 * The built-in table with a user's file laid over it: `path`, else `$BOOOOK_PRICES`, else
 * `~/.config/booook/prices.json` (or under `$XDG_CONFIG_HOME`) when it exists. A file the user
 * named must exist; any file must parse. The format is
 * `{ "model": { "input": 2.5, "cachedInput": 1.25, "output": 10 } }` (cachedInput defaults to input).
 */
export function loadPrices(path?: string, env: NodeJS.ProcessEnv = process.env): PriceTable {
	const named = path ?? (env.BOOOOK_PRICES || undefined);
	const file = named ?? defaultPricesPath(env);
	if (!named && !existsSync(file)) return BUILTIN_PRICES;

	let raw: string;
	try {
		raw = readFileSync(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT')
			throw badInput(
				said`prices file ${file} does not exist; check the path (${flag('--prices')} or $BOOOOK_PRICES)`,
			);
		throw badInput(`cannot read prices file ${file}: ${errorMessage(error)}`);
	}
	let json: unknown;
	try {
		json = JSON.parse(raw);
	} catch (error) {
		throw badInput(`prices file ${file} is not valid JSON: ${errorMessage(error)}`);
	}
	const parsed = fileSchema.safeParse(json);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
		throw badInput(
			`prices file ${file} is malformed${where}: ${issue?.message ?? 'unexpected shape'} (expected ` +
				`{"model": {"input": n, "cachedInput": n, "output": n}}, USD per 1M tokens)`,
		);
	}
	const table: Record<string, ModelPrice> = { ...BUILTIN_PRICES };
	for (const [model, price] of Object.entries(parsed.data)) {
		table[model] = {
			input: price.input,
			cachedInput: price.cachedInput ?? price.input,
			output: price.output,
		};
	}
	return table;
}

export function defaultPricesPath(env: NodeJS.ProcessEnv = process.env): string {
	const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
	return join(configHome, 'booook', 'prices.json');
}

// What may follow a family name and still be that family: release dates (-2024-08-06, -20241022),
// snapshot numbers (-0613) and moving aliases. Anything else is a different model.
const SNAPSHOT_SUFFIX = /^(?:-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest|preview))+$/u;

/**
 * The entry for `model`: its exact name, else the longest key it extends with a snapshot suffix,
 * so `gpt-4o-mini-2024-07-18` is gpt-4o-mini (never gpt-4o). A router prefix such as `openai/`
 * is ignored when the full name is unknown.
 */
export function findPrice(prices: PriceTable, model: string): { key: string; price: ModelPrice } | null {
	const names = [model];
	const slash = model.lastIndexOf('/');
	if (slash >= 0) names.push(model.slice(slash + 1));
	for (const name of names) {
		const exact = prices[name];
		if (exact) return { key: name, price: exact };
		let best: string | null = null;
		for (const key of Object.keys(prices)) {
			if (!name.startsWith(key) || !SNAPSHOT_SUFFIX.test(name.slice(key.length))) continue;
			if (best === null || key.length > best.length) best = key;
		}
		if (best !== null) return { key: best, price: prices[best] ?? FREE };
	}
	return null;
}

export interface CallCost {
	/** USD. */
	cost: number;
	/** False when the model is in no table: the cost shown is 0 and should say "unknown". */
	known: boolean;
}

/**
 * What a call cost. `usage.input` includes the cached tokens; those are billed at the cached rate.
 * The extractive baseline makes no paid call.
 */
/** Whether calls to `model` have a known price (the extractive baseline costs nothing). */
export function isPriced(prices: PriceTable, model: string, provider?: ProviderName): boolean {
	return provider === 'extractive' || findPrice(prices, model) !== null;
}

export function callCost(prices: PriceTable, model: string, usage: Usage, provider?: ProviderName): CallCost {
	if (provider === 'extractive') return { cost: 0, known: true };
	const found = findPrice(prices, model);
	if (!found) return { cost: 0, known: false };
	const { price } = found;
	const cached = Math.min(usage.cached, usage.input);
	const cost =
		((usage.input - cached) * price.input + cached * price.cachedInput + usage.output * price.output) /
		1_000_000;
	return { cost, known: true };
}
