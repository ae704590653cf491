import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { Annotation, ScoredSummary } from '../../source/domain.ts';
import { precisionCommand } from '../../source/commands/precision.ts';
import { reportCommand } from '../../source/commands/report.ts';
import { Session } from '../../source/store/session.ts';
import { ValidationWalk } from '../../source/app/validation-walk.ts';
import { sentenceSpans } from '../../source/text/sentences.ts';
import { tempDir } from '../support/temp.ts';

const at = '2026-01-01T00:00:00.000Z';
const texts = ['Ann sails. Bob waits. The war ends.', 'Cy runs. Di hides. Ed laughs.'];
const summaries: ScoredSummary[] = texts.map((text, i) => ({
	id: `s${i}`,
	book: `b${i}.epub`,
	text,
	node: null,
	version: null,
	source: 'run',
}));
let n = 0;
function annotation(summary: number, sentence: number, source: 'model' | 'human'): Annotation {
	const span = sentenceSpans(texts[summary]!)[sentence]!;
	// As in the released study: the people's single spans carry no types, the model's do.
	return {
		id: `a${n++}`,
		summary: `s${summary}`,
		sentence,
		spans: [span],
		confusing: true,
		questions: 'Who?',
		types: source === 'model' ? ['entity omission'] : [],
		source,
		annotator: source === 'model' ? 'openai/m' : 'pat',
		imported: null,
		raw: null,
		failure: null,
		createdAt: at,
	};
}
const annotations = [
	annotation(0, 0, 'model'),
	annotation(0, 1, 'human'),
	annotation(1, 0, 'model'),
	annotation(1, 2, 'human'),
];

/** What a command prints, as text. */
async function printed(run: (stdout: PassThrough) => Promise<number>): Promise<string> {
	const stdout = new PassThrough();
	let text = '';
	stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
	assert.equal(await run(stdout), 0);
	return text;
}

test('report and precision run during a blind walk pool the validator’s precision until the walk is done', async (t) => {
	const dir = tempDir('blind-report');
	await (
		await Session.createCollection(dir, {
			id: 'walk',
			title: 'two books',
			sources: ['test'],
			summaries,
			annotations,
			judgments: [],
			runs: [],
		})
	).close();
	const session = await Session.open(dir, 'walk');
	t.after(() => session.close());
	const walk = new ValidationWalk(session, 'val', { mode: 'blind', seed: 3 }, () => new Date(at));
	await walk.begin();
	// A model walk by someone else hides nothing of theirs.
	const other = new ValidationWalk(session, 'sam', { mode: 'model', seed: 3 }, () => new Date(at));
	await other.begin();
	for (const a of other.items) await other.judge(a.id, 'agree');
	// Three of four judged.
	const [first, second, third, fourth] = walk.items;
	await walk.judge(first!.id, 'agree');
	await walk.judge(second!.id, 'agree');
	await walk.judge(third!.id, 'disagree');

	const report = (json: boolean) =>
		printed((stdout) =>
			reportCommand(dir, 'walk', { json, seed: 1, resamples: 50, program: 'booook', stdout }),
		);
	const precision = (json: boolean, validator = 'val') =>
		printed((stdout) =>
			precisionCommand({ id: 'walk', sessionsDir: dir, validator, json, seed: 1, resamples: 50, stdout }),
		);

	const text = await report(false);
	assert.match(
		text,
		/precision, judged by val \(blind walk, 3\/4 judged: both sources pooled until it is done\)\n {2}pooled +66\.7% [^\n]*\n(?! {2}(model|human))/u,
	);
	assert.match(
		text,
		/precision, judged by sam\n {2}model +100\.0%/u,
		'a walk by source is reported by source',
	);
	const json = JSON.parse(await report(true));
	assert.deepEqual(Object.keys(json.precision.val), ['pooled']);
	assert.equal(json.precision.val.pooled.n, 3);
	assert.deepEqual(json.blind, { val: { judged: 3, total: 4 } });
	assert.deepEqual(Object.keys(json.precision.sam), ['model']);

	assert.match(
		await precision(false),
		/^verdicts of val in session walk \(blind walk, 3\/4 judged: both sources pooled until it is done\)\npooled +precision 66\.7%/u,
	);
	assert.deepEqual(Object.keys(JSON.parse(await precision(true))), ['pooled']);

	// The walk done, the sources show.
	await walk.judge(fourth!.id, 'agree');
	const done = JSON.parse(await report(true));
	assert.deepEqual(Object.keys(done.precision.val).sort(), ['human', 'model']);
	assert.deepEqual(done.blind, {});
	assert.deepEqual(Object.keys(JSON.parse(await precision(true))).sort(), ['human', 'model']);
	assert.doesNotMatch(await report(false), /blind walk/u);
});

test('a walk is recorded once, and the record survives reopening the session', async () => {
	const dir = tempDir('blind-record');
	await (
		await Session.createCollection(dir, {
			id: 'walk',
			title: 'two books',
			sources: ['test'],
			summaries,
			annotations,
			judgments: [],
			runs: [],
		})
	).close();
	const session = await Session.open(dir, 'walk');
	const walk = new ValidationWalk(session, 'val', { mode: 'blind', seed: 3 }, () => new Date(at));
	await walk.begin();
	await walk.begin();
	await new ValidationWalk(session, 'val', { mode: 'sample', seed: 3 }, () => new Date(at)).begin();
	await session.close();
	const { data } = await Session.snapshot(dir, 'walk');
	assert.deepEqual(data.walks, [
		{ validator: 'val', mode: 'blind', seed: 3, fraction: null, startedAt: at },
		{ validator: 'val', mode: 'sample', seed: 3, fraction: 0.2, startedAt: at },
	]);
});
