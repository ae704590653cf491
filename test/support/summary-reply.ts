import { createHash } from 'node:crypto';
import type { RespondInput } from './fake-api.ts';

const VOCABULARY = [
	'Elizabeth',
	'visited',
	'the',
	'estate',
	'where',
	'Darcy',
	'spoke',
	'about',
	'a',
	'letter',
	'and',
	'her',
	'sister',
	'waited',
	'in',
	'town',
	'for',
	'news',
];

/**
 * A fake model's answer to a summarization prompt: about 80% of the words the prompt asks for,
 * in sentences ending with a period, the same for the same prompt (so runs are reproducible).
 */
export function summaryReply({ prompt }: RespondInput): string {
	const asked = /(?:within|contain|less than) (\d+) words/u.exec(prompt);
	const words = Math.max(5, Math.round(Number(asked?.[1] ?? 60) * 0.8));
	let seed = createHash('sha256').update(prompt).digest().readUInt32BE(0);
	const out: string[] = [];
	let sentence: string[] = [];
	for (let i = 0; i < words; i++) {
		seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
		sentence.push(VOCABULARY[seed % VOCABULARY.length]!);
		if (sentence.length === 10 || i === words - 1) {
			out.push(`${sentence.join(' ').replace(/^./u, (c) => c.toUpperCase())}.`);
			sentence = [];
		}
	}
	return out.join(' ');
}

/** The last length a prompt asks for: booook's templates put it after the text they quote. */
const ASKED = /(?:within|contain|less than) (\d+) words/gu;

/**
 * A reply as long as a real model's, for benchmarks: 80% of the words a summarization prompt asks
 * for (as `summaryReply`), or `unasked` words when the prompt names no length (LangChain's "Write a
 * concise summary"). Its words are drawn from the prompt itself, so tokens per word are a book's
 * rather than a short vocabulary's, in sentences of 12 to 20 words; same prompt, same text. A
 * request that names no length but limits the output (booook's clean step, whose limit is the
 * length of the summary it edits) gets what fits that limit, as an edit of that text would.
 */
export function bookishReply(unasked: number): (input: RespondInput) => string {
	return ({ prompt, body }) => {
		const asked = [...prompt.matchAll(ASKED)].at(-1);
		const limit: unknown = body?.max_completion_tokens ?? body?.max_tokens;
		// About 0.75 words a token, and an edit a little shorter than its text.
		const room = typeof limit === 'number' ? Math.floor(limit * 0.75 * 0.9) : Infinity;
		const words = Math.max(5, asked ? Math.round(Number(asked[1]) * 0.8) : Math.min(unasked, room));
		const pool = prompt.match(/\p{L}+/gu) ?? ['story'];
		let seed = createHash('sha256').update(prompt).digest().readUInt32BE(0);
		const next = (n: number) => {
			seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
			return seed % n;
		};
		const out: string[] = [];
		let sentence: string[] = [];
		let length = 12 + next(9);
		for (let i = 0; i < words; i++) {
			sentence.push(pool[next(pool.length)]!.toLowerCase());
			if (sentence.length === length || i === words - 1) {
				out.push(`${sentence.join(' ').replace(/^./u, (c) => c.toUpperCase())}.`);
				sentence = [];
				length = 12 + next(9);
			}
		}
		return out.join(' ');
	};
}
