import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { sanitize } from '../text/sanitize.ts';

/**
 * Text as the screens show it. Everything from a book or a model goes through `clean` first:
 * `sanitize` removes what a terminal would act on, and tabs become spaces because their width
 * depends on the column they land in, which would break the line layout below.
 */
export function clean(text: string): string {
	return sanitize(text).replace(/\t/gu, '  ');
}

/** Columns `text` takes in a terminal (wide characters two, combining marks none), as Ink counts them. */
export function textWidth(text: string): number {
	return stringWidth(text);
}

/**
 * `text` (already clean) as lines of at most `width` columns: words wrap, a word longer than a
 * line is cut, every newline starts a new line, and spaces at a break go.
 *
 * Wrapping costs several milliseconds per thousand characters, and a pane is drawn again at every
 * frame while a run streams: the inputs pane of a merge (a dozen summaries) took longer than a
 * frame, which starved the keyboard and the clock. So the texts last wrapped are kept; a text that
 * does not change is wrapped once per width.
 */
export function wrap(text: string, width: number): readonly string[] {
	const w = Math.max(1, width);
	const key = `${w}\u0000${text}`;
	const cached = wrapped.get(key);
	if (cached) {
		// Most recently used last, so the oldest goes first when the cache is full.
		wrapped.delete(key);
		wrapped.set(key, cached);
		return cached;
	}
	const lines = Object.freeze(wrapAnsi(text, w, { hard: true, trim: true }).split('\n'));
	wrapped.set(key, lines);
	if (wrapped.size > WRAP_CACHE) wrapped.delete(wrapped.keys().next().value!);
	return lines;
}

/** Texts kept wrapped: more than every pane and dialog of a screen shows at once. */
const WRAP_CACHE = 256;
const wrapped = new Map<string, readonly string[]>();

/** Cuts `text` to `width` columns, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
	return cliTruncate(text, Math.max(1, width));
}

/** Keeps the first `max` of wrapped `lines`, marking a cut on the last one kept. */
export function cutLines(lines: readonly string[], max: number, width: number): readonly string[] {
	if (lines.length <= max) return lines;
	const kept = lines.slice(0, max);
	kept[max - 1] = truncate(`${kept[max - 1]!} …`, width);
	return kept;
}

/** Cuts `text` to `width` columns from its start, keeping its end (where ids differ). */
export function truncateStart(text: string, width: number): string {
	return cliTruncate(text, Math.max(1, width), { position: 'start' });
}

/**
 * The lines to show in a pane of `height` rows: from `offset` (clamped so the pane stays full), or
 * the last ones when `offset` is null (text that is still streaming is read at its end).
 */
export function windowOf<T>(
	lines: readonly T[],
	height: number,
	offset: number | null,
): { lines: T[]; offset: number; total: number } {
	const h = Math.max(0, height);
	const maxOffset = Math.max(0, lines.length - h);
	const at = offset === null ? maxOffset : Math.min(Math.max(0, offset), maxOffset);
	return { lines: lines.slice(at, at + h), offset: at, total: lines.length };
}
