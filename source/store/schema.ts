import { z } from 'zod';
import {
	annotationSchema,
	bookSchema,
	callParamsSchema,
	faithfulnessRatingSchema,
	faithfulnessVerdictSchema,
	importedRunSchema,
	judgmentSchema,
	memoryAnswerSchema,
	memoryQuestionSchema,
	memorySceneSchema,
	runSchema,
	scoredSummarySchema,
	timingsSchema,
	usageSchema,
	walkSchema,
} from '../domain.ts';

/**
 * The shape of session.json and of one calls.jsonl line, built from the domain model's schemas
 * (`source/domain.ts`, where each record is declared once and why objects are strict is said).
 */

export { bookSchema, runSchema };

/** 2 added collections, scored summaries, annotations and judgments (see `migrate`). */
export const SCHEMA_VERSION = 2 as const;

const count = z.int().nonnegative();
const iso = z.iso.datetime({ offset: true });

const common = {
	schema: z.literal(SCHEMA_VERSION),
	id: z.string().min(1),
	createdAt: iso,
	updatedAt: iso,
	openedAt: iso,
	/** The texts BooookScore has annotated or will: pinned copies, so later edits change nothing here. */
	summaries: z.array(scoredSummarySchema),
	annotations: z.array(annotationSchema),
	judgments: z.array(judgmentSchema),
	/** Faithfulness verdicts on summary sentences (LongEval). Optional: sessions from before them have none. */
	faithfulness: z.array(faithfulnessVerdictSchema).optional(),
	/** Coarse ratings of whole summaries (LongEval's 1-5 Likert). Optional: sessions from before them have none. */
	faithfulnessRatings: z.array(faithfulnessRatingSchema).optional(),
	/** The validation walks begun, one per validator, mode, seed and fraction. Optional: sessions from before walks were recorded have none. */
	walks: z.array(walkSchema).optional(),
	/** Memory probes (NarrativeXL): scenes, read-along questions and a model's answers. Optional: sessions from before them have none. */
	memoryScenes: z.array(memorySceneSchema).optional(),
	memoryQuestions: z.array(memoryQuestionSchema).optional(),
	memoryAnswers: z.array(memoryAnswerSchema).optional(),
};

/** A run over one book (book.txt beside it). The engine mutates `run` in memory and the store saves it. */
const bookSession = z.strictObject({ kind: z.literal('book'), ...common, book: bookSchema, run: runSchema });
export type BookSessionData = z.infer<typeof bookSession>;

/** Summaries imported from files (the authors' released data): scored and validated, never run. */
const collectionSession = z.strictObject({
	kind: z.literal('collection'),
	...common,
	title: z.string(),
	/** The files it was imported from. */
	sources: z.array(z.string()),
	/** Intermediate summaries of imported runs, per book. */
	runs: z.array(importedRunSchema),
});
export type CollectionSessionData = z.infer<typeof collectionSession>;

/** session.json: either kind of session, with every reference in it resolving. */
export const sessionSchema = z
	.discriminatedUnion('kind', [bookSession, collectionSession])
	.superRefine((data, ctx) => {
		// Every reference must resolve, or scoring and validation would silently drop items.
		const summaries = new Set(data.summaries.map((s) => s.id));
		const annotations = new Set(data.annotations.map((a) => a.id));
		data.annotations.forEach((a, i) => {
			if (!summaries.has(a.summary))
				ctx.addIssue({
					code: 'custom',
					path: ['annotations', i, 'summary'],
					message: `no summary ${a.summary}`,
				});
		});
		data.judgments.forEach((j, i) => {
			if (!annotations.has(j.annotation))
				ctx.addIssue({
					code: 'custom',
					path: ['judgments', i, 'annotation'],
					message: `no annotation ${j.annotation}`,
				});
		});
		(data.faithfulness ?? []).forEach((f, i) => {
			if (!summaries.has(f.summary))
				ctx.addIssue({
					code: 'custom',
					path: ['faithfulness', i, 'summary'],
					message: `no summary ${f.summary}`,
				});
		});
		(data.faithfulnessRatings ?? []).forEach((r, i) => {
			if (!summaries.has(r.summary))
				ctx.addIssue({
					code: 'custom',
					path: ['faithfulnessRatings', i, 'summary'],
					message: `no summary ${r.summary}`,
				});
		});
		const questions = new Set((data.memoryQuestions ?? []).map((q) => q.id));
		(data.memoryAnswers ?? []).forEach((a, i) => {
			if (!questions.has(a.question))
				ctx.addIssue({
					code: 'custom',
					path: ['memoryAnswers', i, 'question'],
					message: `no question ${a.question}`,
				});
		});
	});

/** Everything session.json holds. */
export type SessionData = z.infer<typeof sessionSchema>;

/**
 * A session's state as code outside store/ sees it: its fields cannot be set and its lists cannot
 * grow or shrink in place, so every change goes through a Session operation that journals it.
 */
export type StateView<D> = { readonly [K in keyof D]: ReadonlyList<D[K]> };
type ReadonlyList<T> = T extends (infer U)[] ? readonly U[] : T;

/**
 * Brings an older session.json up to this version in memory (the file changes only on the next
 * save). Version 1 had one book run and empty, untyped annotation lists.
 */
export function migrate(raw: Record<string, unknown>): Record<string, unknown> {
	if (raw.schema !== 1) return raw;
	const empty = (v: unknown) => Array.isArray(v) && v.length === 0;
	if (!empty(raw.annotations) || !empty(raw.judgments)) return raw;
	return { ...raw, schema: 2, kind: 'book', summaries: [] };
}

/** One provider call, as logged in calls.jsonl. */
export const callRecordSchema = z.strictObject({
	/** The node id the call was made for. */
	node: z.string(),
	/** Index of the version the call was made for (the node's versions before it). */
	version: count,
	/** 0-based attempt number within the node's version. */
	attempt: count,
	provider: z.string(),
	model: z.string(),
	prompt: z.string(),
	response: z.string(),
	finishReason: z.string(),
	params: callParamsSchema,
	usage: usageSchema,
	cost: z.number().nonnegative(),
	timings: timingsSchema,
	/** Why the call failed, when it did. */
	error: z.string().optional(),
	/** The provider batch it was answered in (billed at the batch price); absent: a streamed call. */
	batch: z.string().optional(),
});
export type CallRecord = z.infer<typeof callRecordSchema>;

/** The first problem zod found, as `path: message`, for one-line error messages. */
export function firstIssue(error: z.ZodError): string {
	const issue = error.issues[0];
	if (!issue) return 'invalid';
	const path = issue.path.map(String).join('.');
	return path ? `${path}: ${issue.message}` : issue.message;
}
