/** A final summary's figures, as the run screen, `show` and the headless run's end print them. */
import { costText } from './cost.ts';
import type { SummaryStats } from '../text/stats.ts';
import { counted } from './count.ts';

/** "585 tokens, 431 words, 1.2% repeated 3-grams, 80.4% novel 3-grams". */
export function summaryFigures(
	s: Pick<SummaryStats, 'tokens' | 'words' | 'repeated3gramPct' | 'novel3gramPct'>,
): string {
	const shares = `${s.repeated3gramPct.toFixed(1)}% repeated 3-grams, ${s.novel3gramPct.toFixed(1)}% novel 3-grams`;
	return `${counted(s.tokens, 'token')}, ${counted(s.words, 'word')}, ${shares}`;
}

/** What a run spent: "48 calls, 120,000 tokens, $0.0420" ("cost unknown" without a price). */
export function spentFigures(calls: number, tokens: number, cost: number, priced: boolean): string {
	return `${counted(calls, 'call')}, ${counted(tokens, 'token')}, ${costText(cost, priced)}`;
}
