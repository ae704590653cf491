/**
 * Wall time of a hierarchical run of Pride and Prejudice against the fake API (a separate process,
 * fixed latency per call, 500 ms by default: real summarization calls take seconds) divided by the ideal schedule for the concurrency: level 0 spread over
 * the workers, every merge after it in sequence. Goal: at most 1.25.
 *
 *   node --import tsx bench/run.ts [--latency 500] [--concurrency 4]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeConfig } from '../source/config.ts';
import { Engine } from '../source/engine/engine.ts';
import { createProvider } from '../source/llm/create.ts';
import { loadTemplates } from '../source/prompts/load.ts';
import { newRun, plannerFor } from '../source/summarize/run.ts';
import { chunkText } from '../source/text/chunk.ts';
import { countTokens } from '../source/text/tokens.ts';
import { MemoryStore } from '../test/support/memory-store.ts';

const { values } = parseArgs({ options: { latency: { type: 'string', default: '500' }, concurrency: { type: 'string', default: '4' } } });
const latency = Number(values.latency);
const concurrency = Number(values.concurrency);

const server = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../test/support/fake-api.ts', import.meta.url)), '--port', '0', '--latency', String(latency)], { stdio: ['ignore', 'pipe', 'inherit'] });
const { url } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve)));

try {
	const book = readFileSync(fileURLToPath(new URL('../../shared/books/pride-and-prejudice.txt', import.meta.url)), 'utf8');
	const config = makeConfig({ provider: 'openai', model: 'gpt-4o-mini', method: 'hier', concurrency, clean: true });
	const provider = createProvider({ provider: 'openai', model: config.model, baseUrl: `${url}/v1`, env: { OPENAI_API_KEY: 'bench' } });
	const ctx = { config, templates: await loadTemplates(), book, tokens: (t: string) => countTokens(t) };
	const run = newRun(config, chunkText(book, config.chunkSize));
	// Connections and the SDK warm up outside the measured run, as they would in a long session.
	await Promise.all(Array.from({ length: concurrency }, () => provider.complete({ prompt: 'warm up', maxTokens: 16, temperature: 0, task: { kind: 'summarize', texts: ['warm up'], words: 2 } })));
	const engine = new Engine({ store: new MemoryStore({ run }), provider, planner: plannerFor('hier'), ctx, costOf: () => 0 });
	const started = performance.now();
	const status = await engine.start();
	const wall = performance.now() - started;
	if (status !== 'done') throw new Error(`run ${status}: ${run.error}`);
	const calls = (level: (l: number) => boolean) => run.nodes.filter((n) => level(n.level) && n.kind !== 'clean').reduce((s, n) => s + n.versions.reduce((a, v) => a + v.attempts.length, 0), 0);
	const level0 = calls((l) => l === 0);
	const sequential = calls((l) => l > 0) + run.nodes.filter((n) => n.kind === 'clean').length;
	const ideal = (Math.ceil(level0 / concurrency) + sequential) * latency;
	const ms = run.nodes.flatMap((n) => n.versions.flatMap((v) => v.attempts.map((a) => a.timings.ms)));
	if (process.env.BENCH_DEBUG) console.log(`mean call ${Math.round(ms.reduce((a, b) => a + b, 0) / ms.length)} ms, max ${Math.max(...ms)} ms`);
	console.log(`run/ideal ratio: ${(wall / ideal).toFixed(3)} (wall ${Math.round(wall)} ms, ideal ${ideal} ms: ${level0} level-0 calls over ${concurrency} workers + ${sequential} sequential calls at ${latency} ms)`);
} finally {
	server.kill();
}
