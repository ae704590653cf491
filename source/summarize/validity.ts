import { counted } from '../format/count.ts';
import type { Attempt } from '../domain.ts';

// Closing quotes count as terminal: dialogue often ends a paragraph with ." or .’ (authors: . ? ! " ').
const TERMINAL = new Set(['.', '?', '!', '"', "'", '\u201D', '\u2019', '\u00BB']);

export function endsWithTerminal(text: string): boolean {
	const trimmed = text.trimEnd();
	return trimmed.length > 0 && TERMINAL.has(trimmed[trimmed.length - 1]!);
}

/**
 * Why a summary is not acceptable, or null when it is: it must be non-empty, end with terminal
 * punctuation, and stay within `tokenLimit` (`strict`: strictly below it, as the authors check
 * incremental summaries).
 */
export function summaryProblem(
	text: string,
	tokens: number,
	tokenLimit: number,
	strict = false,
): string | null {
	if (text.trim().length === 0) return 'empty';
	if (!endsWithTerminal(text)) return 'does not end with terminal punctuation';
	if (strict ? tokens >= tokenLimit : tokens > tokenLimit)
		return `${counted(tokens, 'token')}, over the limit of ${tokenLimit}`;
	return null;
}

/**
 * The attempt to keep when none was accepted: non-empty first, then one that ends a sentence, then
 * the one closest to its token limit; the earliest wins ties.
 */
export function bestAttempt(
	attempts: readonly Attempt[],
	tokensOf: (text: string) => number,
	tokenLimit: number,
): Attempt | null {
	let best: Attempt | null = null;
	let bestKey: number[] | null = null;
	for (const a of attempts) {
		if (a.text.trim().length === 0) continue;
		const key = [endsWithTerminal(a.text) ? 0 : 1, Math.max(0, tokensOf(a.text) - tokenLimit)];
		if (!bestKey || key[0]! < bestKey[0]! || (key[0] === bestKey[0] && key[1]! < bestKey[1]!)) {
			best = a;
			bestKey = key;
		}
	}
	return best;
}
