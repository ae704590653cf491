/**
 * Many books on one machine (issue 15): `booook study` over 100 books × 2 methods (hierarchical and
 * incremental), every cell a session on disk, against the fake API (its own process, a fixed latency
 * before every answer, answers as long as a model's). The real CLI (compiled first, as `npm install`
 * does) runs the study as a whole process. Prints wall time, calls per second, peak memory, and
 * whether a book costs more time or memory as the study grows: ratios of the last 20 books against
 * the first 20, measured in this one run.
 *
 *   node --import tsx bench/study.ts [--books 100] [--words 30000] [--latency 20]
 *       [--concurrency 16] [--chunk-size 2048] [--heap] [--keep] [--json]
 *
 *   --books N       how many distinct books: excerpts of --words words each, cut from the three
 *                   books in examples/books (Frankenstein, Pride and Prejudice, War and Peace, read
 *                   one after the other and round again), each starting a further 1/N of the way
 *                   in, so no two are the same. Written to a temporary folder, removed at the end.
 *   --words N       words per book (default 30,000: about 40,000 tokens, 20 chunks of 2,048).
 *   --latency MS    the fake API's wait before each answer (default 20).
 *   --concurrency N the study's "concurrency": calls in flight and cells open at once (default 16).
 *   --heap          also measure the heap kept (below); its collections lower the RSS measured.
 *   --keep          keep the temporary folder (books, study file, sessions); its path is printed.
 *   --json          print the results as JSON instead of tables.
 *
 * Measured (Linux; needs GNU time, `apt-get install time`):
 * - wall time from spawn to exit, and the calls the fake API answered, as calls per second;
 * - peak RSS of the booook process from the kernel's accounting at its exit (/usr/bin/time %M), and
 *   its RSS (/proc/PID/status VmRSS, every 250 ms) when a quarter and three quarters of the cells
 *   were done; with --heap, the heap still in use after a full collection at those two moments
 *   (bench/heap-probe.mjs, preloaded with --expose-gc: a collection a second): memory kept per
 *   cell done shows as a heap ratio above 1, where RSS also moves with garbage not yet collected.
 *   The probe's collections keep RSS lower than a user's run has it, so peak RSS is a user's only
 *   without --heap;
 * - per book, from the study's stderr lines (`started`, `done: N calls`) time-stamped as they
 *   arrive: each cell's time from start to done, median over the first 20 books' cells and over the
 *   last 20 books'; from each session's call log, the median time of one call, the same two ways;
 *   and cells done per second in the second fifth of the run and in the fourth (both with every
 *   place busy, away from the start and the drain at the end). The first cells all start at once
 *   and wait on each other's calls, and the last ones have the calls to themselves, so the ends
 *   favour the last books; the call time and the middle fifths do not.
 * - the time from the last cell done to the exit: reading every cell's session for the results.
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
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { benchKit, folderBytes, median, ROOT } from './kit.ts';
import { BOOKS_DIR } from '../test/support/repo-data.ts';

const SOURCES = ['frankenstein.txt', 'pride-and-prejudice.txt', 'war-and-peace.txt'];
const TIME = '/usr/bin/time';
const MiB = 1024 * 1024;
/** Books compared at each end of the study. */
const END = 20;
const { live, cleanups, progress, fail, stop, positive, startFake } = benchKit(
	'bench/study',
	() => values.json,
);

const { values } = parseArgs({
	options: {
		books: { type: 'string', default: '100' },
		words: { type: 'string', default: '30000' },
		latency: { type: 'string', default: '20' },
		concurrency: { type: 'string', default: '16' },
		'chunk-size': { type: 'string', default: '2048' },
		heap: { type: 'boolean', default: false },
		keep: { type: 'boolean', default: false },
		json: { type: 'boolean', default: false },
	},
});
const books = positive('books', values.books);
const words = positive('words', values.words);
const latency = positive('latency', values.latency);
const concurrency = positive('concurrency', values.concurrency);
const chunkSize = positive('chunk-size', values['chunk-size']);
if (books < 2 * END)
	fail(`--books must be at least ${2 * END}, to compare the first ${END} with the last ${END}`);
if (!existsSync(TIME)) fail(`${TIME} is missing: install GNU time (apt-get install time)`);

execFileSync(process.execPath, [join(ROOT, 'bin/build.js')], {
	cwd: ROOT,
	stdio: ['ignore', 'ignore', 'inherit'],
});

const env: NodeJS.ProcessEnv = Object.fromEntries(
	Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC|BOOOOK)_/u.test(k)),
);
env.OPENAI_API_KEY = 'sk-fake-local-bench';

const work = mkdtempSync(join(tmpdir(), 'booook-bench-study-'));
cleanups.push(() => {
	if (values.keep) process.stderr.write(`books, study file and sessions kept in ${work}\n`);
	else rmSync(work, { recursive: true, force: true });
});
process.once('SIGINT', () => stop(130));

const load = loadavg()[0]!;
try {
	progress(`writing ${books} books of ${words} words`);
	const paths = writeBooks(join(work, 'books'));
	const sessionsDir = join(work, 'sessions');
	const api = await startFake(['--latency', String(latency), '--words', '250'], env);
	try {
		const study = {
			name: 'bench',
			books: paths,
			methods: ['hier', 'inc'],
			providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: `${api.url}/v1` }],
			chunkSizes: [chunkSize],
			contextWindows: [8192],
			concurrency,
		};
		const file = join(work, 'study.json');
		writeFileSync(file, JSON.stringify(study, null, 2));
		progress(`booook study: ${books} books × 2 methods, ${latency} ms calls, concurrency ${concurrency}`);
		const run = await runStudy(file, sessionsDir);
		const calls = (await api.stats()).requests;
		const results = summarize(run, calls, sessionsDir);
		process.stdout.write(values.json ? `${JSON.stringify(results, null, 2)}\n` : report(results));
	} finally {
		await api.stop();
	}
} finally {
	for (const undo of cleanups.splice(0)) undo();
}

/** Excerpts of `words` words, line by line, from the three books read in a ring; each starts 1/books further in. */
function writeBooks(dir: string): string[] {
	mkdirSync(dir, { recursive: true });
	const lines = SOURCES.flatMap((name) => readFileSync(join(BOOKS_DIR, name), 'utf8').split(/\r?\n/u));
	const counts = lines.map((l) => l.split(/\s+/u).filter(Boolean).length);
	const total = counts.reduce((s, n) => s + n, 0);
	const starts: number[] = [];
	for (let i = 0, at = 0, seen = 0; i < books; i++) {
		const target = Math.floor((i * total) / books);
		while (seen + counts[at]! <= target) seen += counts[at++]!;
		starts.push(at);
	}
	return starts.map((start, i) => {
		const out: string[] = [];
		let n = 0;
		for (let at = start; n < words; at = (at + 1) % lines.length) {
			out.push(lines[at]!);
			n += counts[at]!;
		}
		const path = join(dir, `book-${String(i + 1).padStart(3, '0')}.txt`);
		writeFileSync(path, `${out.join('\n')}\n`);
		return path;
	});
}

interface Run {
	wallS: number;
	/** From spawn to the first cell's `started` line: reading, chunking and planning every cell. */
	planS: number;
	peakMiB: number;
	/** Per cell, in the study's order: its book's index, when it started and was done (s since spawn), its calls. */
	cells: Map<string, { book: number; started: number; done: number | null; calls: number }>;
	/** RSS samples: seconds since spawn, MiB, cells done by then. */
	rss: { t: number; mib: number; done: number }[];
	/** Heap in use after a full collection (bench/heap-probe.mjs): seconds since spawn, MiB. */
	heap: { t: number; mib: number }[];
}

async function runStudy(file: string, sessionsDir: string): Promise<Run> {
	const timeFile = join(work, 'time.txt');
	const heapFile = join(work, 'heap.txt');
	const epoch = Date.now();
	const started = performance.now();
	const since = () => (performance.now() - started) / 1000;
	const probe = values.heap ? ['--expose-gc', '--import', './bench/heap-probe.mjs'] : [];
	const node = [process.execPath, ...probe, 'bin/booook.js', 'study', file, '--sessions-dir', sessionsDir];
	const child = spawn(TIME, ['-f', '%M', '-o', timeFile, ...node], {
		cwd: ROOT,
		env: { ...env, BENCH_HEAP_FILE: heapFile },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	live.add(child);
	const cells: Run['cells'] = new Map();
	const rss: Run['rss'] = [];
	let doneCells = 0;
	let planS = 0;
	let stderr = '';
	// The results table is not measured; it is read so the pipe never fills.
	child.stdout.resume();
	// `[i/N] bench/book-007/hier-openai-gpt-4o-mini-c2048-w8192: started (session …)`
	createInterface({ input: child.stderr }).on('line', (line) => {
		stderr += `${line}\n`;
		const m = /^\[\d+\/\d+\] (book-(\d+)\/\S+): (started|resumed|done: (\d+) calls)/u.exec(line);
		if (!m) return;
		const t = since();
		if (m[3] === 'started' || m[3] === 'resumed') {
			if (cells.size === 0) planS = t;
			cells.set(m[1]!, { book: Number(m[2]), started: t, done: null, calls: 0 });
		} else {
			const cell = cells.get(m[1]!);
			if (cell) Object.assign(cell, { done: t, calls: Number(m[4]) });
			doneCells += 1;
		}
	});
	const sampler = setInterval(() => {
		const mib = nodeRss(child.pid!);
		if (mib !== null) rss.push({ t: since(), mib, done: doneCells });
	}, 250);
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	clearInterval(sampler);
	const wallS = since();
	live.delete(child);
	if (code !== 0) fail(`booook study exited ${code}:\n${stderr.slice(-2000)}`);
	const kib = Number(readFileSync(timeFile, 'utf8').trim().split('\n').at(-1));
	const heap = existsSync(heapFile)
		? readFileSync(heapFile, 'utf8')
				.trim()
				.split('\n')
				.map((l) => {
					const [ms, bytes] = l.split(' ').map(Number);
					return { t: (ms! - epoch) / 1000, mib: bytes! / MiB };
				})
		: [];
	return { wallS, planS, peakMiB: kib / 1024, cells, rss, heap };
}

/** RSS of the node process GNU time runs (its only child), or null once it is gone. */
function nodeRss(timePid: number): number | null {
	try {
		const child = readFileSync(`/proc/${timePid}/task/${timePid}/children`, 'utf8').trim().split(/\s+/u)[0];
		if (!child) return null;
		const kib = /^VmRSS:\s+(\d+) kB$/mu.exec(readFileSync(`/proc/${child}/status`, 'utf8'))?.[1];
		return kib === undefined ? null : Number(kib) / 1024;
	} catch {
		return null;
	}
}

function summarize(run: Run, calls: number, sessionsDir: string) {
	const cells = [...run.cells.values()].filter((c) => c.done !== null) as {
		book: number;
		started: number;
		done: number;
		calls: number;
	}[];
	if (cells.length !== books * 2) fail(`${cells.length} of ${books * 2} cells were seen done`);
	const first = (book: number) => book <= END;
	const last = (book: number) => book > books - END;
	const cellTime = (pick: (book: number) => boolean) =>
		median(cells.filter((c) => pick(c.book)).map((c) => c.done - c.started));
	// One call's time as its session logged it (request to last token), for each end of the study.
	const callMs = (pick: (book: number) => boolean) =>
		median(
			readdirSync(sessionsDir, { withFileTypes: true })
				.filter((e) => e.isDirectory() && pick(Number(/^bench-book-(\d+)-/u.exec(e.name)?.[1])))
				.flatMap((e) =>
					readFileSync(join(sessionsDir, e.name, 'calls.jsonl'), 'utf8')
						.split('\n')
						.filter(Boolean)
						.map((l) => (JSON.parse(l) as { timings: { ms: number } }).timings.ms),
				),
		);
	const ends = cells.map((c) => c.done).sort((a, b) => a - b);
	const rate = (from: number, to: number) => {
		const [a, b] = [ends[Math.floor(from * (ends.length - 1))]!, ends[Math.floor(to * (ends.length - 1))]!];
		return (Math.floor(to * (ends.length - 1)) - Math.floor(from * (ends.length - 1))) / (b - a);
	};
	const rssAt = (share: number) => run.rss.find((s) => s.done >= share * cells.length)?.mib ?? null;
	const heapAt = (share: number) =>
		run.heap.find((s) => s.t >= ends[Math.ceil(share * cells.length) - 1]!)?.mib ?? null;
	const row = (
		measure: string,
		earlyValue: number | null,
		lateValue: number | null,
		unit: string,
		digits: number,
	) => {
		// A median of nothing (NaN) is shown as missing.
		const [early, late] = [earlyValue, lateValue].map((v) => (v === null || Number.isNaN(v) ? null : v)) as [
			number | null,
			number | null,
		];
		return { measure, early, late, unit, digits, ratio: early && late ? late / early : null };
	};
	return {
		environment: `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${load.toFixed(2)} at the start (other work on the machine slows the run)`,
		setup: { books, words, latencyMs: latency, concurrency, chunkSize, cells: cells.length },
		wallS: run.wallS,
		planS: run.planS,
		resultsS: run.wallS - ends.at(-1)!,
		calls,
		callsPerS: calls / (run.wallS - run.planS),
		peakMiB: run.peakMiB,
		sessionsMiB: folderBytes(sessionsDir) / MiB,
		rows: [
			row(
				`cell time, start to done, median: first ${END} books' cells vs last ${END}'s`,
				cellTime(first),
				cellTime(last),
				's',
				2,
			),
			row(
				`one call as logged, median: first ${END} books vs last ${END}`,
				callMs(first),
				callMs(last),
				'ms',
				0,
			),
			row('cells done per second: 2nd fifth of the cells vs 4th', rate(0.2, 0.4), rate(0.6, 0.8), '/s', 2),
			row('RSS: 25% vs 75% of the cells done', rssAt(0.25), rssAt(0.75), 'MiB', 0),
			...(values.heap
				? [
						row(
							'heap kept after a full GC: 25% vs 75% of the cells done',
							heapAt(0.25),
							heapAt(0.75),
							'MiB',
							1,
						),
					]
				: []),
		],
	};
}

function report(r: ReturnType<typeof summarize>): string {
	const n = (v: number | null, digits: number) => (v === null ? '—' : v.toFixed(digits));
	return [
		`booook study: ${r.setup.books} books of ${r.setup.words} words × 2 methods (${r.setup.cells} cells), openai gpt-4o-mini on the fake API, ${r.setup.latencyMs} ms calls, concurrency ${r.setup.concurrency}, chunks of ${r.setup.chunkSize}`,
		`- ${r.environment}`,
		`- wall ${r.wallS.toFixed(1)} s (planning ${r.planS.toFixed(1)} s before the first cell; results ${r.resultsS.toFixed(1)} s after the last), ${r.calls} calls, ${r.callsPerS.toFixed(0)} calls/s after planning`,
		`- peak RSS ${r.peakMiB.toFixed(0)} MiB (goal < 1024${values.heap ? "; lowered by --heap's collections" : ''}), sessions on disk ${r.sessionsMiB.toFixed(0)} MiB`,
		'',
		'| measure | early | late | late ÷ early |',
		'|---|---|---|---|',
		...r.rows.map(
			(x) =>
				`| ${x.measure} | ${n(x.early, x.digits)} ${x.unit} | ${n(x.late, x.digits)} ${x.unit} | ${n(x.ratio, 2)} |`,
		),
		'',
		'A ratio near 1 is no slowdown (times) and no growth (memory); for cells done per second, below 1 is a slowdown.',
		'',
	].join('\n');
}
