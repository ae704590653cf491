import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Annotation, ScoredSummary } from '../../source/domain.ts';
import { Session } from '../../source/store/session.ts';
import { ValidationWalk } from '../../source/app/validation-walk.ts';
import { sentenceSpans } from '../../source/text/sentences.ts';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';

const at = '2026-01-01T00:00:00.000Z';
const text = 'Ann sails. Bob waits. The war ends. Cy runs.';
const summary: ScoredSummary = {
	id: 's0',
	book: 'one.epub',
	text,
	node: null,
	version: null,
	source: 'run',
};
const annotations: Annotation[] = sentenceSpans(text).map((span, sentence) => ({
	id: `a${sentence}`,
	summary: 's0',
	sentence,
	spans: [span],
	confusing: true,
	questions: 'Who?',
	types: ['entity omission'],
	source: 'model',
	annotator: 'openai/m',
	imported: null,
	raw: null,
	failure: null,
	createdAt: at,
}));

test('report and show count one verdict per validator and annotation: a note, or a changed mind, is not another', async (t) => {
	const dir = tempDir('verdict-notes', t);
	await (
		await Session.createCollection(dir, {
			id: 'notes',
			title: 'one book',
			sources: ['test'],
			summaries: [summary],
			annotations,
			judgments: [],
			runs: [],
		})
	).close();
	const session = await Session.open(dir, 'notes');
	const walk = new ValidationWalk(session, 'val', { mode: 'model', seed: 1 }, () => new Date(at));
	await walk.begin();
	const [a0, a1, a2, a3] = walk.items;
	// A note right after its verdict, as `m` writes it: the verdict again, with the note.
	await walk.judge(a0!.id, 'agree');
	await walk.judge(a0!.id, 'agree', [], 'clear enough');
	await walk.judge(a1!.id, 'disagree');
	await walk.judge(a1!.id, 'partial', ['D. Other']);
	await walk.judge(a2!.id, 'agree');
	// A note written later on an older verdict.
	await walk.judge(a0!.id, 'agree', [], 'clear enough, on reflection');
	const other = new ValidationWalk(session, 'sam', { mode: 'model', seed: 1 }, () => new Date(at));
	await other.judge(a3!.id, 'disagree');
	await other.judge(a3!.id, 'disagree', [], 'no question here');
	// The walk's undo still takes back the later note alone: a0 keeps its verdict.
	assert.deepEqual(
		(await walk.undo()).map((j) => [j.annotation, j.note]),
		[[a0!.id, 'clear enough, on reflection']],
	);
	await session.close();

	const r = await booook(['report', 'notes', '--sessions-dir', dir, '--json']);
	assert.equal(r.code, 0, r.stderr);
	const report = JSON.parse(r.stdout);
	assert.equal(report.precision.val.model.n, 3);
	assert.equal(report.precision.sam.model.n, 1);
	assert.deepEqual(
		[report.books['one.epub'].judged, report.books['one.epub'].judged_annotations],
		[4, 4],
		'val judged three annotations and sam one',
	);
	const text = await booook(['report', 'notes', '--sessions-dir', dir]);
	assert.match(text.stdout, /n=3 in 1 book\b/u);
	assert.match(text.stdout, /one\.epub +4 +\S+ +— +4\n/);

	const shown = await booook(['show', 'notes', '--sessions-dir', dir, '--json']);
	assert.equal(shown.code, 0, shown.stderr);
	assert.equal(JSON.parse(shown.stdout).judgments, 4);
});
