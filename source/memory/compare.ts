import type { MemoryAnswer, MemoryQuestion, MemoryScene } from '../domain.ts';
import { chanceOf } from './questions.ts';
import { memoryResults, type Rate, type ResultsOptions } from './results.ts';
import { shortcutAccuracy, type ShortcutAccuracy } from './shortcuts.ts';

/**
 * Like with like: the rows a side-by-side comparison of summaries may put in one table. Two final
 * summaries are compared only on questions made the same way: drawn with the same seed, from the
 * same kind of this book's scenes (level-0 summaries or scenes written for the probe), with
 * wrong options from the same other books, and under the book's own names or random ones alike.
 * Running summaries are left out (a hierarchical run has none), and a row's floor and ceiling are
 * measured on its own questions, never on another set. Pure.
 */

/**
 * What a question set's other-book options are: other sessions' level-0 summaries
 * (`--level-0-scenes`), scenes written in this session of other books (of the sessions folder or a
 * --distractors folder alike, the same stretches by the same model), or both (a session asked
 * before every option was of one kind).
 */
export type DistractorSource = 'level-0' | 'written' | 'both';

/** What makes two question sets alike: a row's questions are compared only with rows of the same `key`. */
export interface QuestionSet {
	seed: number;
	/** This book's scenes the questions were drawn from; null when no option tells (only other books' scenes, in an old session). */
	scenes: MemoryScene['source'] | null;
	distractors: { from: DistractorSource | null; books: string[] };
	/** This book's people and places shown under random names (`--rename`). */
	renamed: boolean;
	/** The five above as one string: rows with the same key are alike. */
	key: string;
}

/** One reader's answers about one final summary's question set, with its floor and ceiling on the same questions. */
export interface FinalRow extends QuestionSet {
	reader: string;
	/** Shown the summary. */
	accuracy: Rate;
	/** Shown nothing (NarrativeXL's no-context baseline); null when not asked. */
	floor: Rate | null;
	/** Shown the book's own text of each scene; null when not asked. */
	ceiling: Rate | null;
	/** Questions whose answer is "None of the above", and how many of them were answered right. */
	none: Rate;
	chance: number;
	shortcuts: ShortcutAccuracy;
}

/** Another session's level-0 summary is `<session>/<id>`; a scene written in this session, a plain id. */
function distractorSource(q: MemoryQuestion): DistractorSource | null {
	const ids = q.options.filter((o) => o.kind === 'other-book').map((o) => o.scene);
	if (ids.length === 0) return null;
	const levelZero = ids.some((id) => id.includes('/'));
	const written = ids.some((id) => !id.includes('/'));
	return levelZero && written ? 'both' : levelZero ? 'level-0' : 'written';
}

/**
 * The question sets of a session's final summary: its questions grouped by seed, scene set,
 * names (the book's own or random) and what their other-book options are (a probe reuses the
 * stored questions of a seed, a scene set and names, so each group is one probe's questions),
 * with the other books those options show.
 */
export function finalQuestionSets(
	questions: readonly MemoryQuestion[],
	scenesOf: (q: MemoryQuestion) => MemoryScene['source'] | null,
): { set: QuestionSet; questions: MemoryQuestion[] }[] {
	const groups = new Map<string, MemoryQuestion[]>();
	for (const q of questions.filter((q) => q.target.step === null)) {
		const key = JSON.stringify([q.seed, scenesOf(q), distractorSource(q), q.renamed ?? false]);
		groups.set(key, [...(groups.get(key) ?? []), q]);
	}
	return [...groups.values()].map((group) => {
		const first = group[0]!;
		const [seed, scenes, from, renamed] = [
			first.seed,
			scenesOf(first),
			distractorSource(first),
			first.renamed ?? false,
		];
		const books = [
			...new Set(group.flatMap((q) => q.options.filter((o) => o.kind === 'other-book').map((o) => o.book))),
		].sort();
		return {
			set: {
				seed,
				scenes,
				distractors: { from, books },
				renamed,
				key: JSON.stringify([seed, scenes, from, books, renamed]),
			},
			questions: group,
		};
	});
}

/**
 * A row per reader shown the summary and question set of the final summary: the accuracy, and
 * the same reader's floor and ceiling restricted to the questions the row counts.
 */
export function finalRows(
	questions: readonly MemoryQuestion[],
	answers: readonly MemoryAnswer[],
	scenesOf: (q: MemoryQuestion) => MemoryScene['source'] | null,
	opts: ResultsOptions = {},
): FinalRow[] {
	const rows: FinalRow[] = [];
	for (const { set, questions: group } of finalQuestionSets(questions, scenesOf)) {
		const ids = new Set(group.map((q) => q.id));
		const ofSet = answers.filter((a) => ids.has(a.question));
		const readers = [...new Set(ofSet.filter((a) => a.shown === 'summary').map((a) => a.reader))].sort();
		for (const reader of readers) {
			const asked = ofSet.filter((a) => a.reader === reader && a.shown === 'summary');
			const counted = new Set(asked.map((a) => a.question));
			const alongside = (shown: MemoryAnswer['shown']) => {
				const same = ofSet.filter((a) => a.reader === reader && a.shown === shown && counted.has(a.question));
				return same.length === 0 ? null : memoryResults(group, same, opts).overall;
			};
			const results = memoryResults(group, asked, opts);
			const shownQuestions = group.filter((q) => counted.has(q.id));
			rows.push({
				...set,
				reader,
				accuracy: results.overall,
				floor: alongside('none'),
				ceiling: alongside('chunk'),
				none: results.none,
				chance: chanceOf(shownQuestions),
				shortcuts: shortcutAccuracy(shownQuestions),
			});
		}
	}
	return rows;
}

/** Rows in tables of like rows (the same `keyOf`), in the order each table's first row came. */
export function likeTables<R>(rows: readonly R[], keyOf: (row: R) => string): R[][] {
	const tables = new Map<string, R[]>();
	for (const row of rows) tables.set(keyOf(row), [...(tables.get(keyOf(row)) ?? []), row]);
	return [...tables.values()];
}
