import { costText } from './cost.ts';
import { counted } from './count.ts';

/** What `--embeddings` spent (app/dense-evidence.ts's `spend()`). */
export interface EmbeddingSpend {
	model: string;
	/** Tokens embedded (the server's count). */
	tokens: number;
	requests: number;
	/** The book's passages were read from the session's cache. */
	cachedPassages: boolean;
	/** Why the book's vectors kept in the session were not used and the book was embedded again; null otherwise. */
	discardedCache: string | null;
	/** USD; null when the model has no price in the table. */
	cost: number | null;
}

/**
 * What the embeddings cost, on one line; before it, when the book's vectors kept in the session
 * could not be used, a line saying so (what would have been free was paid for again).
 */
export function spendLines(spend: EmbeddingSpend): string[] {
	const requests = counted(spend.requests, 'request');
	const cached = spend.cachedPassages ? "; the book's passages read from the session's cache" : '';
	return [
		...(spend.discardedCache === null
			? []
			: [
					`warning: the book's embeddings kept in the session were not used: ${spend.discardedCache}; the book was embedded again and kept anew`,
				]),
		`embeddings: ${spend.model}, ${counted(spend.tokens, 'token')} in ${requests}, ${costText(spend.cost ?? 0, spend.cost !== null)}${cached}`,
	];
}
