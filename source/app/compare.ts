import { createHash } from 'node:crypto';
import { badInput } from '../errors.ts';
import { loadPrices } from '../llm/prices.ts';
import { flag, joined, next, said, shellWord } from '../program.ts';
import {
	complete,
	judgmentsOf,
	makePairs,
	pairsOf,
	standingRecords,
	storedChoice,
	type Assignment,
	type CompareRecord,
	type Contender,
	type Criterion,
	type Pair,
	type PairJudgment,
} from '../score/compare.ts';
import { preferenceResults, type PreferenceResults } from '../score/preference.ts';
import { assignmentWords } from '../format/compare.ts';
import { buildReport } from '../score/report.ts';
import { currentSummaries } from '../score/session-score.ts';
import { ComparisonStore, type ComparisonDefinition, type ComparisonSnapshot } from '../store/comparison.ts';
import { Session, type SessionData } from '../store/session.ts';
import { readSessions } from '../store/list.ts';
import { activeVersion, findNode } from '../summarize/graph.ts';
import { planStudy, readStudy } from './study-plan.ts';
import { Watched } from './watched.ts';
import { judgeComparison, type CompareJudgeResult } from '../engine/compare-judge.ts';
import { loadTemplates } from '../prompts/load.ts';
import { passClient, passModel, type PassOptions } from './model-client.ts';
import { DEFAULTS, sessionsDirArg } from '../config.ts';

/**
 * `booook compare`: a blind side-by-side comparison of finished summaries of the same book (the
 * paper's Table 4), over sessions, a study's cells or imported summaries. What is compared is
 * fixed when the comparison is made (store/comparison.ts); a person's walk over their pairs saves
 * every answer as it is given; the results read the judgments and the sessions' BooookScores.
 */

/** Which comparison: made from sessions or a study file the first time, found by name after. */
export interface CompareTarget {
	/** Session ids, or one study file; none: continue the comparison `name`. */
	sources: readonly string[];
	name?: string;
	seed: number;
	/** Who judges which pairs (given when the comparison is made; checked against it after). */
	annotators?: readonly string[];
	overlap?: number;
}

/** Opens (making it the first time) the comparison a command names, for this process alone. */
export async function openComparison(dir: string, target: CompareTarget): Promise<ComparisonStore> {
	if (target.sources.length === 0) {
		if (!target.name)
			throw badInput(
				said`name the sessions to compare (${next('compare', 'ID1 ID2 …')}), a study file, or the comparison to continue with ${flag('--name', 'NAME')}`,
			);
		const store = await ComparisonStore.open(dir, target.name);
		return checkAssignment(store, target);
	}
	const made = await gather(dir, target.sources);
	const name = target.name ?? made.study ?? defaultName(made.contenders.map((c) => c.session));
	const existing = await ComparisonStore.peek(dir, name);
	if (existing) {
		const had = new Set(existing.definition.contenders.map((c) => c.session));
		const now = new Set(made.contenders.map((c) => c.session));
		if (had.size !== now.size || [...now].some((s) => !had.has(s)))
			throw badInput(
				joined(
					said`comparison "${name}" already exists over other sessions (${[...had].join(', ')}); give another `,
					said`${flag('--name')}, or continue it with: ${next('compare', `--name ${name}${sessionsDirArg(dir)}`)}`,
				),
			);
		return checkAssignment(await ComparisonStore.open(dir, name), target);
	}
	const pairs = makePairs(made.contenders, target.seed);
	if (pairs.length === 0)
		throw badInput(
			'no two of these summaries are of the same book; compare needs two finished summaries of one ' +
				'book or more (e.g. an incremental and a hierarchical run of it)',
		);
	const definition: ComparisonDefinition = {
		schema: 1,
		name,
		createdAt: new Date().toISOString(),
		seed: target.seed,
		study: made.study,
		assignment: assignmentOf(target),
		contenders: made.contenders,
		pairs,
	};
	return ComparisonStore.create(dir, definition);
}

function assignmentOf(target: CompareTarget): Assignment {
	if (!target.annotators || target.annotators.length === 0) {
		if (target.overlap !== undefined)
			throw badInput(
				said`${flag('--overlap')} is for pairs split between ${flag('--annotators')}; name them too (${flag('--annotators', 'alice,bob')})`,
			);
		return { kind: 'all' };
	}
	const annotators = [...new Set(target.annotators.map((a) => a.trim()))];
	if (annotators.some((a) => a === ''))
		throw badInput(
			said`${flag('--annotators')}: a name is empty; give names separated by commas (alice,bob)`,
		);
	return { kind: 'split', annotators, overlap: target.overlap ?? 0 };
}

/**
 * The name of the comparison a command means, without making it: `--name`, else the study's name
 * (a study file), else the one made from the session ids.
 */
export async function comparisonNameFor(target: Pick<CompareTarget, 'sources' | 'name'>): Promise<string> {
	if (target.name) return target.name;
	if (target.sources.length === 0)
		throw badInput(said`name the comparison with ${flag('--name', 'NAME')}, or the sessions it compares`);
	if (isStudySource(target.sources)) return (await readStudy(target.sources[0]!)).name;
	return defaultName(target.sources);
}

function isStudySource(sources: readonly string[]): boolean {
	return sources.length === 1 && /\.(?:json|ya?ml)$/iu.test(sources[0]!);
}

/** An assignment given again must be the one the comparison was made with: pairs already judged rest on it. */
async function checkAssignment(store: ComparisonStore, target: CompareTarget): Promise<ComparisonStore> {
	if (target.annotators === undefined && target.overlap === undefined) return store;
	const had = JSON.stringify(store.definition.assignment);
	let now: string;
	try {
		now = JSON.stringify(assignmentOf(target));
	} catch (error) {
		await store.close();
		throw error;
	}
	if (had === now) return store;
	await store.close();
	throw badInput(
		joined(
			said`comparison "${store.definition.name}" was made with ${assignmentWords(store.definition.assignment)}; leave `,
			said`out ${flag('--annotators')} and ${flag('--overlap')} to continue it, or make a new one with ${flag('--name')}`,
		),
	);
}

/** A name made from the sessions, so the same command continues the same comparison. */
function defaultName(sessions: readonly string[]): string {
	const hash = createHash('sha256')
		.update([...new Set(sessions)].sort().join('\n'))
		.digest('hex');
	return `compare-${hash.slice(0, 8)}`;
}

/** The summaries of sessions (or of a study file's cells), each refused with its reason when it is not finished. */
async function gather(
	dir: string,
	sources: readonly string[],
): Promise<{ contenders: Contender[]; study: string | null }> {
	let ids = [...sources];
	let study: string | null = null;
	if (isStudySource(sources)) {
		const plan = await planStudy(sources[0]!, loadPrices());
		study = plan.spec.name;
		const found = await Promise.all(
			plan.cells.map((c) =>
				Session.snapshot(dir, c.sessionId).then(
					(read) => (read.data.kind === 'book' && read.data.run.status === 'done' ? c.sessionId : null),
					() => null,
				),
			),
		);
		ids = found.filter((id): id is string => id !== null);
		if (ids.length < 2)
			throw badInput([
				`study "${study}" has ${ids.length} finished cell${ids.length === 1 ? '' : 's'} in ${dir}; run it first with: `,
				next('study', `${shellWord(sources[0]!)}${sessionsDirArg(dir)}`),
			]);
	}
	const contenders: Contender[] = [];
	for (const id of new Set(ids)) {
		const { data } = await Session.snapshot(dir, id);
		for (const c of contendersOf(dir, data)) contenders.push({ ...c, key: `c${contenders.length}` });
	}
	return { contenders, study };
}

/** A session's summaries to compare: a run's final summary (it must be finished), a collection's summaries. */
function contendersOf(dir: string, data: SessionData): Omit<Contender, 'key'>[] {
	if (data.kind === 'book') {
		const { run } = data;
		const root = run.root === null ? undefined : findNode(run, run.root);
		const version = root ? activeVersion(root) : null;
		if (run.status !== 'done' || !root || !version)
			throw badInput(
				said`session "${data.id}" has no finished summary (its run is ${run.status}); finish it with: ${next('resume', `${data.id}${sessionsDirArg(dir)}`)}`,
			);
		return [
			{
				session: data.id,
				summary: null,
				node: root.id,
				version: root.active,
				book: data.book.title,
				bookKey: `sha256:${data.book.sha256}`,
				// An imported summary's "run" was made elsewhere: its method and model are not known.
				method: run.imported ? null : run.config.method,
				provider: run.imported ? null : run.config.provider,
				model: run.imported ? null : run.config.model,
				text: version.text,
			},
		];
	}
	return currentSummaries(data.summaries).map((s) => {
		const run = data.runs?.find((r) => r.book === s.book && r.source === s.source);
		return {
			session: data.id,
			summary: s.id,
			node: null,
			version: null,
			book: s.book,
			bookKey: `title:${s.book.trim().toLowerCase()}`,
			method: run?.method ?? null,
			provider: null,
			model: s.source,
			text: s.text,
		};
	});
}

/**
 * One annotator's walk over their pairs: every answer, note and undo is appended to the
 * comparison's judgments before the promise resolves. What the screen shows of a pair is blind
 * until the pair is judged on every criterion (see `reveal`).
 */
export class CompareWalk extends Watched {
	readonly pairs: readonly Pair[];
	readonly #byKey: ReadonlyMap<string, Contender>;

	constructor(
		private readonly store: ComparisonStore,
		readonly annotator: string,
		private readonly now: () => Date = () => new Date(),
	) {
		super();
		const { definition } = store;
		const mine = pairsOf(definition.pairs, definition.assignment, annotator);
		if (mine === null)
			throw badInput(
				joined(
					said`annotator "${annotator}" has no pairs in comparison "${definition.name}", made with `,
					said`${assignmentWords(definition.assignment)}; give one of those names with ${flag('--annotator')}`,
				),
			);
		this.pairs = mine;
		this.#byKey = new Map(definition.contenders.map((c) => [c.key, c]));
	}

	get name(): string {
		return this.store.definition.name;
	}

	contender(key: string): Contender {
		return this.#byKey.get(key)!;
	}

	/** The book a pair is of (shown: the annotator knows the book, not who summarized it). */
	book(pair: Pair): string {
		return this.contender(pair.x).book;
	}

	/** This annotator's judgment of each pair, as it stands. */
	judgments(): ReadonlyMap<string, PairJudgment> {
		return judgmentsOf(this.store.records).get(this.annotator) ?? new Map();
	}

	/** Who made the two summaries, once the pair is judged (null before: the pair is blind). */
	reveal(pair: Pair): { x: Contender; y: Contender } | null {
		return complete(this.judgments().get(pair.id))
			? { x: this.contender(pair.x), y: this.contender(pair.y) }
			: null;
	}

	/** The pair and criterion of this annotator's latest standing answer or note (what undo takes back). */
	latest(): { pair: string; criterion: Criterion | null } | null {
		const mine = standingRecords(this.store.records).get(this.annotator) ?? [];
		const last = mine.at(-1);
		if (!last) return null;
		return {
			pair: last.pair,
			criterion: last.kind === 'verdict' ? (Object.keys(last.choices)[0] as Criterion) : null,
		};
	}

	/** The answer to one criterion of a pair, as the screen gave it (the first or second summary shown, or a tie). */
	async choose(pair: Pair, criterion: Criterion, shown: 'first' | 'second' | 'tie'): Promise<void> {
		await this.#record({
			kind: 'verdict',
			at: this.now().toISOString(),
			annotator: this.annotator,
			origin: 'human',
			pair: pair.id,
			choices: { [criterion]: storedChoice(pair, shown) },
		});
	}

	async note(pair: Pair, note: string | null): Promise<void> {
		await this.#record({
			kind: 'note',
			at: this.now().toISOString(),
			annotator: this.annotator,
			pair: pair.id,
			note,
		});
	}

	/** Takes back this annotator's latest answer or note; resolves what it was, or null when there was none. */
	async undo(): Promise<{ pair: string; criterion: Criterion | null } | null> {
		const latest = this.latest();
		if (!latest) return null;
		await this.#record({ kind: 'undo', at: this.now().toISOString(), annotator: this.annotator });
		return latest;
	}

	/** Pairs judged on every criterion, of this annotator's. */
	progress(): { judged: number; total: number } {
		const mine = this.judgments();
		return { judged: this.pairs.filter((p) => complete(mine.get(p.id))).length, total: this.pairs.length };
	}

	async #record(record: CompareRecord): Promise<void> {
		await this.store.record(record);
		this.changed();
	}
}

/** The BooookScore (percent) of each summary compared, from its session as it stands; null where it is not scored. */
export async function contenderScores(
	dir: string,
	contenders: readonly Contender[],
): Promise<Map<string, number | null>> {
	const reports = new Map<
		string,
		Promise<{ data: SessionData; books: ReturnType<typeof buildReport>['books'] } | null>
	>();
	const reportOf = (id: string) => {
		if (!reports.has(id))
			reports.set(
				id,
				Session.snapshot(dir, id).then(
					({ data }) => ({ data, books: buildReport(data, { seed: 0, resamples: 1 }).books }),
					// A session deleted since: its summaries have no score to read.
					() => null,
				),
			);
		return reports.get(id)!;
	};
	const out = new Map<string, number | null>();
	for (const c of contenders) {
		const read = await reportOf(c.session);
		const summary =
			c.summary ?? read?.data.summaries.find((s) => s.node === c.node && s.version === c.version)?.id ?? null;
		const row = read?.books.find((b) => b.summary === summary);
		out.set(c.key, row?.model?.score ?? null);
	}
	return out;
}

/** A comparison's results, read without its lock (nothing is changed): Table 4 per group, agreement, the correlation. */
export async function comparisonResults(
	dir: string,
	name: string,
	opts: { seed: number; resamples: number },
): Promise<{
	snapshot: ComparisonSnapshot;
	results: PreferenceResults;
	scores: Map<string, number | null>;
	judgments: Map<string, Map<string, PairJudgment>>;
}> {
	const snapshot = await ComparisonStore.peek(dir, name);
	if (!snapshot)
		throw badInput(
			said`there is no comparison "${name}" in ${dir}; make one with: ${next('compare', `ID1 ID2${sessionsDirArg(dir)}`)}`,
		);
	const { definition, records } = snapshot;
	const scores = await contenderScores(dir, definition.contenders);
	const results = preferenceResults({
		contenders: definition.contenders,
		pairs: definition.pairs,
		records,
		scores,
		assigned: (a) => pairsOf(definition.pairs, definition.assignment, a)?.length ?? null,
		seed: opts.seed,
		resamples: opts.resamples,
	});
	return { snapshot, results, scores, judgments: judgmentsOf(records) };
}

/** The comparisons in a sessions folder made over a study's cells. */
export async function studyComparisons(dir: string, study: string): Promise<string[]> {
	const names = await ComparisonStore.list(dir);
	const found = await Promise.all(
		names.map(async (n) =>
			(await ComparisonStore.peek(dir, n).catch(() => null))?.definition.study === study ? n : null,
		),
	);
	return found.filter((n): n is string => n !== null);
}

/**
 * A model as judge of comparison `name` (`compare --model`): refused before anything is opened when
 * it is no LLM or its key is missing; `run` then makes one call per pair not judged by it yet.
 */
export async function compareJudging(
	dir: string,
	name: string,
	opts: Omit<PassOptions, 'id' | 'sessionsDir'>,
): Promise<{
	judge: string;
	run: (signal: AbortSignal) => Promise<CompareJudgeResult & { priced: boolean }>;
}> {
	const env = opts.env ?? process.env;
	const model = passModel(
		{ run: { config: { provider: 'extractive', model: '', baseUrl: null } } },
		opts,
		env,
		{ task: 'judging a comparison', verb: 'judging' },
	);
	const templates = await loadTemplates(opts.prompts ?? null);
	if (!(await ComparisonStore.peek(dir, name)))
		throw badInput(
			said`there is no comparison "${name}" in ${dir}; name the sessions to compare (${next('compare', 'ID1 ID2 … --model M')})`,
		);
	const client = passClient(model, { prices: opts.prices, env, account: opts.account });
	return {
		judge: `${model.provider}/${model.model}`,
		run: async (signal) => {
			const store = await ComparisonStore.open(dir, name);
			try {
				const result = await judgeComparison({
					store,
					template: templates['compare-judge'],
					provider: client.provider,
					costOf: client.costOf,
					concurrency: opts.concurrency ?? DEFAULTS.concurrency,
					signal,
				});
				return { ...result, priced: client.priced };
			} finally {
				await store.close();
			}
		},
	};
}

/** Session `id` and the other finished runs of its book in the folder (the home screen's C). */
export async function sameBookSessions(dir: string, id: string): Promise<string[]> {
	const { data } = await Session.snapshot(dir, id);
	if (data.kind !== 'book' || data.run.status !== 'done')
		throw badInput(`session "${id}" is not a finished run; choose a finished session to compare`);
	const { sessions } = await readSessions(dir);
	const others = sessions
		.filter(
			(s) =>
				s.kind === 'book' && s.id !== id && s.run.status === 'done' && s.book.sha256 === data.book.sha256,
		)
		.map((s) => s.id)
		.sort();
	if (others.length === 0)
		throw badInput(
			said`no other finished session of "${data.book.title}" to compare with; make one with the other method (${next('run', 'BOOK --method inc')} or hier)`,
		);
	return [id, ...others];
}

/** The model that judges a comparison's pairs, as `--provider`, `--model` and the like name it. */
export type ComparisonJudge = Omit<PassOptions, 'id' | 'sessionsDir' | 'env'>;

/**
 * `booook compare --model M`'s judging: the comparison named, made first when its sources are named
 * (a model may judge before any person does), and its judge set up.
 */
export async function comparisonJudging(
	dir: string,
	target: CompareTarget,
	opts: ComparisonJudge & { env?: NodeJS.ProcessEnv },
): Promise<{ name: string } & Awaited<ReturnType<typeof compareJudging>>> {
	const name = await comparisonNameFor(target);
	if (target.sources.length > 0) await (await openComparison(dir, target)).close();
	return { name, ...(await compareJudging(dir, name, opts)) };
}
