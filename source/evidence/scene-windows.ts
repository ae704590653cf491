import type { Passage } from './passages.ts';

/**
 * Characters of the book a scene window spans: about 700 words, two printed pages. A sentence of a
 * summary condenses a scene, and a scene's people, place and acts are told over a page or more, so a
 * paraphrase shares more of its words with the page than with any three sentences of it. Round, not
 * fitted: on the labelled set (bench/evidence.ts) windows of 1,000 to 16,000 characters all moved the
 * right chapter into first place for 3 to 6 more of 46 single-event sentences.
 */
export const SCENE_CHARS = 4000;

/** A run of consecutive passages, `[from, to)` by passage index. */
export interface SceneWindow {
	from: number;
	to: number;
}

/**
 * The book's passages grouped into windows of at most `chars` characters (at least one passage each),
 * a new window starting halfway through the last, so that each passage has its neighbours on either
 * side in some window: a scene does not start where a fixed grid would cut it. Windows cross chunks
 * and paragraphs (a scene does); a dialogue of one-line paragraphs is one window, not many tiny ones.
 */
export function sceneWindows(passages: readonly Passage[], chars = SCENE_CHARS): SceneWindow[] {
	const windows: SceneWindow[] = [];
	for (let from = 0; from < passages.length;) {
		let to = from + 1;
		while (to < passages.length && passages[to]!.end - passages[from]!.start <= chars) to++;
		windows.push({ from, to });
		if (to === passages.length) break;
		from += Math.max(1, Math.floor((to - from) / 2));
	}
	return windows;
}
