import path from 'node:path';
import type { Method, ProviderName, RunConfig } from './domain.ts';
import { badInput } from './errors.ts';
import { shellWord } from './program.ts';
import { checkBaseUrl, keyVariable } from './llm/base-url.ts';
import { ENCODINGS, type EncodingName } from './text/tokens.ts';

/** The paper's settings (§5: chunk 2048, G_n 900, temperature 0.5) and a GPT-4-sized window. */
export const DEFAULTS = {
	method: 'hier' as Method,
	chunkSize: 2048,
	contextWindow: 8192,
	maxSummary: 900,
	temperature: 0.5,
	concurrency: 4,
	seed: 1,
	streamTimeout: 60,
	encoding: 'cl100k_base' as EncodingName,
};

export interface ConfigInput {
	method?: string;
	provider: ProviderName;
	model: string;
	baseUrl?: string | null;
	encoding?: string;
	chunkSize?: number;
	contextWindow?: number;
	maxSummary?: number;
	temperature?: number;
	concurrency?: number;
	seed?: number;
	clean?: boolean;
	streamTimeout?: number;
	/** Absent: derived per call from its output limit (see `callDeadlineMs`). */
	callTimeout?: number;
	prompts?: string | null;
}

/**
 * A complete, checked run configuration. Each bad value is a one-line error naming the option and
 * a value that works; the sizes are also checked against each other so a run cannot start with a
 * prompt that could never fit the window.
 */
export function makeConfig(input: ConfigInput): RunConfig {
	const method = input.method ?? DEFAULTS.method;
	if (method !== 'hier' && method !== 'inc')
		throw badInput(
			`--method ${method}: unknown method; use hier (hierarchical merging) or inc (incremental updating)`,
		);
	const encoding = input.encoding ?? DEFAULTS.encoding;
	if (!(ENCODINGS as readonly string[]).includes(encoding))
		throw badInput(`--encoding ${encoding}: unknown encoding; use ${ENCODINGS.join(' or ')}`);
	const config: RunConfig = {
		method,
		provider: input.provider,
		model: input.model,
		baseUrl: input.baseUrl ? checkBaseUrl(input.baseUrl, '--base-url', keyVariable(input.provider)) : null,
		encoding: encoding as EncodingName,
		chunkSize: integer('--chunk-size', input.chunkSize ?? DEFAULTS.chunkSize, 64),
		contextWindow: integer('--context-window', input.contextWindow ?? DEFAULTS.contextWindow, 512),
		maxSummary: integer('--max-summary', input.maxSummary ?? DEFAULTS.maxSummary, 32),
		temperature: number('--temperature', input.temperature ?? DEFAULTS.temperature, 0, 2),
		concurrency: integer('--concurrency', input.concurrency ?? DEFAULTS.concurrency, 1, 64),
		seed: integer('--seed', input.seed ?? DEFAULTS.seed, 0),
		clean: input.clean ?? input.provider !== 'extractive',
		streamTimeout: number('--stream-timeout', input.streamTimeout ?? DEFAULTS.streamTimeout, 1, 3600),
		prompts: input.prompts ?? null,
	};
	if (input.callTimeout !== undefined)
		config.callTimeout = number('--call-timeout', input.callTimeout, 1, 86_400);
	// Whether a chunk, its prompt and its summary fit the window depends on the templates and the
	// chunks: each planner's `windowProblem` checks it once both are known.
	return config;
}

/** `score`'s numbers: its concurrency and its sentences per call. */
export function checkScoring(opts: { concurrency?: number; batchSize?: number }): void {
	if (
		opts.concurrency !== undefined &&
		!(Number.isInteger(opts.concurrency) && opts.concurrency >= 1 && opts.concurrency <= 64)
	) {
		throw badInput(`--concurrency ${opts.concurrency}: use a whole number from 1 to 64`);
	}
	if (
		opts.batchSize !== undefined &&
		!(Number.isInteger(opts.batchSize) && opts.batchSize >= 1 && opts.batchSize <= 100)
	) {
		throw badInput(`--batch-size ${opts.batchSize}: use a whole number from 1 to 100 (sentences per call)`);
	}
}

function number(flag: string, value: number, min: number, max = Number.POSITIVE_INFINITY): number {
	if (!Number.isFinite(value) || value < min || value > max) {
		throw badInput(
			`${flag} ${value}: must be a number from ${min}${Number.isFinite(max) ? ` to ${max}` : ' up'}`,
		);
	}
	return value;
}

function integer(flag: string, value: number, min: number, max = Number.POSITIVE_INFINITY): number {
	if (!Number.isInteger(value)) throw badInput(`${flag} ${value}: must be a whole number`);
	return number(flag, value, min, max);
}

/** Where sessions live: `--sessions-dir`, then `BOOOOK_SESSIONS`, then `./sessions`; always absolute. */
export function resolveSessionsDir(flag?: string | null, env: NodeJS.ProcessEnv = process.env): string {
	const chosen = nonEmpty(flag) ?? nonEmpty(env.BOOOOK_SESSIONS) ?? 'sessions';
	return path.resolve(chosen);
}

/**
 * What a printed command needs to reach `dir`: nothing when it is where sessions go by default,
 * else ` --sessions-dir DIR` (absolute, quoted for the shell), so the command can be pasted as is.
 */
export function sessionsDirArg(dir: string, env: NodeJS.ProcessEnv = process.env): string {
	const absolute = path.resolve(dir);
	if (absolute === resolveSessionsDir(null, env)) return '';
	return ` --sessions-dir ${shellWord(absolute)}`;
}

function nonEmpty(value: string | null | undefined): string | undefined {
	return value && value.trim() !== '' ? value : undefined;
}
