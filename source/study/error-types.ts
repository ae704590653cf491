import type { SystemScore } from '../score/booookscore.ts';
import { emptyCounts, LABELS, type Label } from '../score/labels.ts';
import { DASH } from '../format/missing.ts';
import { shareOf } from '../format/percent.ts';

/**
 * Error types per cell and per configuration of a study (the paper's Table 1 distribution, by
 * configuration): how many of a final summary's sentences its annotator flagged with each of the
 * eight types. The sentences are those the stored BooookScore reads (`storedSessionScore`), so the
 * counts and the score never disagree on what was annotated.
 */

/** One cell's final summary: sentences with a verdict (parse failures left out), and the flagged ones. */
export interface CellErrorTypes {
	sentences: number;
	confusing: number;
	/** Confusing sentences per type; a sentence with two types counts for both. */
	counts: Record<Label, number>;
}

export function cellErrorTypes(
	system: Pick<SystemScore, 'sentences' | 'confusing' | 'types'>,
): CellErrorTypes {
	return { sentences: system.sentences, confusing: system.confusing, counts: { ...system.types } };
}

/** A configuration's books pooled: counts summed, and each as a share of all their annotated sentences. */
export interface ErrorTypeRow {
	/** Books (cells done) whose summaries were annotated. */
	books: number;
	sentences: number;
	confusing: number;
	counts: Record<Label, number>;
	/** counts ÷ sentences, in [0, 1]; the shares may add up to more than confusing ÷ sentences. */
	shares: Record<Label, number>;
}

/**
 * Pooled over sentences, not averaged over books, as the paper's Table 1 and Figure 3 count them
 * (a long summary weighs more here, unlike in BooookScore). Null when no cell was annotated.
 */
export function errorTypeRow(cells: readonly CellErrorTypes[]): ErrorTypeRow | null {
	if (cells.length === 0) return null;
	const counts = emptyCounts();
	let sentences = 0;
	let confusing = 0;
	for (const cell of cells) {
		sentences += cell.sentences;
		confusing += cell.confusing;
		for (const l of LABELS) counts[l] += cell.counts[l];
	}
	const shares = emptyCounts();
	for (const l of LABELS) shares[l] = sentences === 0 ? 0 : counts[l] / sentences;
	return { books: cells.length, sentences, confusing, counts, shares };
}

/** Column headers of the terminal table, short enough for eight columns beside the configuration. */
export const SHORT_LABELS: Record<Label, string> = {
	'entity omission': 'ent',
	'event omission': 'evt',
	'causal omission': 'cause',
	salience: 'sal',
	discontinuity: 'disc',
	duplication: 'dup',
	inconsistency: 'incon',
	language: 'lang',
};

/** The line under the terminal table that says what its headers and cells mean. */
export const ERROR_TYPE_KEY = `error types, % of annotated sentences (count): ${LABELS.map((l) => `${SHORT_LABELS[l]} ${l}`).join(', ')}`;

// No sentence with a verdict (every annotation failed to parse): a share of nothing is no number.
const pctCount = (n: number, of: number) => (of === 0 ? DASH : `${shareOf(n, of)} (${n})`);

/** The terminal's second table: one row per configuration (`config` names it, as the results table's first columns do). */
export function errorTypeTable(
	rows: readonly { config: string[]; errorTypes: ErrorTypeRow | null }[],
	configHeader: readonly string[],
): string[][] {
	return [
		[...configHeader, 'books', 'sentences', 'confusing', ...LABELS.map((l) => SHORT_LABELS[l])],
		...rows.map(({ config, errorTypes: e }) =>
			e === null
				? [...config, '0', DASH, DASH, ...LABELS.map(() => DASH)]
				: [
						...config,
						String(e.books),
						String(e.sentences),
						pctCount(e.confusing, e.sentences),
						...LABELS.map((l) => pctCount(e.counts[l], e.sentences)),
					],
		),
	];
}

/**
 * Columns the CSV appends to each row of the results table, so one `pandas.read_csv` gives a
 * frame with a row per configuration: sentences annotated and confusing, then per type its count
 * (`<type> n`) and its percent of the annotated sentences (`<type> %`). Empty where no book of the
 * row was annotated.
 */
export function errorTypeColumns(rows: readonly (ErrorTypeRow | null)[]): string[][] {
	const percent = (n: number, of: number) => (of === 0 ? '' : shareOf(n, of, 2));
	return [
		['sentences annotated', 'sentences confusing', ...LABELS.flatMap((l) => [`${l} n`, `${l} %`])],
		...rows.map((e) =>
			e === null
				? ['', '', ...LABELS.flatMap(() => ['', ''])]
				: [
						String(e.sentences),
						String(e.confusing),
						...LABELS.flatMap((l) => [String(e.counts[l]), percent(e.counts[l], e.sentences)]),
					],
		),
	];
}
