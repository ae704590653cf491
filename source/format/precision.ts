import { boundsJson, intervalJson, intervalNote, type ShownInterval } from './interval.ts';
import { percentInterval, percentNumber } from './percent.ts';
import { counted } from './count.ts';

/** A precision of annotations from their verdicts (score/precision.ts `Precision`). */
type Precision = Record<
	'judged' | 'agree' | 'partial' | 'disagree' | 'precision' | 'strict' | 'books',
	number
> &
	Record<'precisionInterval' | 'strictInterval', ShownInterval & { estimate: number }>;

/** A precision as `precision --json` and `report --json` print it: percentages rounded to 0.01. */
export function precisionJson(p: Precision) {
	return {
		precision: percentNumber(p.precision),
		strict: percentNumber(p.strict),
		n: p.judged,
		agree: p.agree,
		partial: p.partial,
		disagree: p.disagree,
		books: p.books,
		ci: boundsJson(p.precisionInterval),
		strict_ci: boundsJson(p.strictInterval),
		// Both intervals are of one kind: the same books, the same annotations.
		interval: intervalJson(p.precisionInterval),
	};
}

/** One source's precision as `precision` prints it: both figures with their intervals, the counts, what the interval is. */
export function precisionLine(source: string, p: Precision): string {
	return (
		`${source.padEnd(6)} precision ${percentInterval(p.precision, p.precisionInterval)}, strict ` +
		`${percentInterval(p.strict, p.strictInterval)}; ${p.judged} judged in ${counted(p.books, 'book')} ` +
		`(${p.agree} agree, ${p.partial} partially, ${p.disagree} disagree); ${intervalNote(p.precisionInterval)}`
	);
}

/** `precision --json`: each source's precision. */
export function precisionSourcesJson(bySource: ReadonlyMap<string, Precision>) {
	return Object.fromEntries([...bySource].map(([source, p]) => [source, precisionJson(p)]));
}

/** `precision`'s lines: the heading, if any, then each source's precision. */
export function precisionLines(
	heading: string | null | undefined,
	bySource: ReadonlyMap<string, Precision>,
): string[] {
	return [...(heading ? [heading] : []), ...[...bySource].map(([source, p]) => precisionLine(source, p))];
}
