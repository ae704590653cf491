import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN } from '../support/cli.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { annotatingReply, startFakeApi } from '../support/fake-api.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/**
 * `b` on a run with no model of its own (the extractive baseline), opened from the home screen in a
 * terminal of 80×24: it asks which provider, model and server score it, rather than sending the
 * scoring to the API of whichever key is set. Here an OpenAI key is set (its API would be called
 * before), and the scoring goes to a local Anthropic-style server named the OpenAI way, with /v1,
 * which takes no key.
 */
test(
	'b on an extractive run asks which provider, model and server score it, and scores there',
	{ skip: noTmux, timeout: 180_000 },
	inTerminal(async (t) => {
		const api = await startFakeApi({ respond: annotatingReply });
		t.after(() => api.close());
		const sessions = tempDir('score-model-e2e', t);
		await extractiveRun(FRANKENSTEIN, sessions, 'base');
		const line = shellLine([
			'env',
			'-u',
			'ANTHROPIC_API_KEY',
			'-u',
			'OPENAI_BASE_URL',
			'-u',
			'ANTHROPIC_BASE_URL',
			'OPENAI_API_KEY=sk-not-for-this',
			'TERM=xterm-256color',
			process.execPath,
			BIN,
			'--sessions-dir',
			sessions,
		]);
		const term = await terminal('score-model', line, { columns: 80, rows: 24 });
		try {
			await term.waitFor('the home screen', (s) => s.includes('base'));
			term.keys('Enter');
			await term.waitFor('the run screen', (s) => s.includes('✓ done'));
			term.keys('b');
			let s = await term.waitFor('the question', (x) => x.includes('which model annotates'));
			assert.match(s, /provider\s+‹ openai ›/u);
			assert.match(s, /model\s+gpt-4o-mini/u);
			assert.ok(s.includes('--provider openai --model gpt-4o-mini'), s);
			assert.equal(api.requests.length, 0, 'nothing is called before the answer');
			term.keys('Right');
			await term.waitFor(
				'anthropic and its model',
				(x) => /‹ anthropic ›/u.test(x) && x.includes('claude-sonnet-4-6'),
			);
			term.keys('Down', 'Down');
			term.type(`${api.url}/v1`);
			term.keys('Enter');
			s = await term.waitFor(
				'every sentence annotated',
				(x) => {
					const m = /BooookScore · .* · (\d+)\/(\d+) sentences/u.exec(x);
					return m !== null && m[1] === m[2] && / · done\b/u.test(x);
				},
				120_000,
			);
			const calls = api.requests.filter((r) => r.method === 'POST');
			assert.ok(calls.length > 0);
			assert.deepEqual([...new Set(calls.map((r) => r.path))], ['/v1/messages']);
			assert.ok(calls.every((r) => r.body!.model === 'claude-sonnet-4-6'));
			term.keys('Escape');
			await term.waitFor('back on the run screen', (x) => x.includes('✓ done'));
			term.keys('q');
			await term.waitFor('the home screen again', (x) => x.includes('saved sessions in'));
			term.keys('q');
			s = await term.waitFor('the app to end', (x) => /EXIT=\d+/u.test(x));
			assert.match(s, /EXIT=0/u);
		} finally {
			term.close();
		}
	}),
);
