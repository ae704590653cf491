import { splitSentences } from '../text/sentences.ts';
import { rankOrder, textRank, wordTokens } from '../text/textrank.ts';
import { countTokens, countWords, DEFAULT_ENCODING, truncateToTokens, type EncodingName } from '../text/tokens.ts';
import { abortError } from './abort.ts';
import { ProviderError, type CallRequest, type CallResult, type Provider } from './provider.ts';

/**
 * The offline baseline: every summarizing operation (summarize, merge, update, compress) becomes
 * "pick the most central sentences of the inputs that fit the budget". It reads `request.task`,
 * never the prompt, and needs no model, key or network.
 *
 * Output shape (decisions worth knowing):
 * - Chosen sentences keep their narrative order and are joined by single spaces into one paragraph,
 *   also across input texts: chunk ends are not paragraph ends, and a one-paragraph summary is what
 *   the model providers write too.
 * - Sentences that end with a mark are chosen first; a line without one (a heading, a salutation)
 *   only when the inputs have nothing else, and then it gets a '.' so the output ends with one.
 * - Exact repeats of a chosen sentence are skipped (merge inputs can overlap).
 * - When no sentence fits the budget, the best one is cut at a word boundary and ends with '.'.
 * - Budgets below one word or two tokens cannot hold any sentence: that is a configuration error.
 */

export interface ExtractiveOptions {
	encoding?: EncodingName;
	/** Pause between streamed pieces, to make streaming visible; by default only a macrotask. */
	deltaDelayMs?: number;
}

export interface ExtractBudget {
	words: number;
	maxTokens: number;
	encoding?: EncodingName;
}

export interface Extract {
	/** The output in streaming pieces: the first sentence, then ' ' + each next one. */
	pieces: string[];
	text: string;
	/** Positions of the chosen sentences among all input sentences, ascending. */
	picked: number[];
	/** True when the output is the best sentence cut short because nothing fitted. */
	cut: boolean;
}

const TERMINAL = /[.?!…"”’»]$/u;

function withTerminal(sentence: string): string {
	// A trailing comma or colon gives way to the full stop ("My dear Victor," -> "My dear Victor.").
	return TERMINAL.test(sentence) ? sentence : `${sentence.replace(/[,;:\s]+$/u, '')}.`;
}

/** The first `words` words of `sentence`, closed with '.' instead of whatever punctuation was cut. */
function cutSentence(sentence: string, words: number): string {
	const kept = sentence.split(/\s+/u).slice(0, Math.max(1, words)).join(' ');
	const bare = kept.replace(/[^\p{L}\p{N}]+$/u, '');
	return `${bare.length > 0 ? bare : kept}.`;
}

/** Picks sentences of `texts` by TextRank within the budget (pure apart from the shared encoder). */
export function extractSummary(texts: readonly string[], budget: ExtractBudget): Extract {
	const encoding = budget.encoding ?? DEFAULT_ENCODING;
	const raw = texts.flatMap((t) => splitSentences(t)).map((s) => s.replace(/\s+/gu, ' '));
	const sentences = raw.map(withTerminal);
	if (sentences.length === 0) return { pieces: [], text: '', picked: [], cut: false };

	const maxWords = Math.floor(budget.words);
	const maxTokens = Math.floor(budget.maxTokens);
	if (!(maxWords >= 1) || !(maxTokens >= 2)) {
		throw new ProviderError(
			`the extractive baseline cannot fit a sentence into ${budget.words} words / ${budget.maxTokens} tokens; raise the budget`,
			false,
		);
	}

	// Whole sentences of the text come first: a line without a final mark (a heading, a letter's
	// "My dear Victor,") or without a letter or digit ("* * *") is taken only when no whole sentence
	// fits, and a sentence is cut short only when nothing fits at all.
	const whole = raw.map((s, i) => TERMINAL.test(s) && wordTokens(sentences[i]!).length > 0);
	const worded = sentences.map((s) => wordTokens(s).length > 0);
	const ranked = rankOrder(textRank(sentences));
	const tiers = [ranked.filter((i) => whole[i]), ranked.filter((i) => !whole[i] && worded[i]), ranked.filter((i) => !worded[i])];
	let chosen: number[] = [];
	for (const tier of tiers) {
		chosen = pick(tier);
		if (chosen.length > 0) break;
	}
	const order = tiers.flat();

	// Greedy by rank; a sentence that would overflow is skipped and shorter ones are still tried.
	// Sentence token counts add up to about the joined text's (the check below is exact), and a
	// sentence that fits alone is always taken, so the cut below happens only when none does.
	function pick(tier: readonly number[]): number[] {
		const taken: number[] = [];
		const seen = new Set<string>();
		let words = 0;
		let tokens = 0;
		for (const i of tier) {
			const s = sentences[i]!;
			if (seen.has(s)) continue;
			const w = countWords(s);
			const t = countTokens(s, encoding);
			if (words + w > maxWords || tokens + t > maxTokens) continue;
			taken.push(i);
			seen.add(s);
			words += w;
			tokens += t;
		}
		// Token counts are not exactly additive across joins: drop the lowest-ranked until it fits.
		while (taken.length > 0 && countTokens(join(taken).join(' '), encoding) > maxTokens) taken.pop();
		return taken;
	}
	function join(ids: number[]): string[] {
		return [...ids].sort((a, b) => a - b).map((i) => sentences[i]!);
	}

	if (chosen.length === 0) {
		const best = order[0]!;
		let keep = Math.min(maxWords, countWords(sentences[best]!));
		let text = cutSentence(sentences[best]!, keep);
		while (keep > 1 && countTokens(text, encoding) > maxTokens) text = cutSentence(sentences[best]!, --keep);
		// One word longer than the whole token budget: keep what fits of it.
		if (countTokens(text, encoding) > maxTokens) text = `${truncateToTokens(text, maxTokens - 1, encoding).trimEnd()}.`;
		return { pieces: [text], text, picked: [best], cut: true };
	}

	const picked = [...chosen].sort((a, b) => a - b);
	const pieces = picked.map((i, k) => (k === 0 ? sentences[i]! : ` ${sentences[i]!}`));
	return { pieces, text: pieces.join(''), picked, cut: false };
}


/** Waits a macrotask (or `ms`), rejecting early when `signal` aborts meanwhile. */
function pause(ms: number | undefined, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		const onAbort = () => {
			clearTimeout(timer);
			clearImmediate(immediate);
			reject(cancelled());
		};
		const done = () => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		};
		const timer = ms === undefined ? undefined : setTimeout(done, ms);
		const immediate = ms === undefined ? setImmediate(done) : undefined;
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}

export class ExtractiveProvider implements Provider {
	readonly name = 'extractive' as const;
	readonly model = 'textrank';
	readonly isLLM = false;
	private readonly encoding: EncodingName;
	private readonly deltaDelayMs: number | undefined;

	constructor(opts: ExtractiveOptions = {}) {
		this.encoding = opts.encoding ?? DEFAULT_ENCODING;
		this.deltaDelayMs = opts.deltaDelayMs;
	}

	async complete(request: CallRequest): Promise<CallResult> {
		const { signal, onDelta, task } = request;
		if (signal?.aborted) throw cancelled();
		const input = task.texts.reduce((sum, t) => sum + countTokens(t, this.encoding), 0);

		let pieces: string[];
		switch (task.kind) {
			case 'annotate':
				throw new ProviderError('the extractive baseline cannot annotate summaries; use --provider openai or anthropic', false);
			case 'clean':
				// Cleaning removes model artifacts; sentences taken verbatim from the book have none.
				pieces = task.texts.length > 0 && task.texts[0]!.length > 0 ? [task.texts[0]!] : [];
				break;
			default:
				pieces = extractSummary(task.texts, { words: task.words, maxTokens: request.maxTokens, encoding: this.encoding }).pieces;
		}

		// Stream piece by piece, yielding between pieces so a watching UI gets to render each one.
		for (const piece of pieces) {
			if (signal?.aborted) throw cancelled();
			onDelta?.(piece);
			if (onDelta) await pause(this.deltaDelayMs, signal);
		}
		if (signal?.aborted) throw cancelled();

		const text = pieces.join('');
		return { text, finishReason: 'stop', usage: { input, output: countTokens(text, this.encoding), cached: 0 } };
	}
}

function cancelled(): Error {
	return abortError('the extractive call was cancelled');
}
