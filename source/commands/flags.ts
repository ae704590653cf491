import { InvalidArgumentError, Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { DEFAULTS } from '../config.ts';
import { UserError } from '../errors.ts';
import { accountLimits } from '../app/services.ts';

/** What several sub-commands' specs share. Each command's own spec sits beside its handler. */

/** How an action reports its exit code to cli.tsx: 0 done, 1 run failed, 2 bad input or usage, 130 interrupted. */
export type Exit = (code: number) => void;

export const integer = (flag: string) => (value: string) => {
	if (!/^-?\d+$/u.test(value.trim())) throw new InvalidArgumentError(`${flag} takes a whole number`);
	return Number(value);
};

/** A whole number of at least `min`: a count that must not be zero, say. */
export const integerFrom = (flag: string, min: number) => (value: string) => {
	const n = integer(flag)(value);
	if (n < min) throw new InvalidArgumentError(`${flag} takes a whole number from ${min} up`);
	return n;
};

export const decimal = (flag: string) => (value: string) => {
	const n = Number(value);
	if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`${flag} takes a number`);
	return n;
};

export const sessionsDirOption = () =>
	new Option('--sessions-dir <dir>', 'where sessions are kept (default: $BOOOOK_SESSIONS, else ./sessions)');

export const PRICES_HELP = 'price table JSON (default: $BOOOOK_PRICES, else ~/.config/booook/prices.json)';

/** The terminal app needs a terminal on both ends; without one, runs are headless and say so. */
export function interactive(flags: { headless?: boolean; json?: boolean; step?: boolean }): boolean {
	const app = !flags.headless && !flags.json && Boolean(process.stdin.isTTY && process.stdout.isTTY);
	// Headless, nothing could ever release a held call.
	if (flags.step && !app)
		throw new UserError(
			'--step needs the terminal app (a terminal, without --headless or --json); leave out --step to run headless',
			2,
		);
	return app;
}

/** Said once the run starts (after every input check), so a bad-input error stays one line. */
export const headlessNote = (flags: { headless?: boolean; json?: boolean }) =>
	flags.headless || flags.json || interactive(flags)
		? undefined
		: 'not a terminal, so running headless (progress on stderr, final summary on stdout)';

/** How a run is shown: `run` and `resume` take the same three flags. */
export function withDisplayOptions<Args extends unknown[], Opts extends OptionValues>(
	cmd: Command<Args, Opts>,
) {
	return cmd
		.option(
			'--headless',
			'no terminal app: progress on stderr, final summary on stdout (the default without a terminal)',
		)
		.option('--step', 'in the terminal app, start stepping: one call per s key (space runs on)')
		.option('--json', 'print engine events as JSON lines on stdout (headless)');
}

/** What `run` and `resume` pass on of their display, price and rate-limit flags. */
export function shownRunFlags(
	flags: { headless?: boolean; json?: boolean; step?: boolean; prices?: string } & Parameters<
		typeof accountLimits
	>[0],
	program: string,
) {
	return {
		json: !!flags.json,
		prices: flags.prices,
		account: accountLimits(flags),
		interactive: interactive(flags),
		note: headlessNote(flags),
		step: flags.step,
		program,
	};
}

/** The bootstrap behind `precision`'s and `report`'s intervals. */
export function withBootstrapOptions<Args extends unknown[], Opts extends OptionValues>(
	cmd: Command<Args, Opts>,
) {
	return cmd
		.option('--seed <n>', 'seed of the bootstrap (0 or more)', integerFrom('--seed', 0), 2024)
		.option('--resamples <n>', 'bootstrap resamples (at least 1)', integerFrom('--resamples', 1), 2000);
}

/** The account's rate limits: `run`, `plan`, `resume`, `score` and `faithfulness` take the same three flags. */
export function withRateLimitOptions<Args extends unknown[], Opts extends OptionValues>(
	cmd: Command<Args, Opts>,
) {
	return cmd
		.option(
			'--tpm <n>',
			"the account's tokens a minute for the model (prompt plus output limit), to pace calls before the server's headers say",
			integerFrom('--tpm', 1),
		)
		.option(
			'--rpm <n>',
			"the account's requests a minute for the model, to pace calls before the server's headers say",
			integerFrom('--rpm', 1),
		)
		.option(
			'--rate-limit-wait <minutes>',
			'stop (to resume later) when rate limits let no call through for this long',
			positiveDecimal('--rate-limit-wait'),
			30,
		);
}

const positiveDecimal = (flag: string) => (value: string) => {
	const n = decimal(flag)(value);
	if (n <= 0) throw new InvalidArgumentError(`${flag} takes a number above 0`);
	return n;
};

/**
 * The model of a pass over a run's summaries (`faithfulness`'s judge, `memory`'s reader), named for
 * its `role`: the same four flags, the same defaults (app/model-client.ts `passModel`).
 */
export function withPassModelOptions<Args extends unknown[], Opts extends OptionValues>(
	cmd: Command<Args, Opts>,
	role: string,
) {
	return cmd
		.addOption(
			new Option(
				'--provider <name>',
				`the ${role} provider (default: the model the run used, else whichever API key is set)`,
			).choices(['openai', 'anthropic'] as const),
		)
		.option('--model <name>', `the ${role} model (default: the run's, or gpt-4o-mini / claude-sonnet-4-6)`)
		.option(
			'--base-url <url>',
			"an OpenAI-compatible (or Anthropic) server (default: the run's, $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)",
		)
		.option('--concurrency <n>', 'most calls at once', integer('--concurrency'), DEFAULTS.concurrency);
}
