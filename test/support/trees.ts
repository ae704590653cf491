import type { Chunk, Node, NodeKind, NodeRef, Run, Version } from '../../source/domain.ts';
import { makeConfig } from '../../source/config.ts';
import { newNode } from '../../source/summarize/graph.ts';
import { editVersion } from '../../source/engine/edits.ts';

/** Hand-made runs of known trees, for tracing and aligning evidence without running a model. */

/** A version of `text`, written by `origin` (an edit unless told). */
function version(text: string, origin: Version['origin'] = 'edit'): Version {
	const edit = editVersion(text, new Date('2024-05-01T10:00:00.000Z'));
	return origin === 'edit' ? edit : { ...edit, origin, model: 'test' };
}

/** A done node whose active version is `text`. */
export function done(
	id: NodeRef,
	kind: NodeKind,
	inputs: NodeRef[],
	text: string,
	context: NodeRef | null = null,
	origin: Version['origin'] = 'edit',
): Node {
	const budget = { promptTokens: 100, summaryTokens: 100, words: 50 };
	return {
		...newNode(id, { kind, level: 0, index: 0, inputs, context, budget }),
		status: 'done',
		versions: [version(text, origin)],
		active: 0,
	};
}

/** A finished run of `nodes` over `chunks`, its root the last node. */
export function treeRun(method: 'hier' | 'inc', chunks: Chunk[], nodes: Node[]): Run {
	return {
		config: makeConfig({ provider: 'extractive', model: 'textrank', method }),
		status: 'done',
		chunks,
		nodes,
		root: nodes.at(-1)!.id,
		error: null,
	};
}

/** A book of `parts` (each a chunk) and its chunks. */
export function chunkedBook(parts: readonly string[]): { book: string; chunks: Chunk[] } {
	const chunks = parts.map((p, index) => {
		const start = parts.slice(0, index).join('').length;
		return { index, start, end: start + p.length, tokens: 20 };
	});
	return { book: parts.join(''), chunks };
}
