/**
 * Wall time of annotating a 40-sentence summary against the fake API (a separate process, fixed
 * latency per call, 300 ms by default) divided by the ideal: the first call alone (it warms the
 * prompt cache; the others start once its answer begins, one latency later), then the other 39
 * spread over the workers: (1 + ceil(39 / concurrency)) × latency. The session is a real one on disk, so every call's log line and
 * session write are in the measured time. Goal: at most 1.25.
 *
 *   node --import tsx bench/score.ts [--latency 300] [--concurrency 4] [--sentences 40]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Annotator } from '../source/engine/annotator.ts';
import { createProvider } from '../source/llm/create.ts';
import { loadTemplates } from '../source/prompts/load.ts';
import { Session } from '../source/store/session.ts';
import { splitSentences } from '../source/text/sentences.ts';
import { DATA_DIR } from '../test/support/repo-data.ts';

const { values } = parseArgs({
	options: {
		latency: { type: 'string', default: '300' },
		concurrency: { type: 'string', default: '4' },
		sentences: { type: 'string', default: '40' },
	},
});
const latency = Number(values.latency);
const concurrency = Number(values.concurrency);
const count = Number(values.sentences);

// A real summary's sentences from the authors' data, as many as asked for.
const released: Record<string, string> = JSON.parse(
	readFileSync(join(DATA_DIR, 'summaries/gpt4-2048-hier-cleaned.json'), 'utf8'),
);
const text = Object.values(released)
	.flatMap((s) => splitSentences(s))
	.slice(0, count)
	.join(' ');
const sentences = splitSentences(text).length;

const server = spawn(
	process.execPath,
	[
		'--import',
		'tsx',
		fileURLToPath(new URL('../test/support/fake-api.ts', import.meta.url)),
		'--port',
		'0',
		'--latency',
		String(latency),
		'--annotate',
	],
	{ stdio: ['ignore', 'pipe', 'inherit'] },
);
const { url } = JSON.parse(
	await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve)),
);
const dir = mkdtempSync(join(tmpdir(), 'booook-bench-score-'));

try {
	const provider = createProvider({
		provider: 'openai',
		model: 'gpt-4o-mini',
		baseUrl: `${url}/v1`,
		env: { OPENAI_API_KEY: 'bench' },
	});
	// Connections and the SDK warm up outside the measured run, as they would in a long session.
	await Promise.all(
		Array.from({ length: concurrency }, () =>
			provider.complete({
				prompt: 'warm up',
				maxTokens: 16,
				temperature: 0,
				task: { kind: 'annotate', texts: ['warm up'], words: 0 },
			}),
		),
	);
	const session = await Session.createCollection(dir, {
		title: 'bench',
		sources: [],
		runs: [],
		summaries: [{ id: 's0', book: 'bench', text, node: null, version: null, source: 'bench' }],
		annotations: [],
		judgments: [],
	});
	const annotator = new Annotator({
		store: session,
		provider,
		templates: await loadTemplates(),
		work: [{ summary: 's0', sentences: Array.from({ length: sentences }, (_, i) => i) }],
		concurrency,
		costOf: () => 0,
	});
	const started = performance.now();
	const status = await annotator.start();
	const wall = performance.now() - started;
	if (status !== 'done') throw new Error(`annotating ${status}: ${annotator.error}`);
	if (annotator.totals.calls !== sentences)
		throw new Error(`${annotator.totals.calls} calls for ${sentences} sentences`);
	// The first call warms the prompt cache alone; the rest start once its answer begins (one latency).
	const ideal = (1 + Math.ceil((sentences - 1) / concurrency)) * latency;
	if (process.env.BENCH_DEBUG) {
		const ms = (await session.calls()).map((c) => c.timings.ms);
		console.log(
			`mean call ${Math.round(ms.reduce((a, b) => a + b, 0) / ms.length)} ms, max ${Math.max(...ms)} ms`,
		);
	}
	await session.close();
	console.log(
		`score/ideal ratio: ${(wall / ideal).toFixed(3)} (wall ${Math.round(wall)} ms, ideal ${ideal} ms: 1 call to warm the cache, then ${sentences - 1} over ${concurrency} workers at ${latency} ms)`,
	);
} finally {
	server.kill();
	rmSync(dir, { recursive: true, force: true });
}
