import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook, printed } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { tinyBookText } from '../support/study-books.ts';
import { tempDir } from '../support/temp.ts';
import { DATA_DIR } from '../support/repo-data.ts';

/** The hints a newcomer met that led nowhere (issue 25): each now names the way that works. */

test(
	'a mistyped command gets "did you mean", not "no such file"; a book file of that name still runs',
	{ timeout: 60_000 },
	async () => {
		const dir = tempDir('typo');
		const typo = await booook(['sesions'], { cwd: dir });
		assert.equal(typo.code, 2);
		assert.equal(
			typo.stderr,
			"booook: 'sesions' is neither a command nor a book file (did you mean sessions?) (run with --help for usage)\n",
		);
		assert.deepEqual(readdirSync(dir), [], 'nothing written');
		const far = await booook(['zebra.txt'], { cwd: dir });
		assert.match(far.stderr, /zebra\.txt: no such file/u, 'a word like no command is a book that is missing');

		writeFileSync(join(dir, 'sesions'), tinyBookText(200));
		const book = await booook(
			['sesions', '--headless', '--provider', 'extractive', '--sessions-dir', join(dir, 'runs')],
			{ cwd: dir },
		);
		assert.match(
			book.stderr,
			/unsupported file type/u,
			'the file is read as a book, not taken for a command',
		);
		writeFileSync(join(dir, 'scor.txt'), tinyBookText(200));
		const txt = await booook(
			[
				'scor.txt',
				'--headless',
				'--provider',
				'extractive',
				'--chunk-size',
				'256',
				'--sessions-dir',
				join(dir, 'runs'),
			],
			{ cwd: dir },
		);
		assert.equal(txt.code, 0, txt.stderr);
	},
);

test(
	'a run whose server went down says so and prints resume with its --base-url; resume without the key says to export it, not to change provider',
	{ timeout: 120_000 },
	async () => {
		const dir = tempDir('server-down');
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(400));
		const sessions = join(dir, 'mine');
		const gone = await startFakeApi();
		const url = gone.openaiBaseUrl;
		await gone.close();
		const env = { OPENAI_API_KEY: 'sk-test' };
		const failed = await booook(
			[
				'run',
				book,
				'--headless',
				'--provider',
				'openai',
				'--base-url',
				url,
				'--chunk-size',
				'256',
				'--session',
				'down',
				'--sessions-dir',
				sessions,
			],
			{ env },
		);
		assert.equal(failed.code, 1, failed.stderr);
		const resume = printed(`resume down --sessions-dir ${sessions}`);
		const way = failed.stderr.trim().split('\n').at(-1)!;
		assert.equal(
			way,
			`The server at ${url} could not be reached: start it (or put its new address after --base-url), then continue with: ${resume} --base-url ${url}`,
		);

		// A server of one's own takes no key, so the key is missed only on the vendor's API.
		const keyless = await booook([
			'resume',
			'down',
			'--headless',
			'--sessions-dir',
			sessions,
			'--base-url',
			'https://api.openai.com/v1',
		]);
		assert.equal(keyless.code, 2, keyless.stderr);
		assert.ok(
			keyless.stderr.startsWith(
				`booook: OPENAI_API_KEY is not set: session "down" was run with openai (gpt-4o-mini); export the key, then continue with: ${resume}`,
			),
			keyless.stderr,
		);
		assert.equal(keyless.stderr.split('\n').length, 2, 'one line');

		// The server is back at another address: the printed command with that address finishes the run.
		const api = await startFakeApi();
		try {
			const again = await booook(
				['resume', 'down', '--headless', '--sessions-dir', sessions, '--base-url', api.openaiBaseUrl],
				{ env },
			);
			assert.equal(again.code, 0, again.stderr);
			assert.ok(existsSync(join(sessions, 'down')));
		} finally {
			await api.close();
		}
	},
);

test(
	'show and a taken --session name the sessions folder in the command they print, when it is not the default',
	{ timeout: 60_000 },
	async () => {
		const dir = tempDir('hint-dir');
		const book = join(dir, 'book.txt');
		writeFileSync(book, tinyBookText(200));
		const sessions = join(dir, 'elsewhere');
		const run = await booook([
			'run',
			book,
			'--headless',
			'--provider',
			'extractive',
			'--chunk-size',
			'256',
			'--session',
			'mine',
			'--sessions-dir',
			sessions,
		]);
		assert.equal(run.code, 0, run.stderr);
		const shown = await booook(['show', 'mine', '--sessions-dir', sessions]);
		assert.ok(
			shown.stdout.includes(
				`BooookScore: not scored yet (${printed(`score mine --sessions-dir ${sessions}`)})`,
			),
			shown.stdout,
		);
		const taken = await booook([
			'run',
			book,
			'--headless',
			'--provider',
			'extractive',
			'--session',
			'mine',
			'--sessions-dir',
			sessions,
		]);
		assert.equal(taken.code, 2);
		assert.ok(
			taken.stderr.trim().endsWith(`resume it with: ${printed(`resume mine --sessions-dir ${sessions}`)}`),
			taken.stderr,
		);
		// A collection is no run: resume says how to score it, in the same folder.
		const released = join(DATA_DIR, 'summaries/gpt4-2048-hier-cleaned.json');
		const imported = await booook([
			'import',
			'booookscore',
			'--summaries',
			released,
			'--session',
			'coll',
			'--sessions-dir',
			sessions,
		]);
		assert.equal(imported.code, 0, imported.stderr);
		const resumed = await booook(['resume', 'coll', '--headless', '--sessions-dir', sessions]);
		assert.equal(resumed.code, 2);
		assert.ok(
			resumed.stderr.trim().endsWith(`score it with: ${printed(`score coll --sessions-dir ${sessions}`)}`),
			resumed.stderr,
		);
	},
);
