import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/booook.js', import.meta.url));

export interface CliResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** Runs the real binary with a clean environment (no API keys unless given). */
export function booook(args: string[], opts: { env?: Record<string, string>; cwd?: string; onStdout?: (text: string, kill: (signal?: NodeJS.Signals) => void) => void; onStderr?: (text: string, kill: (signal?: NodeJS.Signals) => void) => void } = {}): Promise<CliResult> {
	const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...opts.env };
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, ...args], { env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
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
