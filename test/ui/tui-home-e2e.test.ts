import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { booook } from '../support/cli.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';
import { FRANKENSTEIN as book } from '../support/repo-data.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

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

test(
	'at 80×24, opening a session from the home screen and going back leaves no line of the run screen above the list, and what was printed before booook stays',
	{ skip: noTmux, timeout: 120_000 },
	inTerminal(async (t) => {
		const sessions = join(tempDir('home-back', t), 'sessions');
		await extractiveRun(book, sessions, 'one');
		const line = shellLine([
			'env',
			'-u',
			'BOOOOK_SESSIONS',
			'OPENAI_API_KEY=',
			'ANTHROPIC_API_KEY=',
			'TERM=xterm-256color',
			process.execPath,
			join(root, 'bin/booook.js'),
			'--sessions-dir',
			sessions,
		]);
		const script = `for i in $(seq 1 40); do echo before-$i; done; exec ${line}`;
		const term = await terminal('home-back', shellLine(['sh', '-c', script]), { columns: 80, rows: 24 });
		// Lines only the run screen draws: its progress, its pane's tabs, its keys.
		const runLines = (s: string) =>
			s.split('\n').filter((l) => /calls · chunks| text {2}inputs|space pause/u.test(l));
		const list = (s: string) => s.includes('saved sessions in') && /› one +Frankenstein/u.test(s);
		try {
			await term.waitFor('the list', list);
			// The list is drawn before the app reads keys raw: a key that shows its effect says they are read.
			term.keys('?');
			await term.waitFor('the help', (s) => s.includes('Home (saved sessions)'));
			term.keys('?');
			await term.waitFor('the list again', (s) => list(s) && !s.includes('Home (saved sessions)'));
			for (let round = 1; round <= 2; round++) {
				term.keys('Enter');
				await term.waitFor('the run screen', (s) => runLines(s).length >= 3);
				term.keys('Escape');
				const back = await term.waitFor(
					'the list after the run screen',
					(s) => list(s) && !s.includes('Reading'),
				);
				assert.deepEqual(
					runLines(back),
					[],
					`round ${round}: the run screen's lines stay above the list:\n${back}`,
				);
				assert.deepEqual(
					runLines(term.history()),
					[],
					`round ${round}: the run screen's lines are in the scrollback`,
				);
			}
			term.keys('q');
			await term.waitFor('the app to end', (s) => /EXIT=0/u.test(s));
			const history = term.history().split('\n');
			assert.equal(
				history.filter((l) => /^before-\d+$/u.test(l)).length,
				40,
				'the lines printed before booook',
			);
		} finally {
			term.close();
		}
	}),
);
