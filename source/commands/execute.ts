import type { RunConfig, Usage } from '../domain.ts';
import { Engine } from '../engine/engine.ts';
import { createProvider } from '../llm/create.ts';
import { callCost, loadPrices } from '../llm/prices.ts';
import type { Provider } from '../llm/provider.ts';
import { loadTemplates } from '../prompts/load.ts';
import type { PlanContext } from '../summarize/planner.ts';
import { plannerFor } from '../summarize/run.ts';
import type { BookSessionData, Session } from '../store/session.ts';
import { countTokens } from '../text/tokens.ts';
import { headlessReporter } from './progress.ts';
import { printFinal } from './show.ts';

export interface ExecuteOptions {
	json: boolean;
	step?: boolean;
	prices?: string;
	env?: NodeJS.ProcessEnv;
	stdout?: NodeJS.WritableStream;
	stderr?: NodeJS.WriteStream | NodeJS.WritableStream;
}

/** Everything a run needs besides the session, checked before a session is created or any call made. */
export async function prepare(config: RunConfig, book: string, opts: ExecuteOptions): Promise<Prepared> {
	const templates = await loadTemplates(config.prompts);
	const prices = loadPrices(opts.prices, opts.env);
	const relay: { engine: Engine | null } = { engine: null };
	const provider: Provider = createProvider({
		provider: config.provider,
		model: config.model,
		baseUrl: config.baseUrl,
		streamTimeoutMs: config.streamTimeout * 1000,
		env: opts.env,
		encoding: config.encoding,
		onRetry: (reason, request) => relay.engine?.streamRetried(reason, request),
	});
	const ctx: PlanContext = { config, templates, book, tokens: (t) => countTokens(t, config.encoding) };
	const costOf = (usage: Usage) => callCost(prices, config.model, usage, config.provider).cost;
	return { provider, ctx, costOf, relay };
}

export interface Prepared {
	provider: Provider;
	ctx: PlanContext;
	costOf: (usage: Usage) => number;
	relay: { engine: Engine | null };
}

export function makeEngine(session: Session<BookSessionData>, prepared: Prepared, opts: { step?: boolean }): Engine {
	const engine = new Engine({ store: session, provider: prepared.provider, planner: plannerFor(session.data.run.config.method), ctx: prepared.ctx, costOf: prepared.costOf, stepping: opts.step });
	prepared.relay.engine = engine;
	return engine;
}

/**
 * Runs (or continues) the session's plan headless until it is done, fails or is interrupted.
 * Ctrl-C / SIGTERM cancel the calls in flight; the session is saved and can be resumed.
 * Returns the exit code: 0 done, 1 failed, 130 interrupted.
 */
export async function execute(session: Session<BookSessionData>, prepared: Prepared, opts: ExecuteOptions): Promise<number> {
	const stdout = opts.stdout ?? process.stdout;
	const stderr = opts.stderr ?? process.stderr;
	const engine = makeEngine(session, prepared, opts);
	const { ctx } = prepared;
	engine.on(headlessReporter({ json: opts.json, stdout, stderr }));
	const interrupt = () => engine.cancel();
	process.once('SIGINT', interrupt);
	process.once('SIGTERM', interrupt);
	let status;
	try {
		status = await engine.start();
	} finally {
		process.off('SIGINT', interrupt);
		process.off('SIGTERM', interrupt);
	}
	if (status === 'done') {
		if (!opts.json) printFinal(session.data, ctx.book, stdout, stderr);
		return 0;
	}
	if (status === 'cancelled') {
		if (!opts.json) stderr.write(`interrupted; session saved. Continue with: booook resume ${session.id}\n`);
		return 130;
	}
	if (!opts.json) stderr.write(`run failed: ${session.data.run.error}\nFix the cause, then continue with: booook resume ${session.id}\n`);
	return 1;
}
