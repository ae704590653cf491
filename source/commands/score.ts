import { basename, dirname, extname, resolve } from 'node:path';
import { Command, Option } from '@commander-js/extra-typings';
import type PQueue from 'p-queue';
import type { BatchLane } from '../llm/batcher.ts';
import { DEFAULTS } from '../config.ts';
import type { ProviderName, ScoredSummary, Usage } from '../domain.ts';
import { Annotator, type AnnotateTotals } from '../engine/annotator.ts';
import { badInput } from '../errors.ts';
import { checkBaseUrl, keyVariable } from '../llm/base-url.ts';
import { createProvider, defaultModel, defaultProvider, type AccountLimits } from '../llm/create.ts';
import { callCost, loadPrices } from '../llm/prices.ts';
import { loadTemplates } from '../prompts/load.ts';
import { scoreReleased, scoreSystem, type SystemScore } from '../score/booookscore.ts';
import { convertHumanAnnotations, convertModelAnnotations, convertSummaries } from '../score/formats.ts';
import { scoreHumanSummary } from '../score/human.ts';
import { LABELS } from '../score/labels.ts';
import {
	planSummary,
	scoreSession,
	sessionAnnotator,
	type SessionScore,
	type SummaryPlan,
	type VerdictSource,
} from '../score/session-score.ts';
import { pinFinalSummary, scoredSummaries } from '../store/scored-summaries.ts';
import { resolveSessionsDir, Session, type BookSessionData, type SessionData } from '../store/session.ts';
import { sessionsDirArg } from '../store/dirs.ts';
import { countTokens } from '../text/tokens.ts';
import { readDataFile } from './data-files.ts';
import { cancelOnSignal } from './interrupt.ts';
import type { ScoreControls } from '../ui/controls.ts';
import { output, type Stream } from './output.ts';
import { progressReporter } from './progress.ts';
import { initialScoreStatus, scoreStatus, sentenceRows } from '../ui/state/score-view.ts';
import {
	accountLimits,
	integer,
	PRICES_HELP,
	sessionsDirOption,
	withRateLimitOptions,
	type Exit,
} from './flags.ts';
import { ABANDON_BATCHES_HELP, refuseAwaitedBatches } from './batch-guard.ts';
import { usd } from '../format/cost.ts';
import { formatInt } from '../format/count.ts';
import { points } from '../format/percent.ts';
import { commandLine } from '../program.ts';

export const spec = (exit: Exit) =>
	withRateLimitOptions(new Command('score'))
		.description(
			"BooookScore: of a session (a run's final summary, or a collection), annotating sentences a model has not yet and asking again those it answered unreadably; or of the authors' files",
		)
		.argument('[id]', `session id (see: ${commandLine('sessions')})`)
		.option(
			'--summaries <file>',
			"the authors' summaries JSON ({ book: summary }); without --annotations they are annotated in a new collection session",
		)
		.option('--annotations <file>', "the authors' model annotations JSON for those summaries (no model call)")
		.option(
			'--human <file>',
			"the authors' human annotations JSON (summary-*.json: each span and relation is one confusing sentence)",
		)
		.addOption(
			new Option(
				'--provider <name>',
				'annotate with openai or anthropic (default: the model the session used, else whichever API key is set)',
			).choices(['openai', 'anthropic', 'extractive']),
		)
		.option(
			'--model <name>',
			'the annotating model (default: gpt-4o-mini or claude-sonnet-4-6); naming a provider or model scores only its annotations',
		)
		.option(
			'--base-url <url>',
			"an OpenAI-compatible (or Anthropic) server (default: a run's own server when it is scored with the run's model, else $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)",
		)
		.option(
			'--concurrency <n>',
			'most annotation calls at once',
			integer('--concurrency'),
			DEFAULTS.concurrency,
		)
		.option(
			'--batch-size <n>',
			"N numbered sentences per call with the authors' batched (v2) prompt; default one sentence per call (v1)",
			integer('--batch-size'),
		)
		.option(
			'--prompts <dir>',
			'read get_annotations(.txt|_v2.txt) from this folder (missing ones come from prompts/)',
		)
		.option('--prices <file>', PRICES_HELP)
		.option('--abandon-batches', ABANDON_BATCHES_HELP)
		.addOption(sessionsDirOption())
		.option(
			'--json',
			'print { booookscore, summaries, sentences, confusing, parse_failures, avg_tokens, types, books, ... }',
		)
		.action(async (id, flags) => {
			exit(
				await scoreCommand({
					...flags,
					id,
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					json: !!flags.json,
					account: accountLimits(flags),
				}),
			);
		});

export interface ScoreOptions {
	/** A session to score (annotating its missing sentences first). */
	id?: string;
	summaries?: string;
	annotations?: string;
	human?: string;
	json: boolean;
	provider?: ProviderName;
	model?: string;
	baseUrl?: string;
	concurrency?: number;
	batchSize?: number;
	prices?: string;
	prompts?: string;
	sessionsDir?: string;
	/** Make again the calls a study left in provider batches (see `refuseAwaitedBatches`). */
	abandonBatches?: boolean;
	/** The account's rate limits as the flags (or a study file) state them. */
	account?: AccountLimits;
	env?: NodeJS.ProcessEnv;
	stdout?: Stream;
	stderr?: Stream;
	/** The model used when none is named: a run's own (with its server), else the key's default. */
	ownModel?: { provider: ProviderName; model: string; baseUrl: string | null };
}

/**
 * `booook score`: a session (`ID`; a book run's final summary, or every summary of a collection),
 * summaries from a file (`--summaries F`, annotated by a model in a new collection session), or the
 * authors' files (`--summaries F --annotations F`, `--human F`) scored without any model call.
 */
export async function scoreCommand(opts: ScoreOptions): Promise<number> {
	if (opts.id !== undefined && (opts.summaries || opts.annotations || opts.human)) {
		throw badInput('score either a session (ID) or files (--summaries, --annotations, --human), not both');
	}
	// Checked even when no call is made: a bad number is never accepted silently.
	checkNumbers(opts);
	if (opts.human || opts.annotations) return scoreFiles(opts);
	if (opts.id === undefined && !opts.summaries) {
		throw badInput(
			'nothing to score; give a session ID, --summaries FILE [--annotations FILE], or --human FILE',
		);
	}
	// Checked even when nothing needs annotating, so a bad address is never accepted silently.
	if (opts.baseUrl)
		checkBaseUrl(
			opts.baseUrl,
			'--base-url',
			keyVariable(opts.provider ?? defaultProvider(opts.env ?? process.env, opts.baseUrl)),
		);
	const sessionsDir = opts.sessionsDir ?? resolveSessionsDir(null, opts.env);
	if (opts.id !== undefined) {
		await refuseAwaitedBatches(sessionsDir, opts.id, opts.abandonBatches === true);
		const session = await Session.open(sessionsDir, opts.id);
		session.continueWith = scoreAgain(session);
		try {
			return await scoreStored(session, opts);
		} finally {
			await session.close();
		}
	}
	// A new collection: everything that can fail on bad input or a missing key fails before it exists.
	const texts = await readDataFile(opts.summaries!, convertSummaries, '--summaries');
	const file = basename(opts.summaries!);
	if (texts.size === 0) throw badInput(`--summaries ${opts.summaries}: the file holds no summaries`);
	const summaries: ScoredSummary[] = [...texts].map(([book, text], i) => ({
		id: `s${i}`,
		book,
		text,
		node: null,
		version: null,
		source: file,
	}));
	await annotatorFor(
		{ summaries, annotations: [] },
		summaries.map((s) => s.id),
		opts,
		'; or score annotations you have with --annotations FILE',
	);
	const session = await Session.createCollection(sessionsDir, {
		title: basename(file, extname(file)),
		sources: [resolve(opts.summaries!)],
		summaries,
		annotations: [],
		judgments: [],
		runs: [],
	});
	output(opts.stderr ?? process.stderr).line(
		`new collection session ${session.id} (${summaries.length} summaries from ${file}); continue an interrupted scoring with: ${scoreAgain(session)}`,
	);
	try {
		return await scoreStored(session, opts);
	} finally {
		await session.close();
	}
}

function checkNumbers(opts: ScoreOptions): void {
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

interface Chosen {
	plans: SummaryPlan[];
	/** The model that annotates what is missing and asks again what was unreadable, or null when nothing is. */
	annotator: { provider: ProviderName; model: string } | null;
	/** Why sentences with unreadable answers are not asked again now, or null. */
	unasked: string | null;
}

const toAsk = (p: SummaryPlan): number[] => [...p.missing, ...p.unreadable];

/** Which verdicts score each summary and which model (if any) must annotate first. */
function choose(
	data: Pick<SessionData, 'summaries' | 'annotations'>,
	ids: readonly ScoredSummary['id'][],
	opts: ScoreOptions,
): Chosen {
	const env = opts.env ?? process.env;
	const explicit = opts.provider !== undefined || opts.model !== undefined;
	const own =
		opts.ownModel && (opts.provider === undefined || opts.provider === opts.ownModel.provider)
			? opts.ownModel
			: null;
	const provider = opts.provider ?? own?.provider ?? defaultProvider(env, opts.baseUrl);
	const named = `${provider}/${opts.model ?? own?.model ?? defaultModel(provider)}`;
	const requested = explicit ? named : null;
	const fallback = requested ?? sessionAnnotator(data.annotations, named);
	const plans = ids.map((id) =>
		planSummary(
			data.summaries.find((s) => s.id === id)!,
			data.annotations,
			{ requested, fallback },
		),
	);
	if (plans.every((p) => toAsk(p).length === 0)) return { plans, annotator: null, unasked: null };
	const slash = fallback.indexOf('/');
	const name = fallback.slice(0, slash);
	if (name !== 'openai' && name !== 'anthropic' && name !== 'extractive') {
		const fix = 'name a model with --provider and --model';
		if (plans.every((p) => p.missing.length === 0))
			return { plans, annotator: null, unasked: `${fallback} cannot be called by booook: ${fix} and run` };
		throw badInput(`this session's annotations were made by ${fallback}, which booook cannot call; ${fix}`);
	}
	return { plans, annotator: { provider: name, model: fallback.slice(slash + 1) }, unasked: null };
}

const KEY_VARS = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' } as const;

/**
 * The annotator for what is missing, or null when nothing is. A missing key or the extractive
 * baseline (which cannot read a prompt) is a one-line error saying what to set, raised before any
 * session is created or changed.
 */
async function annotatorFor(
	data: Pick<SessionData, 'summaries' | 'annotations'>,
	ids: readonly ScoredSummary['id'][],
	opts: ScoreOptions,
	hint = '',
) {
	const chosen = choose(data, ids, opts);
	if (chosen.annotator === null) return { chosen, setup: null };
	const { provider, model } = chosen.annotator;
	const sentences = chosen.plans.reduce((n, p) => n + toAsk(p).length, 0);
	const env = opts.env ?? process.env;
	// Unreadable answers alone do not stop a scoring that cannot call a model: it scores the verdicts
	// it has, as before they were asked again, and says what would ask them again.
	const unreadableOnly = chosen.plans.every((p) => p.missing.length === 0);
	if (unreadableOnly && provider === 'extractive')
		return {
			chosen: {
				...chosen,
				annotator: null,
				unasked: 'pass --provider openai|anthropic with its key set and run',
			},
			setup: null,
		};
	if (unreadableOnly && provider !== 'extractive' && !env[KEY_VARS[provider]]?.trim())
		return {
			chosen: { ...chosen, annotator: null, unasked: `set ${KEY_VARS[provider]} and run` },
			setup: null,
		};
	if (provider === 'extractive') {
		// Named (--provider extractive), the key is not what is missing; chosen for want of a key, it is.
		const fix =
			opts.provider === 'extractive'
				? 'pass --provider openai or anthropic'
				: 'set OPENAI_API_KEY (or ANTHROPIC_API_KEY), or pass --provider openai|anthropic with that key set';
		throw badInput(
			`annotating ${sentences} sentences needs an LLM, and the extractive baseline cannot read a prompt: ${fix} (--base-url for a compatible server)${hint}`,
		);
	}
	if (!env[KEY_VARS[provider]]?.trim()) {
		throw badInput(
			`annotating ${sentences} sentences with ${provider}/${model} needs ${KEY_VARS[provider]}: export it, or choose another model with --provider and --model${hint}`,
		);
	}
	const templates = await loadTemplates(opts.prompts ?? null);
	const prices = loadPrices(opts.prices, env);
	const relay: { annotator: Annotator | null } = { annotator: null };
	const llm = createProvider({
		provider,
		model,
		// The run's server goes with the run's model, unless another address is given.
		baseUrl:
			opts.baseUrl ??
			(opts.ownModel && opts.ownModel.provider === provider && opts.ownModel.model === model
				? opts.ownModel.baseUrl
				: null),
		streamTimeoutMs: DEFAULTS.streamTimeout * 1000,
		env,
		onRetry: (reason, request) => relay.annotator?.streamRetried(reason, request),
		...opts.account,
	});
	const costOf = (usage: Usage) => callCost(prices, model, usage, provider).cost;
	return { chosen, setup: { llm, templates, costOf, relay } };
}

/** The model a run was made with, and its server: the default annotator of its summary (none for the baseline). */
function runModel(data: BookSessionData): ScoreOptions['ownModel'] {
	const { provider, model, baseUrl } = data.run.config;
	return provider === 'extractive' ? undefined : { provider, model, baseUrl };
}

async function scoreStored<D extends SessionData>(session: Session<D>, opts: ScoreOptions): Promise<number> {
	const stderr = opts.stderr ?? process.stderr;
	const { data } = session;
	const ids = scoredSummaries(data);
	const ownModel = data.kind === 'book' ? runModel(data as BookSessionData) : undefined;
	const { chosen, setup } = await annotatorFor(data, ids, { ownModel, ...opts });
	let totals: AnnotateTotals | null = null;
	if (setup) {
		const annotator = newAnnotator(session, chosen, setup, {
			...opts,
			concurrency: opts.concurrency ?? DEFAULTS.concurrency,
		});
		annotator.on(progressReporter(stderr));
		const status = await cancelOnSignal(
			() => annotator.cancel(),
			() => annotator.start(),
		);
		if (status === 'cancelled') {
			output(stderr).line(
				`interrupted; the annotations so far are saved. Continue with: ${scoreAgain(session)}`,
			);
			return 130;
		}
		if (status === 'failed') {
			output(stderr).text(
				`annotating failed: ${annotator.error ?? 'unknown error'}\nFix the cause, then continue with: ${scoreAgain(session)}\n`,
			);
			return 1;
		}
		totals = annotator.totals;
	} else {
		// Pinning the final summary is the only change; it is kept so annotations can refer to it.
		await session.save();
	}
	// The plans name each summary's verdict source; the verdicts are read afresh from what is stored now.
	const score = scoreSession(data.summaries, data.annotations, chosen.plans);
	report(
		score,
		{
			session: session.id,
			totals,
			again: `${chosen.unasked ?? 'run'} ${scoreAgain(session)} again to ask again`,
		},
		opts,
	);
	return 0;
}

/** The command that continues scoring `session`, naming its sessions folder when it is not the default. */
function scoreAgain(session: { id: string; path: string }): string {
	return commandLine(`score ${session.id}${sessionsDirArg(dirname(session.path))}`);
}

const sourceName = (s: VerdictSource): string =>
	s.kind === 'model' ? s.annotator : `imported from ${s.file}`;

function systemJson(system: SystemScore, texts: readonly string[]) {
	return {
		booookscore: system.score,
		summaries: system.scored,
		sentences: system.sentences,
		confusing: system.confusing,
		parse_failures: system.failures,
		avg_tokens: texts.length ? texts.reduce((s, t) => s + countTokens(t), 0) / texts.length : 0,
		types: system.types,
		books: Object.fromEntries(
			[...system.perBook].map(([book, s]) => [book, s.score === null ? null : 100 * s.score]),
		),
	};
}

function distributionLines(system: SystemScore): string[] {
	return [
		'error types per 100 sentences:',
		...LABELS.map((l) => `  ${l.padEnd(18)} ${system.distribution[l].toFixed(2)}  (${system.types[l]})`),
	];
}

function headline(label: string, r: ReturnType<typeof systemJson>): string {
	return `${label} ${r.booookscore === null ? 'n/a' : r.booookscore.toFixed(1)} over ${r.summaries} summaries (${r.sentences} sentences, ${r.confusing} confusing, ${r.parse_failures} unparsed); average ${r.avg_tokens.toFixed(1)} tokens per summary`;
}

/** `again`: how to ask the model again about sentences whose answers could not be read. */
function report(
	score: SessionScore,
	extra: { session: string; totals: AnnotateTotals | null; again: string },
	opts: ScoreOptions,
): void {
	const stdout = output(opts.stdout ?? process.stdout);
	const stderr = output(opts.stderr ?? process.stderr);
	const texts = score.entries.map((e) => e.summary.text);
	const main = systemJson(score.system, texts);
	const human = score.human ? systemJson(score.human, texts) : null;
	const t = extra.totals;
	const annotators = [...new Set(score.entries.map((e) => sourceName(e.source)))];
	if (opts.json) {
		const out = {
			...main,
			session: extra.session,
			annotators,
			missing: score.missing,
			calls: t?.calls ?? 0,
			cached_tokens: t?.cached ?? 0,
			cost: t?.cost ?? 0,
			saved: t?.saved ?? 0,
			...(human ? { human } : {}),
		};
		stdout.json(out);
	} else {
		const lines = [headline('BooookScore', main), `annotations: ${annotators.join(', ')}`];
		if (human) lines.push(headline('from human annotations:', human));
		if (score.entries.length > 1)
			lines.push(
				'per book:',
				...score.entries.map(
					(e) => `  ${e.score.score === null ? '  n/a' : points(e.score.score).padStart(5)}  ${e.book}`,
				),
			);
		lines.push(...distributionLines(score.system));
		if (t && t.calls > 0) {
			lines.push(
				`${t.calls} calls: ${formatInt(t.input)} input tokens (${formatInt(t.cached)} from the prompt cache), ${formatInt(t.output)} output, ${usd(t.cost)} (the cache saved ${usd(t.saved)})`,
			);
		}
		stdout.line(lines.join('\n'));
	}
	const failures = score.entries.flatMap((e) => e.failures.map((f) => ({ book: e.book, ...f })));
	if (failures.length > 0) {
		stderr.line(
			`warning: ${failures.length} sentence${failures.length === 1 ? '' : 's'} had no readable answer after every retry and ${failures.length === 1 ? 'is' : 'are'} left out of the score (${extra.again}):`,
		);
		for (const f of failures) stderr.line(`  ${f.book}, sentence ${f.sentence + 1}: ${f.reason}`);
	}
	if (score.missing > 0)
		stderr.line(`warning: ${score.missing} sentences have no annotation and are left out of the score`);
}

/** The authors' files, scored without any model call (the paper's released annotations). */
async function scoreFiles(opts: ScoreOptions): Promise<number> {
	const stdout = output(opts.stdout ?? process.stdout);
	const stderr = output(opts.stderr ?? process.stderr);
	let system: SystemScore;
	let texts: string[];
	const notes: string[] = [];
	let extra = {};
	if (opts.human) {
		if (opts.summaries || opts.annotations)
			throw badInput(
				'--human scores the summaries inside that file; leave out --summaries and --annotations',
			);
		const human = await readDataFile(opts.human, convertHumanAnnotations, '--human');
		system = scoreSystem(new Map([...human].map(([book, h]) => [book, scoreHumanSummary(h)] as const)));
		texts = [...human.values()].map((h) => h.summary);
	} else if (opts.summaries && opts.annotations) {
		const summaries = await readDataFile(opts.summaries, convertSummaries, '--summaries');
		const annotations = await readDataFile(opts.annotations, convertModelAnnotations, '--annotations');
		const released = scoreReleased(summaries, annotations);
		system = released.system;
		texts = [...summaries.values()];
		const unmatched = [...released.unmatched.values()].reduce((s, u) => s + u.length, 0);
		extra = { not_in_summary: unmatched };
		if (unmatched > 0)
			notes.push(
				`${unmatched} annotated sentences are not in their summaries (annotated before the summaries were cleaned); they count as confusing, as in the authors' script`,
			);
		if (released.orphans.length > 0)
			notes.push(`${released.orphans.length} annotated books have no summary and were left out`);
	} else {
		throw badInput('--annotations scores the summaries of --summaries FILE; give both');
	}
	const result = { ...systemJson(system, texts), ...extra };
	if (opts.json) stdout.json(result);
	else stdout.line([headline('BooookScore', result), ...distributionLines(system)].join('\n'));
	for (const note of notes) stderr.line(`note: ${note}`);
	return 0;
}

type Setup = NonNullable<Awaited<ReturnType<typeof annotatorFor>>['setup']>;

/** The annotator of every verdict `chosen` misses, wired to its provider's retries. */
function newAnnotator(
	session: Session<SessionData>,
	chosen: Chosen,
	setup: Setup,
	opts: Pick<ScoreOptions, 'batchSize'> & { concurrency: number; queue?: PQueue; batch?: BatchLane },
): Annotator {
	const annotator = new Annotator({
		store: session,
		provider: setup.llm,
		templates: setup.templates,
		work: chosen.plans
			.filter((p) => toAsk(p).length > 0)
			.map((p) => ({ summary: p.summary, sentences: toAsk(p) })),
		batchSize: opts.batchSize ?? null,
		concurrency: opts.concurrency,
		queue: opts.queue,
		batch: opts.batch,
		costOf: setup.costOf,
	});
	setup.relay.annotator = annotator;
	return annotator;
}

export interface BookScoring {
	/** The run's final summary, pinned. */
	summary: ScoredSummary['id'];
	plan: SummaryPlan;
	/** Annotates the sentences without a verdict; null when every one has one (nothing to spend). */
	annotator: Annotator | null;
}

/**
 * What `booook score ID` does to a book session before it annotates, for the terminal app and
 * `booook study`: pins the final summary (saved at once) and sets up the annotator of its missing
 * verdicts — the run's own model when it is an LLM, else whichever API key is set, unless
 * `provider`/`model` name one. Throws the same one-line errors as `booook score ID`.
 */
export async function bookScoring(
	session: Session<BookSessionData>,
	opts: Pick<
		ScoreOptions,
		'env' | 'prices' | 'prompts' | 'concurrency' | 'batchSize' | 'provider' | 'model' | 'baseUrl' | 'account'
	> & { queue?: PQueue; batch?: BatchLane },
): Promise<BookScoring> {
	const { data } = session;
	const id = pinFinalSummary(data);
	const { chosen, setup } = await annotatorFor(data, [id], {
		...opts,
		ownModel: runModel(data),
		json: false,
	});
	await session.save();
	const annotator = setup
		? newAnnotator(session, chosen, setup, {
				...opts,
				concurrency: opts.concurrency ?? data.run.config.concurrency,
			})
		: null;
	return { summary: id, plan: chosen.plans[0]!, annotator };
}

/**
 * BooookScore of a run's final summary for the terminal app: pins the summary, sets up the
 * annotator (the run's own model when it is an LLM, else whichever API key is set) and presents
 * both as the score screen reads them. Throws the same one-line errors as `booook score ID`.
 */
export async function liveScoring(
	session: Session<BookSessionData>,
	opts: Pick<ScoreOptions, 'env' | 'prices' | 'prompts' | 'concurrency' | 'batchSize' | 'account'>,
): Promise<ScoreControls> {
	const { data } = session;
	const { summary: id, plan, annotator } = await bookScoring(session, opts);
	const summary = data.summaries.find((s) => s.id === id)!;
	const rows = sentenceRows(summary, plan.source);
	const listeners = new Set<() => void>();
	const started = Date.now();
	let line = initialScoreStatus(annotator !== null);
	annotator?.on((event) => {
		line = scoreStatus(line, event, {
			seconds: (Date.now() - started) / 1000,
			now: Date.now(),
			continueWith: scoreAgain(session),
		});
		for (const l of listeners) l();
	});
	return {
		book: summary.book,
		text: summary.text,
		annotator: sourceName(plan.source),
		sentences: () => rows(data.annotations),
		score: () => scoreSession(data.summaries, data.annotations, [plan]).system.score,
		status: () => line,
		start: async () => {
			await annotator?.start();
		},
		cancel: () => annotator?.cancel(),
		onChange: (listener) => {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
	};
}
