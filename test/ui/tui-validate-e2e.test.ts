import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../../source/store/session.ts';
import { BIN, booook, importedStudy } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal, type Terminal } from '../support/tmux.ts';

async function waitFor(term: Terminal, pattern: RegExp, what: string): Promise<string> {
	return term.waitFor(what, (screen) => pattern.test(screen), 30_000);
}

/** Presses a key and waits until the screen has changed (each verdict is saved before the next key). */
async function press(term: Terminal, key: string): Promise<void> {
	const before = term.screen();
	term.keys(key);
	for (let i = 0; i < 100 && term.screen() === before; i++) await new Promise((r) => setTimeout(r, 50));
}

/** The walk in its own terminal; the shell stays after the app exits, so the exit line can be read from the pane. */
function start(name: string, dir: string): Promise<Terminal> {
	const command = shellLine([
		process.execPath,
		BIN,
		'validate',
		'study',
		'--sessions-dir',
		dir,
		'--validator',
		'e2e',
		'--mode',
		'sample',
		'--fraction',
		'0.005',
		'--seed',
		'7',
	]);
	return terminal(name, command, { columns: 110, rows: 32 });
}

test(
	'validate in a real terminal: judge some, quit, come back, finish, and report',
	{ skip: noTmux, timeout: 240_000 },
	inTerminal(async () => {
		const dir = tempDir('validate-e2e');
		await importedStudy(dir);

		const note = 'quit? no: a partial undo, a handy note!!';
		assert.equal(note.length, 40);
		let term = await start('validate', dir);
		let total: number;
		try {
			const first = await waitFor(term, /annotation 1\/(\d+)/u, 'the first annotation');
			total = Number(/annotation 1\/(\d+)/u.exec(first)![1]);
			assert.equal(total, Math.round(1437 * 0.005));
			await press(term, 'a');
			await press(term, 'd');
			await waitFor(term, /annotation 3\//u, 'the walk to move on');
			term.keys('q');
			const quit = await waitFor(term, /EXIT=0/u, 'the app to quit');
			assert.match(quit, new RegExp(`e2e: 2/${total} judged, all saved`, 'u'));
		} finally {
			term.close();
		}

		term = await start('validate-again', dir);
		try {
			// The walk reopens where it was left: at its first unjudged item, the two verdicts from before kept.
			await waitFor(term, /annotation 3\//u, 'the walk to reopen at its first unjudged item');
			// Back to the first item, and a note typed as fast as tmux sends it, keys of the walk's own among its letters.
			await press(term, 'Left');
			await press(term, 'Left');
			await waitFor(term, /annotation 1\/.*\n(?:.*\n)*.*your verdict: agree/u, 'the first item again');
			term.keys('m', note, 'Enter');
			await waitFor(term, /note saved/u, 'the note to be saved');
			await press(term, 'n');
			await waitFor(term, /annotation 3\//u, 'n to reach the first unjudged item');
			for (let i = 2; i < total; i++) await press(term, 'a');
			await waitFor(term, /model \d+\/\d+ .*human \d+\/\d+|human \d+\/\d+|model \d+\/\d+/u, 'progress');
			term.keys('q');
			const quit = await waitFor(term, /EXIT=0/u, 'the app to quit');
			assert.match(quit, new RegExp(`e2e: ${total}/${total} judged`, 'u'));
		} finally {
			term.close();
		}
		const { data } = await Session.snapshot(dir, 'study');
		assert.deepEqual(
			data.judgments.filter((j) => j.validator === 'e2e' && j.note !== null).map((j) => [j.verdict, j.note]),
			[['agree', note]],
		);

		const report = JSON.parse((await booook(['report', 'study', '--sessions-dir', dir, '--json'])).stdout);
		const mine = report.precision.e2e;
		const judged = (mine.human?.n ?? 0) + (mine.model?.n ?? 0);
		assert.equal(judged, total);
		const disagreed = (mine.human?.disagree ?? 0) + (mine.model?.disagree ?? 0);
		assert.equal(disagreed, 1);
		const pair = report.agreement.pairs.find((p: { validators: string[] }) => p.validators.includes('e2e'));
		assert.equal(pair.n, total, 'agreement with the released verdicts over the items both judged');
	}),
);
