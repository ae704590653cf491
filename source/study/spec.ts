import { z } from 'zod';
import { methodSchema, providerNameSchema } from '../domain.ts';
import { badInput, type UserError } from '../errors.ts';

/**
 * A study file (`booook study FILE`): the books and the grid of configurations to run over each.
 * Strict, so a misspelt field is named rather than silently dropped.
 */

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/u;

const positiveInts = z.array(z.int().positive()).nonempty();

/** The account's limits for a model, as `--tpm` and `--rpm` state them for one command. */
const limitFields = { tpm: z.int().positive().optional(), rpm: z.int().positive().optional() };

export const studySchema = z
	.strictObject({
		// Each cell's session is named after the study, and a session id cannot hold "..".
		name: z
			.string()
			.regex(NAME)
			.refine((n) => !n.includes('..'), {
				message:
					'two dots in a row are not allowed (the name starts every cell\'s session id, which cannot hold "..")',
			}),
		books: z.array(z.string().min(1)).nonempty().optional(),
		folder: z.string().min(1).optional(),
		methods: z.array(methodSchema).nonempty(),
		providers: z
			.array(
				z.strictObject({
					provider: providerNameSchema,
					model: z.string().min(1).optional(),
					baseUrl: z.string().min(1).optional(),
					...limitFields,
				}),
			)
			.nonempty(),
		chunkSizes: positiveInts.optional(),
		contextWindows: positiveInts.optional(),
		maxSummary: z.int().positive().optional(),
		score: z.boolean().optional(),
		/**
		 * Memory probes (NarrativeXL) of each finished cell's summaries, answered by the scorer's
		 * model: true, or how many questions per summary and running summaries of an incremental run.
		 */
		memory: z
			.union([
				z.boolean(),
				z.strictObject({
					questions: z.int().positive().optional(),
					steps: z.int().nonnegative().optional(),
				}),
			])
			.optional(),
		scorer: z
			.strictObject({
				provider: z.enum(['openai', 'anthropic']),
				model: z.string().min(1).optional(),
				baseUrl: z.string().min(1).optional(),
				...limitFields,
			})
			.optional(),
		concurrency: z.int().min(1).max(64).optional(),
		/**
		 * Provider batch APIs for the calls that can wait (see `goesInBatch`, and every BooookScore
		 * call): true, or the seconds between polls of a batch and of quiet before gathered calls go
		 * out, and the most requests in one batch.
		 */
		batch: z
			.union([
				z.boolean(),
				z.strictObject({
					poll: z.number().positive().optional(),
					gather: z.number().positive().optional(),
					size: z.int().positive().optional(),
				}),
			])
			.optional(),
	})
	.refine((s) => (s.books === undefined) !== (s.folder === undefined), {
		path: ['books'],
		message: 'give exactly one of books and folder',
	});

export type StudySpec = z.infer<typeof studySchema>;

/** How to fix each field, said after what is wrong with it. */
const FIXES: Record<string, string> = {
	name: 'a name of letters, digits, ".", "_" and "-" (starting with a letter or digit, no two dots in a row), e.g. "name": "table2"',
	books: 'either "books": ["a.txt", "b.epub"] or "folder": "books/", not both',
	folder: 'a folder of .txt or .epub files, e.g. "folder": "books/"',
	methods: '"methods": ["hier", "inc"]',
	providers:
		'"providers": [{ "provider": "openai", "model": "gpt-4o-mini" }] (provider: openai, anthropic ' +
		'or extractive; optional "tpm" and "rpm": the account\'s tokens and requests a minute for that model)',
	chunkSizes: 'whole numbers of tokens, e.g. "chunkSizes": [2048, 4096]',
	contextWindows: 'whole numbers of tokens, e.g. "contextWindows": [8192]',
	maxSummary: 'a whole number of tokens, e.g. "maxSummary": 900',
	score: '"score": true or false',
	memory:
		'"memory": true, or the questions per summary and the running summaries of an incremental run ' +
		'asked, e.g. "memory": { "questions": 30, "steps": 4 } (answered by the scorer\'s model; the ' +
		'other books of the study give the other-book options)',
	scorer:
		'the model that annotates for BooookScore, e.g. "scorer": { "provider": "openai", "model": ' +
		'"gpt-4o-mini", "tpm": 30000 } (provider: openai or anthropic; optional "tpm" and "rpm")',
	concurrency: 'a whole number from 1 to 64, e.g. "concurrency": 4',
	batch:
		'"batch": true, or with the seconds between polls and of gathering and the most requests in ' +
		'a batch, e.g. "batch": { "poll": 60, "gather": 5, "size": 1000 }',
};

/** Checks a parsed study file; the first problem is one line naming the field and the fix. */
export function parseStudy(value: unknown, file: string): StudySpec {
	const parsed = studySchema.safeParse(value);
	if (parsed.success) {
		if (parsed.data.batch && parsed.data.providers.some((p) => p.provider === 'extractive')) {
			fail(
				file,
				'"batch" sends model calls through the openai or anthropic batch API, and the extractive baseline ' +
					'makes none: remove it from providers, or drop "batch"',
			);
		}
		return parsed.data;
	}
	const issue = parsed.error.issues[0]!;
	if (issue.code === 'unrecognized_keys') {
		return fail(
			file,
			`unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}${issue.path.length ? ` in ${fieldPath(issue.path)}` : ''}; ` +
				`the fields are ${Object.keys(FIXES).join(', ')}`,
		);
	}
	const field = String(issue.path[0] ?? 'name');
	const where = issue.path.length > 0 ? fieldPath(issue.path) : field;
	const fix = FIXES[field] ?? 'see docs/studies.md';
	throw studyError(file, `${where}: ${issue.message.replace(/^Invalid input: /u, '')}; use ${fix}`);
}

function fieldPath(path: readonly PropertyKey[]): string {
	return path
		.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
		.join('');
}

function fail(file: string, message: string): never {
	throw studyError(file, message);
}

export function studyError(file: string, message: string): UserError {
	return badInput(`study ${file}: ${message}`);
}

/**
 * What the study file states of the limits of `provider`'s `model` (first entry that names them,
 * among the providers and the scorer); `model` of an entry that names none is `defaultModel`'s.
 */
export function statedLimits(
	spec: StudySpec,
	provider: string,
	model: string,
	defaultModel: (p: 'openai' | 'anthropic' | 'extractive') => string,
): { tpm?: number; rpm?: number } {
	const entries = [...spec.providers, ...(spec.scorer ? [spec.scorer] : [])];
	const entry = entries.find(
		(e) =>
			e.provider === provider &&
			(e.model ?? defaultModel(e.provider)) === model &&
			(e.tpm !== undefined || e.rpm !== undefined),
	);
	return { tpm: entry?.tpm, rpm: entry?.rpm };
}
