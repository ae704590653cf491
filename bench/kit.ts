/**
 * What every benchmark driver here needs around its measurements: children and temporary folders
 * undone however it stops, one-line failures, progress on stderr, checked numeric flags, and the
 * fake API (test/support/fake-api.ts) as its own process, so its work is not counted as booook's.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Fake {
	url: string;
	stats(): Promise<{ requests: number }>;
	stop(): Promise<void>;
}

export interface Kit {
	/** Children to stop if the driver stops early. */
	live: Set<{ kill: (signal?: NodeJS.Signals) => boolean }>;
	/** Undone, last added first, when the driver stops (or by the driver itself at its end). */
	cleanups: (() => void)[];
	progress(text: string): void;
	fail(message: string): never;
	stop(code: number): never;
	/** A flag that must be a whole number of at least 1. */
	positive(name: string, value: string): number;
	/** The fake API on a free port: `args` are its flags (--latency, --words, …). */
	startFake(args: string[], env: NodeJS.ProcessEnv): Promise<Fake>;
}

/** `name` prefixes failures; `quiet()` (e.g. --json into a pipe) silences progress. */
export function benchKit(name: string, quiet: () => boolean): Kit {
	const live: Kit['live'] = new Set();
	const cleanups: Kit['cleanups'] = [];
	const stop = (code: number): never => {
		for (const child of live) child.kill('SIGTERM');
		for (const undo of cleanups.splice(0)) undo();
		process.exit(code);
	};
	const fail = (message: string): never => {
		process.stderr.write(`${name}: ${message}\n`);
		return stop(1);
	};
	return {
		live,
		cleanups,
		stop,
		fail,
		progress: (text) => {
			if (!quiet() || process.stderr.isTTY) process.stderr.write(`… ${text}\n`);
		},
		positive: (flag, value) => {
			const n = Number(value);
			if (!Number.isInteger(n) || n < 1) fail(`--${flag} must be a whole number of at least 1`);
			return n;
		},
		startFake: async (args, env) => {
			const server = spawn(
				process.execPath,
				['--import', 'tsx', 'test/support/fake-api.ts', '--port', '0', ...args],
				{ cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] },
			);
			live.add(server);
			const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
			const line = await new Promise<string>((resolve, reject) => {
				createInterface({ input: server.stdout }).once('line', resolve);
				server.once('exit', (code) => reject(new Error(`the fake API exited (${code}) before it listened`)));
			});
			const { url } = JSON.parse(line) as { url: string };
			await warm(url, args.includes('--plain'));
			return {
				url,
				stats: async () => (await (await fetch(`${url}/stats`)).json()) as { requests: number },
				stop: async () => {
					server.kill('SIGTERM');
					await exited;
					live.delete(server);
				},
			};
		},
	};
}

/**
 * A round of four OpenAI-style calls streamed (and one whole, when the fake answers whole), with a chunk-sized prompt: the fake's
 * first answers are 100–150 ms slower while its own code compiles, which would fall on whichever
 * side runs first. Drivers count calls as differences of `stats()`, so these are not counted.
 */
async function warm(url: string, plain: boolean): Promise<void> {
	const prompt = 'Summarize the following passage of a novel. '.repeat(250);
	for (const stream of plain ? [true, false] : [true]) {
		await Promise.all(
			Array.from({ length: 4 }, async () => {
				const res = await fetch(`${url}/v1/chat/completions`, {
					method: 'POST',
					headers: { 'content-type': 'application/json', authorization: 'Bearer sk-warm-up' },
					body: JSON.stringify({
						model: 'gpt-4o-mini',
						messages: [{ role: 'user', content: prompt }],
						stream,
					}),
				});
				await res.arrayBuffer();
				if (!res.ok) throw new Error(`the fake API answered the warm-up with ${res.status}`);
			}),
		);
	}
}

/** The median; NaN for none. */
export function median(xs: readonly number[]): number {
	if (xs.length === 0) return Number.NaN;
	const sorted = [...xs].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Bytes of every file under `dir`. */
export function folderBytes(dir: string): number {
	let total = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
	}
	return total;
}

export interface SessionNode {
	id: string;
	kind: string;
	level: number;
	index: number;
	inputs: string[];
	context: string | null;
	status: string;
}

/** The done nodes of a finished run, as its session folder's session.json (written whole when the run closed) holds them; throws unless the run is done. */
export function finishedNodes(sessionDir: string): SessionNode[] {
	const session = JSON.parse(readFileSync(join(sessionDir, 'session.json'), 'utf8')) as {
		run: { status: string; nodes: SessionNode[] };
	};
	if (session.run.status !== 'done')
		throw new Error(`session ${sessionDir} ended ${session.run.status}, not done`);
	return session.run.nodes.filter((n) => n.status === 'done');
}

/**
 * Rounds of latency a hierarchical run's calls take on `workers`, each call one round, started as
 * soon as what decides it is done: its inputs and context, and for a merge that does not end its
 * level, the summary after its last input (the greedy packing stops there). Waiting merges go
 * before waiting chunk summaries, higher levels first, as booook's scheduler orders them.
 */
export function pipelinedRounds(nodes: SessionNode[], workers: number): number {
	const byId = new Map(nodes.map((n) => [n.id, n]));
	const levels = new Map<number, SessionNode[]>();
	for (const n of nodes) if (n.kind !== 'clean') levels.set(n.level, [...(levels.get(n.level) ?? []), n]);
	for (const list of levels.values()) list.sort((a, b) => a.index - b.index);
	const deps = new Map<string, string[]>();
	for (const n of nodes) {
		const own = [...n.inputs, ...(n.context ? [n.context] : [])].filter((ref) => byId.has(ref));
		const below = levels.get(n.level - 1) ?? [];
		const last = below.findIndex((b) => b.id === n.inputs.at(-1));
		const next = n.kind === 'merge' && last >= 0 ? below[last + 1] : undefined;
		deps.set(n.id, next ? [...own, next.id] : own);
	}
	const done = new Map<string, number>();
	let round = 0;
	while (done.size < nodes.length) {
		const ready = nodes
			.filter((n) => !done.has(n.id) && deps.get(n.id)!.every((d) => (done.get(d) ?? Infinity) <= round))
			.sort(
				(a, b) =>
					(b.kind === 'clean' ? 99 : b.level) - (a.kind === 'clean' ? 99 : a.level) || a.index - b.index,
			);
		if (ready.length === 0) throw new Error("the session's nodes wait on each other");
		for (const n of ready.slice(0, workers)) done.set(n.id, round + 1);
		round += 1;
	}
	return round;
}
