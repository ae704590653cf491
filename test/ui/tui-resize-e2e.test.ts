import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

/** The lines the shell printed before booook started, still in the pane's scrollback. */
const kept = (history: string) => history.split('\n').filter((line) => /^before-\d+$/u.test(line)).length;

test(
	'in a real terminal, resizing the run screen (narrower and shorter, then back) keeps the lines printed before it in the scrollback',
	{ skip: noTmux, timeout: 120_000 },
	inTerminal(async () => {
		const dir = tempDir('resize-e2e');
		const run = shellLine([
			'env',
			'TERM=xterm-256color',
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
			'--step',
		]);
		const script = `for i in $(seq 1 40); do echo before-$i; done; exec ${run}`;
		const term = await terminal('resize', shellLine(['sh', '-c', script]), {
			columns: 80,
			rows: 24,
		});
		try {
			await term.waitFor('the run screen, stepping', (s) => s.includes('stepping'));
			assert.equal(kept(term.history()), 40, 'the lines before the app are in the scrollback');
			for (const [columns, rows] of [
				[60, 16],
				[70, 20],
				[80, 24],
			] as const) {
				term.resize(columns, rows);
				await term.waitFor(`the run screen at ${columns}×${rows}`, (s) => {
					const lines = s.split('\n');
					return s.includes('stepping') && lines.every((l) => l.length <= columns);
				});
			}
			term.keys('q');
			await term.waitFor('the app to end', (s) => /EXIT=\d+/u.test(s));
			assert.equal(kept(term.history()), 40, 'every line printed before the app is still in the scrollback');
		} finally {
			term.close();
		}
	}),
);
