import { counted } from '../format/count.ts';
import { basename, dirname, extname, resolve } from 'node:path';
import type PQueue from 'p-queue';
import { DEFAULTS, sessionsDirArg } from '../config.ts';
import type { ProviderName, ScoredSummary } from '../domain.ts';
import { Annotator } from '../engine/annotator.ts';
import { badInput } from '../errors.ts';
import type { BatchLane } from '../llm/batcher.ts';
import { defaultModel, defaultProvider, lacksKey, type AccountLimits } from '../llm/create.ts';
import { flag, joined, next, said, type Next, type Said } from '../program.ts';
import { loadTemplates } from '../prompts/load.ts';
import {
	planSummary,
	sessionAnnotator,
	type SummaryPlan,
	type VerdictSource,
} from '../score/session-score.ts';
import { finalSummaryPin, scoredSummaries, withPin } from '../store/scored-summaries.ts';
import { Session, type BookSessionData, type SessionData, type StateView } from '../store/session.ts';
import { scoreReleased, scoreSystem, type SystemScore } from '../score/booookscore.ts';
import { convertHumanAnnotations, convertModelAnnotations, convertSummaries } from '../score/formats.ts';
import { scoreHumanSummary } from '../score/human.ts';
import { readDataFile } from './data-files.ts';
import { modelClient } from './model-client.ts';
import type { Unasked } from '../format/score.ts';

/**
 * BooookScore of a session: which verdicts score each summary, which model annotates what is
 * missing (and asks again what it answered unreadably), and that annotator, built before any
 * session is created or changed.
 */

/** What a scoring is told: the annotating model as named, its server, prices, prompts and limits. */
export interface ScoringOptions {
	provider?: ProviderName;
	model?: string;
	baseUrl?: string;
	concurrency?: number;
	batchSize?: number;
	prices?: string;
	prompts?: string;
	/** The account's rate limits as the flags (or a study file) state them. */
	account?: AccountLimits;
	env?: NodeJS.ProcessEnv;
	/** The model used when none is named: a run's own (with its server), else the key's default. */
	ownModel?: { provider: ProviderName; model: string; baseUrl: string | null };
}

export interface Chosen {
	plans: SummaryPlan[];
	/** The model that annotates what is missing and asks again what was unreadable, or null when nothing is. */
	annotator: { provider: ProviderName; model: string } | null;
	/** Why sentences with unreadable answers are not asked again now, or null. */
	unasked: Unasked | null;
}

const toAsk = (p: SummaryPlan): number[] => [...p.missing, ...p.unreadable];

/** Which verdicts score each summary and which model (if any) must annotate first. */
function choose(
	data: StateView<Pick<SessionData, 'summaries' | 'annotations'>>,
	ids: readonly ScoredSummary['id'][],
	opts: ScoringOptions,
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
		if (plans.every((p) => p.missing.length === 0))
			return { plans, annotator: null, unasked: { why: 'uncallable', annotator: fallback } };
		throw badInput(
			said`this session's annotations were made by ${fallback}, which booook cannot call; name a model with ${flag('--provider')} and ${flag('--model')}`,
		);
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
	data: StateView<Pick<SessionData, 'summaries' | 'annotations'>>,
	ids: readonly ScoredSummary['id'][],
	opts: ScoringOptions,
	hint: Said = '',
) {
	const chosen = choose(data, ids, opts);
	if (chosen.annotator === null) return { chosen, setup: null };
	const { provider, model } = chosen.annotator;
	const sentences = chosen.plans.reduce((n, p) => n + toAsk(p).length, 0);
	const env = opts.env ?? process.env;
	// The run's server goes with the run's model, unless another address is given.
	const baseUrl =
		opts.baseUrl ??
		(opts.ownModel && opts.ownModel.provider === provider && opts.ownModel.model === model
			? opts.ownModel.baseUrl
			: null);
	const keyless = provider !== 'extractive' && lacksKey(provider, baseUrl, env);
	// Unreadable answers alone do not stop a scoring that cannot call a model: it scores the verdicts
	// it has, as before they were asked again, and says what would ask them again.
	const unreadableOnly = chosen.plans.every((p) => p.missing.length === 0);
	if (unreadableOnly && provider === 'extractive')
		return {
			chosen: {
				...chosen,
				annotator: null,
				unasked: { why: 'extractive' } as const,
			},
			setup: null,
		};
	if (unreadableOnly && provider !== 'extractive' && keyless)
		return {
			chosen: {
				...chosen,
				annotator: null,
				unasked: { why: 'no-key', variable: KEY_VARS[provider] } as const,
			},
			setup: null,
		};
	if (provider === 'extractive') {
		// Named (--provider extractive), the key is not what is missing; chosen for want of a key, it is.
		const fix =
			opts.provider === 'extractive'
				? said`pass ${flag('--provider', 'openai')} or anthropic`
				: said`set OPENAI_API_KEY (or ANTHROPIC_API_KEY), or pass ${flag('--provider', 'openai|anthropic')} with that key set`;
		throw badInput(
			joined(
				said`annotating ${counted(sentences, 'sentence')} needs an LLM, and the extractive baseline `,
				said`cannot read a prompt: ${fix} (${flag('--base-url')} for a compatible server)${hint}`,
			),
		);
	}
	if (keyless) {
		throw badInput(
			joined(
				said`annotating ${counted(sentences, 'sentence')} with ${provider}/${model} needs ${KEY_VARS[provider]}: `,
				said`export it, or choose another model with ${flag('--provider')} and ${flag('--model')}${hint}`,
			),
		);
	}
	const templates = await loadTemplates(opts.prompts ?? null);
	const client = modelClient({
		provider,
		model,
		baseUrl,
		streamTimeoutMs: DEFAULTS.streamTimeout * 1000,
		prices: opts.prices,
		env,
		...opts.account,
	});
	return { chosen, setup: { ...client, templates } };
}

/** The model a run was made with, and its server: the default annotator of its summary (none for the baseline). */
function runModel(data: StateView<BookSessionData>): ScoringOptions['ownModel'] {
	const { provider, model, baseUrl } = data.run.config;
	return provider === 'extractive' ? undefined : { provider, model, baseUrl };
}

type Setup = NonNullable<Awaited<ReturnType<typeof annotatorFor>>['setup']>;

/** The annotator of every verdict `chosen` misses, on its own model client. */
function newAnnotator(
	session: Session<SessionData>,
	chosen: Chosen,
	setup: Setup,
	opts: Pick<ScoringOptions, 'batchSize'> & { concurrency: number; queue?: PQueue; batch?: BatchLane },
): Annotator {
	return new Annotator({
		store: session,
		provider: setup.provider,
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
}

/** The command that continues scoring `session`, naming its sessions folder when it is not the default. */
export function scoreAgain(session: { id: string; path: string }): Next {
	return next('score', `${session.id}${sessionsDirArg(dirname(session.path))}`);
}

/** Who gave a summary's verdicts, as the score says it. */
export const sourceName = (s: VerdictSource): string =>
	s.kind === 'model' ? s.annotator : `imported from ${s.file}`;

/**
 * `booook score ID`'s work before the score: which verdicts score each of the session's summaries
 * (a run's final summary is pinned), and the annotator of those missing, or null when none can or
 * need be asked (the pinned summary is then saved).
 */
export async function storedScoring(
	session: Session<SessionData>,
	opts: ScoringOptions,
): Promise<{ chosen: Chosen; annotator: Annotator | null }> {
	const { ids, pin } = scoredSummaries(session.data, dirname(session.path));
	// Checked with the pin before it is written: a missing key or a bad model writes nothing.
	const data = withPin(session.data, pin);
	const ownModel = data.kind === 'book' ? runModel(data as BookSessionData) : undefined;
	const { chosen, setup } = await annotatorFor(data, ids, { ownModel, ...opts });
	if (pin) await session.append('summaries', pin);
	if (!setup) return { chosen, annotator: null };
	const annotator = newAnnotator(session, chosen, setup, {
		...opts,
		concurrency: opts.concurrency ?? DEFAULTS.concurrency,
	});
	return { chosen, annotator };
}

/**
 * A new collection session of the summaries in the JSON file at `path` (book -> summary), made only
 * once the annotator of its summaries can be called: a bad file, a missing key or the baseline
 * fails before it exists.
 */
export async function newCollection(sessionsDir: string, path: string, opts: ScoringOptions) {
	const texts = await readDataFile(path, convertSummaries, flag('--summaries'));
	const file = basename(path);
	if (texts.size === 0) throw badInput(said`${flag('--summaries', path)}: the file holds no summaries`);
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
		said`; or score annotations you have with ${flag('--annotations', 'FILE')}`,
	);
	const session = await Session.createCollection(sessionsDir, {
		title: basename(file, extname(file)),
		sources: [resolve(path)],
		summaries,
		annotations: [],
		judgments: [],
		runs: [],
	});
	return { session, file, count: summaries.length };
}

/**
 * BooookScore of the authors' released files, without any model call: their human annotations
 * (`human`), or their summaries with their model annotations. `notes`: what the files held that
 * the score leaves out or counts as the authors' script did.
 */
export async function scoreReleasedFiles(files: {
	human?: string;
	summaries?: string;
	annotations?: string;
}) {
	let system: SystemScore;
	let texts: string[];
	const notes: string[] = [];
	let extra = {};
	if (files.human) {
		if (files.summaries || files.annotations)
			throw badInput(
				said`${flag('--human')} scores the summaries inside that file; leave out ${flag('--summaries')} and ${flag('--annotations')}`,
			);
		const human = await readDataFile(files.human, convertHumanAnnotations, flag('--human'));
		system = scoreSystem(new Map([...human].map(([book, h]) => [book, scoreHumanSummary(h)] as const)));
		texts = [...human.values()].map((h) => h.summary);
	} else if (files.summaries && files.annotations) {
		const summaries = await readDataFile(files.summaries, convertSummaries, flag('--summaries'));
		const annotations = await readDataFile(files.annotations, convertModelAnnotations, flag('--annotations'));
		const released = scoreReleased(summaries, annotations);
		system = released.system;
		texts = [...summaries.values()];
		const unmatched = [...released.unmatched.values()].reduce((s, u) => s + u.length, 0);
		extra = { not_in_summary: unmatched };
		if (unmatched > 0)
			notes.push(
				`${counted(unmatched, 'annotated sentence')} are not in their summaries (annotated before the ` +
					`summaries were cleaned); they count as confusing, as in the authors' script`,
			);
		if (released.orphans.length > 0)
			notes.push(`${counted(released.orphans.length, 'annotated book')} have no summary and were left out`);
	} else {
		throw badInput(
			said`${flag('--annotations')} scores the summaries of ${flag('--summaries', 'FILE')}; give both`,
		);
	}
	return { system, texts, notes, extra };
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
 * `booook study`: pins the final summary (journaled once the annotator is known) and sets up the annotator of its missing
 * verdicts — the run's own model when it is an LLM, else whichever API key is set, unless
 * `provider`/`model` name one. Throws the same one-line errors as `booook score ID`.
 */
export async function bookScoring(
	session: Session<BookSessionData>,
	opts: Omit<ScoringOptions, 'ownModel'> & { queue?: PQueue; batch?: BatchLane },
): Promise<BookScoring> {
	const { id, pin } = finalSummaryPin(session.data, dirname(session.path));
	const data = withPin(session.data, pin);
	const { chosen, setup } = await annotatorFor(data, [id], { ...opts, ownModel: runModel(data) });
	if (pin) await session.append('summaries', pin);
	const annotator = setup
		? newAnnotator(session, chosen, setup, {
				...opts,
				concurrency: opts.concurrency ?? data.run.config.concurrency,
			})
		: null;
	return { summary: id, plan: chosen.plans[0]!, annotator };
}
