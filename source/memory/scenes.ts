import type { Read } from '../score/claims.ts';
import { eachSentenceSpan, type Span } from '../text/sentences.ts';

/**
 * A book cut into stretches for scene summaries, as NarrativeXL cut its books (§4: chunks of about
 * 500 words, each summarized as a scene), and a written scene read back.
 */

/** Words per stretch unless told: NarrativeXL's ~500-word chunks. */
export const SCENE_STRETCH_WORDS = 500;

/**
 * The word limit of a scene summary of a stretch of `words` words: a fifth of it, as NarrativeXL's
 * scene summaries (Table 3: about 100 words for a 500-word stretch); at least a sentence's worth.
 */
export function sceneWords(words: number): number {
	return Math.max(20, Math.round(words / 5));
}

const WORD = /[\p{L}\p{N}]+/gu;

function wordsIn(text: string): number {
	return text.match(WORD)?.length ?? 0;
}

/**
 * The book cut, in order, into stretches of about `words` words, each ending at a sentence's end
 * (a paragraph's last sentence ends at its line's end): a stretch ends at whichever sentence end
 * lies nearer to `words`, the one before reaching it or the one after. A sentence longer than that
 * is a stretch of its own, and a last stretch shorter than half of `words` joins the one before.
 * Only whitespace lies between stretches.
 */
export function scenePieces(book: string, words = SCENE_STRETCH_WORDS): Span[] {
	if (!Number.isInteger(words) || words < 1)
		throw new RangeError(`words per scene must be a positive whole number, not ${words}`);
	const pieces: Span[] = [];
	let open: { start: number; end: number; words: number } | null = null;
	for (const sentence of eachSentenceSpan(book)) {
		const count = wordsIn(book.slice(sentence.start, sentence.end));
		if (open === null) {
			open = { start: sentence.start, end: sentence.end, words: count };
		} else if (open.words + count <= words || words - open.words > open.words + count - words) {
			// The sentence fits, or ending after it lands nearer to `words` than ending before it.
			open.end = sentence.end;
			open.words += count;
		} else {
			pieces.push({ start: open.start, end: open.end });
			open = { start: sentence.start, end: sentence.end, words: count };
		}
		if (open.words >= words) {
			pieces.push({ start: open.start, end: open.end });
			open = null;
		}
	}
	if (open !== null) {
		const last = pieces.at(-1);
		if (last && open.words < words / 2) last.end = open.end;
		else pieces.push({ start: open.start, end: open.end });
	}
	return pieces;
}

/** A scene summary as written: its text trimmed, refused (and asked again) when empty. */
export function readScene(text: string): Read<string> {
	const scene = text.trim();
	return scene === '' ? { ok: false, reason: 'an empty scene' } : { ok: true, value: scene };
}

/** A distortion of `scene` as written: refused (and asked again) when empty or the scene itself unchanged. */
export function readDistortion(text: string, scene: string): Read<string> {
	const read = readScene(text);
	if (!read.ok) return read;
	const same = (t: string) => t.replace(/\s+/gu, ' ').trim().toLowerCase();
	return same(read.value) === same(scene) ? { ok: false, reason: 'the scene unchanged' } : read;
}

/** The next free number of ids `<letter><n>` (`s3`, `q12`): one past the highest; 0 for none. */
export function nextNumber(ids: readonly string[]): number {
	return ids.reduce((max, id) => {
		const m = /^[a-z](\d+)$/u.exec(id);
		return m ? Math.max(max, Number(m[1]) + 1) : max;
	}, 0);
}
