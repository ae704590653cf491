import { sanitize } from '../text/sanitize.ts';

/**
 * Text as the screens show it. Everything from a book or a model goes through `clean` first:
 * `sanitize` removes what a terminal would act on, and tabs become spaces because their width
 * depends on the column they land in, which would break the line layout below.
 */
export function clean(text: string): string {
	return sanitize(text).replace(/\t/gu, '  ');
}

// East Asian wide and fullwidth characters and most emoji take two columns; combining marks none.
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const ZERO = /[\p{M}\u200b-\u200d\ufe0f]/u;

export function charWidth(ch: string): number {
	if (ZERO.test(ch)) return 0;
	return WIDE.test(ch) ? 2 : 1;
}

export function textWidth(text: string): number {
	let w = 0;
	for (const ch of text) w += charWidth(ch);
	return w;
}

/**
 * `text` (already clean) as lines of at most `width` columns: words wrap, a word longer than a
 * line is cut, and every newline starts a new line.
 */
export function wrap(text: string, width: number): string[] {
	const max = Math.max(1, width);
	const out: string[] = [];
	for (const paragraph of text.split('\n')) {
		let line = '';
		let lineWidth = 0;
		for (const word of paragraph.split(/(\s+)/u)) {
			if (word === '') continue;
			const w = textWidth(word);
			if (/^\s+$/u.test(word)) {
				if (lineWidth > 0 && lineWidth + w <= max) {
					line += word;
					lineWidth += w;
				} else if (lineWidth > 0) {
					out.push(line.trimEnd());
					line = '';
					lineWidth = 0;
				}
				continue;
			}
			if (lineWidth + w > max && lineWidth > 0) {
				out.push(line.trimEnd());
				line = '';
				lineWidth = 0;
			}
			if (w <= max) {
				line += word;
				lineWidth += w;
				continue;
			}
			for (const ch of word) {
				const cw = charWidth(ch);
				if (lineWidth + cw > max) {
					out.push(line);
					line = '';
					lineWidth = 0;
				}
				line += ch;
				lineWidth += cw;
			}
		}
		out.push(line.trimEnd());
	}
	return out;
}

/** Cuts `text` to `width` columns, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
	if (textWidth(text) <= width) return text;
	let out = '';
	let w = 0;
	for (const ch of text) {
		const cw = charWidth(ch);
		if (w + cw > width - 1) break;
		out += ch;
		w += cw;
	}
	return `${out}…`;
}

/** Cuts `text` to `width` columns from its start, keeping its end (where ids differ). */
export function truncateStart(text: string, width: number): string {
	if (textWidth(text) <= width) return text;
	const chars = [...text];
	let out = '';
	let w = 0;
	for (let i = chars.length - 1; i >= 0; i--) {
		const cw = charWidth(chars[i]!);
		if (w + cw > width - 1) break;
		out = chars[i]! + out;
		w += cw;
	}
	return `…${out}`;
}

/**
 * The lines to show in a pane of `height` rows: from `offset` (clamped so the pane stays full), or
 * the last ones when `offset` is null (text that is still streaming is read at its end).
 */
export function windowOf<T>(lines: readonly T[], height: number, offset: number | null): { lines: T[]; offset: number; total: number } {
	const h = Math.max(0, height);
	const maxOffset = Math.max(0, lines.length - h);
	const at = offset === null ? maxOffset : Math.min(Math.max(0, offset), maxOffset);
	return { lines: lines.slice(at, at + h), offset: at, total: lines.length };
}

export function formatInt(n: number): string {
	return Math.round(n).toLocaleString('en-US');
}
