import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/** Resolves with the first stdout line of `proc` (rejects if it exits first). */
export function firstLine(proc: ChildProcessWithoutNullStreams): Promise<string> {
	return new Promise((resolve, reject) => {
		let out = '';
		let err = '';
		proc.stderr.on('data', (d) => (err += d));
		proc.stdout.on('data', (d) => {
			out += d;
			const nl = out.indexOf('\n');
			if (nl >= 0) resolve(out.slice(0, nl));
		});
		proc.on('exit', (code) => reject(new Error(`child exited (${code}) before a line: ${err}`)));
	});
}
