import type PQueue from 'p-queue';
import { readBook, type LoadedBook } from '../book/read.ts';
import { makeConfig, type ConfigInput } from '../config.ts';
import type { Book, Chunk, NodeRef, ProviderName, RunConfig, RunStatus } from '../domain.ts';
import { Engine } from '../engine/engine.ts';
import type { EngineListener } from '../engine/events.ts';
import { badInput } from '../errors.ts';
import { defaultModel, defaultProvider, type AccountLimits } from '../llm/create.ts';
import type { BatchLane } from '../llm/batcher.ts';
import { unreachedServer } from '../llm/sdk-errors.ts';
import { loadTemplates } from '../prompts/load.ts';
import { Session, type BookSessionData } from '../store/session.ts';
import type { PlanContext } from '../summarize/planner.ts';
import { newRun, plannerFor } from '../summarize/run.ts';
import { runFinished } from '../summarize/graph.ts';
import { nodeNameIn } from '../summarize/places.ts';
import type { Templates } from '../summarize/templates.ts';
import { chunkText } from '../text/chunk.ts';
import { countTokens } from '../text/tokens.ts';

/** The tiktoken encodings a run can count its tokens with (`--encoding`). */
export { ENCODINGS } from '../text/tokens.ts';
import { modelClient, type ModelClient } from './model-client.ts';
import type { BookScoring } from './score.ts';
import { scorerQuestion, type ScorerChoice, type ScorerQuestion } from './score-model.ts';
import type { ValidationWalk } from './validation-walk.ts';
import { said, type Next, type Said } from '../program.ts';

/**
 * Run and resume: a new run's book checked, a run's model client and plan context, its engine, and
 * what a shown run's screens ask for besides (BooookScore, the validation walk).
 */

/** Reads and chunks a book and checks the configuration: everything a new run needs before its session exists. */
export async function loadBook(path: string, input: ConfigInput) {
	const loaded = await readBook(path);
	const config = makeConfig(input);
	const chunks = chunkText(loaded.text, config.chunkSize, config.encoding);
	const templates = await loadTemplates(config.prompts);
	const problem = plannerFor(config.method).windowProblem(newRun(config, chunks), {
		config,
		templates,
		book: loaded.text,
		tokens: (t) => countTokens(t, config.encoding),
	});
	if (problem) throw badInput(problem);
	return { loaded, config, chunks, book: bookInfo(loaded, chunks), templates };
}

/** What a session keeps of its book: title, checksum, where it came from, its size. */
export function bookInfo(loaded: LoadedBook, chunks: readonly Chunk[]): Book {
	return {
		title: loaded.title,
		sha256: loaded.sha256,
		source: loaded.source,
		chars: loaded.text.length,
		tokens: chunks.reduce((s, c) => s + c.tokens, 0),
	};
}

/** A new run's book as `loadBook` read, chunked and checked it. */
export type LoadedRun = Awaited<ReturnType<typeof loadBook>>;

/** The session of a new run of `loaded` (named `id`, else title-date-time-random). */
export async function createRunSession(
	dir: string,
	loaded: LoadedRun,
	id?: string,
): Promise<Session<BookSessionData>> {
	const { config, chunks, book } = loaded;
	return await Session.create(dir, { id, book, text: loaded.loaded.text, run: newRun(config, chunks) });
}

/**
 * A new run checked before its session exists: its book read, chunked and checked against the
 * window, its model client set up (a missing key refuses here). `start` then creates the session.
 */
export interface CheckedRun {
	readonly loaded: LoadedRun;
	/** The new session (named `id`, else title-date-time-random) and its run; the caller closes it. */
	start(dir: string, id?: string): Promise<StartedRun>;
}

/** A session made or opened for its run, locked until `close`. */
export interface StartedRun {
	readonly run: SessionRun;
	close(): Promise<void>;
}

export async function checkNewRun(
	path: string,
	input: ConfigInput,
	opts: PrepareOptions,
): Promise<CheckedRun> {
	const loaded = await loadBook(path, input);
	const prepared = await prepare(loaded.config, loaded.loaded.text, opts, loaded.templates);
	return {
		loaded,
		start: async (dir, id) => {
			const session = await createRunSession(dir, loaded, id);
			return { run: sessionRun(session, prepared, opts), close: () => session.close() };
		},
	};
}

/**
 * The provider and model of a new run: those named, else the provider whose key `env` sets (or the
 * OpenAI-compatible server `baseUrl` names), else the extractive baseline; and that provider's default model.
 */
export function runModel(
	named: { provider?: ProviderName; model?: string; baseUrl?: string },
	env: NodeJS.ProcessEnv,
): { provider: ProviderName; model: string } {
	const provider = named.provider ?? defaultProvider(env, named.baseUrl);
	return { provider, model: named.model ?? defaultModel(provider) };
}

/** A new run's settings as `run`'s and `plan`'s flags give them: what is not named is left to `makeConfig`'s defaults. */
export type RunSettings = Omit<ConfigInput, 'provider' | 'model' | 'baseUrl' | 'prompts'> & {
	provider?: ProviderName;
	model?: string;
	baseUrl?: string;
	prompts?: string;
};

/** The run's configuration as its settings give it, its provider and model filled in (`runModel`; checked by `loadBook`). */
export function configFrom(settings: RunSettings, env: NodeJS.ProcessEnv): ConfigInput {
	return {
		method: settings.method,
		...runModel(settings, env),
		baseUrl: settings.baseUrl ?? null,
		encoding: settings.encoding,
		chunkSize: settings.chunkSize,
		contextWindow: settings.contextWindow,
		maxSummary: settings.maxSummary,
		temperature: settings.temperature,
		concurrency: settings.concurrency,
		seed: settings.seed,
		clean: settings.clean,
		streamTimeout: settings.streamTimeout,
		callTimeout: settings.callTimeout,
		prompts: settings.prompts ?? null,
	};
}

export interface PrepareOptions {
	prices?: string;
	/** The account's rate limits as the flags state them. */
	account?: AccountLimits;
	/** What to do when the provider's key is not set, when another provider cannot be chosen (a session's). */
	missingKey?: Said;
	env?: NodeJS.ProcessEnv;
}

export interface Prepared extends ModelClient {
	ctx: PlanContext;
}

/** Everything a run needs besides the session, checked before a session is created or any call made. */
export async function prepare(
	config: RunConfig,
	book: string,
	opts: PrepareOptions,
	loaded?: Templates,
): Promise<Prepared> {
	const templates = loaded ?? (await loadTemplates(config.prompts));
	const client = modelClient({
		provider: config.provider,
		model: config.model,
		baseUrl: config.baseUrl,
		streamTimeoutMs: config.streamTimeout * 1000,
		callTimeoutMs: config.callTimeout === undefined ? null : config.callTimeout * 1000,
		encoding: config.encoding,
		prices: opts.prices,
		env: opts.env,
		...opts.account,
		...(opts.missingKey ? { missingKey: opts.missingKey } : {}),
	});
	const ctx: PlanContext = { config, templates, book, tokens: (t) => countTokens(t, config.encoding) };
	return { ...client, ctx };
}

/**
 * `prepare` for a session that exists: its provider is the one it was run with, so a missing key
 * can only be set, not swapped for another provider.
 */
export async function prepareSession(
	session: Session<BookSessionData>,
	book: string,
	opts: PrepareOptions,
): Promise<Prepared> {
	const { provider, model } = session.data.run.config;
	const missingKey = said`session "${session.id}" was run with ${provider} (${model}); export the key, then continue with: ${session.continueWith}`;
	return await prepare(session.data.run.config, book, { ...opts, missingKey });
}

/**
 * The engine of a session's run; `queue`: call places shared with other runs (a study's cells);
 * `batch`: the provider batch its batchable calls go in.
 */
export function makeEngine(
	session: Session<BookSessionData>,
	prepared: Prepared,
	opts: { step?: boolean; queue?: PQueue; batch?: BatchLane },
): Engine {
	return new Engine({
		store: session,
		provider: prepared.provider,
		planner: plannerFor(session.data.run.config.method),
		ctx: prepared.ctx,
		costOf: prepared.costOf,
		stepping: opts.step,
		...(opts.queue ? { queue: opts.queue } : {}),
		...(opts.batch ? { batch: opts.batch } : {}),
	});
}

/**
 * How a session's run stands once its engine stopped: finished, stopped (it can be continued), or
 * failed with the provider's or planner's message, and the server it could not reach, if that was why.
 */
export type RunOutcome =
	| { kind: 'done' }
	| { kind: 'stopped'; continueWith: Next }
	| {
			kind: 'failed';
			error: string | null;
			/** The address the failure says could not be reached, or null for another failure. */
			unreached: string | null;
			/** The server address the session is saved with (null: the provider's own, or the environment's). */
			baseUrl: string | null;
			continueWith: Next;
	  };

/**
 * A session's run as a command shows it: its engine, and the work its screens open from it. A new
 * run and a reopened one (`app/open-session.ts`) make it alike, so both screens offer the same.
 */
export interface SessionRun {
	readonly session: Session<BookSessionData>;
	readonly prepared: Prepared;
	/** `step`: make one call, then hold. */
	engine(opts?: { step?: boolean }): Engine;
	/**
	 * The run made (or continued) unseen until it is done, fails or `signal` cancels its calls in
	 * flight (the session is saved either way), each event told to `onEvent`. Resolves how it stopped.
	 */
	runUnseen(opts: { signal: AbortSignal; onEvent: EngineListener; step?: boolean }): Promise<RunStatus>;
	/**
	 * BooookScore of the final summary, with the run's own prices, prompts and account limits; by
	 * `model` when named (a run with no model of its own asks for one: `scorerQuestion`).
	 */
	scoring(model?: ScorerChoice): Promise<BookScoring>;
	/** Which model scores the final summary, when the run has none of its own to score with; else null. */
	scorerQuestion(): ScorerQuestion | null;
	/** A maker of validation walks over the session's model annotations, once its module is loaded. */
	validation(): Promise<() => ValidationWalk>;
	/** A node as a person reads it ("chunk 3", "level 2, merge 1"). */
	nodeName(node: NodeRef): string;
	/** How the run stands now (after its engine stopped). */
	outcome(): RunOutcome;
}

function outcomeOf(session: Session<BookSessionData>): RunOutcome {
	const { data, continueWith } = session;
	if (runFinished(data.run)) return { kind: 'done' };
	if (data.run.status !== 'failed') return { kind: 'stopped', continueWith };
	const error = data.run.error ?? null;
	return {
		kind: 'failed',
		error,
		unreached: error ? unreachedServer(error) : null,
		baseUrl: data.run.config.baseUrl ?? null,
		continueWith,
	};
}

export function sessionRun(
	session: Session<BookSessionData>,
	prepared: Prepared,
	opts: PrepareOptions,
): SessionRun {
	return {
		session,
		prepared,
		engine: (o = {}) => makeEngine(session, prepared, o),
		runUnseen: async ({ signal, onEvent, step }) => {
			const engine = makeEngine(session, prepared, { step });
			engine.on(onEvent);
			const cancel = () => engine.cancel();
			signal.addEventListener('abort', cancel);
			try {
				return await engine.start();
			} finally {
				signal.removeEventListener('abort', cancel);
			}
		},
		// Loaded when asked: a headless run never scores or validates, and starts sooner without them.
		scoring: async (model) => {
			const { bookScoring } = await import('./score.ts');
			return await bookScoring(session, {
				env: opts.env,
				prices: opts.prices,
				prompts: session.data.run.config.prompts ?? undefined,
				account: opts.account,
				...(model && {
					provider: model.provider,
					model: model.model,
					...(model.baseUrl !== null && { baseUrl: model.baseUrl }),
				}),
			});
		},
		scorerQuestion: () => scorerQuestion(session, opts.env),
		validation: async () => {
			const [{ ValidationWalk }, { validatorName }] = await Promise.all([
				import('./validation-walk.ts'),
				import('./validation.ts'),
			]);
			return () => new ValidationWalk(session, validatorName(undefined), { mode: 'model', seed: 2024 });
		},
		nodeName: (node) => nodeNameIn(session.data.run, node),
		outcome: () => outcomeOf(session),
	};
}
