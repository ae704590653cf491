import type { Annotation, Judgment, ScoredSummary } from '../domain.ts';
import { RELEASED_VERDICT } from './formats.ts';
import { verdictsOf } from './validation.ts';

/**
 * Verdicts out of a session: in the released precision study's shape (so the authors' analysis
 * reads them) and as CSV (one row per verdict, for spreadsheets and R). Pure.
 */

/** What of a session the exports read: its summaries, their annotations and the verdicts on those. */
export interface Verdicts {
	readonly summaries: readonly ScoredSummary[];
	readonly annotations: readonly Annotation[];
	readonly judgments: readonly Judgment[];
}

interface Joined {
	judgment: Judgment;
	annotation: Annotation;
	summary: ScoredSummary;
}

/** Each validator's latest verdict per annotation (undone ones are gone), validator by validator. */
function joined(data: Verdicts, validator: string | null): Joined[] {
	const annotations = new Map(data.annotations.map((a) => [a.id, a]));
	const summaries = new Map(data.summaries.map((s) => [s.id, s]));
	const validators = validator === null ? [...new Set(data.judgments.map((j) => j.validator))] : [validator];
	return validators
		.flatMap((v) => [...verdictsOf(data.judgments, v).values()])
		.map((judgment) => {
			const annotation = annotations.get(judgment.annotation)!;
			return { judgment, annotation, summary: summaries.get(annotation.summary)! };
		});
}

const spanTexts = (a: Annotation, s: ScoredSummary) =>
	a.spans.map((span) => s.text.slice(span.start, span.end));

/** `{ book: { summary, annotations: [{ source, anno, agreement, reasons, explanation }] } }`, one validator. */
export function verdictsAsRelease(
	data: Verdicts,
	validator: string,
): Record<string, { summary: string; annotations: unknown[] }> {
	const out: Record<string, { summary: string; annotations: unknown[] }> = {};
	for (const { judgment, annotation, summary } of joined(data, validator)) {
		const [a, b] = spanTexts(annotation, summary);
		const anno =
			b === undefined
				? { span: a ?? '', questions: annotation.questions, labels: annotation.types }
				: { span_a: a!, span_b: b, shared_questions: annotation.questions, shared_labels: annotation.types };
		(out[summary.book] ??= { summary: summary.text, annotations: [] }).annotations.push({
			source: annotation.source,
			anno,
			agreement: RELEASED_VERDICT[judgment.verdict],
			reasons: judgment.reasons.length > 0 ? judgment.reasons : null,
			explanation: judgment.note,
		});
	}
	return out;
}

const CSV_COLUMNS = [
	'book',
	'annotation',
	'source',
	'annotator',
	'span',
	'span_b',
	'questions',
	'types',
	'validator',
	'verdict',
	'reasons',
	'note',
	'at',
] as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function field(value: string): string {
	return /[",\r\n]/u.test(value) ? `"${value.replace(/"/gu, '""')}"` : value;
}

/** Every verdict (all validators unless one is named), one CSV row each, with a header. */
export function verdictsAsCsv(data: Verdicts, validator: string | null): string {
	const rows = joined(data, validator).map(({ judgment, annotation, summary }) => {
		const [a, b] = spanTexts(annotation, summary);
		return [
			summary.book,
			annotation.id,
			annotation.source,
			annotation.annotator,
			a ?? '',
			b ?? '',
			annotation.questions,
			annotation.types.join('; '),
			judgment.validator,
			judgment.verdict,
			judgment.reasons.join('; '),
			judgment.note ?? '',
			judgment.at,
		];
	});
	return [CSV_COLUMNS.join(','), ...rows.map((r) => r.map(field).join(','))].join('\r\n') + '\r\n';
}
