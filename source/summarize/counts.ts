import type { Version } from '../domain.ts';
import type { PlanContext } from './planner.ts';

/**
 * Token counts already made, per run context: planning and checking read the same summaries and
 * templates again each time a node is planned or called. Summaries are kept by their version,
 * which never changes, so a lookup does not hash the text.
 */
const counted = new WeakMap<PlanContext, { texts: Map<string, number>; versions: WeakMap<Version, number> }>();

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
	if (n === undefined) versions.set(version, (n = ctx.tokens(version.text)));
	return n;
}
