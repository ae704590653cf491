import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { waitFor } from '../support/wait.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

/** Copies of the final summary's title line in the pane's scrollback and screen. */
const copies = (history: string) =>
	history.split('\n').filter((line) => line.includes('━━ Final summary')).length;

test(
	'in a real terminal, the final summary is printed once: closing the scoring question, the validation walk or $EDITOR prints no copy',
	{ skip: noTmux, timeout: 120_000 },
	inTerminal(async () => {
		const dir = tempDir('final-e2e');
		// No API key: b on the extractive baseline asks for a model and says why it cannot score. $EDITOR changes nothing.
		const env = [
			'env',
			'-u',
			'OPENAI_API_KEY',
			'-u',
			'ANTHROPIC_API_KEY',
			'EDITOR=true',
			'TERM=xterm-256color',
		];
		const run = shellLine([
			...env,
			process.execPath,
			BIN,
			'run',
			BOOK,
			'--provider',
			'extractive',
			'--chunk-size',
			'4096',
			'--sessions-dir',
			dir,
			'--session',
			'final',
		]);
		const term = await terminal('final', run, { columns: 100, rows: 30 });
		try {
			await term.waitFor('the run to finish', (s) => s.includes('✓ done') && s.includes('printed above'));
			// The summary goes above in the frame after the live area says so (the app's one <Static> is
			// given it once that frame is committed), a frame later under load.
			await waitFor('the summary in the scrollback', () => copies(term.history()) > 0, {
				ms: 30_000,
				every: 100,
			});
			assert.equal(copies(term.history()), 1, 'the finished run printed its summary once');
			// b asks which model scores the baseline's summary; with no key for OpenAI's API it is refused there.
			term.keys('b');
			await term.waitFor('the question', (s) => s.includes('which model annotates'));
			term.keys('Enter');
			await term.waitFor('the refusal', (s) => /needs OPENAI_API_KEY/u.test(s));
			term.keys('Escape');
			await term.waitFor('back on the run', (s) => s.includes('✓ done') && s.includes('printed above'));
			assert.equal(copies(term.history()), 1, 'closing the question printed no copy');
			term.keys('V');
			await term.waitFor('the validation walk', (s) => !s.includes('printed above'));
			term.keys('Escape');
			await term.waitFor('back on the run', (s) => s.includes('✓ done') && s.includes('printed above'));
			assert.equal(copies(term.history()), 1, 'closing the validation walk printed no copy');
			term.keys('e');
			await term.waitFor('the editor to come back', (s) => s.includes('No change: nothing saved.'));
			assert.equal(copies(term.history()), 1, 'coming back from $EDITOR printed no copy');
			term.keys('q');
			await term.waitFor('the app to end', (s) => /EXIT=\d+/u.test(s));
			assert.equal(copies(term.history()), 1, 'quitting printed no copy');
		} finally {
			term.close();
		}
	}),
);
