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
	const a = splitSentences(previous);
	const b = splitSentences(next);
	const ka = a.map(key);
	const kb = b.map(key);
	// lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
	const lcs = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
	for (let i = a.length - 1; i >= 0; i--) {
		for (let j = b.length - 1; j >= 0; j--) {
			lcs[i]![j] = ka[i] === kb[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
		}
	}
	const parts: DiffPart[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length || j < b.length) {
		if (i < a.length && j < b.length && ka[i] === kb[j]) {
			parts.push({ kind: 'kept', text: b[j]! });
			i++;
			j++;
		} else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
			parts.push({ kind: 'dropped', text: a[i]! });
			i++;
		} else {
			parts.push({ kind: 'added', text: b[j]! });
			j++;
		}
	}
	return parts;
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
