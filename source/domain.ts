/**
 * The domain model of DESIGN.md. Plain data only: everything here is stored in session.json, so it
 * holds no functions, no class instances and never an API key.
 */

export type Method = 'hier' | 'inc';
export type ProviderName = 'openai' | 'anthropic' | 'extractive';
export type NodeKind = 'summarize' | 'merge' | 'update' | 'compress' | 'clean' | 'annotate';
/** `superseded`: replaced by a re-plan after an edit; kept, with its versions, for the record. */
export type NodeStatus = 'pending' | 'running' | 'done' | 'failed' | 'stale' | 'superseded';

export interface Book {
	title: string;
	/** Hex sha256 of the normalized text. */
	sha256: string;
	/** Where it was read from (informational; the session keeps its own copy in book.txt). */
	source: string;
	chars: number;
	tokens: number;
}

/** A chunk is a character range of the book; `text.slice(start, end)` is its text. */
export interface Chunk {
	index: number;
	start: number;
	end: number;
	tokens: number;
}

export interface Budget {
	/** Most tokens the filled prompt may have. */
	promptTokens: number;
	/** Output token limit (max_tokens) and the validity limit. */
	summaryTokens: number;
	/** The word limit written into the prompt. */
	words: number;
}

export interface Usage {
	input: number;
	output: number;
	/** Input tokens served from the provider's prompt cache, where it reports them. */
	cached: number;
}

export interface Timings {
	/** ISO times. */
	start: string;
	end: string;
	ms: number;
}

/** One provider call made for a node. A version keeps all of its attempts. */
export interface Attempt {
	text: string;
	finishReason: string;
	params: CallParams;
	usage: Usage;
	cost: number;
	timings: Timings;
	/** Why the output was not accepted, when it was not. */
	rejected?: string;
}

/**
 * A provider attempt that gave no result: an error response, a failed connection, or a stream
 * that broke, stalled, passed its deadline or sent too much. Billed and counted, never used; its
 * text, if any, is in calls.jsonl.
 */
export interface FailedCall {
	reason: string;
	usage: Usage;
	cost: number;
	timings: Timings;
}

export interface CallParams {
	temperature: number;
	maxTokens: number;
	words: number;
	template: string;
}

export interface Version {
	text: string;
	origin: 'model' | 'edit';
	template: string;
	params: CallParams | null;
	usage: Usage;
	cost: number;
	attempts: Attempt[];
	timings: Timings | null;
	/** True when no attempt met the budget and the best one was kept. */
	overBudget: boolean;
	/** Provider and model that wrote it (null for edits). */
	model: string | null;
	createdAt: string;
}

/**
 * An input of a node: a chunk of the book or another node. `tokens`, when set, truncates the
 * input's text to that many tokens at a sentence end (used for merge context and oversized inputs).
 */
export type NodeRef = `c${number}` | `n${number}`;

export interface Node {
	id: NodeRef;
	kind: NodeKind;
	level: number;
	/** Position within its level (hierarchical) or step number (incremental). */
	index: number;
	inputs: NodeRef[];
	/** The previous merge of the same level (hierarchical merges only). */
	context: NodeRef | null;
	budget: Budget;
	status: NodeStatus;
	versions: Version[];
	/** Index into `versions` of the text that later nodes read; null before the first version. */
	active: number | null;
	/** Attempts of the call in progress, kept so a resumed run does not repeat finished calls. */
	pending: Attempt[];
	/** Every attempt made for this node that gave no result (absent: none, or a session from before they were kept). */
	failed?: FailedCall[];
	/** Free-form facts the planner needs (for example the expected words of a compression). */
	meta: Record<string, number | string | boolean>;
	error?: string;
}

export interface RunConfig {
	method: Method;
	provider: ProviderName;
	model: string;
	baseUrl: string | null;
	encoding: 'cl100k_base' | 'o200k_base';
	chunkSize: number;
	contextWindow: number;
	maxSummary: number;
	temperature: number;
	concurrency: number;
	seed: number;
	clean: boolean;
	streamTimeout: number;
	/**
	 * Seconds a stream may run from its first byte before it is cut off and retried; absent: the
	 * stream timeout plus 0.25 s per token of the call's output limit.
	 */
	callTimeout?: number;
	/** Directory of prompt templates, or null for the shipped ones. */
	prompts: string | null;
}

export type RunStatus = 'planned' | 'running' | 'paused' | 'done' | 'failed' | 'cancelled';

export interface Run {
	config: RunConfig;
	status: RunStatus;
	chunks: Chunk[];
	nodes: Node[];
	/** The node whose active version is the final summary, once the run is done. */
	root: NodeRef | null;
	error: string | null;
}

/** Character range `[start, end)` of a summary's text. */
export interface Span {
	start: number;
	end: number;
}

/**
 * A text BooookScore annotates: a version of a run's node (the final summary, pinned so later edits
 * do not change what was scored) or a summary imported from the authors' files.
 */
export interface ScoredSummary {
	id: `s${number}`;
	/** The book it summarizes: the session's title, or the book's name in an imported file. */
	book: string;
	text: string;
	/** The run's node and version it is, or null for an imported summary. */
	node: NodeRef | null;
	version: number | null;
	/** Where it came from: "run", or the imported file's name. */
	source: string;
}

/** The eight error types of the paper's Table 1, as the authors spell them. */
export type ErrorType =
	| 'entity omission'
	| 'event omission'
	| 'causal omission'
	| 'salience'
	| 'discontinuity'
	| 'duplication'
	| 'inconsistency'
	| 'language';

/**
 * A verdict on part of a summary. Model annotations cover every sentence (confusing or not, or a
 * parse failure), so what was annotated is known; human ones mark only what confused a person, as
 * spans (two spans for a relation: one confusion shared by two places).
 */
export interface Annotation {
	id: `a${number}`;
	summary: ScoredSummary['id'];
	/** Index of the sentence in the summary's split (model annotations), or null for free spans. */
	sentence: number | null;
	spans: Span[];
	confusing: boolean;
	questions: string;
	types: ErrorType[];
	/** Who made it: for precision, human and model annotations are judged apart. */
	source: 'model' | 'human';
	/** The model ("openai/gpt-4o") or person that wrote it. */
	annotator: string;
	/** The file it was imported from, or null when it was made in this session. */
	imported: string | null;
	/** The model's raw answer (model annotations made here), kept whatever it said. */
	raw: string | null;
	/** Why the answer could not be read after every retry: left out of the score and counted. */
	failure: string | null;
	createdAt: string;
}

export type Verdict = 'agree' | 'partial' | 'disagree';

/** One validator's verdict on one annotation (paper Appendix G). */
export interface Judgment {
	annotation: Annotation['id'];
	validator: string;
	verdict: Verdict;
	/** For a partial agreement: which standards the questions fail. */
	reasons: string[];
	note: string | null;
	at: string;
}

/**
 * A validation walk a validator began: its order is fixed by mode and seed, so the items it covers
 * can be listed again. Recorded so that commands run during a blind walk (report, precision) keep
 * the sources hidden until the validator has judged every item of it.
 */
export interface Walk {
	validator: string;
	mode: 'model' | 'human' | 'blind' | 'sample';
	seed: number;
	/** The share of a sample walk; null for the others. */
	fraction: number | null;
	startedAt: string;
}

/**
 * The intermediate summaries of a run made elsewhere (the authors' released runs): browsable, not
 * re-runnable, since which children went into which merge is not recorded.
 */
export type ImportedRun =
	| { book: string; source: string; method: 'hier'; /** Level -> its summaries in order. */ levels: string[][] }
	| { book: string; source: string; method: 'inc'; /** The running summary after each chunk. */ steps: string[] };
