import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { DEFAULTS, type ConfigInput } from '../config.ts';
import { configFrom, ENCODINGS, type RunSettings } from '../app/run.ts';
import { decimal, integer, PRICES_HELP, withRateLimitOptions } from './flags.ts';

/** A run's configuration as flags: what `run` and `plan` share (app/run.ts `configFrom` reads them, `loadBook` checks them). */

/** The options of `run` and `plan`: the run's configuration. */
export function withRunOptions<Args extends unknown[], Opts extends OptionValues>(cmd: Command<Args, Opts>) {
	return cmd
		.addOption(
			new Option('--method <method>', 'hier (hierarchical merging) or inc (incremental updating)')
				.choices(['hier', 'inc'])
				.default(DEFAULTS.method),
		)
		.addOption(
			new Option(
				'--provider <name>',
				'openai, anthropic or extractive (default: openai if OPENAI_API_KEY is set, else anthropic if ANTHROPIC_API_KEY is set, else extractive)',
			).choices(['openai', 'anthropic', 'extractive']),
		)
		.option(
			'--model <name>',
			'model name (default: gpt-4o-mini, claude-sonnet-4-6, or textrank for extractive)',
		)
		.option(
			'--base-url <url>',
			'an OpenAI-compatible (or Anthropic) server, e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)',
		)
		.option('--chunk-size <n>', 'C: most tokens per chunk', integer('--chunk-size'), DEFAULTS.chunkSize)
		.option(
			'--context-window <n>',
			"W: the model's context window in tokens",
			integer('--context-window'),
			DEFAULTS.contextWindow,
		)
		.option(
			'--max-summary <n>',
			'G_n: most tokens of the final summary',
			integer('--max-summary'),
			DEFAULTS.maxSummary,
		)
		.option(
			'--temperature <t>',
			'sampling temperature of first attempts (regenerations use 1)',
			decimal('--temperature'),
			DEFAULTS.temperature,
		)
		.option('--concurrency <n>', 'most calls at once', integer('--concurrency'), DEFAULTS.concurrency)
		.addOption(
			new Option('--encoding <name>', 'tiktoken encoding for counting tokens')
				.choices(ENCODINGS)
				.default(DEFAULTS.encoding),
		)
		.option(
			'--clean',
			'remove progressive-writing artifacts from the final summary (paper J.3; default on for LLM providers)',
		)
		.option('--no-clean', 'keep the final summary as written')
		.option(
			'--stream-timeout <seconds>',
			'abort and retry a stream that sends nothing for this long',
			decimal('--stream-timeout'),
			DEFAULTS.streamTimeout,
		)
		.option(
			'--call-timeout <seconds>',
			'abort and retry a stream still going this long after it started (default: the stream timeout plus 0.25 s per token of the output limit)',
			decimal('--call-timeout'),
		)
		.option('--seed <n>', 'seed recorded with the run', integer('--seed'), DEFAULTS.seed)
		.option('--prompts <dir>', 'read prompt templates from this folder (missing ones come from prompts/)')
		.option('--prices <file>', PRICES_HELP);
}

/** `withRunOptions` and the account's rate limits: what `run` and `plan` take. */
export function withRunAndLimitOptions<Args extends unknown[], Opts extends OptionValues>(
	cmd: Command<Args, Opts>,
) {
	return withRateLimitOptions(withRunOptions(cmd));
}

/** The run's configuration as the flags give it, with this process's environment (app/run.ts `configFrom`). */
export const configInput = (flags: RunSettings): ConfigInput => configFrom(flags, process.env);
