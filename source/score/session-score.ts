import type { Annotation, Run, ScoredSummary } from '../domain.ts';
import { sentencesOf, type Sentence } from './annotate.ts';
import { scoreSummary, scoreSystem, type SummaryScore, type SystemScore } from './booookscore.ts';
import type { HumanAnnotatedSummary } from './formats.ts';
import { scoreHumanSummary } from './human.ts';
import type { Label } from './labels.ts';
import type { Answer } from './parse.ts';

/**
 * A session's BooookScore from the annotations it stores. Pure: which annotations a summary's
 * score reads, which sentences still need a model's verdict, and the scores.
 */

/**
 * Where a summary's model verdicts come from: the annotations one model made in this session (one
 * per sentence), or those imported from a released file (which lists only confusing sentences, so
 * a sentence it does not mention is clear, as in the authors' script).
 */
export type VerdictSource = { kind: 'model'; annotator: string } | { kind: 'imported'; file: string };

/**
 * The summaries a session's BooookScore is made of. A collection: all of them. A run: the one pinned
 * for its final summary as it stands (root node, active version); summaries pinned for earlier
 * versions, before an edit or a re-run, are history and do not count.
 */
export function currentSummaries<S extends Pick<ScoredSummary, 'node' | 'version'>>(
	summaries: readonly S[],
	run?: Pick<Run, 'root' | 'nodes'>,
): S[] {
	if (!run) return [...summaries];
	const root = run.root === null ? undefined : run.nodes.find((n) => n.id === run.root);
	if (!root || root.active === null) return [];
	return summaries.filter((s) => s.node === root.id && s.version === root.active);
}

/** Summaries pinned for earlier final summaries of a run: kept, shown as history, never scored. */
export function historySummaries<S extends Pick<ScoredSummary, 'node' | 'version'>>(
	summaries: readonly S[],
	run?: Pick<Run, 'root' | 'nodes'>,
): S[] {
	const current = new Set(currentSummaries(summaries, run));
	return summaries.filter((s) => !current.has(s));
}

export interface SummaryPlan {
	summary: ScoredSummary['id'];
	source: VerdictSource;
	/** Sentences of the summary (the project's split). */
	sentences: number;
	/** Sentence indices `source` has no verdict for yet: what a model must annotate first. */
	missing: number[];
	/**
	 * Sentence indices whose latest answer from `source` could not be read (parse failures): left out
	 * of the score, and asked again by the next scoring that can call the model.
	 */
	unreadable: number[];
}

const madeHere = (a: Annotation): boolean =>
	a.source === 'model' && a.imported === null && a.sentence !== null;

/**
 * Per sentence `annotator` has answered, whether its latest answer could be read. In session order:
 * a sentence asked again after a parse failure has its new answer after the failure.
 */
function latestAnswers(
	summary: ScoredSummary['id'],
	annotations: readonly Annotation[],
	annotator: string,
): Map<number, boolean> {
	const latest = new Map<number, boolean>();
	for (const a of annotations)
		if (a.summary === summary && madeHere(a) && a.annotator === annotator)
			latest.set(a.sentence!, a.failure === null);
	return latest;
}

/**
 * Per sentence, how many of `annotator`'s answers to it were recorded as unreadable: asking it
 * again is round that many (0: the first ask), so the calls of rounds already saved are never taken
 * back from the call log as answers of a new one.
 */
export function unreadableRounds(
	summary: ScoredSummary['id'],
	annotations: readonly Annotation[],
	annotator: string,
): Map<number, number> {
	const rounds = new Map<number, number>();
	for (const a of annotations) {
		if (a.summary === summary && madeHere(a) && a.annotator === annotator && a.failure !== null)
			rounds.set(a.sentence!, (rounds.get(a.sentence!) ?? 0) + 1);
	}
	return rounds;
}

/** Sentence indices with a readable answer from `annotator`: these are never asked again. */
export function readablyAnnotatedBy(
	summary: ScoredSummary['id'],
	annotations: readonly Annotation[],
	annotator: string,
): Set<number> {
	return new Set(
		[...latestAnswers(summary, annotations, annotator)].flatMap(([sentence, read]) =>
			read ? [sentence] : [],
		),
	);
}

/**
 * The model to annotate with when none is named: the one that made most of the session's model
 * annotations (so a cancelled scoring continues with the same model), else `fallback`.
 */
export function sessionAnnotator(annotations: readonly Annotation[], fallback: string): string {
	const counts = new Map<string, number>();
	for (const a of annotations) if (madeHere(a)) counts.set(a.annotator, (counts.get(a.annotator) ?? 0) + 1);
	let best = fallback;
	let most = 0;
	for (const [annotator, n] of counts) {
		if (n > most) [best, most] = [annotator, n];
	}
	return best;
}

/**
 * Which verdicts score `summary`, and what is missing. A `requested` annotator (`--provider` /
 * `--model`) is used alone. Otherwise imported model annotations win, then a model that has
 * answered for every sentence (`fallback` first, then the most recent), and else `fallback`, which
 * must annotate what it has not yet.
 */
export function planSummary(
	summary: ScoredSummary,
	annotations: readonly Annotation[],
	opts: { requested: string | null; fallback: string },
): SummaryPlan {
	const n = sentencesOf(summary).length;
	// One pass over the annotations per annotator: a sentence never answered is missing, one whose latest answer could not be read is unreadable.
	const model = (annotator: string): SummaryPlan => {
		const latest = latestAnswers(summary.id, annotations, annotator);
		const indices = Array.from({ length: n }, (_, i) => i);
		return {
			summary: summary.id,
			source: { kind: 'model', annotator },
			sentences: n,
			missing: indices.filter((i) => !latest.has(i)),
			unreadable: indices.filter((i) => latest.get(i) === false),
		};
	};
	if (opts.requested !== null) return model(opts.requested);
	const own = annotations.filter((a) => a.summary === summary.id && a.source === 'model');
	const files = new Map<string, number>();
	for (const a of own) if (a.imported !== null) files.set(a.imported, (files.get(a.imported) ?? 0) + 1);
	if (files.size > 0) {
		const file = [...files].sort((x, y) => y[1] - x[1])[0]![0];
		return {
			summary: summary.id,
			source: { kind: 'imported', file },
			sentences: n,
			missing: [],
			unreadable: [],
		};
	}
	const preferred = model(opts.fallback);
	if (preferred.missing.length === 0) return preferred;
	const latest = own.filter(madeHere).sort((x, y) => y.createdAt.localeCompare(x.createdAt));
	for (const annotator of new Set(latest.map((a) => a.annotator))) {
		const plan = model(annotator);
		if (plan.missing.length === 0) return plan;
	}
	return preferred;
}

function verdictOf(a: Annotation): Answer {
	if (a.failure !== null) return { ok: false, reason: a.failure };
	return a.confusing
		? { ok: true, confusing: true, questions: a.questions, types: [...a.types] }
		: { ok: true, confusing: false, questions: '', types: [] };
}

/** The sentence an annotation is about: its index, else the sentence most of its first span lies in. */
function sentenceOf(a: Annotation, sentences: readonly Sentence[]): number | null {
	if (a.sentence !== null) return a.sentence < sentences.length ? a.sentence : null;
	const span = a.spans[0];
	if (!span) return null;
	let best: number | null = null;
	let most = 0;
	for (const s of sentences) {
		const overlap = Math.min(s.span.end, span.end) - Math.max(s.span.start, span.start);
		if (overlap > most) [best, most] = [s.index, overlap];
	}
	return best;
}

/** One verdict per sentence of the summary from `source`, null where it has none. */
export function verdictsFor(
	summary: ScoredSummary,
	annotations: readonly Annotation[],
	source: VerdictSource,
): (Answer | null)[] {
	const sentences = sentencesOf(summary);
	const own = annotations.filter((a) => a.summary === summary.id && a.source === 'model');
	if (source.kind === 'model') {
		const out: (Answer | null)[] = sentences.map(() => null);
		// In session order, so a later verdict for the same sentence (none is made, but a file
		// edited by hand could have one) replaces an earlier one.
		for (const a of own)
			if (madeHere(a) && a.annotator === source.annotator && a.sentence! < out.length)
				out[a.sentence!] = verdictOf(a);
		return out;
	}
	const out: Answer[] = sentences.map(() => ({ ok: true, confusing: false, questions: '', types: [] }));
	for (const a of own) {
		if (a.imported !== source.file) continue;
		const i = sentenceOf(a, sentences);
		if (i === null) continue;
		const prev = out[i]!;
		const next = verdictOf(a);
		if (!next.ok || !prev.ok) {
			out[i] = next.ok ? prev : next;
			continue;
		}
		if (!next.confusing) continue;
		// Two imported annotations of one sentence (the authors' splitter cut it in two) are one unit.
		const types = [...new Set<Label>([...(prev.confusing ? prev.types : []), ...next.types])];
		const questions =
			prev.confusing && prev.questions !== next.questions
				? `${prev.questions}\n${next.questions}`
				: next.questions;
		out[i] = { ok: true, confusing: true, questions, types };
	}
	return out;
}

/** Human annotations in the form footnote 13's rule reads: one span alone, or two in a relation. */
function humanSummary(summary: ScoredSummary, annotations: readonly Annotation[]): HumanAnnotatedSummary {
	const out: HumanAnnotatedSummary = { summary: summary.text, singles: [], relations: [] };
	for (const a of annotations) {
		if (a.summary !== summary.id || a.source !== 'human') continue;
		const texts = a.spans.map((s) => summary.text.slice(s.start, s.end));
		if (a.spans.length >= 2)
			out.relations.push({
				ids: [`${a.id}a`, `${a.id}b`],
				spans: [texts[0]!, texts[1]!],
				questions: a.questions,
				same: true,
				labels: [...a.types],
			});
		else out.singles.push({ id: a.id, span: texts[0] ?? '', questions: a.questions, labels: [...a.types] });
	}
	return out;
}

export interface ScoredEntry {
	summary: ScoredSummary;
	/** The summary's name in per-book results: its book, made unique within the session. */
	book: string;
	source: VerdictSource;
	score: SummaryScore;
	/** Sentences without any verdict (annotating was cancelled or failed): left out, counted. */
	missing: number;
	/** Sentences whose answer could not be read after every retry. */
	failures: { sentence: number; reason: string }[];
}

export interface SessionScore {
	system: SystemScore;
	entries: ScoredEntry[];
	missing: number;
	/** The summaries people annotated, scored from their annotations (footnote 13); null when none. */
	human: SystemScore | null;
}

/** Book names as result keys: a name shared by two summaries gets the summary's id added. */
export function bookKeys(
	summaries: readonly Pick<ScoredSummary, 'id' | 'book'>[],
): Map<ScoredSummary['id'], string> {
	const counts = new Map<string, number>();
	for (const s of summaries) counts.set(s.book, (counts.get(s.book) ?? 0) + 1);
	return new Map(summaries.map((s) => [s.id, counts.get(s.book)! > 1 ? `${s.book} (${s.id})` : s.book]));
}

export function scoreSession(
	summaries: readonly ScoredSummary[],
	annotations: readonly Annotation[],
	plans: readonly SummaryPlan[],
): SessionScore {
	const byId = new Map(summaries.map((s) => [s.id, s]));
	const chosen = plans.map((p) => {
		const summary = byId.get(p.summary);
		if (!summary) throw new Error(`no summary ${p.summary}`);
		return { plan: p, summary };
	});
	const keys = bookKeys(chosen.map((c) => c.summary));
	const entries: ScoredEntry[] = chosen.map(({ plan, summary }) => {
		const verdicts = verdictsFor(summary, annotations, plan.source);
		const answers = verdicts.filter((v): v is Answer => v !== null);
		const failures = verdicts.flatMap((v, sentence) => (v && !v.ok ? [{ sentence, reason: v.reason }] : []));
		return {
			summary,
			book: keys.get(summary.id)!,
			source: plan.source,
			score: scoreSummary(answers),
			missing: verdicts.length - answers.length,
			failures,
		};
	});
	const system = scoreSystem(new Map(entries.map((e) => [e.book, e.score])));
	const human = humanScore(entries, annotations);
	return { system, entries, missing: entries.reduce((s, e) => s + e.missing, 0), human };
}

/**
 * Human annotations score the summaries a person read: those with a human annotation, and every
 * summary of a file that brought human annotations (people mark only what confused them, so such a
 * summary without one had no confusion, as 17 of the authors' 100 do).
 */
function humanScore(entries: readonly ScoredEntry[], annotations: readonly Annotation[]): SystemScore | null {
	const human = annotations.filter((a) => a.source === 'human');
	const annotated = new Set(human.map((a) => a.summary));
	const files = new Set(human.flatMap((a) => (a.imported === null ? [] : [a.imported])));
	const read = entries.filter(
		(e) => annotated.has(e.summary.id) || (e.summary.node === null && files.has(e.summary.source)),
	);
	if (read.length === 0) return null;
	return scoreSystem(
		new Map(read.map((e) => [e.book, scoreHumanSummary(humanSummary(e.summary, annotations))])),
	);
}

/**
 * The BooookScore a session shows in lists and `show`: its current summaries scored from the model
 * verdicts it holds, or null while a sentence still lacks one (then `booook score ID` is needed).
 */
export function storedScore(
	summaries: readonly ScoredSummary[],
	annotations: readonly Annotation[],
	run?: Pick<Run, 'root' | 'nodes'>,
): number | null {
	return storedSessionScore(summaries, annotations, run)?.system.score ?? null;
}

/** What `storedScore` is made of (its sentences and their error types too), or null when it is null. */
export function storedSessionScore(
	summaries: readonly ScoredSummary[],
	annotations: readonly Annotation[],
	run?: Pick<Run, 'root' | 'nodes'>,
): SessionScore | null {
	if (!annotations.some((a) => a.source === 'model')) return null;
	const current = currentSummaries(summaries, run);
	const fallback = sessionAnnotator(annotations, '');
	const plans = current.map((s) => planSummary(s, annotations, { requested: null, fallback }));
	if (plans.length === 0 || plans.some((p) => p.missing.length > 0)) return null;
	return scoreSession(current, annotations, plans);
}
