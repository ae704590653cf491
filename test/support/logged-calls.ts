import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every call logged in the sessions under `dir` that gave a result, as `session node version attempt`. */
export function loggedCalls(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true })
		.filter((e) => e.isDirectory() && !e.name.startsWith('.'))
		.flatMap((e) => {
			const log = join(dir, e.name, 'calls.jsonl');
			if (!existsSync(log)) return [];
			return readFileSync(log, 'utf8')
				.split('\n')
				.filter((line) => line.trim() !== '')
				.map((line) => JSON.parse(line) as { node: string; version: number; attempt: number; error?: string })
				.filter((c) => c.error === undefined)
				.map((c) => `${e.name} ${c.node} ${c.version} ${c.attempt}`);
		});
}

/** What the calls logged in one session cost (billed failures included), in US dollars. */
export function loggedCost(dir: string, session: string): number {
	const log = join(dir, session, 'calls.jsonl');
	if (!existsSync(log)) return 0;
	return readFileSync(log, 'utf8')
		.split('\n')
		.filter((line) => line.trim() !== '')
		.reduce((sum, line) => sum + (JSON.parse(line) as { cost: number }).cost, 0);
}
