import { counted } from '../format/count.ts';
import type { Task } from '../summarize/planner.ts';
import { hasQuotes, quotesBalanced, startsQuoted } from '../text/quotes.ts';
import { sentenceSpans } from '../text/sentences.ts';
import { rankOrder, textRank, wordTokens } from '../text/textrank.ts';
import {
	countTokens,
	countWords,
	DEFAULT_ENCODING,
	truncateToTokens,
	type EncodingName,
} from '../text/tokens.ts';
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
 * - Sentences a reader can follow out of context come first: whole sentences of the text, starting
 *   with a capital, of at least MIN_WORDS words, whose quotation marks balance. Of those, narrative
 *   (no quotation marks, not inside a quotation of its paragraph) goes before speech. The rest
 *   ("Oh, Lydia!", the first or last line of a quotation) is taken only when none of those fits.
 * - Several inputs share the budget by the part of the book each stands for, so the summary follows
 *   the whole arc (see `sharesOf`): merge inputs by their chunks, and an update keeps the running
 *   summary and adds the new chunk's best sentence once the room the budget grew by holds it.
 * - A line without a final mark (a heading, a salutation) is taken only when the inputs have nothing
 *   else, and then it gets a '.' so the output ends with one.
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
	/** Words each text may take before the best sentences of any text fill what is left; by default equal. */
	shares?: readonly number[];
	/**
	 * Room a text's share leaves is kept for a later call instead of filled, and a text stops at its
	 * first sentence that does not fit rather than passing to shorter, lower-ranked ones.
	 */
	hold?: boolean;
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
/** Shorter sentences are mostly exclamations and lines of dialogue that mean little on their own. */
const MIN_WORDS = 6;
// A sentence that starts in lower case is the tail of a cut ("my dear, what a man!\"").
const CAPITALISED = /^[^\p{L}\p{N}]*(?!\p{Ll})[\p{L}\p{N}]/u;

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

/** Candidate classes, best first: narrative, then speech; then what only fills an otherwise empty output. */
type Kind = 'narrative' | 'speech' | 'fragment' | 'unfinished' | 'wordless';

interface Sentence {
	text: string;
	/** Index of the input text it comes from. */
	source: number;
	kind: Kind;
	words: number;
}

/** The sentences of `texts` in order, whitespace collapsed, each with its class. */
function sentencesOf(texts: readonly string[]): Sentence[] {
	return texts.flatMap((text, source) => {
		const spans = sentenceSpans(text);
		const quoted = startsQuoted(text, spans);
		return spans.map((span, k): Sentence => {
			const raw = text.slice(span.start, span.end).replace(/\s+/gu, ' ');
			const s = withTerminal(raw);
			const words = countWords(s);
			let kind: Kind;
			if (wordTokens(s).length === 0) kind = 'wordless';
			else if (!TERMINAL.test(raw)) kind = 'unfinished';
			else if (words < MIN_WORDS || !CAPITALISED.test(s) || !quotesBalanced(s)) kind = 'fragment';
			else kind = quoted[k] || hasQuotes(s) ? 'speech' : 'narrative';
			return { text: s, source, kind, words };
		});
	});
}

/** Picks sentences of `texts` by TextRank within the budget (pure apart from the shared encoder). */
export function extractSummary(texts: readonly string[], budget: ExtractBudget): Extract {
	const encoding = budget.encoding ?? DEFAULT_ENCODING;
	const all = sentencesOf(texts);
	const sentences = all.map((s) => s.text);
	if (sentences.length === 0) return { pieces: [], text: '', picked: [], cut: false };

	const maxWords = Math.floor(budget.words);
	const maxTokens = Math.floor(budget.maxTokens);
	if (!(maxWords >= 1) || !(maxTokens >= 2)) {
		throw new ProviderError(
			`the extractive baseline cannot fit a sentence into ${counted(budget.words, 'word')} / ${counted(budget.maxTokens, 'token')}; raise the budget`,
			false,
		);
	}

	// The graph holds every sentence, fragments too: they still tell which sentences are central.
	const ranked = rankOrder(textRank(sentences));
	const of = (...kinds: Kind[]) => ranked.filter((i) => kinds.includes(all[i]!.kind));
	const shares = budget.shares ?? texts.map(() => maxWords / texts.length);
	const tokenCounts = new Map<number, number>();
	const tokensOf = (i: number) => {
		let t = tokenCounts.get(i);
		if (t === undefined) tokenCounts.set(i, (t = countTokens(sentences[i]!, encoding)));
		return t;
	};

	// Greedy by rank; a sentence that would overflow is skipped and shorter ones are still tried
	// (unless held). Sentence token counts add up to about the joined text's (the check below is
	// exact), and the fallbacks take any sentence that fits alone, so the cut below happens only when none does.
	const taken: number[] = [];
	const seen = new Set<string>();
	const used = texts.map(() => 0);
	const closed = new Set<number>();
	let words = 0;
	let tokens = 0;
	function pick(order: readonly number[], withShares: boolean): void {
		for (const i of order) {
			const { text, source, words: w } = all[i]!;
			if (seen.has(text) || closed.has(source)) continue;
			const inShare = !withShares || used[source]! + w <= shares[source]!;
			const fits = inShare && words + w <= maxWords && tokens + tokensOf(i) <= maxTokens;
			if (!fits) {
				if (budget.hold) closed.add(source);
				continue;
			}
			taken.push(i);
			seen.add(text);
			used[source]! += w;
			words += w;
			tokens += tokensOf(i);
		}
	}
	pick(of('narrative'), true);
	pick(of('speech'), true);
	if (!budget.hold) pick(of('narrative', 'speech'), false);
	// Only when no sentence a reader can follow fits: the best of the next class that does.
	closed.clear();
	for (const kind of ['fragment', 'unfinished', 'wordless'] as const) {
		if (taken.length > 0) break;
		pick(of(kind), false);
	}
	// Token counts are not exactly additive across joins: drop the last taken until it fits.
	while (taken.length > 0 && countTokens(join(taken).join(' '), encoding) > maxTokens) taken.pop();
	function join(ids: number[]): string[] {
		return [...ids].sort((a, b) => a - b).map((i) => sentences[i]!);
	}

	if (taken.length === 0) {
		const best = ranked[0]!;
		let keep = Math.min(maxWords, countWords(sentences[best]!));
		let text = cutSentence(sentences[best]!, keep);
		while (keep > 1 && countTokens(text, encoding) > maxTokens) text = cutSentence(sentences[best]!, --keep);
		// One word longer than the whole token budget: keep what fits of it.
		if (countTokens(text, encoding) > maxTokens)
			text = `${truncateToTokens(text, maxTokens - 1, encoding).trimEnd()}.`;
		return { pieces: [text], text, picked: [best], cut: true };
	}

	const picked = [...taken].sort((a, b) => a - b);
	const pieces = picked.map((i, k) => (k === 0 ? sentences[i]! : ` ${sentences[i]!}`));
	return { pieces, text: pieces.join(''), picked, cut: false };
}

/**
 * How a task shares its budget among its texts, by the part of the book each stands for. Merge
 * inputs get parts by `Task.covers` (equal without it). An update's running summary stands for
 * every chunk before and was made to the budget of the step before: it keeps its words, and the
 * new chunk gets what the budget grew by, held for later steps when its best sentence does not fit.
 */
export function sharesOf(task: Task): Pick<ExtractBudget, 'shares' | 'hold'> {
	const { kind, texts, words, covers } = task;
	if (kind === 'update' && texts.length === 2) {
		const kept = Math.min(words, countWords(texts[0]!));
		return { shares: [kept, words - kept], hold: true };
	}
	const weights = covers?.length === texts.length && covers.every((c) => c > 0) ? covers : texts.map(() => 1);
	const total = weights.reduce((sum, w) => sum + w, 0);
	return { shares: weights.map((w) => (words * w) / total) };
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
				throw new ProviderError(
					'the extractive baseline cannot annotate summaries; use --provider openai or anthropic',
					false,
				);
			case 'clean':
				// Cleaning removes model artifacts; sentences taken verbatim from the book have none.
				pieces = task.texts.length > 0 && task.texts[0]!.length > 0 ? [task.texts[0]!] : [];
				break;
			default:
				pieces = extractSummary(task.texts, {
					words: task.words,
					maxTokens: request.maxTokens,
					encoding: this.encoding,
					...sharesOf(task),
				}).pieces;
		}

		// Stream piece by piece, yielding between pieces so a watching UI gets to render each one.
		for (const piece of pieces) {
			if (signal?.aborted) throw cancelled();
			onDelta?.(piece);
			if (onDelta) await pause(this.deltaDelayMs, signal);
		}
		if (signal?.aborted) throw cancelled();

		const text = pieces.join('');
		return {
			text,
			finishReason: 'stop',
			usage: { input, output: countTokens(text, this.encoding), cached: 0 },
		};
	}
}

function cancelled(): Error {
	return abortError('the extractive call was cancelled');
}
