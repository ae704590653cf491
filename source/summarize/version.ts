import type { Version } from '../domain.ts';

/**
 * A version made by no model and no call: a person's edit, or a summary imported from a file.
 * Taken as it is: the planner does not second-guess it (an incremental update edited to fit needs
 * no compression), so it is never over its budget.
 */
export function textVersion(text: string, origin: 'edit' | 'imported', now: Date): Version {
	return {
		text,
		origin,
		template: origin,
		params: null,
		usage: { input: 0, output: 0, cached: 0 },
		cost: 0,
		attempts: [],
		timings: null,
		overBudget: false,
		model: null,
		createdAt: now.toISOString(),
	};
}

/** How a version was made when no model made it, as a person reads it: `edited by hand`, `imported text`; else null. */
export function madeWithoutCall(version: Pick<Version, 'origin'> | null): string | null {
	return version?.origin === 'edit'
		? 'edited by hand'
		: version?.origin === 'imported'
			? 'imported text'
			: null;
}
