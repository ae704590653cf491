import { z } from 'zod';

/**
 * The domain model as docs/architecture.md names it, each record declared once: as a zod schema,
 * with its type inferred from it. `store/schema.ts` builds the shape of session.json from these schemas, so what the code
 * handles and what a session file may hold cannot drift apart. Plain data only: everything here is
 * stored in session.json, so it holds no functions, no class instances and never an API key.
 *
 * Objects are strict (an unknown key is an error) for two reasons: a file edited by hand or cut
 * short should be refused rather than silently trimmed on the next save, and nothing outside the
 * domain model (an API key in particular) can ride along into a file we write.
 */

const count = z.int().nonnegative();
/** An ISO time with its offset. */
const iso = z.iso.datetime({ offset: true });
const cost = z.number().nonnegative();

export const methodSchema = z.enum(['hier', 'inc']);
export type Method = z.infer<typeof methodSchema>;

export const providerNameSchema = z.enum(['openai', 'anthropic', 'extractive']);
export type ProviderName = z.infer<typeof providerNameSchema>;

export const nodeKindSchema = z.enum(['summarize', 'merge', 'update', 'compress', 'clean', 'annotate']);
export type NodeKind = z.infer<typeof nodeKindSchema>;

/** `superseded`: replaced by a re-plan after an edit; kept, with its versions, for the record. */
export const nodeStatusSchema = z.enum(['pending', 'running', 'done', 'failed', 'stale', 'superseded']);
export type NodeStatus = z.infer<typeof nodeStatusSchema>;

export const bookSchema = z.strictObject({
	title: z.string(),
	/** Hex sha256 of the normalized text. */
	sha256: z.string().regex(/^[0-9a-f]{64}$/u, 'expected a lowercase hex sha256'),
	/** Where it was read from (informational; the session keeps its own copy in book.txt). */
	source: z.string(),
	chars: count,
	tokens: count,
});
export type Book = z.infer<typeof bookSchema>;

/** A chunk is a character range of the book; `text.slice(start, end)` is its text. */
export const chunkSchema = z.strictObject({ index: count, start: count, end: count, tokens: count });
export type Chunk = z.infer<typeof chunkSchema>;

export const budgetSchema = z.strictObject({
	/** Most tokens the filled prompt may have. */
	promptTokens: count,
	/** Output token limit (max_tokens) and the validity limit. */
	summaryTokens: count,
	/** The word limit written into the prompt. */
	words: count,
});
export type Budget = z.infer<typeof budgetSchema>;

export const usageSchema = z.strictObject({
	input: count,
	output: count,
	/** Input tokens served from the provider's prompt cache, where it reports them. */
	cached: count,
});
export type Usage = z.infer<typeof usageSchema>;

/** What a call answered through a provider's batch API costs, as a part of the listed price (both vendors: half). */
export const BATCH_PRICE = 0.5;

export const timingsSchema = z.strictObject({ start: iso, end: iso, ms: z.number().nonnegative() });
/** ISO times of a call's start and end, and the time between. */
export type Timings = z.infer<typeof timingsSchema>;

export const callParamsSchema = z.strictObject({
	temperature: z.number(),
	maxTokens: count,
	words: count,
	template: z.string(),
});
export type CallParams = z.infer<typeof callParamsSchema>;

/** One provider call made for a node. A version keeps all of its attempts. */
export const attemptSchema = z.strictObject({
	text: z.string(),
	finishReason: z.string(),
	params: callParamsSchema,
	usage: usageSchema,
	cost,
	timings: timingsSchema,
	/** Why the output was not accepted, when it was not. */
	rejected: z.string().optional(),
	/** The provider batch that answered it: it was billed at BATCH_PRICE. */
	batch: z.string().optional(),
});
export type Attempt = z.infer<typeof attemptSchema>;

/**
 * A provider attempt that gave no result: an error response, a failed connection, or a stream
 * that broke, stalled, passed its deadline or sent too much. Billed and counted, never used; its
 * text, if any, is in calls.jsonl.
 */
const failedCallSchema = z.strictObject({
	reason: z.string(),
	usage: usageSchema,
	cost,
	timings: timingsSchema,
});

export const versionSchema = z.strictObject({
	text: z.string(),
	/** `imported`: read from a file by `booook import summary`, made by no model and no call here. */
	origin: z.enum(['model', 'edit', 'imported']),
	template: z.string(),
	params: callParamsSchema.nullable(),
	usage: usageSchema,
	cost,
	attempts: z.array(attemptSchema),
	timings: timingsSchema.nullable(),
	/** True when no attempt met the budget and the best one was kept. */
	overBudget: z.boolean(),
	/** Provider and model that wrote it (null for edits). */
	model: z.string().nullable(),
	createdAt: iso,
});
export type Version = z.infer<typeof versionSchema>;

/**
 * An input of a node: a chunk of the book or another node. The template literal gives the type
 * `c${number}` | `n${number}`; its pattern also accepts a sign or a fraction, which the refinement
 * rules out.
 */
export const nodeRefSchema = z
	.templateLiteral([z.enum(['c', 'n']), z.int()])
	.refine((ref) => /^[cn]\d+$/u.test(ref), { message: 'expected a chunk (c<n>) or node (n<n>) id' });
export type NodeRef = z.infer<typeof nodeRefSchema>;

export const nodeSchema = z
	.strictObject({
		id: nodeRefSchema,
		kind: nodeKindSchema,
		level: count,
		/** Position within its level (hierarchical) or step number (incremental). */
		index: count,
		inputs: z.array(nodeRefSchema),
		/** The previous merge of the same level (hierarchical merges only). */
		context: nodeRefSchema.nullable(),
		budget: budgetSchema,
		status: nodeStatusSchema,
		versions: z.array(versionSchema),
		/** Index into `versions` of the text that later nodes read; null before the first version. */
		active: count.nullable(),
		/** Attempts of the call in progress, kept so a resumed run does not repeat finished calls. */
		pending: z.array(attemptSchema),
		/** Every attempt made for this node that gave no result (absent: none, or a session from before they were kept). */
		failed: z.array(failedCallSchema).optional(),
		/** Free-form facts the planner needs (for example the expected words of a compression). */
		meta: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
		error: z.string().optional(),
	})
	.refine((n) => n.active === null || n.active < n.versions.length, {
		message: 'active points past the last version',
		path: ['active'],
	});
export type Node = z.infer<typeof nodeSchema>;

export const runConfigSchema = z.strictObject({
	method: methodSchema,
	provider: providerNameSchema,
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
	/**
	 * Seconds a stream may run from its first byte before it is cut off and retried; absent (as in
	 * sessions from before the option): the stream timeout plus 0.25 s per token of the call's output limit.
	 */
	callTimeout: z.number().positive().optional(),
	/** Directory of prompt templates, or null for the shipped ones. */
	prompts: z.string().nullable(),
});
export type RunConfig = z.infer<typeof runConfigSchema>;

/**
 * Where a run stands, as saved. There is no 'paused': a pause holds calls in one live process (the
 * engine's gate) and ends with it. A run quit while paused is 'cancelled', one whose process was
 * killed stays 'running' (listed as interrupted), and `resume` runs either; a saved 'paused' would
 * say a run is held when nothing holds it.
 */
export const runStatusSchema = z.enum(['planned', 'running', 'done', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof runStatusSchema>;

export const runSchema = z.strictObject({
	config: runConfigSchema,
	status: runStatusSchema,
	chunks: z.array(chunkSchema),
	nodes: z.array(nodeSchema),
	/** The node whose active version is the final summary, once the run is done. */
	root: nodeRefSchema.nullable(),
	error: z.string().nullable(),
	/**
	 * A summary made elsewhere and imported (`booook import summary`): the run is its one node over
	 * every chunk, and there is nothing to run. Absent for a run booook makes.
	 */
	imported: z.strictObject({ file: z.string(), at: iso }).optional(),
});
export type Run = z.infer<typeof runSchema>;

/** Character range `[start, end)` of a summary's text. */
export const spanSchema = z
	.strictObject({ start: count, end: count })
	.refine((s) => s.start <= s.end, { message: 'a span ends before it starts' });
export type Span = z.infer<typeof spanSchema>;

/**
 * A text BooookScore annotates: a version of a run's node (the final summary, pinned so later edits
 * do not change what was scored) or a summary imported from the authors' files.
 */
export const scoredSummarySchema = z.strictObject({
	id: z.templateLiteral(['s', z.int().nonnegative()]),
	/** The book it summarizes: the session's title, or the book's name in an imported file. */
	book: z.string(),
	text: z.string(),
	/** The run's node and version it is, or null for an imported summary. */
	node: nodeRefSchema.nullable(),
	version: count.nullable(),
	/** Where it came from: "run", or the imported file's name. */
	source: z.string(),
	/**
	 * How it is cut into the sentences BooookScore counts: "nltk", as the paper's NLTK does (a line
	 * break is whitespace); absent, at every line break too, as summaries pinned before booook
	 * followed NLTK there were, so that their annotations still name the sentences they were made on.
	 */
	units: z.literal('nltk').optional(),
});
export type ScoredSummary = z.infer<typeof scoredSummarySchema>;

/**
 * The eight error types of the paper's Table 1, as the authors spell them (their prompt asks the
 * model to write them so, and their released files store them so): lower case, one space.
 */
export const ERROR_TYPES = [
	'entity omission',
	'event omission',
	'causal omission',
	'salience',
	'discontinuity',
	'duplication',
	'inconsistency',
	'language',
] as const;
export const errorTypeSchema = z.enum(ERROR_TYPES);
export type ErrorType = z.infer<typeof errorTypeSchema>;

/**
 * A verdict on part of a summary. Model annotations cover every sentence (confusing or not, or a
 * parse failure; a sentence asked again after one has its newer record later in the list, and that
 * one counts), so what was annotated is known; human ones mark only what confused a person, as
 * spans (two spans for a relation: one confusion shared by two places).
 */
export const annotationSchema = z.strictObject({
	id: z.templateLiteral(['a', z.int().nonnegative()]),
	summary: scoredSummarySchema.shape.id,
	/** Index of the sentence in the summary's split (model annotations), or null for free spans. */
	sentence: count.nullable(),
	spans: z.array(spanSchema),
	confusing: z.boolean(),
	questions: z.string(),
	types: z.array(errorTypeSchema),
	/** Who made it: for precision, human and model annotations are judged apart. */
	source: z.enum(['model', 'human']),
	/** The model ("openai/gpt-4o") or person that wrote it. */
	annotator: z.string(),
	/** The file it was imported from, or null when it was made in this session. */
	imported: z.string().nullable(),
	/** The model's raw answer (model annotations made here), kept whatever it said. */
	raw: z.string().nullable(),
	/** Why the answer could not be read after every retry: left out of the score and counted. */
	failure: z.string().nullable(),
	createdAt: iso,
});
export type Annotation = z.infer<typeof annotationSchema>;

export const verdictSchema = z.enum(['agree', 'partial', 'disagree']);
export type Verdict = z.infer<typeof verdictSchema>;

/** One validator's verdict on one annotation (paper Appendix G). */
export const judgmentSchema = z.strictObject({
	annotation: annotationSchema.shape.id,
	validator: z.string().min(1),
	verdict: verdictSchema,
	/** For a partial agreement: which standards the questions fail. */
	reasons: z.array(z.string()),
	note: z.string().nullable(),
	at: iso,
});
export type Judgment = z.infer<typeof judgmentSchema>;

/**
 * Faithfulness labels: LongEval's fine-grained ones (its §3 and Appendix B.1: is everything a
 * summary unit says supported by the book? "not present" is unfaithful, as a contradiction is),
 * with FABLES' `partial` support (some of it is in the book, some is not) and `unsure`, "can't
 * tell": not enough found to decide. Only `faithful` counts for a unit.
 */
export const FAITHFULNESS_LABELS = ['faithful', 'partial', 'unfaithful', 'unsure'] as const;
export const faithfulnessLabelSchema = z.enum(FAITHFULNESS_LABELS);
export type FaithfulnessLabel = z.infer<typeof faithfulnessLabelSchema>;

/**
 * What a model judge found of one atomic claim of a sentence (FABLES' way): the judge's label, the
 * quote it gave from the passages shown, and booook's check of that quote. `verdict` is what counts:
 * a "supported" or "contradicted" whose quote is not word for word in a passage shown is
 * `unquoted`, and an answer that could not be read after every retry is `unreadable`.
 */
export const CLAIM_VERDICTS = ['supported', 'contradicted', 'not found', 'unquoted', 'unreadable'] as const;
export const claimCheckSchema = z.strictObject({
	claim: z.string().min(1),
	verdict: z.enum(CLAIM_VERDICTS),
	/** The quote as the judge gave it; null when it gave none (or no answer could be read). */
	quote: z.string().nullable(),
	/** The book range of the passage shown that holds the quote word for word; null when none does. */
	passage: z.strictObject({ start: count, end: count }).nullable(),
	/** The judge's one-line reason; null when no answer could be read. */
	reason: z.string().nullable(),
});
export type ClaimCheck = z.infer<typeof claimCheckSchema>;
export type ClaimVerdict = ClaimCheck['verdict'];

/**
 * One validator's faithfulness verdict on one sentence of a summary (its index in the one
 * sentence split, text/sentences.ts). A person's, or a model's given the evidence passages.
 */
export const faithfulnessVerdictSchema = z.strictObject({
	summary: scoredSummarySchema.shape.id,
	sentence: count,
	label: faithfulnessLabelSchema,
	/** A person's note, or a model's one-line reason. */
	note: z.string().nullable(),
	/** A person's name, or the model ("openai/gpt-4o"). */
	validator: z.string().min(1),
	origin: z.enum(['human', 'model']),
	at: iso,
	/**
	 * A model judge's atomic claims of the sentence, each checked (the label follows from them);
	 * absent for a person's verdict. `split` is `unreadable` when the claims answer could not be
	 * read and the sentence was judged as one claim.
	 */
	claims: z.array(claimCheckSchema).min(1).optional(),
	split: z.enum(['read', 'unreadable']).optional(),
	/**
	 * A person's verdict on one atomic claim of the sentence rather than on the whole of it: the
	 * claim `judge` (a model validator) split the sentence into, its index among them and its text.
	 */
	claim: z.strictObject({ index: count, text: z.string().min(1), judge: z.string().min(1) }).optional(),
});
export type FaithfulnessVerdict = z.infer<typeof faithfulnessVerdictSchema>;

/** The ends of the coarse rating's scale (LongEval's 5-point Likert rating of a whole summary). */
export const RATING_MIN = 1;
export const RATING_MAX = 5;

/**
 * A person's coarse rating of a whole summary's faithfulness, 1 (most or all of it wrong or not in
 * the book) to 5 (most or all of it stated by the book): LongEval's coarse protocol, given in the
 * faithfulness walk before the fine, per-sentence verdicts. A later rating by the same validator
 * of the same summary replaces it.
 */
export const faithfulnessRatingSchema = z.strictObject({
	summary: scoredSummarySchema.shape.id,
	rating: z.int().min(RATING_MIN).max(RATING_MAX),
	validator: z.string().min(1),
	at: iso,
});
export type FaithfulnessRating = z.infer<typeof faithfulnessRatingSchema>;

/**
 * A scene of a book for memory probes (NarrativeXL, Moskvichev & Mai 2023): a short summary of one
 * stretch of the book. This book's scenes are a hierarchical run's level-0 summaries (`node`) or
 * scene summaries written for the probes (`written`); other books' scenes, used as distractors,
 * carry that book's title. Pinned copies: a later edit of a node changes no question.
 */
export const memorySceneSchema = z.strictObject({
	/** `s<n>`, unique in the session. */
	id: z.string().min(1),
	/** The title of the book it summarizes (this session's own, or a distractor book's). */
	book: z.string().min(1),
	/**
	 * A level-0 summary (`node`), a scene written of a stretch (`written`), or a true scene of this
	 * book with one fact changed by the model (`distorted`, NarrativeXL's scene distortions).
	 */
	source: z.enum(['node', 'written', 'distorted']),
	/** The level-0 node it was copied from (source `node`). */
	node: nodeRefSchema.optional(),
	/** The scene it is a distortion of (source `distorted`); its stretch is that scene's. */
	of: z.string().min(1).optional(),
	/** Its stretch of its book, as character offsets `[start, end)`. */
	start: count,
	end: count,
	text: z.string().min(1),
});
export type MemoryScene = z.infer<typeof memorySceneSchema>;

/** The kinds of option a memory question shows besides "None of the above". */
export const MEMORY_OPTION_KINDS = ['true', 'lookahead', 'other-book', 'distortion'] as const;
/** NarrativeXL's question types, named by their wrong options. */
export const MEMORY_QUESTION_TYPES = ['lookahead', 'other-book', 'distortion'] as const;

/**
 * One read-along question: "In what you have read so far, was there a scene where ...", asked of
 * one summary (the run's final summary, or an incremental run's running summary after a step),
 * with scene options and then "None of the above". Exactly one answer is right: the one true
 * scene, or "None of the above" when no option is true.
 */
export const memoryQuestionSchema = z.strictObject({
	/** `q<n>`, unique in the session. */
	id: z.string().min(1),
	/** The summary asked about: its node, and the incremental step (chunk index) it closes, null for the final summary. */
	target: z.strictObject({ node: nodeRefSchema, step: count.nullable() }),
	/** How much of the book the summary had read: characters and tokens from the start, and the share of the book. */
	read: z.strictObject({ chars: count, tokens: count, fraction: z.number().min(0).max(1) }),
	/** Which kind of wrong option this question offers (NarrativeXL's question types). */
	type: z.enum(MEMORY_QUESTION_TYPES),
	/** The scene options in the order shown; "None of the above" is shown after them. */
	options: z
		.array(
			z.strictObject({
				kind: z.enum(MEMORY_OPTION_KINDS),
				/** The scene's id: this session's, or `<session>/<id>` of another session's. */
				scene: z.string().min(1),
				book: z.string().min(1),
				/** As shown: an other-book scene with its character names replaced by this book's. */
				text: z.string().min(1),
			}),
		)
		.min(1),
	/** The right answer: an option's index, or `options.length` for "None of the above". */
	answer: count,
	/**
	 * How far back the true scene lies when the summary was made: from the scene's end to the end
	 * of what was read, as a share of the book and in tokens; null when the answer is "None of the above".
	 */
	demand: z.strictObject({ fraction: z.number().min(0).max(1), tokens: count }).nullable(),
	/** The seed the question's scenes and order were drawn with. */
	seed: z.int(),
	/**
	 * Which of this book's scene sets it was drawn from: level-0 summaries (`node`) or scenes written
	 * for `--scenes` (`written`). Absent in sessions made before it was kept: read from its options.
	 */
	scenes: z.enum(['node', 'written']).optional(),
	/**
	 * Every option's scene is of one kind: written of a stretch of this many words of its book (this
	 * book's and the other books' alike), or null: every option a run's level-0 summary. Absent in
	 * questions made before options were of one kind, whose lengths gave the answer away: a probe
	 * makes its own again.
	 */
	stretch: z.int().positive().nullable().optional(),
	/**
	 * This book's people and places shown under random names (`--rename`), drawn from the book and
	 * `seed`: in the options as stored, and in the summary or text shown when it is asked. Absent: its own names.
	 */
	renamed: z.boolean().optional(),
});
export type MemoryQuestion = z.infer<typeof memoryQuestionSchema>;

/**
 * A model's answer to a memory question, shown the summary only, or (the ceiling) the true scene's
 * chunk, or (the floor, NarrativeXL's no-context baseline) nothing but the question and its options.
 */
export const memoryAnswerSchema = z.strictObject({
	question: z.string().min(1),
	/** The model that answered ("openai/gpt-4o-mini"). */
	reader: z.string().min(1),
	/**
	 * What it was shown instead of the book: the summary, the book's own text of the scene (the
	 * questions' ceiling), or nothing (`none`: the floor, what the options and the book's fame answer).
	 */
	shown: z.enum(['summary', 'chunk', 'none']),
	/** The option chosen (`options.length`: "None of the above"); null when no answer could be read after every retry. */
	choice: count.nullable(),
	correct: z.boolean(),
	at: iso,
});
export type MemoryAnswer = z.infer<typeof memoryAnswerSchema>;

/**
 * A validation walk a validator began: its order is fixed by mode and seed, so the items it covers
 * can be listed again. Recorded so that commands run during a blind walk (report, precision) keep
 * the sources hidden until the validator has judged every item of it.
 */
export const walkSchema = z.strictObject({
	validator: z.string().min(1),
	/** The annotation walks, and `faithfulness`: LongEval's walk over summary sentences. */
	mode: z.enum(['model', 'human', 'blind', 'sample', 'faithfulness']),
	seed: z.int(),
	/** The share of a sample walk, or of each summary's sentences in a partial faithfulness walk; null for the others. */
	fraction: z.number().gt(0).lte(1).nullable(),
	startedAt: iso,
});
export type Walk = z.infer<typeof walkSchema>;

/**
 * The intermediate summaries of a run made elsewhere (the authors' released runs): browsable, not
 * re-runnable, since which children went into which merge is not recorded.
 */
export const importedRunSchema = z.discriminatedUnion('method', [
	/** `levels`: level -> its summaries in order. */
	z.strictObject({
		book: z.string(),
		source: z.string(),
		method: z.literal('hier'),
		levels: z.array(z.array(z.string())),
	}),
	/** `steps`: the running summary after each chunk. */
	z.strictObject({
		book: z.string(),
		source: z.string(),
		method: z.literal('inc'),
		steps: z.array(z.string()),
	}),
]);
export type ImportedRun = z.infer<typeof importedRunSchema>;
