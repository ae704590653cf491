import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Session } from '../../source/store/session.ts';
import { chunkRanges } from '../../source/format/places.ts';
import { sentencesName } from '../../source/format/places.ts';
import { inputLines, nodeSummary } from '../../source/ui/screens/run/panes.ts';
import { initialView, levelsOf, reduce } from '../../source/ui/state/view.ts';
import { booook } from '../support/cli.ts';
import { defaultReply, startFakeApi } from '../support/fake-api.ts';
import { tinyBookText } from '../support/study-books.ts';
import { tempDir } from '../support/temp.ts';

/**
 * One convention for every number a person reads: positions count from 1 (chunk 3 of 17, level 1
 * holds the chunk summaries, #3, sentence 1), and a stored id (n2, c2) is shown as an id ("node
 * n2"), never beside a number counted another way. A chunk summary that fails is named the same
 * way by the headless failure lines, the run's error (`show`), the run screen's log, tree and panes,
 * and `evidence`.
 */
test('a failed chunk summary is named the same way by the failure lines, show, the tree, its panes and evidence', async (t) => {
	const api = await startFakeApi();
	t.after(() => api.close());
	// One call at a time: the third is refused (400 is not retried), so a chunk past the first fails.
	let answered = 0;
	api.respond = ({ prompt }) => {
		answered += 1;
		if (answered === 2) api.fail({ kind: 'status', status: 400, message: 'refused for this test' });
		// A sentence of what it read, so evidence finds its passage in the book.
		return /In [^.]+ evening \d+\./u.exec(prompt)?.[0] ?? defaultReply(prompt);
	};
	const dir = tempDir('numbering');
	const book = join(dir, 'book.txt');
	writeFileSync(book, tinyBookText(240));
	const sessions = join(dir, 'sessions');
	const env = { OPENAI_API_KEY: 'sk-test' };
	const flags = ['--sessions-dir', sessions, '--headless'];
	const ran = await booook(
		[
			'run',
			book,
			'--session',
			'num',
			'--provider',
			'openai',
			'--base-url',
			api.openaiBaseUrl,
			'--chunk-size',
			'256',
			'--concurrency',
			'1',
			...flags,
		],
		{ env },
	);
	assert.equal(ran.code, 1, ran.stderr);

	const { data, text } = await Session.snapshot(sessions, 'num');
	assert.ok(data.kind === 'book');
	const { run } = data;
	const failed = run.nodes.find((n) => n.status === 'failed')!;
	const chunk = Number(failed.inputs[0]!.slice(1));
	assert.ok(
		failed.kind === 'summarize' && failed.level === 0 && chunk >= 1,
		'a chunk summary past the first, where 0- and 1-based numbers differ',
	);
	const named = `chunk ${chunk + 1} of ${run.chunks.length}`;
	const whole = `node ${failed.id} (summary, level 1 #${failed.index + 1}, ${named})`;

	// Headless: the node's failure and the run's, then `show`, which prints the stored error.
	assert.ok(ran.stderr.includes(`${whole} failed: `), ran.stderr);
	assert.ok(ran.stderr.includes(`run failed: ${whole}: `), ran.stderr);
	const shown = await booook(['show', 'num', '--sessions-dir', sessions]);
	assert.ok(shown.stdout.includes(`status: failed (${whole}: `), shown.stdout);
	assert.match(shown.stdout, /^ {2}level 1 +\d+\/\d+ /mu, 'show counts levels from 1 too');

	// The run screen: the tree's row, the detail line, the inputs pane and the log.
	const view = initialView(run);
	assert.equal(levelsOf(view)[0]!.label, 'L1', 'level 1 holds the chunk summaries');
	const node = view.nodes[failed.id]!;
	const [detail] = nodeSummary(run, view, node);
	assert.ok(
		detail.text.startsWith(`node ${failed.id} · summary · level 1 #${failed.index + 1} · ${named} · failed`),
		detail.text,
	);
	assert.equal(inputLines(run, node, text, 80)[0]!.text, `── ${named} (${run.chunks[chunk]!.tokens} tokens)`);
	const logged = reduce(view, { type: 'node-failed', node: failed.id, error: 'refused' }, { now: 0 });
	assert.equal(logged.log.at(-1)!.text, `${whole} failed: refused`);

	// Run again to the end: evidence of that node names the same chunk.
	const resumed = await booook(['resume', 'num', ...flags], { env });
	assert.equal(resumed.code, 0, resumed.stderr);
	const evidence = await booook([
		'evidence',
		'num',
		'--node',
		failed.id,
		'--sentence',
		'1',
		'--top',
		'1',
		'--sessions-dir',
		sessions,
	]);
	assert.equal(evidence.code, 0, evidence.stderr);
	assert.ok(
		evidence.stdout.includes(`can come from chunk ${chunk + 1} (written at node ${failed.id})`),
		evidence.stdout,
	);
	assert.ok(evidence.stdout.includes(`(${named}, characters `), evidence.stdout);
	assert.equal(chunkRanges([0, 1, 2, 5]), '1-3, 6');
});

test("a scoring failure names its sentences counted from 1, as the score screen and the walks do, not by the call log's unit id", () => {
	assert.equal(sentencesName('s0', [4]), 'summary s0, sentence 5');
	assert.equal(sentencesName('s1', [0, 1, 2]), 'summary s1, sentences 1, 2, 3');
});
