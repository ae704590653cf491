import type { Chunk, Node, Run, RunConfig } from '../domain.ts';
import { textVersion } from './version.ts';

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
	const version = textVersion(summary.text, 'imported', now);
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
		imported: { file: summary.file, at: version.createdAt },
	};
}

/** The model name an imported run records: no model of booook's made it. */
export const IMPORTED_MODEL = 'imported';
