import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../../source/store/session.ts';
import type { BookSessionData } from '../../source/store/schema.ts';
import { BIN } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

test(
	'in a real terminal, an edit typed and saved as fast as tmux sends it is saved exactly',
	{ skip: noTmux, timeout: 120_000 },
	inTerminal(async () => {
		const dir = tempDir('typing-e2e');
		// No $EDITOR: the in-app editor opens.
		const run = shellLine([
			'env',
			'-u',
			'EDITOR',
			'-u',
			'VISUAL',
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
			'--session',
			'typing',
		]);
		const term = await terminal('typing', run);
		try {
			await term.waitFor('the run to finish', (s) => s.includes('✓ done'));
			const typed = ' A forty-character edit, typed at once!!';
			assert.equal(typed.length, 40);
			// The key that opens the editor, the text and the ctrl-s that saves it, in one burst.
			term.keys('e', typed, 'C-s');
			await term.waitFor('the edit saved', (s) => s.includes('Saved as a new version'));
			term.keys('q');
			await term.waitFor('the app to end', (s) => /EXIT=\d+/u.test(s));
			const data = (await Session.snapshot(dir, 'typing')).data as BookSessionData;
			const edited = data.run.nodes.filter((n) => n.versions.some((v) => v.origin === 'edit'));
			assert.equal(edited.length, 1, 'one node was edited');
			const [model, edit] = edited[0]!.versions;
			assert.equal(
				edit!.text,
				model!.text + typed,
				'the typed text is appended where the cursor opens (the end), every character in order',
			);
		} finally {
			term.close();
		}
	}),
);
