/**
 * booook against LangChain.js at its own job (issue 11), side by side in one run: the real booook
 * CLI (disk store, start-up included) and a LangChain.js script (bench/peers/summarize.mjs), each a
 * whole process, take turns on the same fake API (test/support/fake-api.ts as its own process, a
 * fixed latency before every answer). Prints the issue's rows as ratios of wall times measured in
 * this run, with the goals beside them.
 *
 * Install the peer once (it is not a dependency of booook): npm --prefix bench/peers ci
 *
 *   node --import tsx bench/peers.ts [--rows hier,hier-no-clean,inc,wap,wap-inc,startup] [--latency MS]
 *       [--concurrency N] [--repeat 1] [--words 250] [--token-max 7000] [--splitter token|recursive]
 *       [--startup-runs 5] [--keep] [--json]
 *
 *   --rows          which rows, comma-separated (default: all). hier: Pride and Prejudice,
 *                   hierarchical vs map-reduce with collapse, 300 ms calls, concurrency 4.
 *                   hier-no-clean: the same with booook's clean step off, the peer's own job call
 *                   for call (no goal: it shows what the paper's extra call costs). inc: the
 *                   same book, incremental vs refine. wap: War and Peace, hierarchical vs map-reduce
 *                   with collapse, 20 ms calls, concurrency 16. wap-inc: War and Peace, incremental
 *                   vs refine at 20 ms (the bytes-written goal). startup: `booook --help` and
 *                   `booook sessions`, median of --startup-runs runs.
 *   --latency, --concurrency   replace every chosen row's own.
 *   --repeat N      run each pair N times, alternating which goes first; cells show the range, and
 *                   a goal is met only if every pair meets it.
 *   --words N       what the fake answers a prompt that names no length (LangChain's); a prompt that
 *                   asks for at most K words (booook's) gets 0.8 K, as a model keeping to it would.
 *                   The words come from the prompt, so tokens per word are a book's.
 *   --token-max N   the peer's collapse threshold: booook's merges pack summaries into about 7,000
 *                   tokens (an 8,192-token window less 900 output tokens and the template).
 *   --splitter      the peer's chunker: LangChain's TokenTextSplitter or RecursiveCharacterTextSplitter
 *                   counting tokens (see bench/peers/summarize.mjs).
 *   --keep          keep the temporary sessions folder (its path is printed).
 *   --json          print the results as JSON instead of tables.
 *
 * Both sides chunk at 2,048 cl100k tokens and use gpt-4o-mini's name; booook runs
 * `booook run BOOK --headless --provider openai --base-url ...` with its defaults otherwise (8,192-token
 * window, 900-token final summary, clean step on), as a user would.
 *
 * Measured per process (Linux; needs GNU time, `apt-get install time`): wall time from spawn to exit;
 * peak RSS and bytes written from the kernel's accounting of the process at its exit, as
 * /usr/bin/time reports it (%M, and %O: 512-byte blocks of page cache it dirtied, so a file rewritten
 * whole counts whole every time and an append counts about its own length). booook's bytes written
 * are set against the size of the session folder it leaves. Calls are counted by the fake API.
 * A "floor" is what the calls would take if only the latency cost anything, each side keeping its
 * own order of work: booook hierarchical, its session's calls replayed on the workers, each starting
 * as soon as what decides it is done (a merge: the summaries it takes, the next one below, and the
 * previous merge of its level; merges first when calls wait); the peer, each round of its
 * map-reduce spread over the workers; incremental and refine, every call in sequence.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchKit, finishedNodes, folderBytes, median, pipelinedRounds, ROOT, type Fake } from './kit.ts';
import { PRIDE_AND_PREJUDICE, WAR_AND_PEACE } from '../test/support/repo-data.ts';

const BOOKS = {
	pp: PRIDE_AND_PREJUDICE,
	wap: WAR_AND_PEACE,
};
const PEER = join(ROOT, 'bench/peers/summarize.mjs');
const TIME = '/usr/bin/time';
const MiB = 1024 * 1024;
const CHUNK_SIZE = 2048;
/** What to undo when the driver stops early: children to stop, the temporary folder. */
const { live, cleanups, progress, fail, stop, positive, startFake } = benchKit(
	'bench/peers',
	() => values.json,
);

interface PairRow {
	kind: 'pair';
	title: string;
	book: keyof typeof BOOKS;
	method: 'hier' | 'inc';
	peer: 'map-reduce' | 'refine';
	latency: number;
	concurrency: number;
	/** Most booook/LangChain wall-time ratio. */
	ratioGoal: number | null;
	peakGoalMiB?: number;
	/** Most bytes booook writes, as a multiple of its final session folder. */
	writtenGoal?: number;
	/** More flags for `booook run`. */
	flags?: string[];
}

const ROWS: Record<string, PairRow | { kind: 'startup' }> = {
	hier: {
		kind: 'pair',
		title: 'Pride and Prejudice: hierarchical vs map-reduce-collapse',
		book: 'pp',
		method: 'hier',
		peer: 'map-reduce',
		latency: 300,
		concurrency: 4,
		ratioGoal: 0.9,
	},
	// The peer's own job, call for call: LangChain's map-reduce has no clean step (paper J.3).
	'hier-no-clean': {
		kind: 'pair',
		title: 'Pride and Prejudice: hierarchical without the clean step (--no-clean) vs map-reduce-collapse',
		book: 'pp',
		method: 'hier',
		peer: 'map-reduce',
		latency: 300,
		concurrency: 4,
		ratioGoal: null,
		flags: ['--no-clean'],
	},
	inc: {
		kind: 'pair',
		title: 'Pride and Prejudice: incremental vs refine',
		book: 'pp',
		method: 'inc',
		peer: 'refine',
		latency: 300,
		concurrency: 4,
		ratioGoal: 1.02,
	},
	wap: {
		kind: 'pair',
		title: 'War and Peace: hierarchical vs map-reduce-collapse',
		book: 'wap',
		method: 'hier',
		peer: 'map-reduce',
		latency: 20,
		concurrency: 16,
		ratioGoal: 1.0,
		peakGoalMiB: 300,
	},
	'wap-inc': {
		kind: 'pair',
		title: 'War and Peace: incremental vs refine',
		book: 'wap',
		method: 'inc',
		peer: 'refine',
		latency: 20,
		concurrency: 16,
		ratioGoal: null,
		writtenGoal: 3,
	},
	startup: { kind: 'startup' },
};
const STARTUP_GOAL_S = 0.35;

const { values } = parseArgs({
	options: {
		rows: { type: 'string', default: Object.keys(ROWS).join(',') },
		latency: { type: 'string' },
		concurrency: { type: 'string' },
		repeat: { type: 'string', default: '1' },
		words: { type: 'string', default: '250' },
		'token-max': { type: 'string', default: '7000' },
		splitter: { type: 'string', default: 'token' },
		'startup-runs': { type: 'string', default: '5' },
		keep: { type: 'boolean', default: false },
		json: { type: 'boolean', default: false },
	},
});
const chosen = values.rows
	.split(',')
	.map((r) => r.trim())
	.filter(Boolean);
const unknown = chosen.filter((r) => !(r in ROWS));
if (unknown.length > 0) fail(`unknown row ${unknown.join(', ')}; rows: ${Object.keys(ROWS).join(', ')}`);
const repeat = positive('repeat', values.repeat);
const startupRuns = positive('startup-runs', values['startup-runs']);
if (!existsSync(TIME)) fail(`${TIME} is missing: install GNU time (apt-get install time)`);
if (
	chosen.some((r) => ROWS[r]!.kind === 'pair') &&
	!existsSync(join(ROOT, 'bench/peers/node_modules/@langchain/classic'))
) {
	fail('the LangChain peer is not installed: npm --prefix bench/peers ci');
}

// booook is measured as installed: `npm install` compiles it (bin/build.js); sources edited since
// would send bin/booook.js back to them through tsx, and the start-up measured would not be a user's.
execFileSync(process.execPath, [join(ROOT, 'bin/build.js')], {
	cwd: ROOT,
	stdio: ['ignore', 'ignore', 'inherit'],
});

// Children get no real key and no tracing: the fake API ignores the key, and nothing leaves the machine.
const env: NodeJS.ProcessEnv = Object.fromEntries(
	Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC|LANGCHAIN|LANGSMITH|BOOOOK)_/u.test(k)),
);
env.OPENAI_API_KEY = 'sk-fake-local-bench';

const work = mkdtempSync(join(tmpdir(), 'booook-bench-'));
const sessionsDir = join(work, 'sessions');
cleanups.push(() => {
	if (values.keep) process.stderr.write(`sessions kept in ${sessionsDir}\n`);
	else rmSync(work, { recursive: true, force: true });
});
process.once('SIGINT', () => stop(130));

interface Measured {
	wallS: number;
	peakMiB: number;
	writtenBytes: number;
	calls: number;
}

interface PairResult {
	row: string;
	title: string;
	latency: number;
	concurrency: number;
	booook: (Measured & { sessionBytes: number; floorS: number })[];
	peer: (Measured & { chunks: number; floorS: number })[];
	ratios: number[];
}

const results: {
	environment: string[];
	pairs: PairResult[];
	startup: { command: string; medianS: number; runsS: number[]; note: string }[];
} = {
	environment: [
		`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()[0]!.toFixed(2)} at the start (other work on the machine slows both sides, not equally)`,
		`LangChain.js: ${['classic', 'openai', 'core', 'textsplitters'].map((p) => `@langchain/${p} ${peerVersion(p)}`).join(', ')}; ${values.splitter === 'token' ? 'TokenTextSplitter' : 'RecursiveCharacterTextSplitter'}, collapse under ${values['token-max']} tokens`,
		`fake API: answers ${values.words} words to a prompt that names no length, 80% of the words a prompt asks for`,
	],
	pairs: [],
	startup: [],
};

try {
	for (const name of chosen) {
		const row = ROWS[name]!;
		if (row.kind === 'startup') results.startup.push(...(await startup()));
		else results.pairs.push(await pair(name, row));
	}
	if (values.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
	else process.stdout.write(report());
} finally {
	for (const undo of cleanups.splice(0)) undo();
}

async function pair(name: string, row: PairRow): Promise<PairResult> {
	const latency = values.latency === undefined ? row.latency : positive('latency', values.latency);
	const concurrency =
		values.concurrency === undefined ? row.concurrency : positive('concurrency', values.concurrency);
	const api = await startFake(['--latency', String(latency), '--words', values.words, '--plain'], env);
	const result: PairResult = {
		row: name,
		title: row.title,
		latency,
		concurrency,
		booook: [],
		peer: [],
		ratios: [],
	};
	try {
		for (let i = 0; i < repeat; i++) {
			// Alternating who goes first, so a machine that slows down or warms up over the run favours neither.
			const order = i % 2 === 0 ? (['booook', 'peer'] as const) : (['peer', 'booook'] as const);
			for (const side of order) {
				progress(
					`${name} ${i + 1}/${repeat}: ${side === 'booook' ? `booook ${row.method}` : `LangChain.js ${row.peer}`}`,
				);
				if (side === 'booook') result.booook.push(await runBooook(name, i, row, api, latency, concurrency));
				else result.peer.push(await runPeer(row, api, latency, concurrency));
			}
			result.ratios.push(result.booook[i]!.wallS / result.peer[i]!.wallS);
		}
	} finally {
		await api.stop();
	}
	return result;
}

async function runBooook(
	name: string,
	i: number,
	row: PairRow,
	api: Fake,
	latency: number,
	concurrency: number,
) {
	const id = `${name}-${i + 1}`;
	const args = [
		'bin/booook.js',
		'run',
		BOOKS[row.book],
		'--headless',
		'--method',
		row.method,
		'--provider',
		'openai',
		'--model',
		'gpt-4o-mini',
		'--base-url',
		`${api.url}/v1`,
	];
	args.push(
		'--concurrency',
		String(concurrency),
		'--chunk-size',
		String(CHUNK_SIZE),
		'--sessions-dir',
		sessionsDir,
		'--session',
		id,
		...(row.flags ?? []),
	);
	const { stdout: _summary, stderr: _progress, ...measured } = await measure(args, api);
	const sessionBytes = folderBytes(join(sessionsDir, id));
	const floorS =
		row.method === 'hier'
			? (hierRounds(id, concurrency) * latency) / 1000
			: (measured.calls * latency) / 1000;
	return { ...measured, sessionBytes, floorS };
}

/** booook's floor in rounds of latency (kit.ts's pipelinedRounds over the finished session's nodes); a run not done ends the driver. */
function hierRounds(id: string, workers: number): number {
	try {
		return pipelinedRounds(finishedNodes(join(sessionsDir, id)), workers);
	} catch (error) {
		return fail((error as Error).message);
	}
}

async function runPeer(row: PairRow, api: Fake, latency: number, concurrency: number) {
	const args = [
		PEER,
		BOOKS[row.book],
		'--method',
		row.peer,
		'--base-url',
		`${api.url}/v1`,
		'--concurrency',
		String(concurrency),
		'--chunk-size',
		String(CHUNK_SIZE),
	];
	args.push('--token-max', values['token-max'], '--splitter', values.splitter);
	const { stdout: _summary, stderr, ...measured } = await measure(args, api);
	// Its last line on stderr: how many chunks, and how many calls each round of its schedule had.
	const told = JSON.parse(stderr.trim().split('\n').at(-1) ?? '{}') as { chunks: number; rounds: number[] };
	const floorS = (told.rounds.reduce((s, calls) => s + Math.ceil(calls / concurrency), 0) * latency) / 1000;
	return { ...measured, chunks: told.chunks, floorS };
}

async function startup() {
	const out = [];
	const listed = existsSync(sessionsDir) ? readdirSync(sessionsDir).length : 0;
	for (const [command, args, note] of [
		['booook --help', ['bin/booook.js', '--help'], ''],
		[
			'booook sessions',
			['bin/booook.js', 'sessions', '--sessions-dir', sessionsDir],
			`listing ${listed} session${listed === 1 ? '' : 's'}`,
		],
	] as const) {
		progress(`startup: ${command}`);
		const runsS: number[] = [];
		for (let i = 0; i < startupRuns; i++) runsS.push((await measure([...args])).wallS);
		out.push({ command, medianS: median(runsS), runsS, note });
	}
	return out;
}

/** Runs `node ARGS` in the repository under GNU time; with `api`, counts the calls it made there. */
async function measure(args: string[], api?: Fake): Promise<Measured & { stdout: string; stderr: string }> {
	const before = api ? (await api.stats()).requests : 0;
	const timeFile = join(work, 'time.txt');
	const started = performance.now();
	const child = spawn(TIME, ['-f', '%M %O', '-o', timeFile, process.execPath, ...args], {
		cwd: ROOT,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	live.add(child);
	let stdout = '';
	let stderr = '';
	child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
	child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	const wallS = (performance.now() - started) / 1000;
	await new Promise((resolve) =>
		child.stdout.readableEnded ? resolve(null) : child.stdout.once('end', resolve),
	);
	live.delete(child);
	if (code !== 0) fail(`node ${args.join(' ')} exited ${code}:\n${stderr.slice(-2000)}`);
	const [kib, blocks] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
	const calls = api ? (await api.stats()).requests - before : 0;
	return { wallS, peakMiB: kib! / 1024, writtenBytes: blocks! * 512, calls, stdout, stderr };
}

function peerVersion(name: string): string {
	try {
		return (
			JSON.parse(
				readFileSync(join(ROOT, 'bench/peers/node_modules/@langchain', name, 'package.json'), 'utf8'),
			) as { version: string }
		).version;
	} catch {
		return 'not installed';
	}
}

function report(): string {
	const lines: string[] = [
		'booook vs LangChain.js, measured side by side in one run',
		...results.environment.map((e) => `- ${e}`),
		'',
	];
	if (results.pairs.length > 0) {
		lines.push('| row | booook | LangChain.js | ratio | goal |', '|---|---|---|---|---|');
		for (const p of results.pairs) {
			const goal = (ROWS[p.row] as PairRow).ratioGoal;
			const ratio = range(p.ratios, (r) => r.toFixed(2));
			const verdict =
				goal === null ? '—' : `≤ ${goal.toFixed(2)}: ${Math.max(...p.ratios) <= goal ? 'met' : 'not met'}`;
			lines.push(
				`| ${p.title} (${p.latency} ms calls, concurrency ${p.concurrency}) | ${range(
					p.booook.map((m) => m.wallS),
					(s) => s.toFixed(1),
				)} s | ${range(
					p.peer.map((m) => m.wallS),
					(s) => s.toFixed(1),
				)} s | ${ratio} | ${verdict} |`,
			);
		}
		lines.push('');
		for (const p of results.pairs) {
			const row = ROWS[p.row] as PairRow;
			lines.push(`${p.title}:`);
			p.booook.forEach((b, i) => {
				const c = p.peer[i]!;
				const written = b.writtenBytes / b.sessionBytes;
				lines.push(
					`  booook ${row.method}: ${b.wallS.toFixed(2)} s, ${b.calls} calls (floor ${b.floorS.toFixed(2)} s, wall ${(b.wallS / b.floorS).toFixed(2)}× it), peak ${b.peakMiB.toFixed(0)} MiB, ` +
						`wrote ${(b.writtenBytes / MiB).toFixed(1)} MiB for a ${(b.sessionBytes / MiB).toFixed(1)} MiB session (${written.toFixed(1)}×)`,
				);
				lines.push(
					`  LangChain.js ${row.peer}: ${c.wallS.toFixed(2)} s, ${c.calls} calls over ${c.chunks} chunks (floor ${c.floorS.toFixed(2)} s, wall ${(c.wallS / c.floorS).toFixed(2)}× it), peak ${c.peakMiB.toFixed(0)} MiB`,
				);
			});
			const worstPeak = Math.max(...p.booook.map((b) => b.peakMiB));
			const worstWritten = Math.max(...p.booook.map((b) => b.writtenBytes / b.sessionBytes));
			if (row.peakGoalMiB !== undefined)
				lines.push(
					`  goal: booook's peak memory ≤ ${row.peakGoalMiB} MiB: ${worstPeak <= row.peakGoalMiB ? 'met' : 'not met'} (${worstPeak.toFixed(0)} MiB)`,
				);
			if (row.writtenGoal !== undefined)
				lines.push(
					`  goal: booook writes ≤ ${row.writtenGoal}× its final session size: ${worstWritten <= row.writtenGoal ? 'met' : 'not met'} (${worstWritten.toFixed(1)}×)`,
				);
		}
		lines.push('');
	}
	if (results.startup.length > 0) {
		lines.push(`| start-up (median of ${startupRuns}) | seconds | goal |`, '|---|---|---|');
		for (const s of results.startup) {
			lines.push(
				`| \`${s.command}\`${s.note ? ` (${s.note})` : ''} | ${s.medianS.toFixed(2)} | ≤ ${STARTUP_GOAL_S}: ${s.medianS <= STARTUP_GOAL_S ? 'met' : 'not met'} |`,
			);
		}
		lines.push('');
	}
	lines.push(
		'Goals of issue 11 not measured here: a resumed run loses only the calls in flight (test/commands/resume.test.ts tests it); 100% of BooookScore calls after the first read the prompt cache.',
	);
	return `${lines.join('\n')}\n`;
}

function range(xs: number[], show: (x: number) => string): string {
	const lo = show(Math.min(...xs));
	const hi = show(Math.max(...xs));
	return lo === hi ? lo : `${lo}–${hi}`;
}
