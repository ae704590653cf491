/**
 * What every benchmark driver here needs around its measurements: children and temporary folders
 * undone however it stops, one-line failures, progress on stderr, checked numeric flags, and the
 * fake API (test/support/fake-api.ts) as its own process, so its work is not counted as booook's.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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
			const server = spawn(process.execPath, ['--import', 'tsx', 'test/support/fake-api.ts', '--port', '0', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
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
					body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }], stream }),
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
