import type { Annotation, Judgment, ScoredSummary, Walk } from '../domain.ts';
import { seededRandom, shuffle } from './bootstrap.ts';
import { precisionBySource, type Precision } from './precision.ts';

/**
 * What a validator walks through (paper §3 "Validating the annotations", Appendix G; LongEval
 * §3.2 for partial annotation): the annotations that claim a confusion, in one of four orders.
 * Clear sentences and parse failures claim nothing, so there is nothing to agree with.
 */
/** The walks over annotations (a faithfulness walk goes over summary sentences: faithfulness.ts). */
export type WalkMode = Exclude<Walk['mode'], 'faithfulness'>;

export const WALK_MODES: readonly WalkMode[] = ['model', 'human', 'blind', 'sample'];

export interface WalkOptions {
	mode: WalkMode;
	/** Seeds the blind order and the sample, so a walk can be resumed in the same order. */
	seed: number;
	/** Share of the annotations to judge in `sample` mode, in (0, 1]. */
	fraction?: number;
}

/** Whether a walk hides each annotation's source until the end (the paper's concealed origin). */
export const isBlind = (mode: Walk['mode']): boolean => mode === 'blind';

const judgeable = (a: Annotation): boolean => a.confusing && a.failure === null;

/** Who walks, and since when: a walk's items do not change under the person walking it. */
export interface Walker {
	validator: string;
	/** When this walk began (its record's `startedAt`). */
	startedAt: string;
}

/**
 * Whether an annotation a person made by hand (in a walk, not imported) is left out of `walker`'s
 * walk: its author does not judge it, and it enters only the walks begun after it was made. Adding
 * one in the middle of a walk would otherwise reshuffle a blind walk and renumber its items.
 */
const laterOrOwn = (a: Annotation, walker: Walker): boolean =>
	a.source === 'human' &&
	a.imported === null &&
	(a.annotator === walker.validator || a.createdAt > walker.startedAt);

/** The annotations to judge, in walk order; without `walker`, every annotation that claims a confusion. */
export function walkItems(
	data: { summaries: readonly ScoredSummary[]; annotations: readonly Annotation[] },
	opts: WalkOptions,
	walker?: Walker,
): Annotation[] {
	const position = new Map(data.summaries.map((s, i) => [s.id, i]));
	const inText = (a: Annotation, b: Annotation) =>
		(position.get(a.summary) ?? 0) - (position.get(b.summary) ?? 0) ||
		(a.spans[0]?.start ?? Number.MAX_SAFE_INTEGER) - (b.spans[0]?.start ?? Number.MAX_SAFE_INTEGER) ||
		Number(a.id.slice(1)) - Number(b.id.slice(1));
	const pool = data.annotations
		.filter((a) => judgeable(a) && !(walker && laterOrOwn(a, walker)))
		.sort(inText);
	const random = seededRandom(opts.seed);
	switch (opts.mode) {
		case 'model':
		case 'human':
			return pool.filter((a) => a.source === opts.mode);
		case 'blind':
			return blindOrder(pool, random);
		case 'sample': {
			const fraction = opts.fraction ?? 0.2;
			if (!(fraction > 0 && fraction <= 1))
				throw new RangeError(`a sample fraction must be in (0, 1], not ${fraction}`);
			const size = Math.max(1, Math.round(pool.length * fraction));
			const chosen = new Set(shuffle(pool, random).slice(0, size));
			return pool.filter((a) => chosen.has(a));
		}
	}
}

/**
 * A blind walk reads one summary at a time, as a reader would: the summaries in a random order,
 * and within each its annotations in a random order (so the order tells nothing of their source).
 */
function blindOrder(pool: readonly Annotation[], random: () => number): Annotation[] {
	const bySummary = new Map<Annotation['summary'], Annotation[]>();
	for (const a of pool) {
		const group = bySummary.get(a.summary);
		if (group) group.push(a);
		else bySummary.set(a.summary, [a]);
	}
	return shuffle([...bySummary.values()], random).flatMap((group) => shuffle(group, random));
}

/** Each annotation's current verdict by `validator`: the latest one given, undone ones gone. */
export function verdictsOf(
	judgments: readonly Judgment[],
	validator: string,
): Map<Annotation['id'], Judgment> {
	const out = new Map<Annotation['id'], Judgment>();
	for (const j of judgments) if (j.validator === validator) out.set(j.annotation, j);
	return out;
}

/**
 * Every validator's current verdicts, one per validator and annotation: what counts wherever
 * verdicts are counted. `judgments` is a log of actions, not of verdicts: a note is stored as the
 * verdict again with the note (so undo can take it back alone), and a changed mind as a new verdict.
 */
export function currentJudgments(judgments: readonly Judgment[]): Judgment[] {
	const validators = new Set(judgments.map((j) => j.validator));
	return [...validators].flatMap((v) => [...verdictsOf(judgments, v).values()]);
}

export interface SourceProgress {
	total: number;
	judged: number;
	agree: number;
	partial: number;
	disagree: number;
	/** (agree + partial) ÷ judged and agree ÷ judged so far; null before the first verdict. */
	precision: number | null;
	strict: number | null;
}

/** Judged out of total and the running precision, per source, over the walk's items. */
export function walkProgress(
	items: readonly Annotation[],
	judgments: readonly Judgment[],
	validator: string,
): Record<Annotation['source'], SourceProgress> {
	const verdicts = verdictsOf(judgments, validator);
	const empty = (): SourceProgress => ({
		total: 0,
		judged: 0,
		agree: 0,
		partial: 0,
		disagree: 0,
		precision: null,
		strict: null,
	});
	const out = { model: empty(), human: empty() };
	for (const a of items) {
		const p = out[a.source];
		p.total += 1;
		const j = verdicts.get(a.id);
		if (!j) continue;
		p.judged += 1;
		p[j.verdict] += 1;
	}
	for (const p of Object.values(out)) {
		if (p.judged === 0) continue;
		p.precision = (p.agree + p.partial) / p.judged;
		p.strict = p.agree / p.judged;
	}
	return out;
}

/** Where a walk opens: its first item without a verdict (the first item when all have one). */
export function firstUnjudged(
	items: readonly Annotation[],
	judgments: readonly Judgment[],
	validator: string,
): number {
	const verdicts = verdictsOf(judgments, validator);
	return Math.max(
		0,
		items.findIndex((a) => !verdicts.has(a.id)),
	);
}

/** The index in `items` of the first item after `from` (wrapping) with no verdict, or null. */
export function nextUnjudged(
	items: readonly Annotation[],
	judgments: readonly Judgment[],
	validator: string,
	from: number,
): number | null {
	const verdicts = verdictsOf(judgments, validator);
	for (let k = 1; k <= items.length; k++) {
		const i = (from + k) % items.length;
		if (!verdicts.has(items[i]!.id)) return i;
	}
	return null;
}

/**
 * Why a partially agreed annotation's questions fall short (paper Appendix G), spelled as the
 * authors' released study records them, so exported verdicts read back into their analysis.
 */
export const PARTIAL_REASONS = [
	'A. Not relevant to span',
	'B. Answered in the summary',
	'C. Not addressing issues that matter (refer to standards)',
	'D. Other',
] as const;

/** Whether two judgments give the same verdict with the same reasons (on one item: one only changes the other's note). */
export const sameVerdict = (
	x: Pick<Judgment, 'verdict' | 'reasons'>,
	y: Pick<Judgment, 'verdict' | 'reasons'>,
): boolean => x.verdict === y.verdict && x.reasons.join('\n') === y.reasons.join('\n');

/**
 * Takes back `validator`'s latest action from `judgments` (in place) and returns what it removed,
 * oldest first; empty when there was none. A note is saved as the verdict again with the note, so a
 * note written on the verdict given just before it goes with that verdict: one undo takes back both,
 * as a person sees them as one. A note written later, after other verdicts, is undone alone.
 */
export function undoLast(judgments: Judgment[], validator: string): Judgment[] {
	const own = judgments.flatMap((j, i) => (j.validator === validator ? [i] : []));
	if (own.length === 0) return [];
	const latest = judgments[own.at(-1)!]!;
	const [before, ...earlier] = own
		.slice(0, -1)
		.reverse()
		.map((i) => judgments[i]!);
	const previous = earlier.find((j) => j.annotation === latest.annotation);
	// A note on the verdict just given: that verdict changed the item (or was its first).
	const together =
		before?.annotation === latest.annotation &&
		sameVerdict(before, latest) &&
		!(previous && sameVerdict(previous, before));
	const removed = judgments.splice(own.at(-1)!, 1);
	if (together) removed.unshift(...judgments.splice(own.at(-2)!, 1));
	return removed;
}

/** The walk a record describes. */
export function walkOptions(walk: Walk): WalkOptions {
	const mode = walk.mode;
	if (mode === 'faithfulness')
		throw new RangeError('a faithfulness walk goes over summary sentences, not annotations');
	return walk.fraction === null
		? { mode, seed: walk.seed }
		: { mode, seed: walk.seed, fraction: walk.fraction };
}

export interface WalkData {
	summaries: readonly ScoredSummary[];
	annotations: readonly Annotation[];
	judgments: readonly Judgment[];
	walks?: readonly Walk[];
}

/**
 * The validators on a blind walk they have not finished, with how far each is. Until a validator
 * has judged every item of their blind walk, nothing may tell them which annotations are whose:
 * their precision is shown pooled over both sources. A blind walk's items can grow (annotations
 * imported or scored after it began), and then it is unfinished again.
 */
export function blindWalksUnderWay(data: WalkData): Map<string, { judged: number; total: number }> {
	const out = new Map<string, { judged: number; total: number }>();
	for (const walk of data.walks ?? []) {
		if (walk.mode !== 'blind') continue;
		const items = walkItems(data, walkOptions(walk), walk);
		const verdicts = verdictsOf(data.judgments, walk.validator);
		const judged = items.filter((a) => verdicts.has(a.id)).length;
		if (judged < items.length && !out.has(walk.validator))
			out.set(walk.validator, { judged, total: items.length });
	}
	return out;
}

/**
 * A validator's precision so far over the items given, both sources pooled, with its interval over
 * summaries: an estimate that tells nothing of any one item's source. Null before the first verdict.
 */
export function pooledPrecision(
	items: readonly Annotation[],
	judgments: readonly Judgment[],
	validator: string,
	opts: { seed: number; resamples: number },
): Precision | null {
	const verdicts = verdictsOf(judgments, validator);
	const judged = items.flatMap((a) => {
		const j = verdicts.get(a.id);
		return j ? [{ book: a.summary, source: 'pooled', verdict: j.verdict }] : [];
	});
	if (judged.length === 0) return null;
	return (
		precisionBySource(judged, { random: seededRandom(opts.seed), resamples: opts.resamples }).get('pooled') ??
		null
	);
}
