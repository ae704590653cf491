import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shell } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { quickStart } from '../support/quick-start.ts';
import { bookishReply } from '../support/summary-reply.ts';
import { tempDir } from '../support/temp.ts';

// The README's quick start is what a newcomer types first: every command of it is run here as
// written, through the shell and npm, with the two vendors' APIs and the "own server" example
// pointed at the local fake API, so the README cannot drift from what works.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test("every command of the README's quick start works as written", { timeout: 600_000 }, async (t) => {
	const api = await startFakeApi({ respond: bookishReply(250) });
	t.after(() => api.close());
	const sessions = join(tempDir('readme'), 'sessions');
	// The vendors' addresses come from their *_BASE_URL variables, as a user's proxy would give them;
	// the README's own server address is replaced by the fake's.
	const envOf = (line: string): Record<string, string> => ({
		BOOOOK_SESSIONS: sessions,
		...(line.includes('OPENAI_API_KEY=') ? { OPENAI_BASE_URL: api.openaiBaseUrl } : {}),
		...(line.includes('ANTHROPIC_API_KEY=') ? { ANTHROPIC_BASE_URL: api.anthropicBaseUrl } : {}),
	});
	const lines = quickStart(ROOT);
	assert.ok(lines.length >= 5, lines.join('\n'));
	const providers: string[] = [];
	for (const written of lines) {
		const line = written.replace('http://localhost:8000/v1', api.openaiBaseUrl);
		const before = new Set(readdirSafe(sessions));
		const result = await shell(line, envOf(line), ROOT);
		assert.equal(result.status, 0, `${written}\n${result.stderr}`);
		assert.doesNotMatch(result.stderr, /error/iu, written);
		const made = readdirSafe(sessions).filter((id) => !before.has(id) && !id.startsWith('.'));
		if (/ -- examples\/books\//u.test(written)) {
			// A run: one new session, done, and its summary printed.
			assert.equal(made.length, 1, written);
			const data = JSON.parse(readFileSync(join(sessions, made[0]!, 'session.json'), 'utf8'));
			assert.equal(data.run.status, 'done', written);
			// Which provider each example promises: its key, a server of one's own, else the offline baseline.
			const promised = written.includes('ANTHROPIC_API_KEY=')
				? 'anthropic'
				: /OPENAI_API_KEY=|--base-url /u.test(written)
					? 'openai'
					: 'extractive';
			assert.equal(data.run.config.provider, promised, written);
			providers.push(data.run.config.provider);
			assert.ok(
				result.stdout.split(/\s+/u).length > 100,
				`${written}: a summary on stdout\n${result.stdout}\n${result.stderr}`,
			);
		}
		if (/ -- sessions$/u.test(written))
			assert.ok(
				result.stdout.split('\n').filter((l) => l.includes('done')).length >= providers.length,
				result.stdout,
			);
		if (/ -- plan /u.test(written)) assert.match(result.stdout, /total \d+ calls/u);
	}
	assert.deepEqual([...new Set(providers)].sort(), ['anthropic', 'extractive', 'openai']);
	assert.ok(api.requests.some((r) => r.api === 'anthropic') && api.requests.some((r) => r.api === 'openai'));
});

function readdirSafe(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch {
		return [];
	}
}
