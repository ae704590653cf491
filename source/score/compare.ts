import { seededRandom, shuffle } from './bootstrap.ts';

/**
 * A blind comparison of summaries, pure (the BooookScore paper's second human study, its Table 4):
 * pairs of summaries of one book, each shown in an order drawn once and stored, with who made
 * them hidden until the pair is judged on four criteria; which annotator judges which pairs; and
 * the judgments as their records replay them (a verdict, a note, an undo).
 */

/** The paper's four questions, in the order it asks them. */
export const CRITERIA = ['overall', 'detail', 'structure', 'logic'] as const;
export type Criterion = (typeof CRITERIA)[number];

/** Which summary of a pair a verdict prefers: `x` and `y` are the pair's own, whatever the shown order. */
export type Choice = 'x' | 'y' | 'tie';

/** One summary in a comparison, with what is hidden from the annotator until the pair is judged. */
export interface Contender {
	/** Its key in the comparison: c0, c1, … */
	key: string;
	session: string;
	/** The scored summary it is, when the session has pinned one (a collection's); null for a run's final summary. */
	summary: string | null;
	/** The run's node and version (a run's final summary); null for a collection's summary. */
	node: string | null;
	version: number | null;
	/** The book's title as shown, and what tells two books apart (a run's book hash, else its title). */
	book: string;
	bookKey: string;
	method: 'hier' | 'inc' | null;
	provider: string | null;
	model: string | null;
	text: string;
}

/** Two summaries of one book; `first` is the one shown first (left, or on top), drawn once. */
export interface Pair {
	id: string;
	x: string;
	y: string;
	first: 'x' | 'y';
}

/**
 * Who judges which pairs: every annotator every pair (an agreement study), or the pairs split
 * between named annotators (the paper's disjoint sets), `overlap` of them judged by all of them.
 */
export type Assignment = { kind: 'all' } | { kind: 'split'; annotators: string[]; overlap: number };

/** What a method is called where a person reads it. */
export const METHOD_WORD = { hier: 'hierarchical', inc: 'incremental' } as const;

/** The configuration that made a summary: its method and model (what the comparison sets against each other). */
export function systemOf(c: Pick<Contender, 'method' | 'provider' | 'model'>): string {
	const method = c.method ? METHOD_WORD[c.method] : 'imported';
	const model = c.provider && c.model ? `${c.provider}/${c.model}` : (c.model ?? c.provider);
	return model ? `${method} · ${model}` : method;
}

/**
 * The pairs of `contenders`: every two summaries of the same book from different sessions, `x` the
 * one whose configuration sorts first (so every pair of the same two configurations faces the same
 * way), in a seeded random order, each with its shown order drawn from the same seed.
 */
export function makePairs(contenders: readonly Contender[], seed: number): Pair[] {
	const random = seededRandom(seed);
	const found: Omit<Pair, 'id' | 'first'>[] = [];
	for (let i = 0; i < contenders.length; i++) {
		for (let k = i + 1; k < contenders.length; k++) {
			const a = contenders[i]!;
			const b = contenders[k]!;
			if (a.bookKey !== b.bookKey || (a.session === b.session && a.summary === b.summary)) continue;
			const [x, y] = systemOrder(a, b) <= 0 ? [a, b] : [b, a];
			found.push({ x: x.key, y: y.key });
		}
	}
	return shuffle(found, random).map((p, i) => ({ id: `p${i + 1}`, ...p, first: random() < 0.5 ? 'x' : 'y' }));
}

/** Incremental before hierarchical (the paper's order), then by model, then by session. */
function systemOrder(a: Contender, b: Contender): number {
	const rank = (c: Contender) => (c.method === 'inc' ? 0 : c.method === 'hier' ? 1 : 2);
	return (
		rank(a) - rank(b) ||
		systemOf(a).localeCompare(systemOf(b)) ||
		a.session.localeCompare(b.session) ||
		a.key.localeCompare(b.key)
	);
}

/** The pairs `annotator` judges, in the comparison's order; null when the split names other annotators only. */
export function pairsOf(pairs: readonly Pair[], assignment: Assignment, annotator: string): Pair[] | null {
	if (assignment.kind === 'all') return [...pairs];
	const at = assignment.annotators.indexOf(annotator);
	if (at === -1) return null;
	const shared = Math.min(assignment.overlap, pairs.length);
	return pairs.filter((_, i) => i < shared || (i - shared) % assignment.annotators.length === at);
}

/** The shown order of a pair: the summary shown first and second. */
export function shownOrder(pair: Pair): ['x' | 'y', 'x' | 'y'] {
	return pair.first === 'x' ? ['x', 'y'] : ['y', 'x'];
}

/** A choice as the screen says it (the first or the second summary shown), as stored. */
export function storedChoice(pair: Pair, shown: 'first' | 'second' | 'tie'): Choice {
	if (shown === 'tie') return 'tie';
	const [first, second] = shownOrder(pair);
	return shown === 'first' ? first : second;
}

/** A stored choice as the screen shows it. */
export function shownChoice(pair: Pair, choice: Choice): 'first' | 'second' | 'tie' {
	if (choice === 'tie') return 'tie';
	return shownOrder(pair)[0] === choice ? 'first' : 'second';
}

/** One line of a comparison's judgments: a verdict on criteria of a pair, a note on it, or an undo. */
export type CompareRecord =
	| {
			kind: 'verdict';
			at: string;
			annotator: string;
			origin: 'human' | 'model';
			pair: string;
			choices: Partial<Record<Criterion, Choice>>;
	  }
	| { kind: 'note'; at: string; annotator: string; pair: string; note: string | null }
	| { kind: 'undo'; at: string; annotator: string };

/** An annotator's judgment of one pair as it stands. */
export interface PairJudgment {
	choices: Partial<Record<Criterion, Choice>>;
	note: string | null;
	origin: 'human' | 'model';
}

/** The records that stand once undos are applied, per annotator, in order (an undo takes back that annotator's latest). */
export function standingRecords(
	records: readonly CompareRecord[],
): Map<string, Exclude<CompareRecord, { kind: 'undo' }>[]> {
	const out = new Map<string, Exclude<CompareRecord, { kind: 'undo' }>[]>();
	for (const r of records) {
		const list = out.get(r.annotator) ?? [];
		out.set(r.annotator, list);
		if (r.kind === 'undo') list.pop();
		else list.push(r);
	}
	return out;
}

/** Each annotator's judgments by pair, as the records leave them (a later choice on a criterion replaces an earlier one). */
export function judgmentsOf(records: readonly CompareRecord[]): Map<string, Map<string, PairJudgment>> {
	const out = new Map<string, Map<string, PairJudgment>>();
	for (const [annotator, list] of standingRecords(records)) {
		const mine = new Map<string, PairJudgment>();
		for (const r of list) {
			const j = mine.get(r.pair) ?? { choices: {}, note: null, origin: 'human' };
			if (r.kind === 'verdict') {
				j.choices = { ...j.choices, ...r.choices };
				j.origin = r.origin;
			} else j.note = r.note;
			mine.set(r.pair, j);
		}
		if (mine.size > 0) out.set(annotator, mine);
	}
	return out;
}

/** Whether every criterion of a judgment is answered: the pair is judged, and who made its summaries may be shown. */
export function complete(j: PairJudgment | undefined): boolean {
	return j !== undefined && CRITERIA.every((c) => j.choices[c] !== undefined);
}

const ANSWER_LINE: Record<Criterion, RegExp> = {
	overall: /^\W*overall\W*:\s*(.+)$/imu,
	detail: /^\W*detail\W*:\s*(.+)$/imu,
	structure: /^\W*structure\W*:\s*(.+)$/imu,
	logic: /^\W*logic\W*:\s*(.+)$/imu,
};

/**
 * A model judge's answer (prompts/compare-judge.txt): one line per criterion, A, B or tie, in the
 * terms of the order shown. Unreadable when a criterion's line is missing or says anything else.
 */
export function readCompareAnswer(
	text: string,
): { ok: true; value: Record<Criterion, 'first' | 'second' | 'tie'> } | { ok: false; reason: string } {
	const value = {} as Record<Criterion, 'first' | 'second' | 'tie'>;
	for (const c of CRITERIA) {
		const said = ANSWER_LINE[c]
			.exec(text)?.[1]
			?.trim()
			.replace(/[.*"'`]+$/u, '')
			.replace(/^[*"'`]+/u, '')
			.toLowerCase();
		if (said === undefined) return { ok: false, reason: `no "${c[0]!.toUpperCase()}${c.slice(1)}:" line` };
		if (said === 'a' || said === 'summary a') value[c] = 'first';
		else if (said === 'b' || said === 'summary b') value[c] = 'second';
		else if (said === 'tie') value[c] = 'tie';
		else return { ok: false, reason: `${c}: "${said.slice(0, 40)}" is not A, B or tie` };
	}
	return { ok: true, value };
}
