import { Session } from '../../source/store/session.ts';

/**
 * What a command leaves in a session that must not depend on whether it was killed and run again
 * (the kill-at-each-write tests compare these): no times, no ids a rerun may number otherwise.
 */

/** A run's every node's texts and status, and the final node. */
export async function runOutcome(sessions: string, id: string) {
	const { data } = await Session.snapshot(sessions, id);
	if (data.kind !== 'book') throw new Error(`${id} is not a run`);
	return {
		status: data.run.status,
		root: data.run.root,
		nodes: data.run.nodes.map((n) => [n.id, n.status, n.active, n.versions.map((v) => v.text)]),
	};
}

/** The summaries scored and their verdicts. */
export async function annotationsOutcome(sessions: string, id: string) {
	const { data } = await Session.snapshot(sessions, id);
	return {
		summaries: data.summaries.map((s) => [s.id, s.text]),
		annotations: data.annotations
			.map((a) => [a.summary, a.sentence, a.confusing, a.questions, a.types])
			.sort((a, b) => Number(a[1]) - Number(b[1])),
	};
}

const TIMES = new Set(['at', 'createdAt', 'updatedAt', 'openedAt']);

/** `value` without its times (when a thing was done differs between a run killed and one never killed). */
export function withoutTimes(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(withoutTimes);
	if (value === null || typeof value !== 'object') return value;
	return Object.fromEntries(
		Object.entries(value)
			.filter(([key]) => !TIMES.has(key))
			.map(([key, v]) => [key, withoutTimes(v)]),
	);
}

/** The items of a session's list without their times, in one order whatever order they were made in. */
export function unordered(items: readonly unknown[] | undefined): string[] {
	return (items ?? []).map((item) => JSON.stringify(withoutTimes(item))).sort();
}
