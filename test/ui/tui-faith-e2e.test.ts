import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from '../../source/store/session.ts';
import { BIN } from '../support/cli.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { tempDir } from '../support/temp.ts';
import { inTerminal, noTmux, shellLine, terminal } from '../support/tmux.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

test(
	'a faithfulness walk in a real terminal: evidence beside each sentence, verdicts and a note saved, then reported',
	{ skip: noTmux, timeout: 120_000 },
	inTerminal(async () => {
		const dir = tempDir('faith-e2e');
		await extractiveRun(BOOK, dir, 'frank');
		const walk = shellLine([
			'env',
			'TERM=xterm-256color',
			process.execPath,
			BIN,
			'validate',
			'frank',
			'--mode',
			'faithfulness',
			'--validator',
			'ann',
			'--sessions-dir',
			dir,
		]);
		const report = shellLine([process.execPath, BIN, 'report', 'frank', '--sessions-dir', dir]);
		const term = await terminal('faithfulness', `${walk}; ${report}`, { columns: 110, rows: 34 });
		try {
			let s = await term.waitFor(
				'the first sentence and its evidence',
				(x) => /sentence 1\/\d+/u.test(x) && x.includes('evidence from the book:'),
			);
			const total = Number(/sentence 1\/(\d+)/u.exec(s)![1]);
			// An extractive summary copies the book: its first passage holds the sentence word for word.
			assert.match(s, /chunk \d+ of \d+, \d+% into the book, word for word/u);
			term.keys('f');
			await term.waitFor('the second sentence', (x) => x.includes(`sentence 2/${total}`));
			// A verdict, then a note typed in one burst as fast as tmux sends it.
			term.keys('x');
			await term.waitFor('the third sentence', (x) => x.includes(`sentence 3/${total}`));
			term.keys('c');
			await term.waitFor('the fourth sentence', (x) => x.includes(`sentence 4/${total}`));
			// Back to the third, and a note on its verdict, in one burst.
			term.keys('Left', 'm', 'dates disagree with letter four', 'Enter');
			await term.waitFor('the note saved', (x) => x.includes('note saved'));
			term.keys('q');
			s = await term.waitFor(
				'the report',
				(x) => /EXIT=\d+/u.test(x) && x.includes('faithfulness (LongEval: '),
			);
			assert.match(
				s,
				/ann \(human\), sentences: 33\.3% \[[\d.]+, [\d.]+\] faithful, 0\.0% partial/u,
				"one faithful, one unfaithful, one can't tell: the faithful share of all three",
			);
			const { data } = await Session.snapshot(dir, 'frank');
			// Verdicts are appended, never overwritten: the latest on each sentence is the one that counts.
			const latest = new Map(
				(data.faithfulness ?? []).filter((v) => v.validator === 'ann').map((v) => [v.sentence, v]),
			);
			const mine = [...latest.values()].sort((a, b) => a.sentence - b.sentence);
			assert.deepEqual(
				mine.map((v) => [v.sentence, v.label]),
				[
					[0, 'faithful'],
					[1, 'unfaithful'],
					[2, 'unsure'],
				],
			);
			assert.equal(mine[2]!.note, 'dates disagree with letter four', 'the note is saved exactly');
		} finally {
			term.close();
		}
	}),
);
