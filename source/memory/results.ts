import { MEMORY_QUESTION_TYPES, type MemoryAnswer, type MemoryQuestion } from '../domain.ts';
import { shareInterval } from '../score/interval.ts';
import { chanceOf } from './questions.ts';
import { shortcutAccuracy, type ShortcutAccuracy } from './shortcuts.ts';

/**
 * What a reader's answers say about a summary's memory: accuracy overall, by how far back the true
 * scene lies, by question type and by target, with Wilson intervals over questions, and which
 * wrong options drew the wrong answers. Numbers only; printing them is the command's. Pure.
 */

/** Bins over the share of the book since the true scene, unless told. */
export const DEFAULT_DEMAND_BINS = 5;

/**
 * A share of right answers among `n` questions, with its Wilson interval over them; NaN where `n`
 * is 0. Not a bootstrap: resampling 5 questions all answered right gave [100, 100].
 */
export interface Rate {
	n: number;
	correct: number;
	accuracy: number;
	low: number;
	high: number;
}

/** The questions whose true scene lies between `from` and `to` of the book back from what was read. */
export interface DemandBin extends Rate {
	from: number;
	to: number;
	/** The mean retention demand of its questions in tokens; NaN when empty. */
	tokens: number;
}

/**
 * The questions whose true scene lies at least `from` and under `to` tokens back from what was
 * read. Edges on a 1-3-10 scale (1,000, 3,000, 10,000 ... tokens): the same for every book, so two
 * books' summaries are compared at the same distances, and each bin about three times as far back
 * as the one before, as forgetting is usually drawn.
 */
export interface TokenBin extends Rate {
	from: number;
	to: number;
}

/** Where the token bins start: the first bin is under 1,000 tokens back. */
const FIRST_TOKEN_EDGE = 1000;

/** The token bin edges from 0 up past `most`: 0, 1,000, 3,000, 10,000, 30,000, ... */
export function tokenEdges(most: number): number[] {
	const edges = [0, FIRST_TOKEN_EDGE];
	while (edges.at(-1)! <= most) {
		const last = edges.at(-1)!;
		edges.push(String(last).startsWith('1') ? last * 3 : (last / 3) * 10);
	}
	return edges;
}

/** One summary asked: the final summary, or a running summary after a step. */
export interface TargetRate extends Rate {
	target: MemoryQuestion['target'];
	read: MemoryQuestion['read'];
}

/** What the wrong answers chose: a lookahead, other-book or distorted scene, "None" when a scene was true, or nothing readable. */
export interface WrongChoices {
	lookahead: number;
	'other-book': number;
	distortion: number;
	none: number;
	unreadable: number;
}

export interface MemoryResults {
	/** Answers counted: one per question answered, readable or not. */
	n: number;
	/** Answers with a choice read. */
	answered: number;
	/** Answers with no choice read after every retry: counted, and wrong. */
	unreadable: number;
	overall: Rate;
	/** The accuracy of guessing uniformly among the answers shown. */
	chance: number;
	/** By retention demand, from the nearest to the farthest back; empty bins kept with n 0. */
	bins: DemandBin[];
	/**
	 * By retention demand in tokens (TokenBin), from under 1,000 tokens back to the bin of the
	 * farthest question; empty bins between kept with n 0; none without a question with a demand.
	 */
	tokenBins: TokenBin[];
	/** The questions whose answer is "None of the above": they have no retention demand. */
	none: Rate;
	byType: Record<MemoryQuestion['type'], Rate>;
	wrong: WrongChoices;
	/** By summary asked, the final summary last and running summaries by step. */
	byTarget: TargetRate[];
	/** What always picking the longest, or the shortest, option scores on the same questions: the options' giveaway. */
	shortcuts: ShortcutAccuracy;
}

export interface ResultsOptions {
	/** Demand bins over [0, 1]; DEFAULT_DEMAND_BINS unless told. */
	bins?: number;
	/** Of the intervals; 0.95 unless told. */
	level?: number;
}

interface Scored {
	question: MemoryQuestion;
	answer: MemoryAnswer;
}

const mean = (values: readonly number[]): number =>
	values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

/**
 * The results of one reader's answers, all shown the same thing (`shown`), to `questions`. An
 * answer to a question not among them is a caller's mistake and throws; a question not answered
 * yet is left out.
 */
export function memoryResults(
	questions: readonly MemoryQuestion[],
	answers: readonly MemoryAnswer[],
	{ bins = DEFAULT_DEMAND_BINS, level = 0.95 }: ResultsOptions = {},
): MemoryResults {
	const byId = new Map(questions.map((q) => [q.id, q]));
	const latest = new Map<string, MemoryAnswer>();
	for (const a of answers) {
		if (!byId.has(a.question)) throw new Error(`an answer to ${a.question}, which is no question given`);
		if (a.reader !== answers[0]!.reader || a.shown !== answers[0]!.shown)
			throw new Error('memory results are of one reader shown one thing; filter the answers first');
		latest.set(a.question, a);
	}
	const scored: Scored[] = [...latest.values()].map((answer) => ({
		question: byId.get(answer.question)!,
		answer,
	}));
	const rate = (items: readonly Scored[]): Rate => {
		const correct = items.filter((s) => s.answer.correct).length;
		const { estimate, low, high } = shareInterval(correct, items.length, 'questions', level);
		return { n: items.length, correct, accuracy: estimate, low: low ?? Number.NaN, high: high ?? Number.NaN };
	};
	const withDemand = scored.filter((s) => s.question.demand !== null);
	const demandBins = Array.from({ length: bins }, (_, i): DemandBin => {
		const from = i / bins;
		const to = (i + 1) / bins;
		const inBin = withDemand.filter(
			(s) => Math.min(bins - 1, Math.floor(s.question.demand!.fraction * bins)) === i,
		);
		return { from, to, ...rate(inBin), tokens: mean(inBin.map((s) => s.question.demand!.tokens)) };
	});
	const results = {
		n: scored.length,
		answered: scored.filter((s) => s.answer.choice !== null).length,
		unreadable: scored.filter((s) => s.answer.choice === null).length,
		overall: rate(scored),
		chance: chanceOf(scored.map((s) => s.question)),
		bins: demandBins,
		none: rate(scored.filter((s) => s.question.demand === null)),
		byType: Object.fromEntries(
			MEMORY_QUESTION_TYPES.map((t) => [t, rate(scored.filter((s) => s.question.type === t))]),
		) as Record<MemoryQuestion['type'], Rate>,
		wrong: wrongChoices(scored),
		byTarget: byTarget(scored, rate),
		shortcuts: shortcutAccuracy(scored.map((s) => s.question)),
	};
	const most = Math.max(...withDemand.map((s) => s.question.demand!.tokens));
	const edges = withDemand.length === 0 ? [] : tokenEdges(most);
	const tokenBins = edges.slice(0, -1).map((from, i): TokenBin => {
		const to = edges[i + 1]!;
		const inBin = withDemand.filter(
			(s) => s.question.demand!.tokens >= from && s.question.demand!.tokens < to,
		);
		return { from, to, ...rate(inBin) };
	});
	return { ...results, tokenBins };
}

function wrongChoices(scored: readonly Scored[]): WrongChoices {
	const wrong: WrongChoices = { lookahead: 0, 'other-book': 0, distortion: 0, none: 0, unreadable: 0 };
	for (const { question, answer } of scored) {
		if (answer.correct) continue;
		if (answer.choice === null) wrong.unreadable++;
		else if (answer.choice >= question.options.length) wrong.none++;
		else {
			const kind = question.options[answer.choice]!.kind;
			if (kind !== 'true') wrong[kind]++;
		}
	}
	return wrong;
}

function byTarget(scored: readonly Scored[], rate: (items: readonly Scored[]) => Rate): TargetRate[] {
	const groups = new Map<string, Scored[]>();
	for (const s of scored) {
		const key = `${s.question.target.node}@${s.question.target.step ?? 'final'}`;
		const group = groups.get(key) ?? [];
		group.push(s);
		groups.set(key, group);
	}
	const rates = [...groups.values()].map((items) => ({
		target: items[0]!.question.target,
		read: items[0]!.question.read,
		...rate(items),
	}));
	return rates.sort(
		(a, b) =>
			(a.target.step ?? Number.POSITIVE_INFINITY) - (b.target.step ?? Number.POSITIVE_INFINITY) ||
			a.read.chars - b.read.chars,
	);
}

/**
 * One reader's results, shown the summaries (`summary`), the book's own text of the scenes
 * (`chunk`: the ceiling) or nothing (`none`: the floor).
 */
export interface ReaderResults {
	reader: string;
	shown: MemoryAnswer['shown'];
	results: MemoryResults;
	/**
	 * The same reader shown nothing, on the questions these results count (NarrativeXL's no-context
	 * baseline): what the options and the book's fame answer without the summary. Null when it was
	 * not asked, and for the floor's own results.
	 */
	floor: MemoryResults | null;
}

/**
 * The results of every reader and what it was shown: the summaries' before the ceiling's, each with
 * its floor beside it. A floor is listed on its own only when the same reader has no other results.
 */
export function resultsByReader(
	questions: readonly MemoryQuestion[],
	answers: readonly MemoryAnswer[],
	opts: ResultsOptions = {},
): ReaderResults[] {
	const groups = new Map<string, MemoryAnswer[]>();
	for (const a of answers) {
		const key = `${a.shown}\u0000${a.reader}`;
		groups.set(key, [...(groups.get(key) ?? []), a]);
	}
	const floors = new Map(
		[...groups.values()].filter((g) => g[0]!.shown === 'none').map((g) => [g[0]!.reader, g] as const),
	);
	const shown = [...groups.entries()].filter(([, g]) => g[0]!.shown !== 'none');
	const alone = [...floors.entries()].filter(([reader]) => !shown.some(([, g]) => g[0]!.reader === reader));
	const order = { summary: 0, chunk: 1, none: 2 } as const;
	return [...shown.map(([, g]) => g), ...alone.map(([, g]) => g)]
		.sort((a, b) => order[a[0]!.shown] - order[b[0]!.shown] || a[0]!.reader.localeCompare(b[0]!.reader))
		.map((group) => {
			const { reader, shown } = group[0]!;
			const counted = new Set(group.map((a) => a.question));
			const floor = shown === 'none' ? [] : (floors.get(reader) ?? []).filter((a) => counted.has(a.question));
			return {
				reader,
				shown,
				results: memoryResults(questions, group, opts),
				floor: floor.length === 0 ? null : memoryResults(questions, floor, opts),
			};
		});
}

/** What a study's memory column shows of one session: its final summary's figures. */
export interface FinalMemory {
	/** The share of the final summary's questions answered right, shown the summary. */
	accuracy: number;
	/** The same reader's share shown nothing, on the same questions; null when the floor was not asked. */
	floor: number | null;
	/** The options' giveaway on the same questions. */
	shortcuts: ShortcutAccuracy;
}

/**
 * The figures of the questions about the final summary answered by the first reader shown the
 * summary (a study's memory column), without the intervals `memoryResults` computes; null before any.
 */
export function finalMemory(
	questions: readonly MemoryQuestion[],
	answers: readonly MemoryAnswer[],
): FinalMemory | null {
	const finals = new Map(questions.filter((q) => q.target.step === null).map((q) => [q.id, q]));
	const reader = answers.find((a) => a.shown === 'summary' && finals.has(a.question))?.reader;
	const latest = (shown: MemoryAnswer['shown'], among?: ReadonlySet<string>) =>
		new Map(
			answers
				.filter(
					(a) =>
						a.shown === shown &&
						a.reader === reader &&
						finals.has(a.question) &&
						(among === undefined || among.has(a.question)),
				)
				.map((a) => [a.question, a.correct]),
		);
	const share = (m: ReadonlyMap<string, boolean>) =>
		m.size === 0 ? null : [...m.values()].filter(Boolean).length / m.size;
	const asked = latest('summary');
	if (asked.size === 0) return null;
	return {
		accuracy: share(asked)!,
		floor: share(latest('none', new Set(asked.keys()))),
		shortcuts: shortcutAccuracy([...asked.keys()].map((id) => finals.get(id)!)),
	};
}
