import { sentenceSpans } from '../text/sentences.ts';
import type { ReleasedAnnotation } from './formats.ts';
import { emptyCounts, LABELS, type Label } from './labels.ts';
import type { Answer } from './parse.ts';

/**
 * BooookScore (paper §4.1, Equation 1): the share of a summary's sentences that confuse no reader.
 * Every sentence is one unit, however many questions it raised, and two identical sentences are
 * two units.
 */
export interface SummaryScore {
	/** Sentences with a verdict; parse failures are not among them. */
	sentences: number;
	confusing: number;
	/** Sentences whose answer could not be read: left out of the score, counted here. */
	failures: number;
	/** 1 − confusing ÷ sentences, in [0, 1]; null when no sentence has a verdict. */
	score: number | null;
	/** Confusing units per error type; a unit with two types counts for both. */
	types: Record<Label, number>;
}

export function scoreSummary(answers: readonly Answer[]): SummaryScore {
	const types = emptyCounts();
	let sentences = 0;
	let confusing = 0;
	let failures = 0;
	for (const answer of answers) {
		if (!answer.ok) {
			failures += 1;
			continue;
		}
		sentences += 1;
		if (!answer.confusing) continue;
		confusing += 1;
		for (const t of answer.types) types[t] += 1;
	}
	return { sentences, confusing, failures, score: sentences === 0 ? null : 1 - confusing / sentences, types };
}

export interface SystemScore {
	/** Mean of the summaries' scores, in percent (the paper's Table 2); null when none has a score. */
	score: number | null;
	/** Summaries with a score, and those without one (every answer failed, or no sentence). */
	scored: number;
	unscored: string[];
	sentences: number;
	confusing: number;
	failures: number;
	/**
	 * Per error type, units of that type per 100 sentences, pooled over all summaries: the
	 * normalisation of Table 1's last column and of Figure 3.
	 */
	distribution: Record<Label, number>;
	types: Record<Label, number>;
	perBook: Map<string, SummaryScore>;
}

/** A system's score: every summary weighs the same, however long it is. */
export function scoreSystem(perBook: ReadonlyMap<string, SummaryScore>): SystemScore {
	const types = emptyCounts();
	const scores: number[] = [];
	const unscored: string[] = [];
	let sentences = 0;
	let confusing = 0;
	let failures = 0;
	for (const [book, s] of perBook) {
		if (s.score === null) unscored.push(book);
		else scores.push(s.score);
		sentences += s.sentences;
		confusing += s.confusing;
		failures += s.failures;
		for (const l of LABELS) types[l] += s.types[l];
	}
	const distribution = emptyCounts();
	for (const l of LABELS) distribution[l] = sentences === 0 ? 0 : (100 * types[l]) / sentences;
	const score = scores.length === 0 ? null : (100 * scores.reduce((a, b) => a + b, 0)) / scores.length;
	return {
		score,
		scored: scores.length,
		unscored,
		sentences,
		confusing,
		failures,
		distribution,
		types,
		perBook: new Map(perBook),
	};
}

export interface ReleasedVerdicts {
	/** One verdict per sentence of our split of the summary. */
	answers: Answer[];
	/** Per sentence, the indices of the released entries that marked it confusing. */
	entries: number[][];
	/** Annotated sentences that were not found in the summary text. */
	unmatched: string[];
}

/**
 * Verdicts for our sentences from a released annotation file, which lists only the confusing
 * sentences, cut by NLTK. So the sentences are ours (the summary split by the project's splitter)
 * and a sentence is confusing when an annotation's text lies in it: each annotated text is found
 * in the summary (searching on from the previous one, as the files list sentences in summary
 * order) and marks the sentence holding most of it. Where NLTK cut one of our sentences in two
 * ("Dr." | "Snow ..."), both halves mark that one sentence; where it kept two of ours together,
 * only one of them is marked, so a unit is never counted twice.
 */
export function releasedVerdicts(
	summary: string,
	annotations: readonly ReleasedAnnotation[],
): ReleasedVerdicts {
	const spans = sentenceSpans(summary, { lineBreaks: false });
	const marks = spans.map(() => ({
		questions: [] as string[],
		types: [] as Label[],
		confusing: false,
		entries: [] as number[],
	}));
	const unmatched: string[] = [];
	let cursor = 0;
	for (const [index, a] of annotations.entries()) {
		const text = a.sentence.trim();
		if (text === '') continue;
		let at = summary.indexOf(text, cursor);
		if (at === -1) at = summary.indexOf(text);
		if (at === -1) {
			if (a.confusing) unmatched.push(a.sentence);
			continue;
		}
		cursor = at + text.length;
		if (!a.confusing) continue;
		let best = -1;
		let most = 0;
		spans.forEach((s, i) => {
			const overlap = Math.min(s.end, at + text.length) - Math.max(s.start, at);
			if (overlap > most) [best, most] = [i, overlap];
		});
		const mark = marks[best];
		if (!mark) continue;
		mark.confusing = true;
		mark.entries.push(index);
		if (!mark.questions.includes(a.questions)) mark.questions.push(a.questions);
		for (const t of a.types) if (!mark.types.includes(t)) mark.types.push(t);
	}
	const answers = marks.map((m): Answer => ({
		ok: true,
		confusing: m.confusing,
		questions: m.questions.join('\n'),
		types: m.types,
	}));
	return { answers, unmatched, entries: marks.map((m) => m.entries) };
}

export interface ReleasedScore {
	system: SystemScore;
	/** Per book, annotated sentences not found in its summary: counted as confusing, as the authors do. */
	unmatched: Map<string, string[]>;
	/** Annotated books with no summary: they cannot be scored and are left out. */
	orphans: string[];
}

/**
 * A system's score from the authors' released files, by the authors' formula (their
 * `get_booookscore.py`): a summary's confusing count is the number of its annotated sentences, all
 * of them, and its sentence count is that of the summary's split. An annotated sentence that is
 * not in the summary (annotated before the summary was cleaned) still counts, and is reported. A
 * summary the annotation file does not mention (or maps to null) had no confusing sentence and
 * scores 1.
 */
export function scoreReleased(
	summaries: ReadonlyMap<string, string>,
	annotations: ReadonlyMap<string, readonly ReleasedAnnotation[]>,
): ReleasedScore {
	const perBook = new Map<string, SummaryScore>();
	const unmatched = new Map<string, string[]>();
	for (const [book, summary] of summaries) {
		const released = annotations.get(book) ?? [];
		const verdicts = releasedVerdicts(summary, released);
		const types = emptyCounts();
		let confusing = 0;
		for (const a of released) {
			if (!a.confusing) continue;
			confusing += 1;
			for (const t of a.types) types[t] += 1;
		}
		const sentences = verdicts.answers.length;
		perBook.set(book, {
			sentences,
			confusing,
			failures: 0,
			score: sentences === 0 ? null : 1 - confusing / sentences,
			types,
		});
		if (verdicts.unmatched.length > 0) unmatched.set(book, verdicts.unmatched);
	}
	const orphans = [...annotations.keys()].filter((book) => !summaries.has(book));
	return { system: scoreSystem(perBook), unmatched, orphans };
}
