import type { Chunk, Node, Run, RunConfig, Version } from '../domain.ts';

/**
 * A summary made elsewhere, as a run booook can read (`booook import summary`): one node, level 0,
 * that read every chunk of the book, holding the summary as its one version (origin `imported`),
 * and the run's root, so its final summary is the imported text. No tree says where its sentences
 * come from, so each can come from any chunk, which is what the evidence then searches. `budget`
 * is the text's own size: nothing was planned for it, so nothing counts as over a budget.
 */
export function importedRun(
	config: RunConfig,
	chunks: Chunk[],
	summary: { text: string; tokens: number; words: number; file: string },
	now: Date,
): Run {
	const at = now.toISOString();
	const version: Version = {
		text: summary.text,
		origin: 'imported',
		template: 'imported',
		params: null,
		usage: { input: 0, output: 0, cached: 0 },
		cost: 0,
		attempts: [],
		timings: null,
		overBudget: false,
		model: null,
		createdAt: at,
	};
	const node: Node = {
		id: 'n0',
		kind: 'summarize',
		level: 0,
		index: 0,
		inputs: chunks.map((c) => `c${c.index}` as const),
		context: null,
		budget: { promptTokens: 0, summaryTokens: summary.tokens, words: summary.words },
		status: 'done',
		versions: [version],
		active: 0,
		pending: [],
		meta: {},
	};
	return {
		config,
		status: 'done',
		chunks,
		nodes: [node],
		root: node.id,
		error: null,
		imported: { file: summary.file, at },
	};
}

/** The model name an imported run records: no model of booook's made it. */
export const IMPORTED_MODEL = 'imported';
