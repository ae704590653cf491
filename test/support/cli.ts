import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { invocation } from '../../source/commands/invocation.ts';
import { VALIDATION_STUDY } from './repo-data.ts';

export const BIN = fileURLToPath(new URL('../../bin/booook.js', import.meta.url));

/**
 * A command line as `booook()` prints it: it starts the way that child was started (`node
 * bin/booook.js` from this folder, or `booook` if this checkout is on the PATH).
 */
export function printed(args: string): string {
	return `${invocation({ PATH: process.env.PATH ?? '' })} ${args}`;
}

export interface CliResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** Runs the real binary with a clean environment (no API keys unless given). */
export function booook(
	args: string[],
	opts: {
		env?: Record<string, string>;
		cwd?: string;
		onStdout?: (text: string, kill: (signal?: NodeJS.Signals) => void) => void;
		onStderr?: (text: string, kill: (signal?: NodeJS.Signals) => void) => void;
	} = {},
): Promise<CliResult> {
	const env: Record<string, string> = {
		PATH: process.env.PATH ?? '',
		HOME: process.env.HOME ?? '/tmp',
		...opts.env,
	};
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, ...args], {
			env,
			cwd: opts.cwd,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.setEncoding('utf8').on('data', (d: string) => {
			stdout += d;
			opts.onStdout?.(stdout, (signal = 'SIGKILL') => child.kill(signal));
		});
		child.stderr.setEncoding('utf8').on('data', (d: string) => {
			stderr += d;
			opts.onStderr?.(stderr, (signal = 'SIGKILL') => child.kill(signal));
		});
		child.on('error', reject);
		child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
	});
}

/**
 * Runs a command line through the shell, as a user typing or pasting it would, in `cwd`, with a clean
 * environment plus `env` (asynchronously: a fake API may share this process).
 */
export function shell(
	line: string,
	env: Record<string, string>,
	cwd?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
	const child = spawn('/bin/sh', ['-c', line], {
		cwd,
		env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
	child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
	return new Promise((done, fail) => {
		child.on('error', fail);
		child.on('close', (status) => done({ status, stdout, stderr }));
	});
}

/** The authors' released validation study imported as session `id` into `dir`, as `booook import booookscore --validation` makes it. */
export async function importedStudy(dir: string, id = 'study'): Promise<void> {
	const made = await booook([
		'import',
		'booookscore',
		'--validation',
		VALIDATION_STUDY,
		'--session',
		id,
		'--sessions-dir',
		dir,
	]);
	if (made.code !== 0) throw new Error(`the validation study was not imported: ${made.stderr}`);
}
