import type { Annotation, ScoredSummary, Span } from '../domain.ts';
import { fillWithOffsets, type Templates } from '../summarize/templates.ts';
import { sentenceSpans, type SplitOptions } from '../text/sentences.ts';
import { parseAnswer, parseBatchAnswer, type Answer } from './parse.ts';

/**
 * BooookScore annotation as data (paper §4.1): which calls a summary needs, the prompt of each with
 * its cacheable prefix, and what an answer says about each sentence. No I/O; the runner
 * (engine/annotator.ts) makes the calls.
 */

export type AnnotationTemplateId = 'get_annotations' | 'get_annotations_v2';
export type AnnotationTemplates = Pick<Templates, AnnotationTemplateId>;

/** Output limit of a v1 answer: a few questions and a list of types. */
export const V1_MAX_TOKENS = 300;
/** Output limit of a v2 answer: each item repeats its sentence, so it grows with the batch. */
export function batchMaxTokens(size: number): number {
	return 100 + 200 * size;
}

/** Calls after the first when an answer cannot be read; then the sentence is a parse failure. */
export const MAX_RETRIES = 3;
/**
 * Temperature of those retries. At temperature 0 a model tends to give the same unreadable answer
 * to the same prompt again, so a retry samples (the first call stays at 0, as the paper's is).
 */
export const RETRY_TEMPERATURE = 0.7;

/** A sentence of a summary: its index in the project's split, its range and its text. */
export interface Sentence {
	index: number;
	span: Span;
	text: string;
}

/** How a scored summary is cut into sentences, as its `units` say: what its verdicts' sentence numbers count. */
export function scoredSplit(summary: Pick<ScoredSummary, 'units'>): SplitOptions {
	return { lineBreaks: summary.units !== 'nltk' };
}

/** The sentences BooookScore counts in a scored summary. */
export function scoredSpans(summary: Pick<ScoredSummary, 'text' | 'units'>): Span[] {
	return sentenceSpans(summary.text, scoredSplit(summary));
}

export function sentencesOf(summary: Pick<ScoredSummary, 'text' | 'units'>): Sentence[] {
	const { text } = summary;
	return scoredSpans(summary).map((span, index) => ({ index, span, text: text.slice(span.start, span.end) }));
}

/** One call's worth of work: one sentence (v1) or a numbered batch of them (v2). */
export interface Unit {
	/** `s0:4` or `s0:4,5,6`: the summary and its sentences, written as `node` in calls.jsonl. */
	id: string;
	summary: ScoredSummary['id'];
	sentences: Sentence[];
	template: AnnotationTemplateId;
	prompt: string;
	/** The start of `prompt` every unit of this summary shares (instructions, examples, summary). */
	prefix: string;
	maxTokens: number;
}

/**
 * The units that annotate `indices` of `summary` (sentence indices of its split; each index is its
 * own unit or batch member even when two sentences read the same). `batchSize` null is the v1
 * prompt, one sentence a call; a number is the v2 prompt with that many sentences a call.
 */
export function unitsFor(
	summary: Pick<ScoredSummary, 'id' | 'text' | 'units'>,
	indices: readonly number[],
	templates: AnnotationTemplates,
	batchSize: number | null = null,
): Unit[] {
	const all = sentencesOf(summary);
	const wanted = [...new Set(indices)]
		.sort((a, b) => a - b)
		.map((i) => {
			const s = all[i];
			if (!s) throw new Error(`summary ${summary.id} has no sentence ${i} (it has ${all.length})`);
			return s;
		});
	if (batchSize === null) return wanted.map((s) => v1Unit(summary, s, templates.get_annotations));
	if (!Number.isInteger(batchSize) || batchSize < 1)
		throw new Error(`batch size must be a whole number ≥ 1, not ${batchSize}`);
	const units: Unit[] = [];
	for (let i = 0; i < wanted.length; i += batchSize)
		units.push(v2Unit(summary, wanted.slice(i, i + batchSize), templates.get_annotations_v2));
	return units;
}

function unitId(summary: ScoredSummary['id'], sentences: readonly Sentence[]): string {
	return `${summary}:${sentences.map((s) => s.index).join(',')}`;
}

/** Whether a logged call was made for an annotation unit (`s0:4`), not for a run's node or a judge's sentence. */
export function isAnnotationCall(owner: string): boolean {
	return /^s\d+:/u.test(owner);
}

function v1Unit(summary: Pick<ScoredSummary, 'id' | 'text'>, sentence: Sentence, template: string): Unit {
	// Slot order is the template's contract: summary, then the sentence.
	const { text, offsets } = fillWithOffsets(template, [summary.text, sentence.text]);
	return {
		id: unitId(summary.id, [sentence]),
		summary: summary.id,
		sentences: [sentence],
		template: 'get_annotations',
		prompt: text,
		prefix: before(text, offsets[1]),
		maxTokens: V1_MAX_TOKENS,
	};
}

/** The filled text before the sentence slot: the part every unit of a summary shares. */
function before(text: string, at: number | undefined): string {
	if (at === undefined) throw new Error('annotation template has no sentence slot');
	return text.slice(0, at);
}

/** The v2 sentence list, numbered from 1 within the batch as in the prompt's examples. */
export function numberedSentences(sentences: readonly Pick<Sentence, 'text'>[]): string {
	return sentences.map((s, i) => `${i + 1}. ${s.text}`).join('\n');
}

function v2Unit(summary: Pick<ScoredSummary, 'id' | 'text'>, sentences: Sentence[], template: string): Unit {
	const { text, offsets } = fillWithOffsets(template, {
		summary: summary.text,
		sentences: numberedSentences(sentences),
	});
	return {
		id: unitId(summary.id, sentences),
		summary: summary.id,
		sentences,
		template: 'get_annotations_v2',
		prompt: text,
		prefix: before(text, offsets.sentences),
		maxTokens: batchMaxTokens(sentences.length),
	};
}

/**
 * What an answer says of each of the unit's sentences, in the unit's order. A v2 answer that
 * cannot be matched to the batch (not a list, wrong count) fails every sentence with its reason.
 */
export function readAnswer(unit: Pick<Unit, 'template' | 'sentences'>, text: string): Answer[] {
	if (unit.template === 'get_annotations') return [parseAnswer(text)];
	const batch = parseBatchAnswer(text, unit.sentences.length);
	if (!batch.ok) return unit.sentences.map(() => ({ ok: false, reason: batch.reason }));
	return batch.answers;
}

/**
 * The annotation a verdict makes; a failed answer makes a parse-failure record (not confusing, no
 * types, `failure` set) that the scorer leaves out and counts. The raw answer is kept either way.
 */
export function modelAnnotation(fields: {
	id: Annotation['id'];
	summary: ScoredSummary['id'];
	sentence: Sentence;
	answer: Answer;
	annotator: string;
	raw: string;
	createdAt: string;
}): Annotation {
	const { answer } = fields;
	return {
		id: fields.id,
		summary: fields.summary,
		sentence: fields.sentence.index,
		spans: [{ start: fields.sentence.span.start, end: fields.sentence.span.end }],
		confusing: answer.ok ? answer.confusing : false,
		questions: answer.ok ? answer.questions : '',
		types: answer.ok ? [...answer.types] : [],
		source: 'model',
		annotator: fields.annotator,
		imported: null,
		raw: fields.raw,
		failure: answer.ok ? null : answer.reason,
		createdAt: fields.createdAt,
	};
}

/** The next free `a<n>` id after those in use. */
export function nextAnnotationId(annotations: readonly Pick<Annotation, 'id'>[]): Annotation['id'] {
	return `a${nextNumber(annotations.map((a) => a.id))}`;
}

/** The next free `s<n>` id after those in use. */
export function nextSummaryId(summaries: readonly Pick<ScoredSummary, 'id'>[]): ScoredSummary['id'] {
	return `s${nextNumber(summaries.map((s) => s.id))}`;
}

function nextNumber(ids: readonly string[]): number {
	let max = -1;
	for (const id of ids) max = Math.max(max, Number(id.slice(1)));
	return max + 1;
}
