import type { AccountLimits } from '../llm/create.ts';
import type { OpenInput } from './open-session.ts';

/**
 * What the use cases of one process share, built once at the edge (a command, or `booook` with no
 * arguments) and passed down to app/ and the navigator: the sessions folder, the environment keys
 * and servers are read from, the prices, the account's limits, the clock, the terminal's streams
 * and how booook was started.
 * Nothing below the edge reads `process.env` or `process.stdout` for itself where it is given these.
 */
export interface AppServices {
	readonly sessionsDir: string;
	readonly env: NodeJS.ProcessEnv;
	/** `--prices FILE`; unset: $BOOOOK_PRICES, else the user's prices file. */
	readonly prices?: string;
	/** The account's rate limits as the flags state them. */
	readonly account?: AccountLimits;
	/** Milliseconds since the epoch: the progress lines' ETA and rate-limit waits read it. */
	readonly now: () => number;
	readonly streams: Streams;
	/** How booook was started (`booook`, `npm start --`, ...): the screens say command lines with it. */
	readonly program: string;
	/**
	 * What opening, starting or continuing a session is given: these services' prices, limits and
	 * environment, from which app/model-client.ts builds each run's one model client.
	 */
	readonly opening: OpenInput;
}

/** The account's rate limits as `--tpm`, `--rpm` and `--rate-limit-wait` (minutes) state them, for `createProvider`. */
export function accountLimits(flags: { tpm?: number; rpm?: number; rateLimitWait?: number }): AccountLimits {
	return {
		limits: { tpm: flags.tpm ?? null, rpm: flags.rpm ?? null },
		rateLimitWaitMs: flags.rateLimitWait === undefined ? undefined : flags.rateLimitWait * 60_000,
	};
}

/** The terminal's streams (the process's when one is not given). */
export interface Streams {
	readonly stdin?: NodeJS.ReadStream;
	readonly stdout?: NodeJS.WriteStream;
	readonly stderr?: NodeJS.WriteStream;
}

/** The services of this process, from what the command line and the environment say. */
export function appServices(input: {
	sessionsDir: string;
	env?: NodeJS.ProcessEnv;
	prices?: string;
	account?: AccountLimits;
	now?: () => number;
	streams?: Streams;
	program: string;
}): AppServices {
	const env = input.env ?? process.env;
	const { prices, account } = input;
	return {
		sessionsDir: input.sessionsDir,
		env,
		prices,
		account,
		now: input.now ?? Date.now,
		streams: input.streams ?? {},
		program: input.program,
		opening: { env, prices, account },
	};
}
