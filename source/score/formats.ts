import { z } from 'zod';
import { LABELS, type Label } from './labels.ts';

/**
 * The BooookScore authors' released file formats (lilakk/BooookScore), as zod schemas and pure
 * converters from already-parsed JSON to typed structures. Reading the files is the caller's job.
 * A converter never throws: a malformed value gives an error naming the first bad entry (book,
 * then sentence key or list index, then field), so a user can find it in a file of megabytes.
 * Objects are not strict: a field we do not use is no reason to refuse the authors' data.
 */

export type Converted<T> = { ok: true; value: T } | { ok: false; error: string };

/** The authors' three verdicts in the precision study (Appendix G), in our words. */
export type { Verdict } from '../domain.ts';
import type { Verdict } from '../domain.ts';

export const labelSchema = z.enum(LABELS, {
	error: (issue) => `unknown type ${JSON.stringify(issue.input)}`,
});

const short = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

// Field names of the formats below: shown bare in an error, where any other key (a sentence) is
// quoted.
const FIELDS = new Set([
	'questions',
	'types',
	'span',
	'sentence',
	'sentence_num',
	'summaries_dict',
	'final_summary',
	'summary',
	'singles',
	'relations',
	'id',
	'labels',
	'id_a',
	'id_b',
	'span_a',
	'span_b',
	'shared_questions',
	'same',
	'shared_labels',
	'annotations',
	'source',
	'anno',
	'agreement',
	'reasons',
	'explanation',
]);

/** `book, "sentence…", types[1]` from a zod path: what a person searches the file for. */
function where(path: readonly PropertyKey[]): string {
	let out = '';
	for (const [i, key] of path.entries()) {
		if (typeof key === 'number') out += `[${key}]`;
		else if (i === 0) out += String(key);
		else out += `, ${typeof key === 'string' && FIELDS.has(key) ? key : short(String(key))}`;
	}
	return out;
}

function check<S extends z.ZodType>(
	what: string,
	schema: S,
	value: unknown,
	prefix: PropertyKey[] = [],
): Converted<z.output<S>> {
	const result = schema.safeParse(value);
	if (result.success) return { ok: true, value: result.data };
	const issue = result.error.issues[0]!;
	const at = where([...prefix, ...issue.path]);
	return { ok: false, error: `${what}: ${at ? `${at}: ` : ''}${issue.message}` };
}

/** Runs `convert` over a JSON object's entries in file order, stopping at the first error. */
function perBook<T>(
	what: string,
	value: unknown,
	convert: (book: string, entry: unknown) => Converted<T>,
): Converted<Map<string, T>> {
	const top = check(what, z.record(z.string(), z.unknown()), value);
	if (!top.ok) return top;
	const out = new Map<string, T>();
	for (const [book, entry] of Object.entries(top.value)) {
		const converted = convert(book, entry);
		if (!converted.ok) return converted;
		out.set(book, converted.value);
	}
	return { ok: true, value: out };
}

// ---------------------------------------------------------------------------------------------
// Summaries: { "<book>.epub": "<final summary>" }

export const summariesSchema = z.record(z.string(), z.string());

export function convertSummaries(value: unknown): Converted<Map<string, string>> {
	const parsed = check('summaries', summariesSchema, value);
	return parsed.ok ? { ok: true, value: new Map(Object.entries(parsed.value)) } : parsed;
}

// ---------------------------------------------------------------------------------------------
// Model annotations, three shapes per book:
//   { "<sentence>": { questions, types } }           v1; only confusing sentences, types a list
//   { "<sentence>": { sentence_num, sentence, questions, types } }   v2; every sentence, nulls
//                                                     when clear, types a comma-separated string
//   [ { span, questions, types } ]                    the list form of other configurations
// and null (or a missing book) when no sentence was confusing.

/** One released model annotation, whatever shape it came in. */
export interface ReleasedAnnotation {
	/** The sentence as the authors' splitter (NLTK) cut it. */
	sentence: string;
	confusing: boolean;
	questions: string;
	types: Label[];
}

const typesField = z.preprocess(
	(v) =>
		typeof v === 'string' ? (v.trim() === '' ? null : v.split(',').map((t) => t.trim().toLowerCase())) : v,
	z.array(labelSchema).nullable(),
);
const annotationFields = {
	questions: z.string().nullable(),
	types: typesField,
};
const bothOrNeither = (a: { questions: string | null; types: Label[] | null }): boolean =>
	(a.questions === null || a.questions.trim() === '') === (a.types === null || a.types.length === 0);
const BOTH = { message: 'questions and types must both be given or both be empty' };

export const sentenceAnnotationSchema = z.object(annotationFields).refine(bothOrNeither, BOTH);
export const spanAnnotationSchema = z
	.object({ span: z.string(), ...annotationFields })
	.refine(bothOrNeither, BOTH);
const dictForm = z.record(z.string(), sentenceAnnotationSchema);
const listForm = z.array(spanAnnotationSchema);

function released(
	sentence: string,
	a: { questions: string | null; types: Label[] | null },
): ReleasedAnnotation {
	const types = a.types ?? [];
	return {
		sentence,
		confusing: types.length > 0,
		questions: types.length > 0 ? (a.questions ?? '').trim() : '',
		types,
	};
}

/** Annotations per book, in file order; a null book has none. Books absent from the file had none. */
export function convertModelAnnotations(value: unknown): Converted<Map<string, ReleasedAnnotation[]>> {
	const what = 'model annotations';
	return perBook(what, value, (book, entry): Converted<ReleasedAnnotation[]> => {
		if (entry === null) return { ok: true, value: [] };
		if (Array.isArray(entry)) {
			const list = check(what, listForm, entry, [book]);
			return list.ok ? { ok: true, value: list.value.map((a) => released(a.span, a)) } : list;
		}
		const dict = check(what, dictForm, entry, [book]);
		return dict.ok ? { ok: true, value: Object.entries(dict.value).map(([s, a]) => released(s, a)) } : dict;
	});
}

// ---------------------------------------------------------------------------------------------
// Intermediate summaries (claude-88000):
//   hier: { "<book>": { summaries_dict: { "0": [..], "1": [..] }, final_summary } }
//   inc:  { "<book>": [ "<running summary after chunk 1>", ... ] }

export interface HierarchicalRun {
	/** Level by level from the chunk summaries up; which children fed which merge is not recorded. */
	levels: string[][];
	final: string;
}

export const hierarchicalRunSchema = z.object({
	summaries_dict: z.record(z.string().regex(/^\d+$/u, 'levels are numbered 0, 1, ...'), z.array(z.string())),
	final_summary: z.string(),
});

export function convertHierarchicalRuns(value: unknown): Converted<Map<string, HierarchicalRun>> {
	const what = 'hierarchical intermediate summaries';
	return perBook(what, value, (book, entry): Converted<HierarchicalRun> => {
		const run = check(what, hierarchicalRunSchema, entry, [book]);
		if (!run.ok) return run;
		const keys = Object.keys(run.value.summaries_dict)
			.map(Number)
			.sort((a, b) => a - b);
		if (keys.some((k, i) => k !== i)) {
			return {
				ok: false,
				error: `${what}: ${book}, summaries_dict: levels ${keys.join(', ')} are not 0, 1, ... without gaps`,
			};
		}
		return {
			ok: true,
			value: {
				levels: keys.map((k) => run.value.summaries_dict[String(k)]!),
				final: run.value.final_summary,
			},
		};
	});
}

export const incrementalRunSchema = z.array(z.string()).min(1, 'an incremental run has at least one summary');

/** The running summary after each chunk, in order; the last is the final summary. */
export function convertIncrementalRuns(value: unknown): Converted<Map<string, string[]>> {
	const what = 'incremental intermediate summaries';
	return perBook(what, value, (book, entry) => check(what, incrementalRunSchema, entry, [book]));
}

// ---------------------------------------------------------------------------------------------
// Human annotations of summaries (summary-gpt4-4096-hier.json): spans the annotators highlighted,
// alone ("singles") or two spans sharing one confusion ("relations").

export interface HumanSingle {
	id: string;
	/** Part of a sentence, a sentence or several consecutive sentences. */
	span: string;
	questions: string;
	labels: Label[];
}

export interface HumanRelation {
	ids: [string, string];
	spans: [string, string];
	questions: string;
	/** The annotators' "same" flag, kept as released. */
	same: boolean;
	labels: Label[];
}

export interface HumanAnnotatedSummary {
	summary: string;
	singles: HumanSingle[];
	relations: HumanRelation[];
}

export const humanSummarySchema = z.object({
	summary: z.string(),
	singles: z.array(
		z.object({ id: z.string(), span: z.string(), questions: z.string(), labels: z.array(labelSchema) }),
	),
	relations: z.array(
		z.object({
			id_a: z.string(),
			id_b: z.string(),
			span_a: z.string(),
			span_b: z.string(),
			shared_questions: z.string(),
			same: z.boolean(),
			shared_labels: z.array(labelSchema),
		}),
	),
});

export function convertHumanAnnotations(value: unknown): Converted<Map<string, HumanAnnotatedSummary>> {
	const what = 'human annotations';
	return perBook(what, value, (book, entry): Converted<HumanAnnotatedSummary> => {
		const parsed = check(what, humanSummarySchema, entry, [book]);
		if (!parsed.ok) return parsed;
		const { summary, singles, relations } = parsed.value;
		return {
			ok: true,
			value: {
				summary,
				singles: singles.map((s) => ({ id: s.id, span: s.span, questions: s.questions, labels: s.labels })),
				relations: relations.map((r) => ({
					ids: [r.id_a, r.id_b],
					spans: [r.span_a, r.span_b],
					questions: r.shared_questions,
					same: r.same,
					labels: r.shared_labels,
				})),
			},
		};
	});
}

// ---------------------------------------------------------------------------------------------
// The precision study (annotations-gpt4-4096-inc.json, Appendix G): human and GPT-4 annotations,
// mixed and unlabelled, each judged by an annotator who did not write the summary's annotations.

export type JudgedAnnotation =
	| { kind: 'single'; span: string; questions: string; labels: Label[] | null }
	| { kind: 'relation'; spans: [string, string]; questions: string; labels: Label[] | null };

export interface Judged {
	source: 'human' | 'model';
	annotation: JudgedAnnotation;
	verdict: Verdict;
	/** The standards the annotation failed, as released ("B. Answered in the summary", ...). */
	reasons: string[];
	explanation: string | null;
}

export interface JudgedSummary {
	summary: string;
	judged: Judged[];
}

const VERDICTS = {
	Agree: 'agree',
	'Partially agree': 'partial',
	"Don't agree": 'disagree',
} as const satisfies Record<string, Verdict>;

/** A verdict as the released study spells it, for exports the authors' analysis reads. */
export const RELEASED_VERDICT = Object.fromEntries(
	Object.entries(VERDICTS).map(([k, v]) => [v, k]),
) as Record<Verdict, keyof typeof VERDICTS>;

const singleAnno = z.object({
	span: z.string(),
	questions: z.string(),
	labels: z.array(labelSchema).optional(),
});
const relationAnno = z.object({
	span_a: z.string(),
	span_b: z.string(),
	shared_questions: z.string(),
	shared_labels: z.array(labelSchema).optional(),
});
const textOrLines = z
	.union([z.string(), z.array(z.string())])
	.nullable()
	.optional();

export const precisionSummarySchema = z.object({
	summary: z.string(),
	annotations: z.array(
		z.object({
			source: z.enum(['human', 'model']),
			// Which of the two shapes is decided below, so an error names the shape's own field.
			anno: z.record(z.string(), z.unknown()),
			agreement: z.enum(Object.keys(VERDICTS) as [keyof typeof VERDICTS, ...(keyof typeof VERDICTS)[]]),
			reasons: z.array(z.string()).nullable().optional(),
			explanation: textOrLines,
		}),
	),
});

export function convertPrecisionStudy(value: unknown): Converted<Map<string, JudgedSummary>> {
	const what = 'precision study';
	return perBook(what, value, (book, entry): Converted<JudgedSummary> => {
		const parsed = check(what, precisionSummarySchema, entry, [book]);
		if (!parsed.ok) return parsed;
		const judged: Judged[] = [];
		for (const [i, a] of parsed.value.annotations.entries()) {
			const path = [book, 'annotations', i, 'anno'];
			let annotation: JudgedAnnotation;
			if ('span_a' in a.anno || 'span_b' in a.anno) {
				const r = check(what, relationAnno, a.anno, path);
				if (!r.ok) return r;
				const { span_a, span_b, shared_questions, shared_labels } = r.value;
				annotation = {
					kind: 'relation',
					spans: [span_a, span_b],
					questions: shared_questions,
					labels: shared_labels ?? null,
				};
			} else {
				const s = check(what, singleAnno, a.anno, path);
				if (!s.ok) return s;
				annotation = {
					kind: 'single',
					span: s.value.span,
					questions: s.value.questions,
					labels: s.value.labels ?? null,
				};
			}
			const explanation = Array.isArray(a.explanation) ? a.explanation.join('\n') : (a.explanation ?? null);
			judged.push({
				source: a.source,
				annotation,
				verdict: VERDICTS[a.agreement],
				reasons: a.reasons ?? [],
				explanation,
			});
		}
		return { ok: true, value: { summary: parsed.value.summary, judged } };
	});
}
