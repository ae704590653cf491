import type { NodeRef, Run, Version } from '../domain.ts';
import { activeVersion, getNode, isChunkRef } from './graph.ts';
import type { PlanContext } from './planner.ts';

/**
 * Token counts already made, per run context: planning and checking read the same summaries and
 * templates again each time a node is planned or called. Summaries are kept by their version,
 * which never changes, so a lookup does not hash the text.
 */
const counted = new WeakMap<
	PlanContext,
	{ texts: Map<string, number>; versions: WeakMap<Version, number> }
>();

function memoOf(ctx: PlanContext) {
	let memo = counted.get(ctx);
	if (!memo) counted.set(ctx, (memo = { texts: new Map(), versions: new WeakMap() }));
	return memo;
}

export function tokensOf(ctx: PlanContext, text: string): number {
	const { texts } = memoOf(ctx);
	let n = texts.get(text);
	if (n === undefined) texts.set(text, (n = ctx.tokens(text)));
	return n;
}

export function versionTokens(ctx: PlanContext, version: Version): number {
	const { versions } = memoOf(ctx);
	let n = versions.get(version);
	// A version's text was usually counted as an answer, before the version was made.
	if (n === undefined) versions.set(version, (n = tokensOf(ctx, version.text)));
	return n;
}

/** The tokens of what an input reference stands for: a chunk (counted when the book was cut) or a node's active version. */
export function refTokens(run: Run, ref: NodeRef, ctx: PlanContext): number {
	if (isChunkRef(ref)) {
		const chunk = run.chunks[Number(ref.slice(1))];
		if (!chunk) throw new Error(`no chunk ${ref}`);
		return chunk.tokens;
	}
	const version = activeVersion(getNode(run, ref));
	if (!version) throw new Error(`node ${ref} has no text yet`);
	return versionTokens(ctx, version);
}
