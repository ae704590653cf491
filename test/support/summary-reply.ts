import { createHash } from 'node:crypto';
import type { RespondInput } from './fake-api.ts';

const VOCABULARY = ['Elizabeth', 'visited', 'the', 'estate', 'where', 'Darcy', 'spoke', 'about', 'a', 'letter', 'and', 'her', 'sister', 'waited', 'in', 'town', 'for', 'news'];

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
