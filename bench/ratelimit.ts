/**
 * booook under a provider's rate limits, in one run: how close its wall time comes to the least time
 * the limits allow. Each side is a whole process (the real CLI, compiled first as `npm install` does;
 * disk store, start-up included) against the fake API (test/support/fake-api.ts as its own process,
 * enforcing per-minute token buckets per API key and model, with its rate-limit headers, a fixed
 * latency before every answer and answers as long as a model's). Every run gets an API key of its own
 * (`sk-bench-ROW-SIDE-N`), so it starts with a full minute's allowance. Prints, per side, the wall
 * time, its floor, wall/floor, the 429s among the requests, and the goals beside them.
 *
 *   node --import tsx bench/ratelimit.ts [--rows pp,frank-anthropic,study] [--keep] [--json]
 *
 *   --rows   which rows, comma-separated (default: all).
 *            pp: Pride and Prejudice, `booook run --method hier --concurrency 16` through the openai
 *              provider, then LangChain.js's map-reduce with collapse (bench/peers/summarize.mjs,
 *              concurrency 16) on a fresh key of the same fake: 150,000 tokens a minute, 300 ms
 *              calls, answers of 250 words to a prompt that names no length (LangChain's) and 80% of
 *              the words a prompt asks for (booook's), as bench/peers.ts has them; requests that do
 *              not stream are answered too (LangChain's ChatOpenAI does not stream).
 *            frank-anthropic: Frankenstein through `--provider anthropic` (ANTHROPIC_API_KEY, the
 *              fake's Anthropic base URL), booook's defaults otherwise (concurrency 4, no --tpm):
 *              60,000 tokens a minute, 300 ms calls, 250 words.
 *            study: `booook study FILE --headless`, 6 cells (hier and inc × chunk sizes 1,024, 2,048
 *              and 4,096; window 8,192; one openai model, study concurrency 4) of one book, the first
 *              105,000 characters of Frankenstein (cut at a paragraph), all on one key of one fake:
 *              100,000 tokens a minute, 300 ms calls, 250 words. About 1.5 minutes of tokens.
 *   --keep   keep the temporary folder (sessions, the study's book and file); its path is printed.
 *   --json   print the results as JSON instead of tables.
 *
 * Measured per side: wall time from spawn to exit; from the fake's GET /stats, read before and
 * after, the requests it got, the 429s it sent for rate limits, and `charged`: what the requests it
 * let in cost its token bucket (prompt plus the output limit asked, or 4,096 when none is asked,
 * as the providers count a request when it arrives; a request refused costs nothing).
 *
 * Floors. A bucket starts full (one minute's allowance A) and refills at A a minute, so calls that
 * were charged T tokens in all cannot all have been let in before (T − A) / A × 60 s: the token floor.
 * pp and frank-anthropic also have a latency floor, what the calls would take if only the latency
 * cost anything: booook's, its session's calls replayed on its workers, each starting as soon as what
 * decides it is done (kit.ts's pipelinedRounds, as bench/peers.ts computes it); LangChain's, each
 * round of its map-reduce spread over its workers. A side's floor is the larger of the two (under
 * these limits, the token floor: the latency floor is a few seconds). study has the token floor only.
 * A floor counts the calls a side did make, not the fewest it could have: it measures pacing, not
 * how many tokens a method asks for; and it leaves out start-up and the call(s) after the last one
 * let in, so wall/floor ≥ 1 by a margin of a second or so.
 *
 * Goals: pp, booook's wall ≤ 1.10× its floor, 429s on fewer than 10% of its requests, and its
 * wall/floor below LangChain.js's; frank-anthropic, wall ≤ 1.15× the floor; study, wall ≤ 1.10× the
 * floor, and every cell done.
 *
 * Also told per booook side, as evidence of trouble: its failed attempts in calls.jsonl (with their
 * errors), its `retrying (…)` lines on stderr, the longest time its stderr was silent (a stall), and
 * its own summary line of the rate limits (`rate limits: N answers of 429; …`).
 */
import { execFileSync, spawn } from 'node:child_process';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchKit, finishedNodes, pipelinedRounds, ROOT, type Fake } from './kit.ts';
import { FRANKENSTEIN, PRIDE_AND_PREJUDICE } from '../test/support/repo-data.ts';

const BOOKS = {
	pp: PRIDE_AND_PREJUDICE,
	frankenstein: FRANKENSTEIN,
};
const PEER = join(ROOT, 'bench/peers/summarize.mjs');
const LATENCY_MS = 300;
const WORDS = '250';
/** The study's book: this many characters of Frankenstein, cut back to the end of a paragraph. */
const STUDY_CHARS = 105_000;
const STUDY_CHUNK_SIZES = [1024, 2048, 4096];

const ROWS = {
	pp: {
		title: 'Pride and Prejudice, hierarchical vs LangChain.js map-reduce-collapse, concurrency 16',
		tpm: 150_000,
	},
	'frank-anthropic': { title: 'Frankenstein through --provider anthropic, defaults', tpm: 60_000 },
	study: {
		title: `booook study: 6 cells (hier, inc × chunk sizes ${STUDY_CHUNK_SIZES.join(', ')}) on one key`,
		tpm: 100_000,
	},
} as const;
type RowName = keyof typeof ROWS;

const { values } = parseArgs({
	options: {
		rows: { type: 'string', default: Object.keys(ROWS).join(',') },
		keep: { type: 'boolean', default: false },
		json: { type: 'boolean', default: false },
	},
});
const { live, cleanups, progress, fail, stop, startFake } = benchKit('bench/ratelimit', () => values.json);
const chosen = values.rows
	.split(',')
	.map((r) => r.trim())
	.filter(Boolean);
const unknown = chosen.filter((r) => !(r in ROWS));
if (unknown.length > 0) fail(`unknown row ${unknown.join(', ')}; rows: ${Object.keys(ROWS).join(', ')}`);
if (chosen.includes('pp') && !existsSync(join(ROOT, 'bench/peers/node_modules/@langchain/classic')))
	fail('the LangChain peer is not installed: npm --prefix bench/peers ci');

// booook is measured as installed: `npm install` compiles it (bin/build.js).
execFileSync(process.execPath, [join(ROOT, 'bin/build.js')], {
	cwd: ROOT,
	stdio: ['ignore', 'ignore', 'inherit'],
});

// Children get no real key and no tracing; each run is given a key of its own below.
const baseEnv: NodeJS.ProcessEnv = Object.fromEntries(
	Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC|LANGCHAIN|LANGSMITH|BOOOOK)_/u.test(k)),
);

const work = mkdtempSync(join(tmpdir(), 'booook-bench-ratelimit-'));
const sessionsDir = join(work, 'sessions');
cleanups.push(() => {
	if (values.keep) process.stderr.write(`sessions kept in ${work}\n`);
	else rmSync(work, { recursive: true, force: true });
});
process.once('SIGINT', () => stop(130));

interface Stats {
	requests: number;
	rateLimited?: number;
	charged?: Record<string, number>;
}

interface Goal {
	text: string;
	met: boolean;
	/** What was measured against it. */
	measured: string;
}

interface SideResult {
	row: RowName;
	side: string;
	key: string;
	exitCode: number | null;
	/** The last lines of its stderr, when it did not exit 0. */
	failure: string | null;
	wallS: number;
	requests: number;
	rateLimited: number;
	chargedTokens: number;
	allowance: number;
	tokenFloorS: number;
	/** null: not measured (study), or the run did not finish. */
	latencyFloorS: number | null;
	floorS: number;
	ratio: number;
	goals: Goal[];
	/** booook only. */
	evidence?: Evidence;
	/** study only: cells done of all, and the cells' failure lines. */
	cells?: { done: number; total: number; failed: string[] };
}

interface Evidence {
	/** Lines of calls.jsonl with an error, over the side's sessions, and the first few errors. */
	failedAttempts: number;
	failedErrors: string[];
	/** `nX: retrying (…)` lines on stderr, and the first few. */
	retries: number;
	retryLines: string[];
	/** The longest time its stderr said nothing (s), after the first line. */
	longestSilenceS: number;
	/** Its own `rate limits: …` line, when it printed one. */
	rateLimitLine: string | null;
}

const started = performance.now();
const environment = {
	date: new Date().toISOString(),
	node: process.version,
	cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
	loadBefore: loadavg()
		.map((l) => l.toFixed(2))
		.join(' '),
	loadAfter: '',
	totalS: 0,
};
const results: SideResult[] = [];

try {
	for (const name of chosen as RowName[]) {
		if (name === 'pp') results.push(...(await pp()));
		else if (name === 'frank-anthropic') results.push(await frankAnthropic());
		else results.push(await study());
	}
	environment.loadAfter = loadavg()
		.map((l) => l.toFixed(2))
		.join(' ');
	environment.totalS = (performance.now() - started) / 1000;
	if (values.json) process.stdout.write(`${JSON.stringify({ environment, results }, null, 2)}\n`);
	else process.stdout.write(report());
} finally {
	for (const undo of cleanups.splice(0)) undo();
}

async function pp(): Promise<SideResult[]> {
	const { tpm } = ROWS.pp;
	const api = await startFake(
		['--tpm', String(tpm), '--latency', String(LATENCY_MS), '--plain', '--words', WORDS],
		baseEnv,
	);
	try {
		const id = 'pp-booook-1';
		const key = 'sk-bench-pp-booook-1';
		progress('pp: booook hierarchical, concurrency 16');
		const args = [
			'bin/booook.js',
			'run',
			BOOKS.pp,
			'--headless',
			'--method',
			'hier',
			'--provider',
			'openai',
			'--model',
			'gpt-4o-mini',
			'--base-url',
			`${api.url}/v1`,
		];
		args.push('--concurrency', '16', '--chunk-size', '2048', '--sessions-dir', sessionsDir, '--session', id);
		const b = await measure(args, api, { OPENAI_API_KEY: key });
		const booook = side('pp', 'booook hier', key, b, tpm, b.code === 0 ? latencyOf(id, 16) : null);
		booook.evidence = evidence(b, [id]);

		const peerKey = 'sk-bench-pp-langchain-1';
		progress('pp: LangChain.js map-reduce with collapse, concurrency 16');
		const peerArgs = [
			PEER,
			BOOKS.pp,
			'--method',
			'map-reduce',
			'--base-url',
			`${api.url}/v1`,
			'--concurrency',
			'16',
			'--chunk-size',
			'2048',
			'--token-max',
			'7000',
			'--splitter',
			'token',
		];
		const p = await measure(peerArgs, api, { OPENAI_API_KEY: peerKey });
		let peerLatency: number | null = null;
		if (p.code === 0) {
			// Its last line on stderr: how many calls each round of its schedule had.
			const told = JSON.parse(p.stderr.trim().split('\n').at(-1) ?? '{}') as { rounds?: number[] };
			if (told.rounds)
				peerLatency = (told.rounds.reduce((s, calls) => s + Math.ceil(calls / 16), 0) * LATENCY_MS) / 1000;
		}
		const peer = side('pp', 'LangChain.js map-reduce', peerKey, p, tpm, peerLatency);

		booook.goals.push(
			ratioGoal(booook, 1.1),
			{
				text: '429s < 10% of requests',
				met: booook.rateLimited < 0.1 * booook.requests,
				measured: `${booook.rateLimited}/${booook.requests} (${pct(booook.rateLimited, booook.requests)})`,
			},
			{
				text: "wall/floor < LangChain.js's",
				// A peer that failed has no ratio to beat: the goal is then booook's finishing at all.
				met: booook.exitCode === 0 && (peer.exitCode !== 0 || booook.ratio < peer.ratio),
				measured:
					peer.exitCode === 0
						? `${booook.ratio.toFixed(2)} vs ${peer.ratio.toFixed(2)}`
						: `LangChain.js did not finish: exit ${peer.exitCode} after ${peer.wallS.toFixed(1)} s, ${peer.rateLimited}/${peer.requests} of its requests answered 429`,
			},
		);
		return [booook, peer];
	} finally {
		await api.stop();
	}
}

async function frankAnthropic(): Promise<SideResult> {
	const { tpm } = ROWS['frank-anthropic'];
	const api = await startFake(
		['--tpm', String(tpm), '--latency', String(LATENCY_MS), '--words', WORDS],
		baseEnv,
	);
	try {
		const id = 'frank-anthropic-1';
		const key = 'sk-bench-frank-anthropic-1';
		progress('frank-anthropic: booook hierarchical through the anthropic provider, defaults');
		// The fake's Anthropic base URL is its root (the SDK adds /v1).
		const args = [
			'bin/booook.js',
			'run',
			BOOKS.frankenstein,
			'--headless',
			'--provider',
			'anthropic',
			'--base-url',
			api.url,
			'--sessions-dir',
			sessionsDir,
			'--session',
			id,
		];
		const m = await measure(args, api, { ANTHROPIC_API_KEY: key });
		// booook's default concurrency: 4.
		const result = side(
			'frank-anthropic',
			'booook hier (anthropic)',
			key,
			m,
			tpm,
			m.code === 0 ? latencyOf(id, 4) : null,
		);
		result.evidence = evidence(m, [id]);
		result.goals.push(ratioGoal(result, 1.15));
		return result;
	} finally {
		await api.stop();
	}
}

async function study(): Promise<SideResult> {
	const { tpm } = ROWS.study;
	const api = await startFake(
		['--tpm', String(tpm), '--latency', String(LATENCY_MS), '--words', WORDS],
		baseEnv,
	);
	try {
		const dir = join(work, 'study');
		mkdirSync(dir, { recursive: true });
		const whole = readFileSync(BOOKS.frankenstein, 'utf8').slice(0, STUDY_CHARS);
		writeFileSync(
			join(dir, 'frankenstein-part.txt'),
			`${whole.slice(0, whole.lastIndexOf('\n\n')).trimEnd()}\n`,
		);
		const file = join(dir, 'ratelimit.json');
		const spec = {
			name: 'ratelimit',
			books: ['frankenstein-part.txt'],
			methods: ['hier', 'inc'],
			providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: `${api.url}/v1` }],
			chunkSizes: STUDY_CHUNK_SIZES,
		};
		writeFileSync(file, `${JSON.stringify(spec, null, 2)}\n`);
		const key = 'sk-bench-study-1';
		progress('study: 6 cells, study concurrency 4');
		const m = await measure(
			['bin/booook.js', 'study', file, '--headless', '--sessions-dir', sessionsDir],
			api,
			{ OPENAI_API_KEY: key },
		);
		const result = side('study', 'booook study (6 cells)', key, m, tpm, null);
		const cellSessions = existsSync(sessionsDir)
			? readdirSync(sessionsDir).filter(
					(d) => d.startsWith('ratelimit-') && !d.endsWith('.json') && !d.endsWith('.jsonl'),
				)
			: [];
		result.evidence = evidence(m, cellSessions);
		const doneLine = /study ratelimit: (\d+)\/(\d+) cells done/u.exec(m.stderr);
		const failed = m.stderr.split('\n').filter((l) => /: (scoring )?failed: /u.test(l));
		result.cells = { done: Number(doneLine?.[1] ?? 0), total: Number(doneLine?.[2] ?? 6), failed };
		result.goals.push(ratioGoal(result, 1.1), {
			text: 'every cell done',
			met: m.code === 0 && failed.length === 0 && result.cells.done === result.cells.total,
			measured: `${result.cells.done}/${result.cells.total} done, ${failed.length} failed`,
		});
		return result;
	} finally {
		await api.stop();
	}
}

interface Measured {
	code: number | null;
	wallS: number;
	stdout: string;
	stderr: string;
	/** When each stderr line arrived (ms after spawn). */
	lineTimes: number[];
	requests: number;
	rateLimited: number;
	chargedTokens: number;
}

/** Runs `node ARGS` in the repository with `keys` added to the children's environment; counts what the fake saw of it. */
async function measure(args: string[], api: Fake, keys: NodeJS.ProcessEnv): Promise<Measured> {
	const stats = async () => (await api.stats()) as Stats;
	const before = await stats();
	const t0 = performance.now();
	const child = spawn(process.execPath, args, {
		cwd: ROOT,
		env: { ...baseEnv, ...keys },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	live.add(child);
	let stdout = '';
	let stderr = '';
	const lineTimes: number[] = [];
	child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
	child.stderr.setEncoding('utf8').on('data', (d: string) => {
		stderr += d;
		const at = performance.now() - t0;
		for (let i = 0; i < (d.match(/\n/gu)?.length ?? 0); i++) lineTimes.push(at);
	});
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	const wallS = (performance.now() - t0) / 1000;
	await new Promise((resolve) =>
		child.stdout.readableEnded ? resolve(null) : child.stdout.once('end', resolve),
	);
	live.delete(child);
	const after = await stats();
	const charged =
		after.charged ?? fail('the fake API reports no `charged` in GET /stats: is it the one in test/support?');
	const measured = {
		code,
		wallS,
		stdout,
		stderr,
		lineTimes,
		requests: after.requests - before.requests,
		rateLimited: (after.rateLimited ?? 0) - (before.rateLimited ?? 0),
		chargedTokens: (charged.tokens ?? 0) - (before.charged?.tokens ?? 0),
	};
	progress(
		`  ${code === 0 ? 'done' : `exited ${code}`} in ${wallS.toFixed(1)} s: ${measured.requests} requests, ${measured.rateLimited} answered 429, ${measured.chargedTokens.toLocaleString('en-US')} tokens charged`,
	);
	return measured;
}

function side(
	row: RowName,
	name: string,
	key: string,
	m: Measured,
	allowance: number,
	latencyFloorS: number | null,
): SideResult {
	const tokenFloorS = (Math.max(0, m.chargedTokens - allowance) / allowance) * 60;
	const floorS = Math.max(tokenFloorS, latencyFloorS ?? 0);
	return {
		row,
		side: name,
		key,
		exitCode: m.code,
		failure: m.code === 0 ? null : failureOf(m.stderr),
		wallS: m.wallS,
		requests: m.requests,
		rateLimited: m.rateLimited,
		chargedTokens: m.chargedTokens,
		allowance,
		tokenFloorS,
		latencyFloorS,
		floorS,
		ratio: m.wallS / floorS,
		goals: [],
	};
}

/** What a process that failed said of it: its first error line (a stack trace and an error's fields follow it), else its last lines. */
function failureOf(stderr: string): string {
	const lines = stderr.trim().split('\n');
	const error = lines.find((l) => /^\w*Error\b|^booook: /u.test(l));
	return error ? `${error.slice(0, 400)} (${lines.length} lines on stderr)` : lines.slice(-5).join('\n');
}

function ratioGoal(s: SideResult, most: number): Goal {
	return {
		text: `wall ≤ ${most.toFixed(2)}× floor`,
		met: s.exitCode === 0 && s.ratio <= most,
		measured: s.exitCode === 0 ? `${s.ratio.toFixed(2)}×` : `failed (exit ${s.exitCode})`,
	};
}

/** booook's latency floor in seconds: its finished session's calls replayed on `workers`. */
function latencyOf(id: string, workers: number): number | null {
	try {
		return (pipelinedRounds(finishedNodes(join(sessionsDir, id)), workers) * LATENCY_MS) / 1000;
	} catch (error) {
		progress(`  no latency floor for ${id}: ${(error as Error).message}`);
		return null;
	}
}

function evidence(m: Measured, sessions: string[]): Evidence {
	let failedAttempts = 0;
	const failedErrors: string[] = [];
	for (const id of sessions) {
		const file = join(sessionsDir, id, 'calls.jsonl');
		if (!existsSync(file)) continue;
		for (const line of readFileSync(file, 'utf8').split('\n')) {
			if (!line.trim()) continue;
			const call = JSON.parse(line) as { node?: string; attempt?: number; error?: unknown };
			if (!call.error) continue;
			failedAttempts += 1;
			if (failedErrors.length < 5)
				failedErrors.push(`${id} ${call.node} attempt ${call.attempt}: ${String(call.error).slice(0, 240)}`);
		}
	}
	const lines = m.stderr.split('\n');
	const retryLines = lines.filter((l) => /: retrying \(/u.test(l));
	let longest = 0;
	for (let i = 1; i < m.lineTimes.length; i++)
		longest = Math.max(longest, m.lineTimes[i]! - m.lineTimes[i - 1]!);
	return {
		failedAttempts,
		failedErrors,
		retries: retryLines.length,
		retryLines: retryLines.slice(0, 5).map((l) => l.slice(0, 240)),
		longestSilenceS: longest / 1000,
		rateLimitLine: lines.filter((l) => l.startsWith('rate limits: ')).at(-1) ?? null,
	};
}

function report(): string {
	const out: string[] = [
		'booook under enforced rate limits: wall time against the floor the limits allow, measured in one run',
		`- ${environment.date}; node ${environment.node}, ${environment.cpus}; load average ${environment.loadBefore} at the start, ${environment.loadAfter} at the end; the whole benchmark took ${environment.totalS.toFixed(0)} s`,
		`- fake API: token buckets per key and model with rate-limit headers, ${LATENCY_MS} ms before every answer, ${WORDS} words to a prompt that names no length, 80% of the words a prompt asks for`,
		"- floor: max(token floor = (tokens charged − one minute's allowance) / allowance × 60 s, latency floor); study: the token floor only",
		'',
		'| row | side | wall | floor (tokens charged; token / latency floor) | wall/floor | 429s/requests | goals |',
		'|---|---|---|---|---|---|---|',
	];
	for (const r of results) {
		const floor = `${r.floorS.toFixed(1)} s (${r.chargedTokens.toLocaleString('en-US')} at ${r.allowance.toLocaleString('en-US')}/min; ${r.tokenFloorS.toFixed(1)} / ${r.latencyFloorS === null ? '—' : r.latencyFloorS.toFixed(1)} s)`;
		const goals =
			r.goals.length === 0
				? '—'
				: r.goals.map((g) => `${g.text}: ${g.met ? 'met' : 'NOT met'} (${g.measured})`).join('; ');
		const wall = r.exitCode === 0 ? `${r.wallS.toFixed(1)} s` : `${r.wallS.toFixed(1)} s, exit ${r.exitCode}`;
		const ratio = r.exitCode === 0 ? r.ratio.toFixed(2) : '— (did not finish)';
		out.push(
			`| ${r.row} | ${r.side} | ${wall} | ${floor} | ${ratio} | ${r.rateLimited}/${r.requests} (${pct(r.rateLimited, r.requests)}) | ${goals} |`,
		);
	}
	out.push('');
	for (const r of results) {
		const title = ROWS[r.row].title;
		out.push(`${r.row} — ${r.side} (${title}; key ${r.key}):`);
		if (r.failure !== null)
			out.push(
				`  exited ${r.exitCode} after ${r.wallS.toFixed(1)} s, so its floor counts only the calls it made; it said:`,
				...r.failure.split('\n').map((l) => `    ${l}`),
			);
		if (r.cells)
			out.push(
				`  cells: ${r.cells.done}/${r.cells.total} done${r.cells.failed.length ? `; failed: ${r.cells.failed.join(' | ')}` : ', none failed'}`,
			);
		const e = r.evidence;
		if (e) {
			out.push(`  ${e.rateLimitLine ?? 'no "rate limits: …" line on stderr'}`);
			// A run prints a line per call answered; a study, one per change of a cell and a wait at most twice a minute.
			const silence =
				r.row === 'study'
					? ' (a study prints a line per change of a cell, and a rate-limit wait at most twice a minute)'
					: ' (a run prints a line per call answered)';
			out.push(
				`  failed attempts in calls.jsonl: ${e.failedAttempts}; "retrying" lines on stderr: ${e.retries}; longest silence on stderr: ${e.longestSilenceS.toFixed(1)} s${silence}`,
			);
			for (const line of [...e.failedErrors, ...e.retryLines]) out.push(`    ${line}`);
		}
	}
	return `${out.join('\n')}\n`;
}

function pct(part: number, whole: number): string {
	return whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`;
}
