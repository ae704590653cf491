import { diffArrays } from 'diff';
import { splitSentences } from '../../text/sentences.ts';

export interface DiffPart {
	kind: 'kept' | 'added' | 'dropped';
	text: string;
}

const key = (sentence: string) => sentence.replace(/\s+/gu, ' ').trim();

/**
 * The sentences `next` added to and dropped from `previous`, in reading order: a longest common
 * subsequence of sentences (compared with whitespace collapsed) is kept; a dropped sentence is
 * placed where it stood in `previous`, before what was added in its place.
 */
export function sentenceDiff(previous: string, next: string): DiffPart[] {
	const changes = diffArrays(splitSentences(previous), splitSentences(next), {
		comparator: (a, b) => key(a) === key(b),
	});
	return changes.flatMap((change) =>
		change.value.map((text): DiffPart => ({
			kind: change.added ? 'added' : change.removed ? 'dropped' : 'kept',
			text,
		})),
	);
}

/** Counts of a diff, for the step's title line. */
export function diffCounts(parts: readonly DiffPart[]): { added: number; dropped: number; kept: number } {
	const counts = { added: 0, dropped: 0, kept: 0 };
	for (const p of parts) counts[p.kind]++;
	return counts;
}

// Diffs are asked for on every frame that shows a finished step; the texts of a step do not change
// unless it is edited, so a few recent results are kept.
const cache = new Map<string, DiffPart[]>();
const CACHE_SIZE = 32;

export function cachedDiff(previous: string, next: string): DiffPart[] {
	const k = `${previous.length}:${next.length}:${previous}\u0000${next}`;
	const hit = cache.get(k);
	if (hit) return hit;
	const parts = sentenceDiff(previous, next);
	cache.set(k, parts);
	if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
	return parts;
}
