import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, importedStudy } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';

test(
	"the home screen's V walks the session's annotations and comes back to the list with the walk's line above it; C on a session it cannot compare says why on the list",
	{ skip: noTmux, timeout: 180_000 },
	inTerminal(async () => {
		const dir = tempDir('home-walks');
		await importedStudy(dir);
		const line = shellLine(['env', 'TERM=xterm-256color', process.execPath, BIN, '--sessions-dir', dir]);
		const term = await terminal('home-walks', line, { columns: 250, rows: 32 });
		const list = (s: string) => s.includes('saved sessions in') && s.includes('study');
		try {
			await term.waitFor('the home screen', list);
			// A key that shows its effect says the keys are read raw (one typed before that is lost).
			term.keys('?');
			await term.waitFor('the help', (s) => s.includes('Home (saved sessions)'));
			term.keys('?');
			await term.waitFor('the list', list);
			term.keys('V');
			await term.waitFor('the validation walk', (s) => /annotation 1\/\d+/u.test(s));
			term.keys('q');
			const back = await term.waitFor(
				'the list again, the walk said above it',
				(s) => list(s) && /judged, all saved/u.test(s),
			);
			assert.match(
				back,
				/: 0\/\d+ judged, all saved\. Continue with: .*validate study --mode blind --seed 2024/u,
			);
			// The list is a new screen: again, a key that shows its effect before the one tested.
			term.keys('?');
			await term.waitFor('the help again', (s) => s.includes('Home (saved sessions)'));
			term.keys('?');
			await term.waitFor('the list', (s) => list(s) && !s.includes('Home (saved sessions)'));
			term.keys('C');
			const refused = await term.waitFor('why it cannot be compared, on the list', (s) =>
				/is not a finished run; choose a finished session to compare/u.test(s),
			);
			assert.ok(list(refused), refused);
			term.keys('q');
			const s = await term.waitFor('the app to end', (x) => /EXIT=\d+/u.test(x));
			assert.match(s, /EXIT=0/u);
		} finally {
			term.close();
		}
	}),
);
