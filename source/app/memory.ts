import { counted } from '../format/count.ts';
import { noFinalSummary } from '../store/scored-summaries.ts';
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { readBook } from '../book/read.ts';
import { DEFAULTS } from '../config.ts';
import type { MemoryAnswer, MemoryQuestion, MemoryScene, NodeRef, Run } from '../domain.ts';
import { answerMemory } from '../engine/memory-reader.ts';
import { writeDistortions, writeScenes } from '../engine/scene-writer.ts';
import { badInput } from '../errors.ts';
import type { BatchLane } from '../llm/batcher.ts';
import { callCost, loadPrices } from '../llm/prices.ts';
import {
	bookNames,
	nameSubstitution,
	otherBookScene,
	randomNames,
	substituteNames,
	type BookNames,
} from '../memory/names.ts';
import {
	buildQuestions,
	commonLengthRange,
	SHOWN_MOST,
	DEFAULT_CHOICES,
	type DistortedScene,
	type OtherScene,
} from '../memory/questions.ts';
import { optionLength } from '../memory/shortcuts.ts';
import { finalRows, likeTables, type FinalRow } from '../memory/compare.ts';
import { resultsByReader, type ReaderResults, type ResultsOptions } from '../memory/results.ts';
import { nextNumber, SCENE_STRETCH_WORDS, sceneWords, scenePieces } from '../memory/scenes.ts';
import { flag, joined, next, said, type Said } from '../program.ts';
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
/** Words of a book per written scene when `--scenes` does not say. */
export const MEMORY_SCENE_WORDS = SCENE_STRETCH_WORDS;
const BOOK_EXTENSIONS = new Set(['.txt', '.epub']);

export interface MemoryOptions extends PassOptions {
	/** Questions per summary asked about. */
	questions?: number;
	/** Running summaries of an incremental run asked about besides the final one. */
	steps?: number;
	/** Words of a book per written scene, this book's and the other books' alike; SCENE_STRETCH_WORDS unless told. */
	scenes?: number | null;
	/**
	 * Every option a run's level-0 summary instead: this (hierarchical) run's, and other sessions'
	 * hierarchical runs' for other-book options. No scene is written.
	 */
	levelZero?: boolean;
	/**
	 * Also ask distortion questions (NarrativeXL's third kind): as many again per summary, whose wrong
	 * options are scenes of this book read already, each with one fact changed by the reader model.
	 */
	distortions?: boolean;
	/** A folder of books whose scenes (written by the reader model) are other-book options besides the sessions folder's books. */
	distractors?: string | null;
	seed?: number;
	/**
	 * This book's people and places shown under random names drawn with the seed (NarrativeXL, A.2):
	 * in every option, the summary and the ceiling's text alike, so a reader who knows the book
	 * cannot answer by its names. A question set of its own, kept apart from the book's own names.
	 */
	rename?: boolean;
	/** Also ask each question with the book's own text of the scene shown: the questions' ceiling. */
	ceiling?: boolean;
	/**
	 * Also ask each question with nothing shown (NarrativeXL's no-context baseline): the floor, what
	 * the options and the book's fame answer without the summary. On unless told.
	 */
	floor?: boolean;
	/** The provider batch lane of a study's `"batch"`, made once the session is open; none: calls stream. */
	batch?: (session: Session) => Promise<BatchLane>;
}

/** A summary asked about: the final one, or an incremental run's running summary after a step. */
export interface MemoryTarget {
	node: NodeRef;
	step: number | null;
	readChars: number;
}

/** Another book whose scenes can be wrong options: its text (for its names, and scenes written of it here). */
interface OtherBook {
	title: string;
	text: string;
	/** With --level-0-scenes: that session's run's level-0 summaries, their ids `<session>/<id>`. */
	levelZero?: MemoryScene[];
}

/** The calls a probe would make, and what they would cost: `--plan`, and the first line of a probe. */
export interface MemoryPlan {
	targets: MemoryTarget[];
	scenesToWrite: number;
	/** Questions to ask shown the summary. */
	questionsToAsk: number;
	/** The same questions to ask with the summary hidden (the floor), and shown the book's text (the ceiling). */
	floorToAsk: number;
	ceilingToAsk: number;
	calls: number;
	inputTokens: number;
	outputTokens: number;
	cost: number;
	priced: boolean;
}

export interface MemoryProgress {
	stage: 'scenes' | 'distortions' | 'answers' | 'floor answers' | 'ceiling answers';
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
	notes: Said[];
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

/** Words per written scene of a probe; null: level-0 summaries are every option. */
function sceneStretchWords(opts: MemoryOptions): number | null {
	return opts.levelZero ? null : (opts.scenes ?? SCENE_STRETCH_WORDS);
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

/**
 * Other sessions' books in the sessions folder, one each (the first session of a book read); with
 * `levelZero`, only books of a finished hierarchical run, with its level-0 summaries.
 */
async function otherSessionBooks(
	dir: string,
	self: BookSessionData,
	levelZero: boolean,
): Promise<(OtherBook & { sha256: string })[]> {
	const { sessions } = await readSessions(dir);
	const out: (OtherBook & { sha256: string })[] = [];
	const seen = new Set([self.book.sha256]);
	// By id: the folder is read in no fixed order, and the order of the books is part of the draw.
	for (const data of [...sessions].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
		if (data.kind !== 'book' || seen.has(data.book.sha256)) continue;
		const scenes = levelZero
			? levelZeroScenes(data.run, data.book.title, 0).map((s) => ({ ...s, id: `${data.id}/${s.id}` }))
			: null;
		if (scenes !== null && scenes.length === 0) continue;
		seen.add(data.book.sha256);
		const text = await readSessionBook(dir, data);
		out.push({
			title: data.book.title,
			text,
			sha256: data.book.sha256,
			...(scenes ? { levelZero: scenes } : {}),
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
			joined(
				said`${flag('--distractors', dir)}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : 'cannot be read'}; `,
				said`give a folder of .txt or .epub books`,
			),
		);
	}
	const books = await Promise.all(names.map((n) => readBook(join(dir, n))));
	const others = books.filter((b) => b.sha256 !== self.book.sha256);
	if (others.length === 0)
		throw badInput(
			said`${flag('--distractors', dir)}: no .txt or .epub book other than this session's; give a folder with other books`,
		);
	return others;
}

/**
 * The stretches of another book to write scenes of: `wanted` of them evenly spread over the book
 * (all of them when it has fewer), so a long book costs no more calls.
 */
function distractorPieces(text: string, words: number, wanted: number): Span[] {
	const pieces = scenePieces(text, words);
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

/**
 * A distractor scene shown in more questions than this is warned of: the pool of other books is
 * too small. The draw holds to it while the books have scenes shown fewer times.
 */
export const REUSE_WARN = SHOWN_MOST;

/**
 * Scenes to write of each other book: as many as the wrong options the questions can show, shared
 * among the books, so each is shown about once even when some cannot be used (a name left) or lie
 * outside the length range this book's scenes share (and a short book gives all it has).
 */
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
	rename: boolean;
	targets: MemoryTarget[];
	/** The other books: the sessions folder's and the --distractors folder's, each once. */
	others: OtherBook[];
	templates: Templates;
}

/**
 * The probe of session `id`, checked and planned: every refusal (not a run, no final summary, no
 * LLM, no key, no distractors) is made on a read-only copy, before the session is locked or a call made.
 */
async function setUp(opts: MemoryOptions, env: NodeJS.ProcessEnv, planned = false): Promise<ProbeSetUp> {
	const count = opts.questions ?? MEMORY_QUESTIONS;
	const seed = opts.seed ?? 1;
	const rename = opts.rename ?? false;
	const { data: snapshot, text: book } = await Session.snapshot(opts.sessionsDir, opts.id);
	if (snapshot.kind !== 'book')
		throw badInput(
			said`session "${opts.id}" holds imported summaries without their book: memory questions are made from the book, so a run (${next('run', 'BOOK')})`,
		);
	if (!snapshot.run.root) throw noFinalSummary(opts.id, opts.sessionsDir);
	const reader = passModel(
		snapshot,
		opts,
		env,
		{ task: 'answering memory questions', verb: 'answering' },
		planned,
	);
	const words = sceneStretchWords(opts);
	if (opts.levelZero && opts.scenes != null)
		throw badInput(
			said`${flag('--level-0-scenes')} and ${flag('--scenes')} choose two kinds of scene: give one of them`,
		);
	if (opts.levelZero && snapshot.run.config.method !== 'hier')
		throw badInput(
			joined(
				said`${flag('--level-0-scenes')} takes a hierarchical run's level-0 summaries as scenes, `,
				said`and session "${opts.id}" is incremental: leave it out (scenes are then written)`,
			),
		);
	if (opts.levelZero && opts.distractors)
		throw badInput(
			joined(
				said`${flag('--level-0-scenes')} takes other books' scenes from their hierarchical runs in `,
				said`the sessions folder; ${flag('--distractors')} books have none: leave one of them out`,
			),
		);
	const sessionBooks = await otherSessionBooks(opts.sessionsDir, snapshot, opts.levelZero ?? false);
	const distractors = opts.distractors ? await distractorBooks(opts.distractors, snapshot) : [];
	const seen = new Set(sessionBooks.map((b) => b.sha256));
	const others: OtherBook[] = [
		...sessionBooks.map(({ title, text, levelZero }) => ({
			title,
			text,
			...(levelZero ? { levelZero } : {}),
		})),
		...distractors.filter((b) => !seen.has(b.sha256)).map((b) => ({ title: b.title, text: b.text })),
	];
	if (others.length === 0)
		throw badInput(
			opts.levelZero
				? joined(
						said`memory questions with ${flag('--level-0-scenes')} need another book's hierarchical run in ${opts.sessionsDir} for other-book `,
						said`options, and it has none: run one there, or leave ${flag('--level-0-scenes')} out and pass ${flag('--distractors', 'DIR')}`,
					)
				: joined(
						said`memory questions about the final summary need scenes of other books as wrong options, and the sessions folder has none: pass `,
						said`${flag('--distractors', 'DIR')} (a folder of .txt or .epub books), or run a summary of another book into ${opts.sessionsDir}`,
					),
		);
	const templates = await loadTemplates(opts.prompts);
	const targets = memoryTargets(snapshot.run, snapshot.book.chars, opts.steps ?? MEMORY_STEPS);
	const plan = planOf(snapshot, book, targets, {
		words,
		count,
		seed,
		rename,
		ceiling: opts.ceiling ?? false,
		floor: opts.floor ?? true,
		distortions: opts.distortions ?? false,
		others,
		reader,
		templates: {
			scene: templates['memory-scene'],
			question: templates['memory-question'],
			floor: templates['memory-floor'],
			distortion: templates['memory-distortion'],
		},
		prices: opts.prices,
		env,
	});
	return { reader, plan, words, count, seed, rename, targets, others, templates };
}

/** What a probe of session `id` would make, without locking it or making a call (`--plan`). */
export async function planMemory(opts: MemoryOptions): Promise<{ reader: PassModel; plan: MemoryPlan }> {
	const { reader, plan } = await setUp(opts, opts.env ?? process.env, true);
	return { reader, plan };
}

/** The probe of session `id`, set up and its session open. */
export async function memoryProbe(opts: MemoryOptions): Promise<MemoryProbe> {
	const env = opts.env ?? process.env;
	const { reader, plan, words, count, seed, rename, targets, others, templates } = await setUp(opts, env);
	const { provider, costOf } = passClient(reader, { prices: opts.prices, env, account: opts.account });
	const session = await Session.open(opts.sessionsDir, opts.id);
	const data = session.data as BookSessionData;
	const book = await session.bookText();
	const concurrency = opts.concurrency ?? DEFAULTS.concurrency;
	const totals = { calls: 0, cost: 0 };
	// This book's people and places, found once (the tagger reads the whole book) when first needed.
	let names: BookNames | undefined;
	const ownNames = () => (names ??= bookNames(book));
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
			// Other books' scenes are written here too, the same way, so no option differs in kind.
			const wanted = distractorWanted(count, targets.length, others.length);
			for (const other of others) {
				const ended = await write(
					other.title,
					other.text,
					distractorPieces(other.text, words, wanted),
					words,
				);
				if (ended) return ended;
			}
		} else if (!ownScenes().some((s) => s.source === 'node')) {
			const first = nextNumber((data.memoryScenes ?? []).map((s) => s.id));
			await session.append('memoryScenes', ...levelZeroScenes(data.run, title, first));
		}
		if (opts.distortions) {
			const all = ownScenesOf(data, book, words);
			const wanted = Math.min(all.length, count * targets.length * DEFAULT_CHOICES);
			const spread = Array.from({ length: wanted }, (_, i) => all[Math.floor((i * all.length) / wanted)]!);
			const distorted = await writeDistortions({
				store: session,
				provider,
				templates,
				scenes: spread,
				concurrency,
				batch,
				costOf,
				signal,
				onProgress: (done, total) => onProgress?.({ stage: 'distortions', done, total }),
			});
			add(distorted.totals);
			if (distorted.status !== 'done') return stopped(distorted.status, distorted.error);
		}
		const { questions, notes } = await questionsFor(session, data, book, targets, others, {
			count,
			seed,
			words,
			rename,
			distortions: opts.distortions ?? false,
			names: ownNames,
		});
		const scenes = ownScenes();
		// A renamed question's summary and book text are shown under the names its options were given.
		const renamings = new Map<number, ReadonlyMap<string, string>>();
		const asStored = (q: MemoryQuestion, text: string) => {
			if (!q.renamed) return text;
			if (!renamings.has(q.seed)) renamings.set(q.seed, randomNames(ownNames(), q.seed));
			return substituteNames(text, renamings.get(q.seed)!);
		};
		const passes: { shown: MemoryAnswer['shown']; shownFor: (q: MemoryQuestion) => string }[] = [
			{
				shown: 'summary',
				shownFor: (q) => asStored(q, activeVersion(findNode(data.run, q.target.node)!)?.text ?? ''),
			},
			...((opts.floor ?? true) ? [{ shown: 'none' as const, shownFor: () => '' }] : []),
			...(opts.ceiling
				? [
						{
							shown: 'chunk' as const,
							shownFor: (q: MemoryQuestion) => asStored(q, ceilingText(q, scenes, book)),
						},
					]
				: []),
		];
		const stage = { summary: 'answers', none: 'floor answers', chunk: 'ceiling answers' } as const;
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
				onProgress: (done, total) => onProgress?.({ stage: stage[pass.shown], done, total }),
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

/** The scenes of `title` written of `text`'s stretches of `words` words (stored in `data`). */
function writtenScenes(data: BookSessionData, title: string, text: string, words: number): MemoryScene[] {
	const pieces = new Set(scenePieces(text, words).map((p) => `${p.start}:${p.end}`));
	return (data.memoryScenes ?? []).filter(
		(s) => s.book === title && s.source === 'written' && pieces.has(`${s.start}:${s.end}`),
	);
}

/**
 * The questions of each target with `seed`: those stored are kept (a resumed probe asks the same
 * questions), the missing ones made and stored before any is asked. Every option is of one kind:
 * scenes written of stretches of `words` words of their books, or (null) runs' level-0 summaries;
 * of lengths in the range both sides share; other books' people and places replaced by this book's.
 */
async function questionsFor(
	session: Session,
	data: BookSessionData,
	book: string,
	targets: readonly MemoryTarget[],
	otherBooks: readonly OtherBook[],
	opts: {
		count: number;
		seed: number;
		words: number | null;
		rename: boolean;
		distortions: boolean;
		/** This book's people and places. */
		names: () => BookNames;
	},
): Promise<{ questions: MemoryQuestion[]; notes: Said[] }> {
	const source = sceneSource(opts.words);
	const sets: QuestionSet[] = opts.distortions ? ['plain', 'distortion'] : ['plain'];
	const stored = sets.map((set) => targets.map((target) => storedQuestions(data, target, opts, set)));
	if (stored.every((of) => of.every((qs) => qs.length > 0)))
		return { questions: stored.flat(2), notes: reuseNotes(stored.flat(2)) };

	const self = opts.names();
	// With --rename, every option is shown under this book's random names: its own scenes renamed,
	// other books' after their names became this book's.
	const renaming = opts.rename ? randomNames(self, opts.seed) : null;
	const shown = (text: string) => (renaming ? substituteNames(text, renaming) : text);
	const others: OtherScene[] = otherBooks.flatMap((other) => {
		const names: BookNames = bookNames(other.text);
		const map = nameSubstitution(names, self);
		const scenes =
			opts.words === null
				? (other.levelZero ?? [])
				: writtenScenes(data, other.title, other.text, opts.words);
		return inBookOrder(scenes).flatMap((s) => {
			const text = otherBookScene(s.text, names, self, map);
			return text === null ? [] : [{ scene: s.id, book: other.title, text: shown(text) }];
		});
	});
	const all = inBookOrder(ownScenesOf(data, book, opts.words)).map((s) => ({ ...s, text: shown(s.text) }));
	const range = commonLengthRange(all, others);
	const fits = (text: string) =>
		range === null || (optionLength(text) >= range.low && optionLength(text) <= range.high);
	const scenes = all.filter((s) => fits(s.text));
	const pool = others.filter((o) => fits(o.text));
	const ids = new Set(scenes.map((s) => s.id));
	const distortions: DistortedScene[] = inBookOrder(data.memoryScenes ?? [])
		.filter((s) => s.source === 'distorted' && s.of !== undefined && ids.has(s.of))
		.map((s) => ({ scene: s.id, book: s.book, text: shown(s.text), of: s.of!, end: s.end }))
		.filter((d) => fits(d.text));
	const out: MemoryQuestion[] = [];
	const short: { target: MemoryTarget; set: QuestionSet; made: number }[] = [];
	const uses = new Map<string, number>();
	for (const [i, set] of sets.entries())
		for (const [t, target] of targets.entries()) {
			if (stored[i]![t]!.length > 0) {
				out.push(...stored[i]![t]!);
				continue;
			}
			const made = buildQuestions({
				target,
				scenes,
				others: pool,
				distortions,
				chunks: data.run.chunks,
				bookChars: data.book.chars,
				count: opts.count,
				seed: opts.seed,
				firstId: nextNumber([...(data.memoryQuestions ?? []), ...out].map((q) => q.id)),
				uses,
				...(set === 'distortion' ? { types: ['distortion'] as const } : {}),
			}).map((q) => ({
				...q,
				scenes: source,
				stretch: opts.words,
				...(opts.rename ? { renamed: true } : {}),
			}));
			if (made.length > 0) await session.append('memoryQuestions', ...made);
			if (made.length < opts.count) short.push({ target, set, made: made.length });
			out.push(...made);
		}
	const notes = short.map(({ target, set, made }) => {
		const of = target.step === null ? 'the final summary' : `step ${target.step + 1}`;
		const why =
			set === 'distortion'
				? `too few distorted scenes (${distortions.length} of ${counted(scenes.length, 'scene')} of this book)`
				: joined(
						said`too few scenes (${scenes.length} of this book, ${pool.length} usable of other books, `,
						said`in the length range both share); give more books with ${flag('--distractors')}`,
					);
		return said`${made} of ${counted(opts.count, set === 'distortion' ? 'distortion question' : 'question')} could be made of ${of}: ${why}`;
	});
	return { questions: out, notes: [...notes, ...reuseNotes(out)] };
}

/**
 * Scenes in the order of their stretches: the order they were stored in is the order concurrent
 * calls finished, and the draw from a seed must not depend on it.
 */
function inBookOrder<S extends Pick<MemoryScene, 'start' | 'end' | 'id'>>(scenes: readonly S[]): S[] {
	return [...scenes].sort(
		(a, b) => a.start - b.start || a.end - b.end || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
	);
}

/** This book's scenes a probe reads: written of stretches of `words` words, or (null) level-0 summaries. */
function ownScenesOf(data: BookSessionData, book: string, words: number | null): MemoryScene[] {
	return words === null ? ownSceneSet(data, 'node') : writtenScenes(data, data.book.title, book, words);
}

/** A probe's questions come in sets: NarrativeXL's symmetric lookahead and other-book ones, and (asked for) distortion ones. */
type QuestionSet = 'plain' | 'distortion';

/** A warning when other-book scenes are shown in more than `REUSE_WARN` questions each: too few other books' scenes. */
function reuseNotes(questions: readonly MemoryQuestion[]): Said[] {
	const shown = new Map<string, number>();
	for (const q of questions)
		for (const o of q.options.filter((o) => o.kind === 'other-book'))
			shown.set(`${o.book}\u0000${o.scene}`, (shown.get(`${o.book}\u0000${o.scene}`) ?? 0) + 1);
	const over = [...shown.values()].filter((n) => n > REUSE_WARN);
	if (over.length === 0) return [];
	return [
		joined(
			said`${counted(over.length, 'other-book scene')} shown in more than ${counted(REUSE_WARN, 'question')} each `,
			said`(up to ${Math.max(...over)}): a reader may learn them; give more books with ${flag('--distractors')}`,
		),
	];
}

/** This book's scenes of one source: level-0 summaries (`node`) or scenes written for `--scenes`. */
function ownSceneSet(data: BookSessionData, source: MemoryScene['source']): MemoryScene[] {
	return (data.memoryScenes ?? []).filter((s) => s.book === data.book.title && s.source === source);
}

/**
 * The stored questions a probe reuses for `target`: made with `seed` from scenes of the kind it
 * reads (written of stretches of `words` words, or level-0 summaries for null), under this book's
 * own names or (`rename`) random ones. Questions of another kind, and those made before every
 * option was of one kind, are another probe's.
 */
function storedQuestions(
	data: BookSessionData,
	target: MemoryTarget,
	probe: { seed: number; words: number | null; rename: boolean },
	set: QuestionSet = 'plain',
): MemoryQuestion[] {
	return (data.memoryQuestions ?? []).filter(
		(q) =>
			q.target.node === target.node &&
			(q.type === 'distortion') === (set === 'distortion') &&
			q.seed === probe.seed &&
			q.scenes === sceneSource(probe.words) &&
			q.stretch !== undefined &&
			q.stretch === probe.words &&
			(q.renamed ?? false) === probe.rename,
	);
}

/** The scene set a probe reads: written scenes with --scenes (or for an incremental run), else level-0 summaries. */
const sceneSource = (words: number | null): 'node' | 'written' => (words === null ? 'node' : 'written');

/** What a probe would ask and write, and its cost, from what is stored and the texts at hand. */
function planOf(
	data: BookSessionData,
	book: string,
	targets: readonly MemoryTarget[],
	opts: {
		words: number | null;
		count: number;
		seed: number;
		rename: boolean;
		ceiling: boolean;
		floor: boolean;
		distortions: boolean;
		/** The other books, whose scenes are written too (unless level-0 summaries are the scenes). */
		others: readonly { title: string; text: string }[];
		reader: PassModel;
		templates: { scene: string; question: string; floor: string; distortion: string };
		prices?: string;
		env: NodeJS.ProcessEnv;
	},
): MemoryPlan {
	const written = new Set(
		(data.memoryScenes ?? [])
			.filter((s) => s.source !== 'distorted')
			.map((s) => `${s.book}:${s.start}:${s.end}`),
	);
	let scenesToWrite = 0;
	let inputTokens = 0;
	const sceneTemplate = countTokens(opts.templates.scene);
	const toWrite = (title: string, text: string, pieces: readonly { start: number; end: number }[]) => {
		for (const p of pieces.filter((p) => !written.has(`${title}:${p.start}:${p.end}`))) {
			scenesToWrite++;
			inputTokens += sceneTemplate + countTokens(text.slice(p.start, p.end));
		}
	};
	if (opts.words !== null) {
		toWrite(data.book.title, book, scenePieces(book, opts.words));
		const wanted = distractorWanted(opts.count, targets.length, opts.others.length);
		for (const other of opts.others)
			toWrite(other.title, other.text, distractorPieces(other.text, opts.words, wanted));
	}
	if (opts.distortions) {
		// One distortion of each of this book's scenes the questions can show, a scene's length each.
		const own =
			opts.words === null
				? levelZeroScenes(data.run, data.book.title, 0).length
				: scenePieces(book, opts.words).length;
		const have = (data.memoryScenes ?? []).filter((s) => s.source === 'distorted').length;
		const more = Math.max(0, Math.min(own, opts.count * targets.length * DEFAULT_CHOICES) - have);
		scenesToWrite += more;
		inputTokens += more * (countTokens(opts.templates.distortion) + SCENE_OUTPUT_TOKENS);
	}

	// An option is a scene summary: the stored ones' mean length, else the written scene's limit.
	const stored = data.memoryScenes ?? [];
	const optionTokens =
		stored.length > 0
			? stored.reduce((sum, s) => sum + countTokens(s.text), 0) / stored.length
			: SCENE_OUTPUT_TOKENS;
	const options = DEFAULT_CHOICES * optionTokens;
	const templateTokens = {
		summary: countTokens(opts.templates.question),
		chunk: countTokens(opts.templates.question),
		none: countTokens(opts.templates.floor),
	};
	const reader = `${opts.reader.provider}/${opts.reader.model}`;
	// The ceiling shows a scene's stretch of the book: a chunk at most.
	const chunkTokens = data.book.tokens / Math.max(1, data.run.chunks.length);
	const passes: MemoryAnswer['shown'][] = [
		'summary',
		...(opts.floor ? (['none'] as const) : []),
		...(opts.ceiling ? (['chunk'] as const) : []),
	];
	const toAsk = { summary: 0, none: 0, chunk: 0 };
	const sets: QuestionSet[] = opts.distortions ? ['plain', 'distortion'] : ['plain'];
	for (const target of targets.flatMap((t) => sets.map((set) => ({ ...t, set })))) {
		const questions = storedQuestions(data, target, opts, target.set);
		const summary = countTokens(activeVersion(findNode(data.run, target.node)!)?.text ?? '');
		const shownTokens = { summary, chunk: chunkTokens, none: 0 };
		for (const shown of passes) {
			const answered = new Set(
				(data.memoryAnswers ?? [])
					.filter((a) => a.reader === reader && a.shown === shown)
					.map((a) => a.question),
			);
			const asked = questions.length > 0 ? questions.filter((q) => !answered.has(q.id)).length : opts.count;
			toAsk[shown] += asked;
			inputTokens += asked * (templateTokens[shown] + options + shownTokens[shown]);
		}
	}
	const asks = toAsk.summary + toAsk.none + toAsk.chunk;
	const outputTokens = scenesToWrite * SCENE_OUTPUT_TOKENS + asks * ANSWER_OUTPUT_TOKENS;
	const cost = callCost(
		loadPrices(opts.prices, opts.env),
		opts.reader.model,
		{ input: Math.round(inputTokens), output: outputTokens, cached: 0 },
		opts.reader.provider,
	);
	return {
		targets: [...targets],
		scenesToWrite,
		questionsToAsk: toAsk.summary,
		floorToAsk: toAsk.none,
		ceilingToAsk: toAsk.chunk,
		calls: scenesToWrite + asks,
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
	/** Questions stored, and how many of them show this book's people and places under random names (`--rename`). */
	names: { questions: number; renamed: number };
	/** The final summary's answers by question set and reader: the rows a side-by-side table compares like with like. */
	final: FinalRow[];
}

/** The final summaries' rows of several sessions, in tables of like rows (memory/compare.ts): only like rows are compared. */
export function finalTables(found: readonly SessionMemory[]): { one: SessionMemory; row: FinalRow }[][] {
	return likeTables(
		found.flatMap((one) => one.final.map((row) => ({ one, row }))),
		({ row }) => row.key,
	);
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
	const questions = data.memoryQuestions ?? [];
	const answers = data.memoryAnswers ?? [];
	return {
		id: data.id,
		title: data.book.title,
		method: data.run.config.method,
		readers: resultsByReader(questions, answers, opts),
		names: { questions: questions.length, renamed: questions.filter((q) => q.renamed).length },
		final: finalRows(questions, answers, sceneSetOf(data), opts),
	};
}

/**
 * Which of this book's scene sets a question was drawn from: as stored, or (a question stored
 * before it was kept) the set its own scenes belong to; null when no option is this book's.
 */
function sceneSetOf(data: BookSessionData): (q: MemoryQuestion) => MemoryScene['source'] | null {
	const source = new Map(
		(data.memoryScenes ?? []).filter((s) => s.book === data.book.title).map((s) => [s.id, s.source]),
	);
	return (q) => q.scenes ?? q.options.map((o) => source.get(o.scene)).find((s) => s !== undefined) ?? null;
}

/**
 * What a run's memory probes would cost before the run exists (a study's plan): questions of the
 * final summary and of `steps` running summaries (incremental), each showing a summary of at most
 * `maxSummary` tokens and five scene options, each asked again with nothing shown (the floor), the
 * scenes written of this book, and those written of other books (as many as the questions' wrong options).
 */
export function probeEstimate(opts: {
	method: Run['config']['method'];
	chunks: number;
	bookTokens: number;
	maxSummary: number;
	templates: Pick<Templates, 'memory-question' | 'memory-floor' | 'memory-scene'>;
	questions?: number;
	steps?: number;
}): { calls: number; input: number; output: number } {
	const targets = opts.method === 'inc' ? Math.min(opts.steps ?? MEMORY_STEPS, opts.chunks - 1) + 1 : 1;
	const questions = targets * (opts.questions ?? MEMORY_QUESTIONS);
	// About 0.75 words a token: a stretch of SCENE_STRETCH_WORDS words is some 670 tokens.
	const stretchTokens = Math.round(SCENE_STRETCH_WORDS / 0.75);
	const scenes =
		Math.ceil(opts.bookTokens / stretchTokens) +
		distractorWanted(opts.questions ?? MEMORY_QUESTIONS, targets, 1);
	const options = DEFAULT_CHOICES * SCENE_OUTPUT_TOKENS;
	const floor = countTokens(opts.templates['memory-floor']) + options;
	const question = countTokens(opts.templates['memory-question']) + opts.maxSummary + options;
	return {
		calls: 2 * questions + scenes,
		input:
			questions * (question + floor) + scenes * (countTokens(opts.templates['memory-scene']) + stretchTokens),
		output: 2 * questions * ANSWER_OUTPUT_TOKENS + scenes * SCENE_OUTPUT_TOKENS,
	};
}
