import { readFileSync } from 'node:fs';
import { parseTemplate, type ParsedTemplate, type TemplateId } from '../../source/summarize/templates.ts';
import { SHIPPED_PROMPTS } from '../../source/prompts/load.ts';
import type { RespondInput } from './fake-api.ts';
import { contentSentences, salience, stemCounts } from './memory-reply.ts';

/**
 * A fake model that summarizes the way word overlap can measure a real one: it paraphrases (each
 * sentence cut to its content words, never the book's wording) and, when its inputs hold more than
 * the words asked for, keeps the sentences that say most of them (`salience`), whatever they came
 * from. An incremental update then keeps a part of the running summary and a part of the new
 * chunk at every step, so what was read long ago fades step by step; a hierarchical merge keeps
 * every part of the book alike. It reads booook's own summarizing templates (prompts/), so it
 * knows which parts of a prompt are the texts to summarize and which is the length asked.
 */

/** booook's summarizing templates: the prompts of a run, as against scoring's and judging's. */
export const SUMMARIZING_TEMPLATES: TemplateId[] = [
	'hier-init',
	'hier-merge',
	'hier-merge-context',
	'inc-init',
	'inc-update',
	'inc-compress',
	'clean',
];

const templates: [string, ParsedTemplate][] = SUMMARIZING_TEMPLATES.map((id) => [
	id,
	parseTemplate(readFileSync(`${SHIPPED_PROMPTS}/${id}.txt`, 'utf8')),
]);

/** The values a prompt filled `template` with, in order, or null when the prompt is not of it. */
function valuesOf(template: ParsedTemplate, prompt: string): string[] | null {
	const { literals } = template;
	if (!prompt.startsWith(literals[0]!)) return null;
	const values: string[] = [];
	let at = literals[0]!.length;
	for (let i = 1; i < literals.length; i++) {
		const literal = literals[i]!;
		const last = i === literals.length - 1;
		const end = last
			? prompt.endsWith(literal)
				? prompt.length - literal.length
				: -1
			: prompt.indexOf(literal, at);
		if (end < at) return null;
		values.push(prompt.slice(at, end));
		at = end + literal.length;
	}
	return values;
}

/**
 * The share of the words asked for that an incremental update gives the running summary it is
 * shown: a model keeps most of what it wrote and makes room for the new chunk, so a scene fades
 * over several steps rather than at the next one.
 */
const KEEP_SUMMARY = 0.6;

const wordsOf = (sentence: string) => sentence.split(' ').length;

/** The sentences of `texts` that say most of them (`salience`), within `budget` words, in their order. */
function digest(texts: readonly string[], budget: number): string[] {
	const sentences = texts.flatMap((t) => contentSentences(t)).map((words) => words.join(' '));
	const counts = stemCounts(texts);
	const order = sentences
		.map((s, i) => ({ i, p: salience(s, counts) }))
		.sort((a, b) => b.p - a.p || a.i - b.i);
	const keep = new Set<number>();
	let words = 0;
	for (const { i } of order) {
		if (words + wordsOf(sentences[i]!) > budget) continue;
		keep.add(i);
		words += wordsOf(sentences[i]!);
	}
	return sentences.filter((_, i) => keep.has(i));
}

/** The fake's summary of a summarizing prompt of booook's templates, or null for another prompt. */
export function digestReply({ prompt }: Pick<RespondInput, 'prompt'>): string | null {
	for (const [id, template] of templates) {
		const values = valuesOf(template, prompt);
		if (values === null) continue;
		const asked = values.filter((v) => /^\d+$/u.test(v.trim())).map(Number);
		const texts = values.filter((v) => !/^\d+$/u.test(v.trim()));
		// 80% of the words asked for, as a model that stays under its limit writes; the clean step asks none.
		const budget = asked.length > 0 ? Math.floor(asked.at(-1)! * 0.8) : Number.POSITIVE_INFINITY;
		let kept: string[];
		if (id === 'inc-update') {
			const [chunk, summary] = texts as [string, string];
			const old = digest([summary], Math.floor(budget * KEEP_SUMMARY));
			const room = budget - old.reduce((n, s) => n + wordsOf(s), 0);
			kept = [...old, ...digest([chunk], room)];
		} else kept = digest(texts, budget);
		return kept.map((s) => `${s.replace(/^./u, (c) => c.toUpperCase())}.`).join(' ') || 'Nothing happens.';
	}
	return null;
}
