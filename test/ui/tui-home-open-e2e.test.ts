import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { booook } from '../support/cli.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { FRANKENSTEIN as book } from '../support/repo-data.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const env = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };

/**
 * The last frame drawn: each screen the home screen leaves stays above the next one, so a check
 * of the whole screen could pass on a frame already left.
 */
const latest = (s: string) => s.slice(s.lastIndexOf('booook · '));

/** The screen's text with its wrapped rows joined: a message long enough to wrap reads as one line. */
const joined = (s: string) => s.replace(/\s+/gu, ' ');

test(
	'the home screen opens a session as resume does: one whose provider batches are awaited is refused with the same reason, and a lost-work warning is asked about before the run screen',
	{ skip: noTmux, timeout: 180_000 },
	inTerminal(async (t) => {
		const sessions = join(tempDir('home-open', t), 'sessions');
		await extractiveRun(book, sessions, 'held');
		await extractiveRun(book, sessions, 'lost');
		// A request a study sent in a provider batch that has not answered it yet.
		writeFileSync(
			join(sessions, 'held', 'batches.jsonl'),
			`${JSON.stringify({ customId: 'held-n0-v0-a0', batch: 'batch_home_1', hash: 'h', provider: 'openai', model: 'gpt-4o-mini', at: new Date().toISOString() })}\n`,
		);
		// A call logged for a node the state does not have: saves were lost.
		const calls = join(sessions, 'lost', 'calls.jsonl');
		const last = readFileSync(calls, 'utf8').trim().split('\n').at(-1)!;
		appendFileSync(calls, `${last.replace(/"node":"n\d+"/u, '"node":"n999"')}\n`);

		const reason =
			'session held has 1 request still out in provider batch batch_home_1; run its study again to wait for them';
		const resumed = await booook(['resume', 'held', '--headless', '--sessions-dir', sessions], { env });
		assert.equal(resumed.code, 2, resumed.stderr);
		assert.ok(resumed.stderr.includes(`${reason}, or add --abandon-batches`), resumed.stderr);
		const state = readFileSync(join(sessions, 'held', 'session.json'), 'utf8');

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
		const term = await terminal('home-open', line, { columns: 100, rows: 30 });
		const list = (screen: string) => {
			const s = latest(screen);
			return s.includes('saved sessions in') && s.includes('held') && s.includes('lost');
		};
		const runScreen = (s: string) =>
			latest(s).startsWith('booook · ') && !latest(s).includes('saved sessions in');
		const question = (s: string) => list(s) && joined(latest(s)).includes('all the same? y yes · n no');
		// The list is drawn before the app reads keys raw: a key that shows its effect says they are read.
		const listening = async () => {
			term.keys('?');
			await term.waitFor('the help', (s) => s.includes('Home (saved sessions)'));
			term.keys('?');
			await term.waitFor('the list', list);
		};
		const choose = async (id: string, key: string) => {
			term.type(`/${id}`);
			await term.waitFor(`the list filtered to ${id}`, (s) => latest(s).includes(`/${id}`));
			term.keys('Enter');
			term.keys(key);
		};
		try {
			await term.waitFor('the home screen', list);
			await listening();
			await choose('held', 'Enter');
			const refused = await term.waitFor(
				'the refusal on the list',
				(s) => list(s) && joined(latest(s)).includes('--abandon-batches'),
			);
			assert.ok(list(refused) && !runScreen(refused), refused);
			assert.ok(joined(latest(refused)).includes(`${reason}, or continue it with`), refused);
			assert.equal(
				readFileSync(join(sessions, 'held', 'session.json'), 'utf8'),
				state,
				'the refusal changed nothing',
			);

			// The list is drawn anew after each choice: its keys are read again once it listens.
			await listening();
			await choose('lost', 'Enter');
			let asked = await term.waitFor('the lost-work question', question);
			assert.ok(!runScreen(asked), asked);
			assert.match(
				joined(latest(asked)),
				/warning: session "lost" lost saved work: calls\.jsonl holds 1 call for work missing/u,
			);
			term.keys('n');
			await term.waitFor('the list again, nothing opened', (s) => list(s) && !question(s));

			await listening();
			await choose('lost', 'r');
			asked = await term.waitFor('the question again, for r', question);
			assert.ok(!runScreen(asked), asked);
			term.keys('y');
			await term.waitFor('the run screen of the session', runScreen);
			term.keys('q');
			await term.waitFor('the list after the run screen', list);
			term.keys('q');
			const s = await term.waitFor('the app to end', (x) => /EXIT=\d+/u.test(x));
			assert.match(s, /EXIT=0/u);
		} finally {
			term.close();
		}
	}),
);
