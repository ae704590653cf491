import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { booook } from './support/cli.ts';
import { tempDir } from './support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from './support/tmux.ts';
import { FRANKENSTEIN as book } from './support/repo-data.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

test(
	'booook --sessions-dir DIR alone opens the home screen on that folder in a terminal, and prints the help elsewhere',
	{ skip: noTmux, timeout: 120_000 },
	inTerminal(async () => {
		const sessions = join(tempDir('home-dir'), 'my sessions');
		const made = await booook(
			[
				'run',
				book,
				'--headless',
				'--provider',
				'extractive',
				'--chunk-size',
				'4096',
				'--session',
				'listed-here',
				'--sessions-dir',
				sessions,
			],
			{ env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } },
		);
		assert.equal(made.code, 0, made.stderr);

		const piped = await booook(['--sessions-dir', sessions]);
		assert.equal(piped.code, 0, piped.stderr);
		assert.match(piped.stdout, /^Usage: node \S*bin\/booook\.js \[options\]/mu);

		// No $BOOOOK_SESSIONS: the folder can only come from the flag.
		const line = shellLine([
			'env',
			'-u',
			'BOOOOK_SESSIONS',
			'TERM=xterm-256color',
			process.execPath,
			join(root, 'bin/booook.js'),
			`--sessions-dir=${sessions}`,
		]);
		const term = await terminal('home-dir', line);
		try {
			await term.waitFor('the home screen listing the session', (s) => s.includes('listed-here'));
			term.keys('q');
			const s = await term.waitFor('the app to end', (x) => /EXIT=\d+/u.test(x));
			assert.match(s, /EXIT=0/u);
		} finally {
			term.close();
		}
	}),
);

test(
	'the home screen comes back after a session opened from it: esc or q on the run screen returns to the list, q there quits',
	{ skip: noTmux, timeout: 120_000 },
	inTerminal(async () => {
		const sessions = tempDir('home-again');
		const made = await booook(
			[
				'run',
				book,
				'--headless',
				'--provider',
				'extractive',
				'--chunk-size',
				'4096',
				'--session',
				'again',
				'--sessions-dir',
				sessions,
			],
			{ env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } },
		);
		assert.equal(made.code, 0, made.stderr);
		const line = shellLine([
			'env',
			'-u',
			'BOOOOK_SESSIONS',
			'TERM=xterm-256color',
			process.execPath,
			join(root, 'bin/booook.js'),
			'--sessions-dir',
			sessions,
		]);
		const term = await terminal('home-again', line);
		const list = (s: string) => s.includes('saved sessions in') && s.includes('again');
		const runScreen = (s: string) => s.includes('booook · ') && !s.includes('saved sessions in');
		// The list is drawn before the app reads keys raw, and an Enter typed before that is lost:
		// a key that shows its effect says the keys are read.
		const listening = async () => {
			term.keys('?');
			await term.waitFor('the help', (s) => s.includes('Home (saved sessions)'));
			term.keys('?');
			await term.waitFor('the list', list);
		};
		try {
			await term.waitFor('the home screen', list);
			for (const leave of ['Escape', 'q']) {
				await listening();
				term.keys('Enter');
				await term.waitFor('the run screen of the session', runScreen);
				term.keys(leave);
				await term.waitFor(`the list again after ${leave}`, list);
			}
			term.keys('q');
			const s = await term.waitFor('the app to end', (x) => /EXIT=\d+/u.test(x));
			assert.match(s, /EXIT=0/u);
		} finally {
			term.close();
		}
	}),
);
