import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const noNpm = spawnSync('npm', ['--version']).status === 0 ? false : 'npm is not on the PATH';

/**
 * The README's own start command, `npm start -- BOOK`, in a real terminal: npm hands its scripts
 * EDITOR=vi when the user set no editor, and `e` must still open the in-app editor.
 */
test(
	"under npm start with no editor of the user set, e opens the in-app editor, not npm's vi",
	{ skip: noTmux || noNpm, timeout: 120_000 },
	inTerminal(async () => {
		const dir = tempDir('npm-start-e2e');
		const start = shellLine([
			'env',
			'-u',
			'EDITOR',
			'-u',
			'VISUAL',
			'-u',
			'BOOOOK_EDITOR',
			'TERM=xterm-256color',
			'npm',
			'start',
			'--silent',
			'--',
			'run',
			BOOK,
			'--provider',
			'extractive',
			'--chunk-size',
			'4096',
			'--sessions-dir',
			dir,
			'--session',
			'npm',
		]);
		const term = await terminal('npm-start', start, { cwd: ROOT });
		try {
			await term.waitFor('the run to finish', (s) => s.includes('✓ done'));
			term.keys('e');
			await term.waitFor('the in-app editor', (s) => s.includes('ctrl-s save as a new version'));
			term.keys('Escape');
			await term.waitFor('the edit cancelled', (s) => s.includes('Edit cancelled'));
			term.keys('q');
			await term.waitFor('the app to end', (s) => /EXIT=0/u.test(s));
		} finally {
			term.close();
		}
	}),
);
