import type { RunConfig } from '../../source/domain.ts';
import { Engine } from '../../source/engine/engine.ts';
import type { Provider } from '../../source/llm/provider.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import type { PlanContext } from '../../source/summarize/planner.ts';
import { newRun, plannerFor } from '../../source/summarize/run.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { countTokens } from '../../source/text/tokens.ts';
import { makeConfig, type ConfigInput } from '../../source/config.ts';
import { MemoryStore } from './memory-store.ts';
import { prng } from './fake-model.ts';

/** A book of `paragraphs` random paragraphs of simple sentences. */
export function randomBook(seed: number, paragraphs: number): string {
	const random = prng(seed);
	const words = [
		'she',
		'he',
		'walked',
		'to',
		'the',
		'old',
		'mill',
		'and',
		'saw',
		'a',
		'ship',
		'on',
		'grey',
		'sea',
		'while',
		'Anna',
		'spoke',
		'of',
		'her',
		'brother',
		'in',
		'Paris',
	];
	const out: string[] = [];
	for (let p = 0; p < paragraphs; p++) {
		const sentences: string[] = [];
		const n = 1 + Math.floor(random() * 8);
		for (let s = 0; s < n; s++) {
			const len = 4 + Math.floor(random() * 20);
			const w = Array.from({ length: len }, () => words[Math.floor(random() * words.length)]!);
			sentences.push(w.join(' ').replace(/^./u, (c) => c.toUpperCase()) + (random() < 0.1 ? '?' : '.'));
		}
		out.push(sentences.join(' '));
	}
	return out.join('\n\n');
}

export async function setUp(book: string, input: Partial<ConfigInput>, provider: Provider) {
	const config: RunConfig = makeConfig({ provider: 'openai', model: 'fake', ...input });
	const ctx: PlanContext = {
		config,
		templates: await loadTemplates(),
		book,
		tokens: (t) => countTokens(t, config.encoding),
	};
	const run = newRun(config, chunkText(book, config.chunkSize, config.encoding));
	const store = new MemoryStore({ run });
	const engine = new Engine({ store, provider, planner: plannerFor(config.method), ctx, costOf: () => 0 });
	return { config, ctx, run, store, engine };
}
