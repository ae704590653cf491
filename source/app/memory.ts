import { counted } from '../format/count.ts';
import { noFinalSummary } from '../store/scored-summaries.ts';
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { readBook, type LoadedBook } from '../book/read.ts';
import { DEFAULTS } from '../config.ts';
import type { MemoryQuestion, MemoryScene, NodeRef, Run } from '../domain.ts';
import { answerMemory } from '../engine/memory-reader.ts';
import { writeScenes } from '../engine/scene-writer.ts';
import { badInput } from '../errors.ts';
import type { BatchLane } from '../llm/batcher.ts';
import { callCost, loadPrices } from '../llm/prices.ts';
import { characterNames, nameSubstitution, namesIn, otherBookScene } from '../memory/names.ts';
import { buildQuestions, DEFAULT_CHOICES, type OtherScene } from '../memory/questions.ts';
import { resultsByReader, type ReaderResults, type ResultsOptions } from '../memory/results.ts';
import { nextNumber, SCENE_STRETCH_WORDS, sceneWords, scenePieces } from '../memory/scenes.ts';
import { commandLine } from '../program.ts';
import { loadTemplates } from '../prompts/load.ts';
import type { Templates } from '../summarize/templates.ts';
import { readSessions } from '../store/list.ts';
import { readSessionBook, Session, type BookSessionData } from '../store/session.ts';
import { activeVersion, chunksUnder, findNode } from '../summarize/graph.ts';
import { stepSummaries } from '../summarize/inc.ts';
import type { Totals } from '../summarize/totals.ts';
import type { Span } from '../text/sentences.ts';
import { countTokens } from '../text/tokens.ts';
import { passClient, passModel, type PassModel, type PassOptions } from './model-client.ts';

/**
 * `booook memory ID`: NarrativeXL's read-along questions asked of a run's summaries. A model that
 * sees only a summary (never the book) is asked "In what you have read so far, was there a scene
 * where ...", with true scenes of the book, scenes from parts not read yet (lookahead) and scenes
 * of other books with their names replaced by this book's, and "None of the above".
 */

/** Questions asked of each summary, unless told: an accuracy within ±18 points at worst (95%), a retention curve over all of them. */
export const MEMORY_QUESTIONS = 30;
/** Running summaries of an incremental run asked about besides the final one, unless told. */
export const MEMORY_STEPS = 4;
/** Names of a book taken as its characters, for substituting other books' names (NarrativeXL A.2). */
const NAMES = 20;
const BOOK_EXTENSIONS = new Set(['.txt', '.epub']);

export interface MemoryOptions extends PassOptions {
	/** Questions per summary asked about. */
	questions?: number;
	/** Running summaries of an incremental run asked about besides the final one. */
	steps?: number;
	/** Words of the book per written scene; unset: a hierarchical run's level-0 summaries are its scenes. */
	scenes?: number | null;
	/** A folder of books whose scenes (written by the reader model) are other-book options. */
	distractors?: string | null;
	seed?: number;
	/** Also ask each question with the book's own text of the scene shown: the questions' ceiling. */
	ceiling?: boolean;
	/** The provider batch lane of a study's `"batch"`, made once the session is open; none: calls stream. */
	batch?: (session: Session) => Promise<BatchLane>;
}

/** A summary asked about: the final one, or an incremental run's running summary after a step. */
export interface MemoryTarget {
	node: NodeRef;
	step: number | null;
	readChars: number;
}

/** Another book whose scenes can be wrong options: where they come from and the names to replace. */
interface OtherBook {
	title: string;
	/** `<session>/` for another session's scenes; empty for a book of --distractors, written here. */
	prefix: string;
	scenes: readonly Pick<MemoryScene, 'id' | 'text'>[];
	names: readonly string[];
}

/** The calls a probe would make, and what they would cost: `--plan`, and the first line of a probe. */
export interface MemoryPlan {
	targets: MemoryTarget[];
	scenesToWrite: number;
	questionsToAsk: number;
	calls: number;
	inputTokens: number;
	outputTokens: number;
	cost: number;
	priced: boolean;
}

export interface MemoryProgress {
	stage: 'scenes' | 'answers';
	done: number;
	total: number;
}

export interface MemoryProbeResult {
	status: 'done' | 'cancelled' | 'failed';
	answered: number;
	unreadable: number;
	error: string | null;
	calls: number;
	cost: number;
	/** Targets that got fewer questions than asked, and why. */
	notes: string[];
}

/** A probe set up and its session open: `run` makes the calls; `close()` lets the session go. */
export interface MemoryProbe {
	reader: PassModel;
	plan: MemoryPlan;
	run(signal: AbortSignal, onProgress?: (p: MemoryProgress) => void): Promise<MemoryProbeResult>;
	close(): Promise<void>;
}

/** The summaries of `run` to ask about: the final one and, for an incremental run, `steps` running summaries spread over it. */
function memoryTargets(run: Run, bookChars: number, steps: number): MemoryTarget[] {
	const final: MemoryTarget = { node: run.root!, step: null, readChars: bookChars };
	if (run.config.method !== 'inc' || steps === 0) return [final];
	// The last step's running summary is the final summary (or what the clean step read).
	const running = stepSummaries(run).slice(0, -1);
	const picked = new Set<number>();
	for (let i = 1; i <= steps && running.length > 0; i++)
		picked.add(Math.min(running.length - 1, Math.round((i * running.length) / (steps + 1)) - 1));
	const chosen = [...picked]
		.filter((i) => i >= 0)
		.sort((a, b) => a - b)
		.map((i) => running[i]!);
	return [...chosen.map((s) => ({ node: s.node, step: s.step, readChars: run.chunks[s.step]!.end })), final];
}

/** This book's scenes as the probe reads them: written ones when asked (or incremental), else level-0 summaries. */
function sceneStretchWords(data: BookSessionData, opts: MemoryOptions): number | null {
	return opts.scenes ?? (data.run.config.method === 'inc' ? SCENE_STRETCH_WORDS : null);
}

/** A hierarchical run's level-0 summaries as scenes: the stretch of the book each summarizes. */
function levelZeroScenes(run: Run, title: string, firstId: number): MemoryScene[] {
	const out: MemoryScene[] = [];
	for (const node of run.nodes) {
		const version = activeVersion(node);
		if (node.kind !== 'summarize' || node.level !== 0 || !version || node.status !== 'done') continue;
		const chunks = [...chunksUnder(run, node.id)].map((c) => run.chunks[c]).filter((c) => c !== undefined);
		if (chunks.length === 0) continue;
		out.push({
			id: `s${firstId + out.length}`,
			book: title,
			source: 'node',
			node: node.id,
			start: Math.min(...chunks.map((c) => c.start)),
			end: Math.max(...chunks.map((c) => c.end)),
			text: version.text,
		});
	}
	return out;
}

/** Other sessions' books in the sessions folder, with the scenes they hold (their own scenes, or a hierarchical run's level-0 summaries). */
async function otherSessionBooks(dir: string, self: BookSessionData): Promise<OtherBook[]> {
	const { sessions } = await readSessions(dir);
	const out: OtherBook[] = [];
	const seen = new Set([self.book.sha256]);
	for (const data of sessions) {
		if (data.kind !== 'book' || seen.has(data.book.sha256)) continue;
		const own = (data.memoryScenes ?? []).filter((s) => s.book === data.book.title);
		const scenes =
			own.length > 0
				? own
				: data.run.config.method === 'hier'
					? levelZeroScenes(data.run, data.book.title, 0)
					: [];
		if (scenes.length === 0) continue;
		seen.add(data.book.sha256);
		const text = await readSessionBook(dir, data);
		out.push({
			title: data.book.title,
			prefix: `${data.id}/`,
			scenes,
			names: characterNames(text, NAMES),
		});
	}
	return out;
}

/** The books of a --distractors folder other than this one, read. */
async function distractorBooks(dir: string, self: BookSessionData) {
	let names: string[];
	try {
		names = (await readdir(dir)).filter((n) => BOOK_EXTENSIONS.has(extname(n).toLowerCase())).sort();
	} catch (error) {
		throw badInput(
			`--distractors ${dir}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : 'cannot be read'}; give a folder of .txt or .epub books`,
		);
	}
	const books = await Promise.all(names.map((n) => readBook(join(dir, n))));
	const others = books.filter((b) => b.sha256 !== self.book.sha256);
	if (others.length === 0)
		throw badInput(
			`--distractors ${dir}: no .txt or .epub book other than this session's; give a folder with other books`,
		);
	return others;
}

/**
 * The stretches of a distractor book to write scenes of: evenly spread among those that name no
 * character of this book, as many as the questions can use (each question shows at most `choices`
 * wrong options), so a long book costs no more calls.
 */
function distractorPieces(text: string, words: number, wanted: number, thisNames: readonly string[]) {
	// A stretch naming a character of this book would make a scene that cannot be used: not written.
	const pieces = scenePieces(text, words).filter(
		(p) => namesIn(text.slice(p.start, p.end), thisNames).length === 0,
	);
	if (pieces.length <= wanted) return pieces;
	return Array.from({ length: wanted }, (_, i) => pieces[Math.floor((i * pieces.length) / wanted)]!);
}

/** The question's text of the book for the ceiling check: the true scene's stretch, or (None) the last stretch read that no option shows. */
function ceilingText(question: MemoryQuestion, scenes: readonly MemoryScene[], book: string): string {
	const truth = question.options.find((o) => o.kind === 'true');
	const shown = new Set(question.options.map((o) => o.scene));
	const scene = truth
		? scenes.find((s) => s.id === truth.scene)
		: scenes.filter((s) => s.end <= question.read.chars && !shown.has(s.id)).sort((a, b) => b.end - a.end)[0];
	return scene ? book.slice(scene.start, scene.end) : '';
}

/** Tokens a written scene summary may take (a few sentences), and an answer ("Answer: 3"). */
const SCENE_OUTPUT_TOKENS = 200;
const ANSWER_OUTPUT_TOKENS = 10;

/** Scenes to write of each --distractors book: as many wrong options as the questions can show. */
function distractorWanted(count: number, targets: number, books: number): number {
	return Math.ceil((count * targets * DEFAULT_CHOICES) / Math.max(1, books));
}

/** A probe checked and planned, before its session is locked or a call made. */
interface ProbeSetUp {
	reader: PassModel;
	plan: MemoryPlan;
	words: number | null;
	count: number;
	seed: number;
	targets: MemoryTarget[];
	others: OtherBook[];
	distractors: LoadedBook[];
	/** This book's character names: distractor stretches naming them are not written, other books' names become them. */
	thisNames: string[];
	templates: Templates;
}

/**
 * The probe of session `id`, checked and planned: every refusal (not a run, no final summary, no
 * LLM, no key, no distractors) is made on a read-only copy, before the session is locked or a call made.
 */
async function setUp(opts: MemoryOptions, env: NodeJS.ProcessEnv, planned = false): Promise<ProbeSetUp> {
	const count = opts.questions ?? MEMORY_QUESTIONS;
	const seed = opts.seed ?? 1;
	const { data: snapshot, text: book } = await Session.snapshot(opts.sessionsDir, opts.id);
	if (snapshot.kind !== 'book')
		throw badInput(
			`session "${opts.id}" holds imported summaries without their book: memory questions are made from the book, so a run (${commandLine('run BOOK')})`,
		);
	if (!snapshot.run.root) throw noFinalSummary(opts.id, opts.sessionsDir);
	const reader = passModel(
		snapshot,
		opts,
		env,
		{ task: 'answering memory questions', verb: 'answering' },
		planned,
	);
	const words = sceneStretchWords(snapshot, opts);
	const others = await otherSessionBooks(opts.sessionsDir, snapshot);
	const distractors = opts.distractors ? await distractorBooks(opts.distractors, snapshot) : [];
	if (others.length === 0 && distractors.length === 0)
		throw badInput(
			`memory questions about the final summary need scenes of other books as wrong options, and the sessions folder has none: pass --distractors DIR (a folder of .txt or .epub books), or run a hierarchical summary of another book into ${opts.sessionsDir}`,
		);
	const templates = await loadTemplates(opts.prompts);
	const targets = memoryTargets(snapshot.run, snapshot.book.chars, opts.steps ?? MEMORY_STEPS);
	const thisNames = characterNames(book, NAMES);
	const plan = planOf(snapshot, book, targets, {
		words,
		count,
		seed,
		ceiling: opts.ceiling ?? false,
		distractors,
		thisNames,
		reader,
		templates: { scene: templates['memory-scene'], question: templates['memory-question'] },
		prices: opts.prices,
		env,
	});
	return { reader, plan, words, count, seed, targets, others, distractors, thisNames, templates };
}

/** What a probe of session `id` would make, without locking it or making a call (`--plan`). */
export async function planMemory(opts: MemoryOptions): Promise<{ reader: PassModel; plan: MemoryPlan }> {
	const { reader, plan } = await setUp(opts, opts.env ?? process.env, true);
	return { reader, plan };
}

/** The probe of session `id`, set up and its session open. */
export async function memoryProbe(opts: MemoryOptions): Promise<MemoryProbe> {
	const env = opts.env ?? process.env;
	const { reader, plan, words, count, seed, targets, others, distractors, thisNames, templates } =
		await setUp(opts, env);
	const { provider, costOf } = passClient(reader, { prices: opts.prices, env, account: opts.account });
	const session = await Session.open(opts.sessionsDir, opts.id);
	const data = session.data as BookSessionData;
	const book = await session.bookText();
	const concurrency = opts.concurrency ?? DEFAULTS.concurrency;
	const totals = { calls: 0, cost: 0 };
	const add = (t: Totals) => {
		totals.calls += t.calls;
		totals.cost += t.cost;
	};

	const run = async (signal: AbortSignal, onProgress?: (p: MemoryProgress) => void) => {
		const batch = opts.batch ? await opts.batch(session) : undefined;
		const stopped = (status: 'cancelled' | 'failed', error: string | null) => ({
			status,
			answered: 0,
			unreadable: 0,
			error,
			notes: [],
			...totals,
		});
		// This book's scenes: written by the reader, or a hierarchical run's level-0 summaries pinned.
		const title = data.book.title;
		const ownScenes = () => (data.memoryScenes ?? []).filter((s) => s.book === title);
		/** Scenes of `title`'s stretches not written yet, by the reader; false when stopped. */
		const write = async (title: string, text: string, pieces: readonly Span[], stretch: number) => {
			const written = await writeScenes({
				store: session,
				provider,
				templates,
				book: { title, text },
				pieces,
				words: sceneWords(stretch),
				concurrency,
				batch,
				costOf,
				signal,
				onProgress: (done, total) => onProgress?.({ stage: 'scenes', done, total }),
			});
			add(written.totals);
			return written.status === 'done' ? null : stopped(written.status, written.error);
		};
		if (words !== null) {
			const ended = await write(title, book, scenePieces(book, words), words);
			if (ended) return ended;
		} else if (!ownScenes().some((s) => s.source === 'node')) {
			const first = nextNumber((data.memoryScenes ?? []).map((s) => s.id));
			await session.append('memoryScenes', ...levelZeroScenes(data.run, title, first));
		}
		// Other books' scenes: those of the --distractors folder are written here, once.
		const wanted = distractorWanted(count, targets.length, distractors.length);
		const stretch = words ?? SCENE_STRETCH_WORDS;
		for (const other of distractors) {
			const ended = await write(
				other.title,
				other.text,
				distractorPieces(other.text, stretch, wanted, thisNames),
				stretch,
			);
			if (ended) return ended;
		}
		const otherBooks = [
			...others,
			...distractors.map((b) => ({
				title: b.title,
				prefix: '',
				scenes: (data.memoryScenes ?? []).filter((s) => s.book === b.title),
				names: characterNames(b.text, NAMES),
			})),
		];
		const { questions, notes } = await questionsFor(session, data, targets, otherBooks, thisNames, {
			count,
			seed,
			scenesSource: sceneSource(words),
		});
		const scenes = ownScenes();
		const passes: { shown: 'summary' | 'chunk'; shownFor: (q: MemoryQuestion) => string }[] = [
			{ shown: 'summary', shownFor: (q) => activeVersion(findNode(data.run, q.target.node)!)?.text ?? '' },
			...(opts.ceiling
				? [{ shown: 'chunk' as const, shownFor: (q: MemoryQuestion) => ceilingText(q, scenes, book) }]
				: []),
		];
		let answered = 0;
		let unreadable = 0;
		for (const pass of passes) {
			const result = await answerMemory({
				store: session,
				provider,
				templates,
				questions,
				shownFor: pass.shownFor,
				shown: pass.shown,
				concurrency,
				batch,
				costOf,
				signal,
				onProgress: (done, total) => onProgress?.({ stage: 'answers', done, total }),
			});
			add(result.totals);
			answered += result.answered;
			unreadable += result.unreadable;
			if (result.status !== 'done') return { ...stopped(result.status, result.error), answered, unreadable };
		}
		return {
			status: 'done' as const,
			answered,
			unreadable,
			error: null,
			notes,
			...totals,
		};
	};
	return { reader, plan, run, close: () => session.close() };
}

/**
 * The questions of each target with `seed`: those stored are kept (a resumed probe asks the same
 * questions), the missing ones made and stored before any is asked.
 */
async function questionsFor(
	session: Session,
	data: BookSessionData,
	targets: readonly MemoryTarget[],
	otherBooks: readonly OtherBook[],
	thisNames: readonly string[],
	opts: { count: number; seed: number; scenesSource: MemoryScene['source'] },
): Promise<{ questions: MemoryQuestion[]; notes: string[] }> {
	const others: OtherScene[] = otherBooks.flatMap((other) => {
		const map = nameSubstitution(other.names, thisNames);
		return other.scenes.flatMap((s) => {
			const text = otherBookScene(s.text, other.names, thisNames, map);
			return text === null ? [] : [{ scene: `${other.prefix}${s.id}`, book: other.title, text }];
		});
	});
	const scenes = ownSceneSet(data, opts.scenesSource);
	const out: MemoryQuestion[] = [];
	const short: { target: MemoryTarget; made: number }[] = [];
	for (const target of targets) {
		const stored = storedQuestions(data, target, opts.seed, opts.scenesSource);
		if (stored.length > 0) {
			out.push(...stored);
			continue;
		}
		const made = buildQuestions({
			target,
			scenes,
			others,
			chunks: data.run.chunks,
			bookChars: data.book.chars,
			count: opts.count,
			seed: opts.seed,
			firstId: nextNumber((data.memoryQuestions ?? []).map((q) => q.id)),
		}).map((q) => ({ ...q, scenes: opts.scenesSource }));
		if (made.length > 0) await session.append('memoryQuestions', ...made);
		if (made.length < opts.count) short.push({ target, made: made.length });
		out.push(...made);
	}
	const notes = short.map(
		({ target, made }) =>
			`${made} of ${counted(opts.count, 'question')} could be made of ${target.step === null ? 'the final summary' : `step ${target.step + 1}`}: too few scenes (${scenes.length} of this book, ${others.length} usable of other books, where a scene naming a character of this book is left out); give more books with --distractors`,
	);
	return { questions: out, notes };
}

/** This book's scenes of one source: level-0 summaries (`node`) or scenes written for `--scenes`. */
function ownSceneSet(data: BookSessionData, source: MemoryScene['source']): MemoryScene[] {
	return (data.memoryScenes ?? []).filter((s) => s.book === data.book.title && s.source === source);
}

/**
 * The stored questions a probe reuses for `target`: made with `seed` from this book's scenes of
 * `source`. Questions made of the other set of this book's scenes (level-0 summaries, then
 * --scenes) are another probe's, and are made again. A question stored before its set was kept
 * counts as this set's when its options are all this set's scenes or other books'.
 */
function storedQuestions(
	data: BookSessionData,
	target: MemoryTarget,
	seed: number,
	source: MemoryScene['source'],
): MemoryQuestion[] {
	const ours = new Set(ownSceneSet(data, source).map((s) => s.id));
	const drawnFrom = (q: MemoryQuestion) =>
		q.scenes ?? (q.options.every((o) => o.kind === 'other-book' || ours.has(o.scene)) ? source : null);
	return (data.memoryQuestions ?? []).filter(
		(q) => q.target.node === target.node && q.seed === seed && drawnFrom(q) === source,
	);
}

/** The scene set a probe reads: written scenes with --scenes (or for an incremental run), else level-0 summaries. */
const sceneSource = (words: number | null): MemoryScene['source'] => (words === null ? 'node' : 'written');

/** What a probe would ask and write, and its cost, from what is stored and the texts at hand. */
function planOf(
	data: BookSessionData,
	book: string,
	targets: readonly MemoryTarget[],
	opts: {
		words: number | null;
		count: number;
		seed: number;
		ceiling: boolean;
		distractors: readonly { title: string; text: string }[];
		/** This book's character names (names.ts). */
		thisNames: readonly string[];
		reader: PassModel;
		templates: { scene: string; question: string };
		prices?: string;
		env: NodeJS.ProcessEnv;
	},
): MemoryPlan {
	const written = new Set((data.memoryScenes ?? []).map((s) => `${s.book}:${s.start}:${s.end}`));
	let scenesToWrite = 0;
	let inputTokens = 0;
	const sceneTemplate = countTokens(opts.templates.scene);
	const toWrite = (title: string, text: string, pieces: readonly { start: number; end: number }[]) => {
		for (const p of pieces.filter((p) => !written.has(`${title}:${p.start}:${p.end}`))) {
			scenesToWrite++;
			inputTokens += sceneTemplate + countTokens(text.slice(p.start, p.end));
		}
	};
	if (opts.words !== null) toWrite(data.book.title, book, scenePieces(book, opts.words));
	const wanted = distractorWanted(opts.count, targets.length, opts.distractors.length);
	for (const other of opts.distractors)
		toWrite(
			other.title,
			other.text,
			distractorPieces(other.text, opts.words ?? SCENE_STRETCH_WORDS, wanted, opts.thisNames),
		);

	// An option is a scene summary: the stored ones' mean length, else the written scene's limit.
	const stored = data.memoryScenes ?? [];
	const optionTokens =
		stored.length > 0
			? stored.reduce((sum, s) => sum + countTokens(s.text), 0) / stored.length
			: SCENE_OUTPUT_TOKENS;
	const questionTemplate = countTokens(opts.templates.question) + DEFAULT_CHOICES * optionTokens;
	const reader = `${opts.reader.provider}/${opts.reader.model}`;
	// The ceiling shows a scene's stretch of the book: a chunk at most.
	const chunkTokens = data.book.tokens / Math.max(1, data.run.chunks.length);
	let questionsToAsk = 0;
	for (const target of targets) {
		const questions = storedQuestions(data, target, opts.seed, sceneSource(opts.words));
		const summary = countTokens(activeVersion(findNode(data.run, target.node)!)?.text ?? '');
		const shownTokens = { summary, chunk: chunkTokens };
		for (const shown of opts.ceiling ? (['summary', 'chunk'] as const) : (['summary'] as const)) {
			const answered = new Set(
				(data.memoryAnswers ?? [])
					.filter((a) => a.reader === reader && a.shown === shown)
					.map((a) => a.question),
			);
			const asked = questions.length > 0 ? questions.filter((q) => !answered.has(q.id)).length : opts.count;
			questionsToAsk += asked;
			inputTokens += asked * (questionTemplate + shownTokens[shown]);
		}
	}
	const outputTokens = scenesToWrite * SCENE_OUTPUT_TOKENS + questionsToAsk * ANSWER_OUTPUT_TOKENS;
	const cost = callCost(
		loadPrices(opts.prices, opts.env),
		opts.reader.model,
		{ input: Math.round(inputTokens), output: outputTokens, cached: 0 },
		opts.reader.provider,
	);
	return {
		targets: [...targets],
		scenesToWrite,
		questionsToAsk,
		calls: scenesToWrite + questionsToAsk,
		inputTokens: Math.round(inputTokens),
		outputTokens,
		cost: cost.cost,
		priced: cost.known,
	};
}

/** A session's memory results as stored, for `memory` and `report`. */
export interface SessionMemory {
	id: string;
	title: string;
	method: Run['config']['method'];
	readers: ReaderResults[];
}

/** Session `id`'s memory results from its stored questions and answers (read-only). */
export async function memoryOf(dir: string, id: string, opts: ResultsOptions = {}): Promise<SessionMemory> {
	const { data } = await Session.snapshot(dir, id);
	if (data.kind !== 'book')
		throw badInput(`session "${id}" holds no run: memory probes are of a run's summaries`);
	return sessionMemory(data, opts);
}

/** The memory results of a run's session (none when it was never probed). */
export function sessionMemory(data: BookSessionData, opts: ResultsOptions = {}): SessionMemory {
	return {
		id: data.id,
		title: data.book.title,
		method: data.run.config.method,
		readers: resultsByReader(data.memoryQuestions ?? [], data.memoryAnswers ?? [], opts),
	};
}

/**
 * What a run's memory probes would cost before the run exists (a study's plan): questions of the
 * final summary and of `steps` running summaries (incremental), each showing a summary of at most
 * `maxSummary` tokens and five scene options, and the scenes an incremental run writes.
 */
export function probeEstimate(opts: {
	method: Run['config']['method'];
	chunks: number;
	bookTokens: number;
	maxSummary: number;
	templates: Pick<Templates, 'memory-question' | 'memory-scene'>;
	questions?: number;
	steps?: number;
}): { calls: number; input: number; output: number } {
	const targets = opts.method === 'inc' ? Math.min(opts.steps ?? MEMORY_STEPS, opts.chunks - 1) + 1 : 1;
	const questions = targets * (opts.questions ?? MEMORY_QUESTIONS);
	// About 0.75 words a token: a stretch of SCENE_STRETCH_WORDS words is some 670 tokens.
	const stretchTokens = Math.round(SCENE_STRETCH_WORDS / 0.75);
	const scenes = opts.method === 'inc' ? Math.ceil(opts.bookTokens / stretchTokens) : 0;
	const question =
		countTokens(opts.templates['memory-question']) + opts.maxSummary + DEFAULT_CHOICES * SCENE_OUTPUT_TOKENS;
	return {
		calls: questions + scenes,
		input: questions * question + scenes * (countTokens(opts.templates['memory-scene']) + stretchTokens),
		output: questions * ANSWER_OUTPUT_TOKENS + scenes * SCENE_OUTPUT_TOKENS,
	};
}
