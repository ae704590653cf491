import type { CallRequest, CallResult, Provider } from '../../source/llm/provider.ts';
import { countTokens, truncateToTokens } from '../../source/text/tokens.ts';
import { prng } from './prng.ts';

export { prng };

const WORDS = [
	'the',
	'count',
	'walked',
	'into',
	'garden',
	'where',
	'Elizabeth',
	'waited',
	'for',
	'news',
	'of',
	'war',
	'and',
	'a',
	'letter',
	'arrived',
	'from',
	'Moscow',
	'while',
	'snow',
	'fell',
];

export interface FakeModelOptions {
	seed?: number;
	/** Share of answers that are broken (too long, unterminated or empty). */
	faultRate?: number;
	/** Words written per word asked for (above 1 overshoots the budget). */
	verbosity?: number;
	/** Milliseconds per call. */
	latencyMs?: number;
}

/**
 * A stand-in language model for planner and engine tests: it answers with sentences of about the
 * asked word count, sometimes broken on purpose, and cuts at max tokens as a real API does.
 */
export class FakeModel implements Provider {
	readonly name = 'openai' as const;
	readonly model = 'fake';
	readonly isLLM = true;
	readonly requests: CallRequest[] = [];
	private readonly random: () => number;
	constructor(private readonly opts: FakeModelOptions = {}) {
		this.random = prng(opts.seed ?? 1);
	}

	async complete(request: CallRequest): Promise<CallResult> {
		this.requests.push(request);
		if (this.opts.latencyMs) await new Promise((r) => setTimeout(r, this.opts.latencyMs));
		if (request.signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
		const fault = this.random() < (this.opts.faultRate ?? 0) ? Math.floor(this.random() * 3) : -1;
		if (fault === 2)
			return {
				text: '',
				finishReason: 'stop',
				usage: { input: countTokens(request.prompt), output: 0, cached: 0 },
			};
		const words = Math.max(
			1,
			Math.round(request.task.words * (this.opts.verbosity ?? 0.9) * (fault === 0 ? 3 : 1)),
		);
		let text = sentences(words, this.random);
		if (fault === 1) text = text.replace(/\.$/u, ',');
		let finishReason = 'stop';
		if (countTokens(text) > request.maxTokens) {
			text = truncateToTokens(text, request.maxTokens);
			finishReason = 'length';
		}
		for (const piece of text.match(/.{1,40}/gsu) ?? []) request.onDelta?.(piece);
		return {
			text,
			finishReason,
			usage: { input: countTokens(request.prompt), output: countTokens(text), cached: 0 },
		};
	}
}

function sentences(words: number, random: () => number): string {
	const out: string[] = [];
	let sentence: string[] = [];
	for (let i = 0; i < words; i++) {
		sentence.push(WORDS[Math.floor(random() * WORDS.length)]!);
		if (sentence.length >= 12 || i === words - 1) {
			const s = sentence.join(' ');
			out.push(s[0]!.toUpperCase() + s.slice(1) + '.');
			sentence = [];
		}
	}
	return out.join(' ');
}
