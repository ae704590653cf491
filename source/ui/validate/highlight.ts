import type { Span } from '../../domain.ts';
import { clean, textWidth } from '../text.ts';

/** A run of text on one screen line, marked when it lies inside a highlighted span. */
export interface Piece {
	text: string;
	marked: boolean;
}

export type Line = Piece[];

/**
 * `text` wrapped to `width` columns with the characters inside `spans` marked. Spans are offsets
 * into the raw text, so the text is cut at span edges first and each piece is cleaned on its own:
 * cleaning can only remove characters, never move an edge into another piece.
 */
export function highlightLines(text: string, spans: readonly Span[], width: number): { lines: Line[]; firstMarked: number | null } {
	const edges = [...new Set([0, text.length, ...spans.flatMap((s) => [s.start, s.end])])]
		.filter((e) => e >= 0 && e <= text.length)
		.sort((a, b) => a - b);
	const inSpan = (at: number) => spans.some((s) => s.start <= at && at < s.end);
	const runs: Piece[] = [];
	for (let i = 0; i + 1 < edges.length; i++) {
		const piece = clean(text.slice(edges[i], edges[i + 1]));
		if (piece !== '') runs.push({ text: piece, marked: inSpan(edges[i]!) });
	}
	const lines = wrapPieces(runs, Math.max(1, width));
	const firstMarked = lines.findIndex((l) => l.some((p) => p.marked && p.text.trim() !== ''));
	return { lines, firstMarked: firstMarked === -1 ? null : firstMarked };
}

/** Word wrap over styled runs: a word may straddle two runs and keeps both styles. */
function wrapPieces(runs: readonly Piece[], width: number): Line[] {
	const lines: Line[] = [];
	let line: Line = [];
	let used = 0;
	const push = (text: string, marked: boolean) => {
		const last = line[line.length - 1];
		if (last && last.marked === marked) last.text += text;
		else line.push({ text, marked });
	};
	const breakLine = () => {
		const last = line[line.length - 1];
		if (last) last.text = last.text.trimEnd();
		lines.push(line.filter((p) => p.text !== ''));
		line = [];
		used = 0;
	};
	// Words are split across runs: collect each whitespace-delimited token with its pieces.
	type Token = { pieces: Piece[]; width: number; space: boolean; newline: boolean };
	const tokens: Token[] = [];
	for (const run of runs) {
		for (const part of run.text.split(/(\n|[^\S\n]+)/u)) {
			if (part === '') continue;
			const newline = part === '\n';
			const space = !newline && /^\s+$/u.test(part);
			const prev = tokens[tokens.length - 1];
			if (!newline && !space && prev && !prev.space && !prev.newline) {
				prev.pieces.push({ text: part, marked: run.marked });
				prev.width += textWidth(part);
			} else tokens.push({ pieces: [{ text: part, marked: run.marked }], width: newline ? 0 : textWidth(part), space, newline });
		}
	}
	for (const token of tokens) {
		if (token.newline) {
			breakLine();
			continue;
		}
		if (token.space) {
			if (used > 0 && used + token.width <= width) {
				for (const p of token.pieces) push(p.text, p.marked);
				used += token.width;
			} else if (used > 0) breakLine();
			continue;
		}
		if (used > 0 && used + token.width > width) breakLine();
		for (const p of token.pieces) {
			for (const ch of p.text) {
				if (used >= width) breakLine();
				push(ch, p.marked);
				used += textWidth(ch);
			}
		}
	}
	breakLine();
	return lines;
}
