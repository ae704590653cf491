import { Command, Option } from '@commander-js/extra-typings';
import { DEFAULTS } from '../config.ts';
import type { ProviderName, Usage } from '../domain.ts';
import { judgeFaithfulness } from '../engine/faithfulness-judge.ts';
import { badInput } from '../errors.ts';
import { keyVariable } from '../llm/base-url.ts';
import { createProvider, defaultModel, defaultProvider, type AccountLimits } from '../llm/create.ts';
import { callCost, loadPrices } from '../llm/prices.ts';
import { loadTemplates } from '../prompts/load.ts';
import { sessionsDirArg } from '../store/dirs.ts';
import { pinFinalSummary } from '../store/scored-summaries.ts';
import { resolveSessionsDir, Session, type BookSessionData } from '../store/session.ts';
import { sessionEvidence } from './evidence-session.ts';
import {
	accountLimits,
	integer,
	PRICES_HELP,
	sessionsDirOption,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { cancelOnSignal } from './interrupt.ts';
import { output, type Stream } from './output.ts';
import { commandLine } from '../program.ts';

export const spec = (exit: Exit) =>
	withRateLimitOptions(new Command('faithfulness'))
		.description(
			`a model marks each sentence of a run's final summary faithful, unfaithful or can't tell, reading the passages of the book it can come from (LongEval's fine-grained protocol); see the results with ${commandLine('report ID')}`,
		)
		.argument('<id>', `session id of a run (see: ${commandLine('sessions')})`)
		.addOption(
			new Option(
				'--provider <name>',
				'the judging provider (default: the model the run used, else whichever API key is set)',
			).choices(['openai', 'anthropic']),
		)
		.option('--model <name>', "the judging model (default: the run's, or gpt-4o-mini / claude-sonnet-4-6)")
		.option(
			'--base-url <url>',
			"an OpenAI-compatible (or Anthropic) server (default: the run's, $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)",
		)
		.option('--concurrency <n>', 'most calls at once', integer('--concurrency'), DEFAULTS.concurrency)
		.option('--prices <file>', PRICES_HELP)
		.addOption(sessionsDirOption())
		.action(async (id, flags) => {
			exit(
				await faithfulnessCommand({
					...flags,
					id,
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					account: accountLimits(flags),
				}),
			);
		});

export interface FaithfulnessOptions {
	id: string;
	sessionsDir: string;
	provider?: string;
	model?: string;
	baseUrl?: string;
	concurrency?: number;
	prices?: string;
	account?: AccountLimits;
	env?: NodeJS.ProcessEnv;
	stderr?: Stream;
}

/** The judge: named by the flags, else the run's own model, else whichever key is set. */
function judgeOf(
	data: BookSessionData,
	opts: FaithfulnessOptions,
	env: NodeJS.ProcessEnv,
): { provider: ProviderName; model: string; baseUrl: string | null } {
	const own = data.run.config;
	const ownLLM = own.provider !== 'extractive' ? own : null;
	const provider =
		(opts.provider as ProviderName | undefined) ?? ownLLM?.provider ?? defaultProvider(env, opts.baseUrl);
	const same = ownLLM !== null && ownLLM.provider === provider;
	const model = opts.model ?? (same ? ownLLM.model : defaultModel(provider));
	return {
		provider,
		model,
		baseUrl: opts.baseUrl ?? (same && ownLLM.model === model ? ownLLM.baseUrl : null),
	};
}

export async function faithfulnessCommand(opts: FaithfulnessOptions): Promise<number> {
	const env = opts.env ?? process.env;
	const stderr = opts.stderr ?? process.stderr;
	// Everything that can be refused is checked on a read-only copy: a refusal leaves the session as it was.
	const { data: snapshot } = await Session.snapshot(opts.sessionsDir, opts.id);
	if (snapshot.kind !== 'book')
		throw badInput(
			`session "${opts.id}" holds imported summaries without their book: judging faithfulness needs the book, so a run (${commandLine('run BOOK')}); people can still mark its sentences with ${commandLine(`validate ${opts.id} --mode faithfulness`)}`,
		);
	if (!snapshot.run.root)
		throw badInput(
			`session "${opts.id}" has no final summary yet: finish it with ${commandLine(`resume ${opts.id}`)}`,
		);
	const judge = judgeOf(snapshot, opts, env);
	if (judge.provider === 'extractive')
		throw badInput(
			'judging faithfulness needs an LLM: set OPENAI_API_KEY (or ANTHROPIC_API_KEY), or pass --provider openai|anthropic with that key set (--base-url for a compatible server)',
		);
	const key = keyVariable(judge.provider);
	if (!env[key]?.trim())
		throw badInput(
			`judging with ${judge.provider}/${judge.model} needs ${key}: export it, or choose another model with --provider and --model`,
		);
	const templates = await loadTemplates(null);
	const prices = loadPrices(opts.prices, env);
	const provider = createProvider({
		...judge,
		streamTimeoutMs: DEFAULTS.streamTimeout * 1000,
		env,
		...opts.account,
	});
	const session = await Session.open(opts.sessionsDir, opts.id);
	try {
		const data = session.data as BookSessionData;
		const summary = pinFinalSummary(data);
		await session.save();
		const evidenceFor = await sessionEvidence(session);
		const abort = new AbortController();
		const out = output(stderr);
		out.line(
			`judging the final summary of ${opts.id} with ${judge.provider}/${judge.model}: one call per sentence, with its evidence from the book`,
		);
		const result = await cancelOnSignal(
			() => abort.abort(),
			() =>
				judgeFaithfulness({
					store: session,
					provider,
					template: templates.faithfulness,
					summaries: [summary],
					evidenceFor,
					concurrency: opts.concurrency ?? DEFAULTS.concurrency,
					costOf: (usage: Usage) => callCost(prices, judge.model, usage, judge.provider).cost,
					signal: abort.signal,
				}),
		);
		const cost = `${result.totals.calls} calls, $${result.totals.cost.toFixed(4)}`;
		if (result.status === 'cancelled') {
			out.line(
				`interrupted after ${result.judged} verdicts (${cost}); they are saved. Continue with: ${commandLine(`faithfulness ${opts.id}${sessionsDirArg(opts.sessionsDir)}`)}`,
			);
			return 130;
		}
		if (result.status === 'failed') {
			out.line(
				`judging failed: ${result.error ?? 'unknown error'}. Fix the cause, then continue with: ${commandLine(`faithfulness ${opts.id}${sessionsDirArg(opts.sessionsDir)}`)}`,
			);
			return 1;
		}
		out.line(
			`${result.judged} sentences judged${result.unreadable ? `, ${result.unreadable} answers unreadable (no verdict; run again to ask again)` : ''} (${cost}). See the results with: ${commandLine(`report ${opts.id}${sessionsDirArg(opts.sessionsDir)}`)}`,
		);
		return 0;
	} finally {
		await session.close();
	}
}
