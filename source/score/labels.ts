import { ERROR_TYPES } from '../domain.ts';

/**
 * The eight coherence error types of the paper (Table 1), spelled as the authors' prompt asks the
 * model to write them and as their released files store them: the domain's error types, in order.
 */
export const LABELS = ERROR_TYPES;

export type Label = (typeof LABELS)[number];

/** What the model writes in both fields of a v1 answer when a sentence is clear. */
export const NO_CONFUSION = 'no confusion';

const SET: ReadonlySet<string> = new Set(LABELS);

export function isLabel(value: string): value is Label {
	return SET.has(value);
}

/** A count per label, every label present (zero when unused), in LABELS order. */
export function emptyCounts(): Record<Label, number> {
	return Object.fromEntries(LABELS.map((l) => [l, 0])) as Record<Label, number>;
}
