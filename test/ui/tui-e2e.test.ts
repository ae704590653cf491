import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printed } from '../support/cli.ts';
import { startFakeApi, annotatingReply } from '../support/fake-api.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/**
 * The app in a real terminal: tmux runs `booook run` against the local fake API, and the test
 * types keys and reads the screen. A run streams, is paused, a node is edited in $EDITOR, the app
 * quits (exit 130, resume command printed), `booook resume` continues to the end, a node is re-run,
 * and the app quits with 0.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));

test(
	'a run in tmux: streams, pauses, edits in $EDITOR, quits, resumes, finishes, re-runs a node',
	{ skip: noTmux, timeout: 240_000 },
	inTerminal(async () => {
		const api = await startFakeApi({ latencyMs: 150, chunkDelayMs: 15, respond: annotatingReply });
		const sessions = tempDir('e2e');
		// $EDITOR prefixes the text it is given, so an edit made through it can be recognized.
		// CI (set by CI systems) would make Ink print only the last frame.
		const env = [
			'env',
			'-u',
			'CI',
			'-u',
			'CONTINUOUS_INTEGRATION',
			`OPENAI_API_KEY=e2e`,
			`BOOOOK_SESSIONS=${sessions}`,
			`EDITOR=sed -i s/^/EDITED_/`,
			'TERM=xterm-256color',
		];
		const booook = (...args: string[]) =>
			shellLine([...env, process.execPath, join(root, 'bin/booook.js'), ...args]);
		const book = FRANKENSTEIN;
		const run = booook(
			'run',
			book,
			'--provider',
			'openai',
			'--model',
			'gpt-4o-mini',
			'--base-url',
			api.openaiBaseUrl,
			'--method',
			'hier',
			'--chunk-size',
			'1024',
			'--max-summary',
			'300',
			'--context-window',
			'2048',
			'--session',
			'e2e',
		);
		const resume = booook('resume', 'e2e', '--base-url', api.openaiBaseUrl);
		// The fake API is closed whatever happens, also when no terminal can be had.
		const term = await terminal('e2e', `${run}; echo "EXIT=$?"; ${resume}; echo "EXIT2=$?"`).catch(
			async (error: unknown) => {
				await api.close();
				throw error;
			},
		);
		const { keys, history } = term;
		const waitFor = term.waitFor;
		try {
			await waitFor('text streaming', (s) => s.includes('▶ running') && /This is reply/u.test(s));
			keys('Space');
			await waitFor('paused', (s) => s.includes('paused'));
			keys('Left');
			await waitFor('a finished node selected', (s) => /· done · version 1 of 1/u.test(s));
			keys('e');
			// The message and the node's new version count can land in different frames: wait for both.
			let s = await waitFor(
				'the edit saved',
				(x) => x.includes('Saved as a new version') && /version 2 of 2 \(edited\)/u.test(x),
			);
			assert.match(s, /EDITED_This is reply/u);
			keys('q');
			s = await waitFor('the first run to end', (x) => /EXIT=\d+/u.test(x));
			assert.match(s, /EXIT=130/u);
			assert.ok(s.includes(`Continue with: ${printed('resume e2e')}`), s);
			// `booook resume` opens the run screen again and runs to the end.
			s = await waitFor('the resumed run to finish', (x) => x.includes('✓ done'), 180_000);
			keys('f');
			keys('r');
			await waitFor('the re-run', (x) => x.includes('will be made again'));
			// Following the run selects the final summary: its new version is the re-run's.
			s = await waitFor('done again', (x) => x.includes('✓ done') && x.includes('version 2 of 2'), 60_000);
			// The final summary is printed above the live area, in the terminal's scrollback.
			assert.match(history(), /Final summary/u);
			// b: BooookScore of the final summary, sentence by sentence, against the same fake API.
			keys('b');
			s = await waitFor('every sentence annotated', (x) => {
				const m = /BooookScore · .* · (\d+)\/(\d+) sentences · (\d+\.\d)/u.exec(x);
				// The whole frame, not one caught mid-redraw: the legend is drawn below the summary.
				return m !== null && m[1] === m[2] && /✓ clear {2}✗ confusing/u.test(x);
			});
			keys('Escape');
			await waitFor('back on the run screen', (x) => x.includes('✓ done'));
			keys('q');
			s = await waitFor('the app to end', (x) => /EXIT2=\d+/u.test(x));
			assert.match(s, /EXIT2=0/u);
			const saved = JSON.parse(readFileSync(join(sessions, 'e2e', 'session.json'), 'utf8'));
			assert.equal(saved.run.status, 'done');
			assert.equal(saved.summaries.length, 1, 'the scored summary is pinned');
			assert.equal(
				saved.annotations.filter((a: { source: string }) => a.source === 'model').length > 0,
				true,
			);
			assert.ok(
				saved.run.nodes.some((n: { versions: { origin: string; text: string }[] }) =>
					n.versions.some((v) => v.origin === 'edit' && v.text.startsWith('EDITED_')),
				),
				'the edit is in the session',
			);
		} finally {
			term.close();
			await api.close();
		}
	}),
);
