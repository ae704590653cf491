import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sessionsDirArg } from '../source/store/dirs.ts';
import { BIN, booook } from './support/cli.ts';
import { startFakeApi } from './support/fake-api.ts';
import { tinyBookText } from './support/study-books.ts';
import { tempDir } from './support/temp.ts';

/** Runs a printed `booook …` command line through the shell, as a user pasting it would (the fake API shares this process: no spawnSync). */
function paste(line: string, extra: string, env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
	const command = line.replace(/^booook /u, `'${process.execPath}' '${BIN}' `) + extra;
	const child = spawn('/bin/sh', ['-c', command], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
	let stderr = '';
	child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
	return new Promise((done, fail) => {
		child.on('error', fail);
		child.on('close', (status) => done({ status, stderr }));
	});
}

test('a printed command names the sessions folder only when it is not the default one, quoted for the shell', () => {
	assert.equal(sessionsDirArg('sessions', {}), '');
	assert.equal(sessionsDirArg('/srv/mine', { BOOOOK_SESSIONS: '/srv/mine' }), '');
	assert.equal(sessionsDirArg('/srv/mine', {}), ' --sessions-dir /srv/mine');
	assert.equal(sessionsDirArg("/srv/Ann's runs", {}), ` --sessions-dir '/srv/Ann'\\''s runs'`);
	assert.equal(sessionsDirArg('rel', {}), ` --sessions-dir ${resolve('rel')}`);
});

test('an interrupted run in another sessions folder prints a resume command that works when pasted', { timeout: 120_000 }, async () => {
	const api = await startFakeApi({ latencyMs: 100 });
	try {
		const dir = tempDir('hint');
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(400));
		const sessions = join(dir, "Ann's sessions");
		const env = { OPENAI_API_KEY: 'sk-test' };
		let sent = false;
		const first = await booook(['run', book, '--headless', '--provider', 'openai', '--base-url', api.openaiBaseUrl, '--chunk-size', '256', '--concurrency', '1', '--session', 'hinted', '--sessions-dir', sessions], {
			env,
			onStderr: (text, kill) => {
				if (!sent && /\[1\/\d+ calls\]/u.test(text)) {
					sent = true;
					kill('SIGINT');
				}
			},
		});
		assert.equal(first.code, 130, first.stderr);
		const hint = /Continue with: (booook resume .*)$/mu.exec(first.stderr)?.[1];
		assert.equal(hint, `booook resume hinted --sessions-dir '${sessions.replaceAll("'", "'\\''")}'`);
		const again = await paste(hint!, ` --headless --base-url ${api.openaiBaseUrl}`, env);
		assert.equal(again.status, 0, again.stderr);
	} finally {
		await api.close();
	}
});

test('an interrupted study in another sessions folder prints a study command that works when pasted', { timeout: 120_000 }, async () => {
	const api = await startFakeApi({ latencyMs: 100 });
	try {
		const dir = tempDir('hint-study');
		const book = join(dir, 'ann.txt');
		writeFileSync(book, tinyBookText(300));
		const file = join(dir, 'study.json');
		writeFileSync(file, JSON.stringify({ name: 'hint', books: [book], methods: ['hier'], providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl }], chunkSizes: [256], concurrency: 1 }));
		const sessions = join(dir, 'elsewhere');
		mkdirSync(sessions);
		const env = { OPENAI_API_KEY: 'sk-test' };
		let sent = false;
		const first = await booook(['study', file, '--headless', '--sessions-dir', sessions], {
			env,
			onStderr: (text, kill) => {
				if (!sent && /started/u.test(text)) {
					sent = true;
					kill('SIGINT');
				}
			},
		});
		assert.equal(first.code, 130, first.stderr);
		const hint = /Continue with: (booook study .*)$/mu.exec(first.stderr)?.[1];
		assert.equal(hint, `booook study ${file} --sessions-dir ${sessions}`);
		const again = await paste(hint!, ' --headless', env);
		assert.equal(again.status, 0, again.stderr);
		assert.match(again.stderr, /resumed/u, 'the pasted command continues the same session');
	} finally {
		await api.close();
	}
});
