import type { NodeKind, NodeRef, RunStatus, Usage } from '../domain.ts';
import type { RateLimitState } from '../llm/rate-limit.ts';
import type { Totals } from '../summarize/totals.ts';

/**
 * What a `usage` event says of one billed attempt, whoever made it: a call that finished, or (with
 * `failed`, the reason) an attempt that gave no result but was billed.
 */
export interface UsageReport {
	usage: Usage;
	cost: number;
	saved: number;
	totals: Totals;
	failed?: string;
}

/** Everything the engine reports, in the order it happens. Headless `--json` prints these as lines. */
export type EngineEvent =
	| {
			type: 'run-started';
			session: string;
			method: string;
			provider: string;
			model: string;
			isLLM: boolean;
			planned: number;
			/** Nodes expected at each level in the end, level 0 first (hierarchical; none for incremental): `planned`'s estimate. */
			levels: number[];
			done: number;
	  }
	| {
			type: 'node-planned';
			nodes: { id: NodeRef; kind: NodeKind; level: number; index: number; inputs: NodeRef[] }[];
			planned: number;
			levels: number[];
	  }
	| { type: 'node-started'; node: NodeRef; kind: NodeKind; level: number; index: number; attempt: number }
	| { type: 'delta'; node: NodeRef; attempt: number; text: string }
	| { type: 'retry'; node: NodeRef; attempt: number; reason: string }
	| ({ type: 'usage'; node: NodeRef } & UsageReport)
	| {
			type: 'node-finished';
			node: NodeRef;
			kind: NodeKind;
			level: number;
			index: number;
			words: number;
			tokens: number;
			attempts: number;
			overBudget: boolean;
	  }
	| { type: 'node-failed'; node: NodeRef; error: string }
	/** Nodes that will be made again on the next `start()` (their versions are kept); `planned` counts their calls in. */
	| { type: 'node-stale'; nodes: NodeRef[]; planned: number; levels: number[] }
	/** A person's text was saved as version `version` of `node`, now its active one. */
	| { type: 'node-edited'; node: NodeRef; version: number }
	/** Version `version` of `node` is the one later nodes read now. */
	| { type: 'node-active'; node: NodeRef; version: number }
	/** Nodes a re-plan replaced: kept with their versions for the record, no longer part of the run. */
	| { type: 'node-superseded'; nodes: NodeRef[] }
	/** The account's rate limits hold calls back (`wait`), or no longer do (`wait` null). */
	| ({ type: 'rate-limit' } & RateLimitState)
	| { type: 'run-paused' }
	| { type: 'run-resumed'; stepping: boolean }
	| { type: 'run-finished'; status: RunStatus; root: NodeRef | null; error: string | null; totals: Totals };

export type EngineListener = (event: EngineEvent) => void;
