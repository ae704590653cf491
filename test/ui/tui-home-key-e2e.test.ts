import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { booook } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { tinyBookText } from '../support/study-books.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

test(
	'a session the home screen cannot open (its key is not set) says why on the list, and the app goes on',
	{ skip: noTmux, timeout: 120_000 },
	inTerminal(async () => {
		const dir = tempDir('home-key');
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(300));
		const sessions = join(dir, 'sessions');
		const api = await startFakeApi();
		try {
			const made = await booook(
				['run', book, '--headless', '--provider', 'openai', '--chunk-size', '256', '--session', 'keyed'],
				{ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: api.openaiBaseUrl, BOOOOK_SESSIONS: sessions } },
			);
			assert.equal(made.code, 0, made.stderr);
		} finally {
			await api.close();
		}
		const line = shellLine([
			'env',
			'-u',
			'OPENAI_API_KEY',
			'-u',
			'OPENAI_BASE_URL',
			'TERM=xterm-256color',
			`BOOOOK_SESSIONS=${sessions}`,
			process.execPath,
			join(root, 'bin/booook.js'),
		]);
		const term = await terminal('home-key', line, { columns: 100, rows: 30 });
		try {
			await term.waitFor('the home screen listing the session', (s) => s.includes('keyed'));
			term.keys('Enter');
			const s = await term.waitFor('the list again, saying why', (x) =>
				x.includes('OPENAI_API_KEY is not set'),
			);
			assert.match(s, /keyed/u, 'the list is still shown');
			assert.doesNotMatch(s, /EXIT=/u, 'the app did not end');
			term.keys('q');
			assert.match(await term.waitFor('the app to end', (x) => /EXIT=\d+/u.test(x)), /EXIT=0/u);
		} finally {
			term.close();
		}
	}),
);
