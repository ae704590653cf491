import type { NodeRef, Run, RunStatus } from '../domain.ts';
import type { EngineEvent } from '../engine/events.ts';

/**
 * What the screens may ask of a run. The engine satisfies it structurally, so the UI depends on
 * this shape only (tests drive the screens with a fake), never on the Engine class.
 */
export interface RunControls {
	/** The run as the engine keeps it; screens read it (texts, inputs, versions) and never write it. */
	readonly run: Run;
	pause(): void;
	resume(): void;
	step(): void;
	/** Cancels calls in flight; a pending `start()` then saves and resolves 'cancelled'. */
	cancel(): void;
	/** Runs what is left (also after `done`, to re-run stale nodes). */
	start(): Promise<RunStatus>;
	/** Saves `text` as a new version of `id`; resolves the nodes that went stale. */
	edit(id: NodeRef, text: string): Promise<NodeRef[]>;
	/** Marks `id` to be made again from the same inputs (a new version on the next `start()`). */
	rerun(id: NodeRef): Promise<NodeRef[]>;
	/** Makes version `version` of `id` the one later nodes read; resolves the nodes that went stale. */
	setActive(id: NodeRef, version: number): Promise<NodeRef[]>;
	on(listener: (event: EngineEvent) => void): () => void;
}

/** Facts about a run the screens show but the engine's events do not carry. */
export interface RunInfo {
	session: string;
	title: string;
	/** The book's normalized text: chunk panes and statistics read it. */
	book: string;
	provider: string;
	model: string;
	isLLM: boolean;
	/** Whether the model's price is known; if not, costs read "cost unknown", not $0. */
	priced: boolean;
}

/** A sentence's state while BooookScore runs: not yet answered, clear, confusing, or unreadable. */
export type SentenceVerdict = 'pending' | 'clear' | 'confusing' | 'failed';

/** What the BooookScore screen may ask of a scoring in progress (the annotator satisfies it through an adapter). */
export interface ScoreControls {
	readonly book: string;
	readonly text: string;
	/** Who annotates ("openai/gpt-4o-mini") or where the verdicts came from. */
	readonly annotator: string;
	/** One entry per sentence of the summary, in order. */
	sentences(): {
		start: number;
		end: number;
		verdict: SentenceVerdict;
		questions: string;
		types: readonly string[];
	}[];
	/** The score from what is answered so far (percent), null before any answer. */
	score(): number | null;
	/** Progress and cost so far, one line. */
	status(): string;
	/** Annotates what is missing; resolves when done, cancelled or failed. */
	start(): Promise<void>;
	cancel(): void;
	/** Called whenever something changed. */
	onChange(listener: () => void): () => void;
}
