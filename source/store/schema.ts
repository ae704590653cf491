import { z } from 'zod';
import type { Annotation, Book, CallParams, ImportedRun, Judgment, Run, ScoredSummary, Timings, Usage, Walk } from '../domain.ts';
import { LABELS } from '../score/labels.ts';
import type { Change } from './changes.ts';

/**
 * The shape of session.json and of one calls.jsonl line.
 *
 * Objects are strict (an unknown key is an error) for two reasons: a file edited by hand or cut
 * short should be refused rather than silently trimmed on the next save, and nothing outside the
 * domain model (an API key in particular) can ride along into a file we write. The type-level
 * checks at the bottom make `tsc` fail when this schema and `source/domain.ts` drift apart.
 */

/** 2 added collections, scored summaries, annotations and judgments (see `migrate`). */
export const SCHEMA_VERSION = 2 as const;

const count = z.int().nonnegative();
const iso = z.iso.datetime({ offset: true });

// The template literal gives the `c${number}` | `n${number}` type; its pattern also accepts a
// sign or a fraction, which the refinement rules out.
const nodeRef = z
	.templateLiteral([z.enum(['c', 'n']), z.int()])
	.refine((ref) => /^[cn]\d+$/u.test(ref), { message: 'expected a chunk (c<n>) or node (n<n>) id' });

const usage = z.strictObject({ input: count, output: count, cached: count });
const timings = z.strictObject({ start: iso, end: iso, ms: z.number().nonnegative() });
const callParams = z.strictObject({
	temperature: z.number(),
	maxTokens: count,
	words: count,
	template: z.string(),
});

const attempt = z.strictObject({
	text: z.string(),
	finishReason: z.string(),
	params: callParams,
	usage,
	cost: z.number().nonnegative(),
	timings,
	rejected: z.string().optional(),
});

const version = z.strictObject({
	text: z.string(),
	origin: z.enum(['model', 'edit']),
	template: z.string(),
	params: callParams.nullable(),
	usage,
	cost: z.number().nonnegative(),
	attempts: z.array(attempt),
	timings: timings.nullable(),
	overBudget: z.boolean(),
	model: z.string().nullable(),
	createdAt: iso,
});

const node = z
	.strictObject({
		id: nodeRef,
		kind: z.enum(['summarize', 'merge', 'update', 'compress', 'clean', 'annotate']),
		level: count,
		index: count,
		inputs: z.array(nodeRef),
		context: nodeRef.nullable(),
		budget: z.strictObject({ promptTokens: count, summaryTokens: count, words: count }),
		status: z.enum(['pending', 'running', 'done', 'failed', 'stale', 'superseded']),
		versions: z.array(version),
		active: count.nullable(),
		pending: z.array(attempt),
		failed: z.array(z.strictObject({ reason: z.string(), usage, cost: z.number().nonnegative(), timings })).optional(),
		meta: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
		error: z.string().optional(),
	})
	.refine((n) => n.active === null || n.active < n.versions.length, {
		message: 'active points past the last version',
		path: ['active'],
	});

const runConfig = z.strictObject({
	method: z.enum(['hier', 'inc']),
	provider: z.enum(['openai', 'anthropic', 'extractive']),
	model: z.string(),
	baseUrl: z.string().nullable(),
	encoding: z.enum(['cl100k_base', 'o200k_base']),
	chunkSize: count,
	contextWindow: count,
	maxSummary: count,
	temperature: z.number(),
	concurrency: z.int().positive(),
	seed: z.int(),
	clean: z.boolean(),
	streamTimeout: z.number().nonnegative(),
	// Optional: sessions from before the option have none, and get the derived deadline.
	callTimeout: z.number().positive().optional(),
	prompts: z.string().nullable(),
});

export const runSchema = z.strictObject({
	config: runConfig,
	status: z.enum(['planned', 'running', 'paused', 'done', 'failed', 'cancelled']),
	chunks: z.array(z.strictObject({ index: count, start: count, end: count, tokens: count })),
	nodes: z.array(node),
	root: nodeRef.nullable(),
	error: z.string().nullable(),
});

export const bookSchema = z.strictObject({
	title: z.string(),
	sha256: z.string().regex(/^[0-9a-f]{64}$/u, 'expected a lowercase hex sha256'),
	source: z.string(),
	chars: count,
	tokens: count,
});

const span = z
	.strictObject({ start: count, end: count })
	.refine((s) => s.start <= s.end, { message: 'a span ends before it starts' });

const scoredSummary = z.strictObject({
	id: z.templateLiteral(['s', z.int().nonnegative()]),
	book: z.string(),
	text: z.string(),
	node: nodeRef.nullable(),
	version: count.nullable(),
	source: z.string(),
});

const annotation = z.strictObject({
	id: z.templateLiteral(['a', z.int().nonnegative()]),
	summary: z.templateLiteral(['s', z.int().nonnegative()]),
	sentence: count.nullable(),
	spans: z.array(span),
	confusing: z.boolean(),
	questions: z.string(),
	types: z.array(z.enum(LABELS)),
	source: z.enum(['model', 'human']),
	annotator: z.string(),
	imported: z.string().nullable(),
	raw: z.string().nullable(),
	failure: z.string().nullable(),
	createdAt: iso,
});

const judgment = z.strictObject({
	annotation: z.templateLiteral(['a', z.int().nonnegative()]),
	validator: z.string().min(1),
	verdict: z.enum(['agree', 'partial', 'disagree']),
	reasons: z.array(z.string()),
	note: z.string().nullable(),
	at: iso,
});

const walk = z.strictObject({
	validator: z.string().min(1),
	mode: z.enum(['model', 'human', 'blind', 'sample']),
	seed: z.int(),
	fraction: z.number().gt(0).lte(1).nullable(),
	startedAt: iso,
});

const importedRun = z.discriminatedUnion('method', [
	z.strictObject({ book: z.string(), source: z.string(), method: z.literal('hier'), levels: z.array(z.array(z.string())) }),
	z.strictObject({ book: z.string(), source: z.string(), method: z.literal('inc'), steps: z.array(z.string()) }),
]);

const common = {
	schema: z.literal(SCHEMA_VERSION),
	id: z.string().min(1),
	createdAt: iso,
	updatedAt: iso,
	openedAt: iso,
	summaries: z.array(scoredSummary),
	annotations: z.array(annotation),
	judgments: z.array(judgment),
	// Optional: sessions from before walks were recorded have none.
	walks: z.array(walk).optional(),
};

/** A run over one book (book.txt beside it), or a collection of summaries imported from files. */
export const sessionSchema = z
	.discriminatedUnion('kind', [
		z.strictObject({ kind: z.literal('book'), ...common, book: bookSchema, run: runSchema }),
		z.strictObject({ kind: z.literal('collection'), ...common, title: z.string(), sources: z.array(z.string()), runs: z.array(importedRun) }),
	])
	.superRefine((data, ctx) => {
		// Every reference must resolve, or scoring and validation would silently drop items.
		const summaries = new Set(data.summaries.map((s) => s.id));
		const annotations = new Set(data.annotations.map((a) => a.id));
		data.annotations.forEach((a, i) => {
			if (!summaries.has(a.summary)) ctx.addIssue({ code: 'custom', path: ['annotations', i, 'summary'], message: `no summary ${a.summary}` });
		});
		data.judgments.forEach((j, i) => {
			if (!annotations.has(j.annotation)) ctx.addIssue({ code: 'custom', path: ['judgments', i, 'annotation'], message: `no annotation ${j.annotation}` });
		});
	});

interface SessionCommon {
	schema: typeof SCHEMA_VERSION;
	id: string;
	createdAt: string;
	updatedAt: string;
	openedAt: string;
	/** The texts BooookScore has annotated or will: pinned copies, so later edits change nothing here. */
	summaries: ScoredSummary[];
	annotations: Annotation[];
	judgments: Judgment[];
	/** The validation walks begun, one per validator, mode, seed and fraction. */
	walks?: Walk[];
}

/** A run over one book. The engine mutates `run` in memory and the store saves it. */
export interface BookSessionData extends SessionCommon {
	kind: 'book';
	book: Book;
	run: Run;
}

/** Summaries imported from files (the authors' released data): scored and validated, never run. */
export interface CollectionSessionData extends SessionCommon {
	kind: 'collection';
	title: string;
	/** The files it was imported from. */
	sources: string[];
	/** Intermediate summaries of imported runs, per book. */
	runs: ImportedRun[];
}

/** Everything session.json holds. */
export type SessionData = BookSessionData | CollectionSessionData;

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
	node: z.string(),
	version: count,
	attempt: count,
	provider: z.string(),
	model: z.string(),
	prompt: z.string(),
	response: z.string(),
	finishReason: z.string(),
	params: callParams,
	usage,
	cost: z.number().nonnegative(),
	timings,
	error: z.string().optional(),
});

export interface CallRecord {
	/** The node id the call was made for. */
	node: string;
	/** Index of the version the call was made for (the node's versions before it). */
	version: number;
	/** 0-based attempt number within the node's version. */
	attempt: number;
	provider: string;
	model: string;
	prompt: string;
	response: string;
	finishReason: string;
	params: CallParams;
	usage: Usage;
	cost: number;
	timings: Timings;
	/** Why the call failed, when it did. */
	error?: string;
}

/**
 * Why a journal record must not be written, or null: the same checks a whole save makes, on what
 * the record holds (the small fields, the changed nodes, the appended items and what they refer to).
 */
export function changeProblem(data: SessionData, change: Change): string | null {
	if (change.head) {
		const light = { ...data, summaries: [], annotations: [], judgments: [], ...(data.kind === 'book' ? { run: { ...data.run, nodes: [], chunks: [] } } : { runs: [] }) };
		const checked = sessionSchema.safeParse(light);
		if (!checked.success) return firstIssue(checked.error);
	}
	const each = (name: string, schema: z.ZodType, items: readonly object[] | undefined): string | null => {
		for (const [i, item] of (items ?? []).entries()) {
			const checked = schema.safeParse(item);
			if (!checked.success) return `${name}.${(item as { id?: string }).id ?? i}: ${firstIssue(checked.error)}`;
		}
		return null;
	};
	const problem = each('run.nodes', node, change.nodes) ?? each('summaries', scoredSummary, change.summaries) ?? each('annotations', annotation, change.annotations) ?? each('judgments', judgment, change.judgments);
	if (problem) return problem;
	if (change.annotations) {
		const summaries = new Set(data.summaries.map((s) => s.id));
		const orphan = change.annotations.find((a) => !summaries.has(a.summary));
		if (orphan) return `annotations.${orphan.id}.summary: no summary ${orphan.summary}`;
	}
	if (change.judgments) {
		const annotations = new Set(data.annotations.map((a) => a.id));
		const orphan = change.judgments.find((j) => !annotations.has(j.annotation));
		if (orphan) return `judgments: no annotation ${orphan.annotation}`;
	}
	return null;
}

/** The first problem zod found, as `path: message`, for one-line error messages. */
export function firstIssue(error: z.ZodError): string {
	const issue = error.issues[0];
	if (!issue) return 'invalid';
	const path = issue.path.map(String).join('.');
	return path ? `${path}: ${issue.message}` : issue.message;
}

// Type-level agreement with the domain model: `tsc` fails when the schema's type and the
// hand-written type differ. Exact equality, not mutual assignability, which would let an optional
// field be added to one side only.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
export type SchemaAgreesWithTypes = [
	Assert<Same<z.infer<typeof sessionSchema>, SessionData>>,
	Assert<Same<z.infer<typeof callRecordSchema>, CallRecord>>,
];
