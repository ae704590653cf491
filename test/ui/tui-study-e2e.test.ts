import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN } from '../support/cli.ts';
import { tinyStudy } from '../support/study-books.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';

test(
	'in an 80×24 terminal, booook study shows its 18 cells in a scrolling list, the results when done, and prints them on q',
	{ skip: noTmux, timeout: 180_000 },
	inTerminal(async () => {
		const { file, sessions } = await tinyStudy('e2e', ['ann', 'bob', 'cid'], {
			methods: ['hier', 'inc'],
			chunkSizes: [512, 768, 1024],
			concurrency: 2,
		});
		const term = await terminal(
			'study',
			shellLine([
				'env',
				'TERM=xterm-256color',
				process.execPath,
				BIN,
				'study',
				file,
				'--sessions-dir',
				sessions,
			]),
			{ columns: 80, rows: 24 },
		);
		try {
			const done = await term.waitFor(
				'the study to end',
				(s) =>
					s.includes('✓ done') &&
					s.includes('Every cell is done') &&
					/^Results$/mu.test(s) &&
					/^method\s+chunk\s+words/mu.test(s),
			);
			const lines = done.trimEnd().split('\n');
			assert.ok(lines.length <= 24);
			assert.match(lines[0]!, /^booook study e2e · 18\/18 done/u);
			// More cells than rows: a window of them, and where it stands.
			const rows = lines.filter((l) => /^[› ] ● /u.test(l));
			assert.ok(rows.length >= 3 && rows.length < 18, done);
			assert.match(done, /\(1–\d+ of 18\)/u);
			assert.match(done, /^Results$/mu);
			assert.match(
				done,
				/^method\s+chunk\s+words \(mean\)\s+calls$/mu,
				'only the columns that differ, so the table fits',
			);
			term.keys('j', 'j', 'j');
			await term.waitFor('the selection to move', (s) => /^› ● ann\s+inc c512/mu.test(s));
			term.keys('q');
			const end = await term.waitFor('the app to end', (s) => /EXIT=\d+/u.test(s));
			assert.match(end, /EXIT=0/u);
			// The table is printed on the way out, laid out for the 80 columns (what every row shares said
			// once above it), and the count of cells done.
			const history = term.history();
			const printed = history.slice(history.lastIndexOf('model: extractive textrank'));
			assert.match(printed, /^method\s+chunk\s+words \(mean\)\s+calls\s/mu);
			assert.ok(
				printed.split('\n').every((l) => l.length <= 80),
				printed,
			);
			assert.match(history, /study e2e: 18\/18 cells done/u);
		} finally {
			term.close();
		}
	}),
);
