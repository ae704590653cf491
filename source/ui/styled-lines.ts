import type { Span } from '../domain.ts';
import { clean, textWidth } from '../format/text.ts';

/** A run of text on one screen line, with the style of the range it lies in (null outside them). */
export interface Piece<S = true> {
	text: string;
	style: S | null;
}

export type Line<S = true> = Piece<S>[];

export interface StyledRange<S> extends Span {
	style: S;
}

/**
 * `text` wrapped to `width` columns with each range's characters carrying its style. Ranges are
 * offsets into the raw text, so the text is cut at range edges first and each piece is cleaned on
 * its own: cleaning can only remove characters, never move an edge into another piece.
 */
export function styledLines<S>(text: string, ranges: readonly StyledRange<S>[], width: number): Line<S>[] {
	const edges = [...new Set([0, text.length, ...ranges.flatMap((s) => [s.start, s.end])])]
		.filter((e) => e >= 0 && e <= text.length)
		.sort((a, b) => a - b);
	const styleAt = (at: number) => ranges.find((s) => s.start <= at && at < s.end)?.style ?? null;
	const runs: Piece<S>[] = [];
	for (let i = 0; i + 1 < edges.length; i++) {
		const piece = clean(text.slice(edges[i], edges[i + 1]));
		if (piece !== '') runs.push({ text: piece, style: styleAt(edges[i]!) });
	}
	return wrapPieces(runs, Math.max(1, width));
}

/** `text` wrapped with the characters inside `spans` marked, and the first line holding a mark. */
export function highlightLines(
	text: string,
	spans: readonly Span[],
	width: number,
): { lines: Line[]; firstMarked: number | null } {
	const lines = styledLines<true>(
		text,
		spans.map((s) => ({ ...s, style: true as const })),
		width,
	);
	const firstMarked = lines.findIndex((l) => l.some((p) => p.style !== null && p.text.trim() !== ''));
	return { lines, firstMarked: firstMarked === -1 ? null : firstMarked };
}

/** Word wrap over styled runs: a word may straddle two runs and keeps both styles. */
function wrapPieces<S>(runs: readonly Piece<S>[], width: number): Line<S>[] {
	const lines: Line<S>[] = [];
	let line: Line<S> = [];
	let used = 0;
	const push = (text: string, style: S | null) => {
		const last = line[line.length - 1];
		if (last && last.style === style) last.text += text;
		else line.push({ text, style });
	};
	const breakLine = () => {
		const last = line[line.length - 1];
		if (last) last.text = last.text.trimEnd();
		lines.push(line.filter((p) => p.text !== ''));
		line = [];
		used = 0;
	};
	// Words are split across runs: collect each whitespace-delimited token with its pieces.
	type Token = { pieces: Piece<S>[]; width: number; space: boolean; newline: boolean };
	const tokens: Token[] = [];
	for (const run of runs) {
		for (const part of run.text.split(/(\n|[^\S\n]+)/u)) {
			if (part === '') continue;
			const newline = part === '\n';
			const space = !newline && /^\s+$/u.test(part);
			const prev = tokens[tokens.length - 1];
			if (!newline && !space && prev && !prev.space && !prev.newline) {
				prev.pieces.push({ text: part, style: run.style });
				prev.width += textWidth(part);
			} else
				tokens.push({
					pieces: [{ text: part, style: run.style }],
					width: newline ? 0 : textWidth(part),
					space,
					newline,
				});
		}
	}
	for (const token of tokens) {
		if (token.newline) {
			breakLine();
			continue;
		}
		if (token.space) {
			if (used > 0 && used + token.width <= width) {
				for (const p of token.pieces) push(p.text, p.style);
				used += token.width;
			} else if (used > 0) breakLine();
			continue;
		}
		if (used > 0 && used + token.width > width) breakLine();
		for (const p of token.pieces) {
			for (const ch of p.text) {
				if (used >= width) breakLine();
				push(ch, p.style);
				used += textWidth(ch);
			}
		}
	}
	breakLine();
	return lines;
}
