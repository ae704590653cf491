import { scoredSpans } from './annotate.ts';
import type { Annotation, ErrorType, ImportedRun, Judgment, Method, ScoredSummary, Span } from '../domain.ts';
import { releasedVerdicts } from './booookscore.ts';
import type { HierarchicalRun, HumanAnnotatedSummary, JudgedSummary, ReleasedAnnotation } from './formats.ts';

/**
 * The BooookScore authors' released files, already read and converted (`score/formats.ts`), turned
 * into the contents of one collection session: summaries, annotations and judgments. Pure: the
 * caller passes the import time, reads the files and writes the session, so a file that fails to
 * convert stops the import before anything exists on disk.
 *
 * Nothing is dropped in silence: annotated sentences that are not in their summary, annotated books
 * without a summary and spans that cannot be located are listed in the file's report.
 */

/** Who the released annotations and verdicts are attributed to in the session. */
export const RELEASED = {
	model: 'gpt-4 (released)',
	human: 'human annotator (released)',
	validator: "authors' study (released)",
} as const;

/** An intermediate run as released: which children went into which merge was not recorded. */
export type IntermediateRuns =
	| { method: 'hier'; runs: ReadonlyMap<string, HierarchicalRun> }
	| { method: 'inc'; runs: ReadonlyMap<string, readonly string[]> };

/** Each file's path is what the session's `sources` record; its base name tags what came from it. */
export interface ImportInput {
	summaries?: {
		file: string;
		books: ReadonlyMap<string, string>;
		/** Model annotations of those summaries (`--annotations`). */
		annotations?: { file: string; books: ReadonlyMap<string, readonly ReleasedAnnotation[]> };
	};
	intermediate?: { file: string } & IntermediateRuns;
	human?: { file: string; books: ReadonlyMap<string, HumanAnnotatedSummary> };
	validation?: { file: string; books: ReadonlyMap<string, JudgedSummary> };
}

export type ImportFlag = '--summaries' | '--annotations' | '--intermediate' | '--human' | '--validation';

/** What one file gave, for the command's output. */
export interface FileReport {
	flag: ImportFlag;
	file: string;
	summaries: number;
	/** Annotations made from this file (model: one per sentence; human: one per single or relation). */
	annotations: number;
	confusing: number;
	judgments: number;
	/** Annotated sentences not found in their summary (model annotations). */
	unmatched: { book: string; text: string }[];
	/** Annotated books with no summary in `--summaries` (model annotations). */
	orphans: string[];
	/** Human or validation spans not found in their summary: their annotation is kept with no spans. */
	unlocated: { book: string; text: string }[];
	/** The method of an intermediate file. */
	method?: Method;
}

export interface ImportResult {
	title: string;
	sources: string[];
	summaries: ScoredSummary[];
	annotations: Annotation[];
	judgments: Judgment[];
	/** The levels or steps behind each `--intermediate` summary (same book and source). */
	runs: ImportedRun[];
	reports: FileReport[];
}

/** The base name of a path, whichever separator it uses. */
export function baseName(path: string): string {
	return path.split(/[\\/]/u).pop() ?? path;
}

/**
 * "gpt4-2048-hier (BooookScore release)": the configurations the files name, without the
 * extension and the authors' prefixes and suffixes ("summary-", "annotations-", "-cleaned").
 */
export function collectionTitle(files: readonly string[]): string {
	const stems = files.map((f) =>
		baseName(f)
			.replace(/\.json$/iu, '')
			.replace(/-cleaned$/u, '')
			.replace(/^(summary|summaries|annotations)-/u, ''),
	);
	return `${[...new Set(stems)].join(' + ')} (BooookScore release)`;
}

export function importBooookScore(input: ImportInput, now: string): ImportResult {
	const summaries: ScoredSummary[] = [];
	const annotations: Annotation[] = [];
	const judgments: Judgment[] = [];
	const runs: ImportedRun[] = [];
	const reports: FileReport[] = [];
	const sources: string[] = [];

	const addSummary = (book: string, text: string, file: string): ScoredSummary => {
		const s: ScoredSummary = {
			id: `s${summaries.length}`,
			book,
			text,
			node: null,
			version: null,
			source: baseName(file),
			// The authors' files cut summaries with NLTK, and their annotations name NLTK's sentences.
			units: 'nltk',
		};
		summaries.push(s);
		return s;
	};
	const addAnnotation = (a: NewAnnotation): Annotation => {
		const full: Annotation = { id: `a${annotations.length}`, ...a, failure: null, createdAt: now };
		annotations.push(full);
		return full;
	};
	const report = (flag: ImportFlag, file: string): FileReport => {
		sources.push(file);
		const r: FileReport = {
			flag,
			file: baseName(file),
			summaries: 0,
			annotations: 0,
			confusing: 0,
			judgments: 0,
			unmatched: [],
			orphans: [],
			unlocated: [],
		};
		reports.push(r);
		return r;
	};

	if (input.summaries) {
		const { file, books, annotations: model } = input.summaries;
		const r = report('--summaries', file);
		const m = model ? report('--annotations', model.file) : null;
		for (const [book, text] of books) {
			const summary = addSummary(book, text, file);
			r.summaries += 1;
			if (!model || !m) continue;
			for (const a of modelAnnotations(summary, model.books.get(book) ?? [], baseName(model.file), m)) {
				addAnnotation(a);
				m.annotations += 1;
				if (a.confusing) m.confusing += 1;
			}
		}
		if (model && m) m.orphans = [...model.books.keys()].filter((book) => !books.has(book));
	}

	if (input.intermediate) {
		const r = report('--intermediate', input.intermediate.file);
		r.method = input.intermediate.method;
		if (input.intermediate.method === 'hier') {
			for (const [book, run] of input.intermediate.runs) {
				const summary = addSummary(book, run.final, input.intermediate.file);
				runs.push({ book, source: summary.source, method: 'hier', levels: run.levels.map((l) => [...l]) });
				r.summaries += 1;
			}
		} else {
			for (const [book, steps] of input.intermediate.runs) {
				// The converter guarantees at least one step; the last running summary is the final one.
				const summary = addSummary(book, steps[steps.length - 1] ?? '', input.intermediate.file);
				runs.push({ book, source: summary.source, method: 'inc', steps: [...steps] });
				r.summaries += 1;
			}
		}
	}

	if (input.human) {
		const { file } = input.human;
		const r = report('--human', file);
		for (const [book, h] of input.human.books) {
			const summary = addSummary(book, h.summary, file);
			const sentences = scoredSpans(summary);
			r.summaries += 1;
			const units = [
				...h.singles.map((s) => ({ texts: [s.span], questions: s.questions, types: s.labels, raw: s })),
				...h.relations.map((rel) => ({
					texts: rel.spans,
					questions: rel.questions,
					types: rel.labels,
					raw: rel,
				})),
			];
			for (const unit of units) {
				addAnnotation(
					humanAnnotation(summary, sentences, unit.texts, unit, 'human', RELEASED.human, baseName(file), r),
				);
				r.annotations += 1;
				r.confusing += 1;
			}
		}
	}

	if (input.validation) {
		const { file } = input.validation;
		const r = report('--validation', file);
		for (const [book, study] of input.validation.books) {
			const summary = addSummary(book, study.summary, file);
			const sentences = scoredSpans(summary);
			r.summaries += 1;
			for (const j of study.judged) {
				const texts = j.annotation.kind === 'single' ? [j.annotation.span] : j.annotation.spans;
				const annotator = j.source === 'model' ? RELEASED.model : RELEASED.human;
				const unit = {
					questions: j.annotation.questions,
					types: j.annotation.labels ?? [],
					raw: j.annotation,
				};
				const a = addAnnotation(
					humanAnnotation(summary, sentences, texts, unit, j.source, annotator, baseName(file), r),
				);
				r.annotations += 1;
				r.confusing += 1;
				judgments.push({
					annotation: a.id,
					validator: RELEASED.validator,
					verdict: j.verdict,
					reasons: [...j.reasons],
					note: j.explanation,
					at: now,
				});
				r.judgments += 1;
			}
		}
	}

	return { title: collectionTitle(sources), sources, summaries, annotations, judgments, runs, reports };
}

type NewAnnotation = Omit<Annotation, 'id' | 'createdAt' | 'failure'>;

/**
 * One annotation per sentence of our split, confusing or clear, so what was annotated is known
 * (the released files list only confusing sentences; a summary they do not mention had none).
 */
function modelAnnotations(
	summary: ScoredSummary,
	released: readonly ReleasedAnnotation[],
	imported: string,
	report: FileReport,
): NewAnnotation[] {
	const spans = scoredSpans(summary);
	const verdicts = releasedVerdicts(summary.text, released);
	for (const text of verdicts.unmatched) report.unmatched.push({ book: summary.book, text });
	return spans.map((span, i): NewAnnotation => {
		const answer = verdicts.answers[i];
		const confusing = answer?.ok === true && answer.confusing;
		const entries = confusing ? verdicts.entries[i]!.map((k) => released[k]!) : [];
		return {
			summary: summary.id,
			sentence: i,
			spans: [span],
			confusing,
			questions: confusing && answer?.ok ? answer.questions : '',
			types: confusing && answer?.ok ? answer.types : [],
			source: 'model',
			annotator: RELEASED.model,
			imported,
			raw: entries.length > 0 ? JSON.stringify(entries) : null,
		};
	});
}

/**
 * A span-based annotation (human, or any in the precision study): confusing by definition, its
 * spans located in the summary, its sentence the one where the first span starts.
 */
function humanAnnotation(
	summary: ScoredSummary,
	sentences: readonly Span[],
	texts: readonly string[],
	unit: { questions: string; types: readonly ErrorType[]; raw: unknown },
	source: Annotation['source'],
	annotator: string,
	imported: string,
	report: FileReport,
): NewAnnotation {
	const spans: Span[] = [];
	for (const text of texts) {
		const span = locate(summary.text, text);
		if (span) spans.push(span);
		else report.unlocated.push({ book: summary.book, text });
	}
	// A relation with one span lost would point at the wrong place: keep none rather than half.
	const located = spans.length === texts.length ? spans : [];
	return {
		summary: summary.id,
		sentence: located[0] ? sentenceAt(sentences, firstWord(summary.text, located[0])) : null,
		spans: located,
		confusing: true,
		questions: unit.questions.trim(),
		types: [...new Set(unit.types)],
		source,
		annotator,
		imported,
		raw: JSON.stringify(unit.raw),
	};
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/**
 * Where `text` is in `summary`: verbatim first, then allowing any run of whitespace where the text
 * has some (annotation tools collapse line breaks and double spaces). Null when it is in neither.
 */
export function locate(summary: string, text: string): Span | null {
	const wanted = text.trim();
	if (wanted === '') return null;
	const at = summary.indexOf(wanted);
	if (at !== -1) return { start: at, end: at + wanted.length };
	const pattern = new RegExp(wanted.split(/\s+/u).map(escapeRegExp).join('\\s+'), 'u');
	const match = pattern.exec(summary);
	return match ? { start: match.index, end: match.index + match[0].length } : null;
}

/**
 * Where the span's first word starts: a span copied with the previous sentence's full stop
 * (". She realizes ...") belongs to the sentence it goes on to, not the one that stop ends.
 */
function firstWord(summary: string, span: Span): number {
	const at = summary.slice(span.start, span.end).search(/[\p{L}\p{N}]/u);
	return at === -1 ? span.start : span.start + at;
}

/** The sentence holding character `at`, or the next one when `at` is between sentences. */
function sentenceAt(sentences: readonly Span[], at: number): number | null {
	const i = sentences.findIndex((s) => at < s.end);
	return i === -1 ? null : i;
}
