import type { Chunk, MemoryQuestion, MemoryScene, NodeRef } from '../domain.ts';
import { seededRandom, shuffle } from '../score/bootstrap.ts';
import { optionLength } from './shortcuts.ts';

/**
 * Read-along questions (NarrativeXL, section 5.1): "In what you have read so far, was there a
 * scene where ...", asked of one summary, with scene options and then "None of the above". The
 * true option is a scene of the part read; the wrong ones are scenes not yet read (lookahead) or
 * scenes of other books with this book's names (other-book). Pure: the same seed gives the same
 * questions.
 */

/** Scene options a question shows unless told; with "None of the above", NarrativeXL's six answers. */
export const DEFAULT_CHOICES = 5;

/** The summary asked about: the final summary (`step` null, all read) or a running summary after a step. */
export interface QuestionTarget {
	node: NodeRef;
	/** The incremental step (chunk index) whose running summary is asked; null for the final summary. */
	step: number | null;
	/** How many characters of the book the summary had read: the book's length, or the step chunk's end. */
	readChars: number;
}

/** Another book's scene, its names already substituted and checked (names.ts `otherBookScene`). */
export interface OtherScene {
	/** `<session>/<id>`. */
	scene: string;
	book: string;
	text: string;
}

/**
 * The book's tokens before character `offset`: the tokens of the chunks before it, and the share
 * of the chunk it falls in that lies before it.
 */
export function tokensAt(chunks: readonly Chunk[], offset: number): number {
	let tokens = 0;
	for (const c of chunks) {
		if (offset >= c.end) tokens += c.tokens;
		else if (offset > c.start) tokens += (c.tokens * (offset - c.start)) / (c.end - c.start);
	}
	return Math.round(tokens);
}

/** How far back a scene lies when `readChars` have been read: from its end, as a share of the book and in tokens. */
export function retentionDemand(
	scene: Pick<MemoryScene, 'end'>,
	readChars: number,
	bookChars: number,
	chunks: readonly Chunk[],
): NonNullable<MemoryQuestion['demand']> {
	const back = Math.max(0, readChars - scene.end);
	return {
		fraction: bookChars > 0 ? Math.min(1, back / bookChars) : 0,
		tokens: Math.max(0, tokensAt(chunks, readChars) - tokensAt(chunks, scene.end)),
	};
}

/** How much of the book a summary had read. */
export function readOf(
	readChars: number,
	bookChars: number,
	chunks: readonly Chunk[],
): MemoryQuestion['read'] {
	return {
		chars: readChars,
		tokens: tokensAt(chunks, readChars),
		fraction: bookChars > 0 ? Math.min(1, readChars / bookChars) : 0,
	};
}

/** A scene of this book with one fact changed (a scene of source `distorted`). */
export interface DistortedScene {
	scene: string;
	book: string;
	text: string;
	/** The scene it is a distortion of, and where that scene's stretch ends. */
	of: string;
	end: number;
}

export interface BuildQuestionsOptions {
	target: QuestionTarget;
	/** This book's scenes. */
	scenes: readonly MemoryScene[];
	/** Other books' scenes, for other-book questions. */
	others: readonly OtherScene[];
	/** This book's scenes with one fact changed, for distortion questions. */
	distortions?: readonly DistortedScene[];
	/** The run's chunks, for tokens. */
	chunks: readonly Chunk[];
	bookChars: number;
	/** How many questions to make at most. */
	count: number;
	/** Scene options per question, "None of the above" not counted. */
	choices?: number;
	seed: number;
	/** The first question's number: ids are `q<firstId>`, `q<firstId + 1>`, ... */
	firstId: number;
	/** The question types to make; both where the target allows them unless told. */
	types?: readonly MemoryQuestion['type'][];
	/**
	 * How often each wrong option's scene was shown so far (by `<book>\u0000<scene>`), counted on
	 * by the draw: shared over a probe's targets, so the scenes least shown are drawn first.
	 */
	uses?: Map<string, number>;
}

type Option = MemoryQuestion['options'][number];

/**
 * One true scene for each of `n` questions, spread over the part read: the scenes, in the order
 * of their ends, are cut into `n` strata of about equal size and one is drawn from each. With
 * fewer scenes than questions, a scene is the true one of more than one question.
 */
function spreadScenes(pool: readonly MemoryScene[], n: number, random: () => number): MemoryScene[] {
	const sorted = [...pool].sort((a, b) => a.end - b.end || a.start - b.start);
	const drawn: MemoryScene[] = [];
	for (let i = 0; i < n && sorted.length > 0; i++) {
		const from = Math.floor((i * sorted.length) / n);
		const to = Math.max(from + 1, Math.floor(((i + 1) * sorted.length) / n));
		drawn.push(sorted[from + Math.floor(random() * (to - from))]!);
	}
	return drawn;
}

/** The most questions a wrong scene is shown in while its book has scenes shown fewer times. */
export const SHOWN_MOST = 3;

/** An option's key in the count of how often each scene is shown. */
const shownKey = (o: Option) => `${o.book}\u0000${o.scene}`;

/** Of `options`, `n` of those shown least often so far (`uses`), at random among equals. */
function leastShown(
	options: readonly Option[],
	n: number,
	uses: ReadonlyMap<string, number>,
	random: () => number,
): Option[] {
	return shuffle([...options], random)
		.sort((a, b) => (uses.get(shownKey(a)) ?? 0) - (uses.get(shownKey(b)) ?? 0))
		.slice(0, n);
}

/**
 * `n` wrong options of `pool` for a question whose true option is `truth` (none for a "None"
 * question); null if too few. No scene or text is shown twice in a question.
 * - With `byBook`, each comes from another book while the books last, then again one from each
 *   (NarrativeXL draws each other-book option from a different book).
 * - Of a book, the scenes shown least often so far (`uses`, which the draw counts on) come first,
 *   and none is shown more than `SHOWN_MOST` times while another of its book is shown fewer.
 * - Where there is a true option, the place its length takes among the options is drawn first,
 *   uniformly: so many wrong options shorter than it, the rest as long or longer. A shared length
 *   range alone left the true scene the shortest most of the time where this book's scenes and the
 *   others' sit apart inside it (a small book against long ones); now always picking the longest,
 *   the shortest or the middle option finds it as often as a guess, whatever the lengths. Only
 *   where a book has too few options on one side does the place move, as little as it can.
 */
function drawWrong(
	pool: readonly Option[],
	n: number,
	truth: Option | null,
	random: () => number,
	uses: Map<string, number>,
	byBook: boolean,
): Option[] | null {
	const taken = new Set(truth ? [truth.scene, truth.text] : []);
	const groups = new Map<string, Option[]>();
	const seen = new Set<string>();
	for (const option of pool) {
		if (taken.has(option.scene) || taken.has(option.text)) continue;
		if (seen.has(`scene:${option.scene}`) || seen.has(`text:${option.text}`)) continue;
		seen.add(`scene:${option.scene}`).add(`text:${option.text}`);
		const key = byBook ? option.book : '';
		groups.set(key, [...(groups.get(key) ?? []), option]);
	}
	// Scenes shown SHOWN_MOST times wait while their book has others shown fewer (and the books
	// together enough), so that lengths do not bring the few longest (or shortest) scenes back
	// question after question.
	const fresh = (options: Option[]) => {
		const least = Math.min(...options.map((o) => uses.get(shownKey(o)) ?? 0));
		return options.filter((o) => (uses.get(shownKey(o)) ?? 0) < Math.max(SHOWN_MOST, least + 1));
	};
	// How many options each book gives: one each in turn, in a random order, while its scenes last.
	const all = shuffle([...groups.values()], random);
	const rested = all.map(fresh);
	const enough = rested.reduce((sum, options) => sum + options.length, 0) >= n;
	const books = (enough ? rested : all).map((options) => ({ options, k: 0 }));
	let given = 0;
	for (let more = true; more && given < n;) {
		more = false;
		for (const book of books)
			if (given < n && book.k < book.options.length) {
				book.k += 1;
				given += 1;
				more = true;
			}
	}
	if (given < n) return null;
	const length = truth ? optionLength(truth.text) : 0;
	const sides = books.map((b) => {
		const shorter = truth ? b.options.filter((o) => optionLength(o.text) < length) : [];
		const longer = truth ? b.options.filter((o) => optionLength(o.text) >= length) : b.options;
		// The fewest and the most of its k options this book can give from the shorter side.
		const low = Math.max(0, b.k - longer.length);
		return { ...b, shorter, longer, low, high: Math.min(b.k, shorter.length), x: low };
	});
	if (truth) {
		const lowest = sides.reduce((sum, s) => sum + s.low, 0);
		const highest = sides.reduce((sum, s) => sum + s.high, 0);
		const below = Math.min(highest, Math.max(lowest, Math.floor(random() * (n + 1))));
		for (let left = below - lowest; left > 0; left--) {
			const open = sides.filter((s) => s.x < s.high);
			open[Math.floor(random() * open.length)]!.x += 1;
		}
	}
	const drawn = sides.flatMap((s) => [
		...leastShown(s.shorter, s.x, uses, random),
		...leastShown(s.longer, s.k - s.x, uses, random),
	]);
	for (const option of drawn) uses.set(shownKey(option), (uses.get(shownKey(option)) ?? 0) + 1);
	return drawn;
}

/** The question types a target allows: lookahead only where part of the book is still unread. */
function typesFor(
	target: QuestionTarget,
	types: readonly MemoryQuestion['type'][],
): MemoryQuestion['type'][] {
	return types.filter((t) => t !== 'lookahead' || target.step !== null);
}

/** The question types made unless told: NarrativeXL's two symmetric ones (distortions are asked for). */
export const DEFAULT_TYPES: readonly MemoryQuestion['type'][] = ['lookahead', 'other-book'];

/**
 * Up to `count` questions of one target, split evenly between its question types. Each has
 * exactly one right answer: its one true scene (one that ends by `readChars`), or, for a share
 * 1/(choices+1) of each type's questions, "None of the above" with no true scene among the options,
 * so that always answering "None" scores chance. A type without enough scenes for a question
 * gets fewer; none at all gives [].
 */
export function buildQuestions(opts: BuildQuestionsOptions): MemoryQuestion[] {
	const { target, scenes, others, chunks, bookChars, count, seed, firstId } = opts;
	const choices = opts.choices ?? DEFAULT_CHOICES;
	if (!Number.isInteger(choices) || choices < 1)
		throw new RangeError(`choices must be a whole number of at least 1, not ${choices}`);
	const random = seededRandom(seed);
	const uses = opts.uses ?? new Map<string, number>();
	const types = typesFor(target, opts.types ?? DEFAULT_TYPES);
	const sceneOption = (kind: Option['kind'], s: MemoryScene): Option => ({
		kind,
		scene: s.id,
		book: s.book,
		text: s.text,
	});
	const read = scenes.filter((s) => s.end <= target.readChars);
	if (read.length === 0) return [];
	// A distortion of a scene read: its truth is in the summary to be told from it. Never the true
	// scene's own, which beside it would leave two near-copies to choose between.
	const distorted = (opts.distortions ?? []).filter((d) => d.end <= target.readChars);
	const distortionOf = new Map(distorted.map((d) => [d.scene, d.of]));
	const pools: Record<MemoryQuestion['type'], Option[]> = {
		lookahead: scenes.filter((s) => s.start >= target.readChars).map((s) => sceneOption('lookahead', s)),
		'other-book': others.map((o) => ({ kind: 'other-book', scene: o.scene, book: o.book, text: o.text })),
		distortion: distorted.map((d) => ({ kind: 'distortion', scene: d.scene, book: d.book, text: d.text })),
	};
	const questions: MemoryQuestion[] = [];
	types.forEach((type, t) => {
		const n = Math.floor(count / types.length) + (t < count % types.length ? 1 : 0);
		const nones = Math.round(n / (choices + 1));
		const truths = spreadScenes(read, n - nones, random);
		const plan = shuffle([...truths, ...Array<null>(n - truths.length).fill(null)], random);
		for (const truth of plan) {
			const shown = truth ? [sceneOption('true', truth)] : [];
			const pool = truth ? pools[type].filter((o) => distortionOf.get(o.scene) !== truth.id) : pools[type];
			const wrong = drawWrong(
				pool,
				choices - shown.length,
				shown[0] ?? null,
				random,
				uses,
				type === 'other-book',
			);
			if (!wrong) continue;
			const options = shuffle([...shown, ...wrong], random);
			const answer = truth ? options.findIndex((o) => o.kind === 'true') : options.length;
			questions.push({
				id: `q${firstId + questions.length}`,
				target: { node: target.node, step: target.step },
				read: readOf(target.readChars, bookChars, chunks),
				type,
				options,
				answer,
				demand: truth ? retentionDemand(truth, target.readChars, bookChars, chunks) : null,
				seed,
			});
		}
	});
	return questions;
}

/** The share of scenes below `low` and above `high` left out of each side of `commonLengthRange`. */
const LENGTH_TAIL = 0.05;
/** How far beyond the shared range a length may lie and still be in it: a tenth, too little for a reader to go by. */
const LENGTH_SLACK = 0.1;

/** The `q`-quantile of sorted `values` (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * The range of option lengths (characters, as `optionLength` counts them) that this book's scenes
 * and the other books' share: from the higher of their 5th percentiles to the lower of their
 * 95th, widened by a tenth either way. Options drawn within it cannot be told apart by length even
 * where two sets of scenes were made differently (two runs' level-0 summaries); null when the
 * sets do not overlap or one is empty.
 */
export function commonLengthRange(
	own: readonly { text: string }[],
	others: readonly { text: string }[],
): { low: number; high: number } | null {
	if (own.length === 0 || others.length === 0) return null;
	const sorted = (xs: readonly { text: string }[]) =>
		xs.map((x) => optionLength(x.text)).sort((a, b) => a - b);
	const a = sorted(own);
	const b = sorted(others);
	const low = Math.max(quantile(a, LENGTH_TAIL), quantile(b, LENGTH_TAIL));
	const high = Math.min(quantile(a, 1 - LENGTH_TAIL), quantile(b, 1 - LENGTH_TAIL));
	return low <= high
		? { low: Math.floor(low * (1 - LENGTH_SLACK)), high: Math.ceil(high * (1 + LENGTH_SLACK)) }
		: null;
}

/** The expected accuracy of a uniform guess among the answers shown: the mean of 1/(options + 1). */
export function chanceOf(questions: readonly Pick<MemoryQuestion, 'options'>[]): number {
	if (questions.length === 0) return Number.NaN;
	return questions.reduce((sum, q) => sum + 1 / (q.options.length + 1), 0) / questions.length;
}
