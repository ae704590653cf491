import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openScoring } from '../../source/app/score-session.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { FRANKENSTEIN as book } from '../support/repo-data.ts';
import { tempDir } from '../support/temp.ts';
import { commandLine, say } from '../../source/program.ts';

const entry = (customId: string, batch: string) =>
	`${JSON.stringify({ customId, batch, hash: 'h', provider: 'openai', model: 'gpt-4o-mini', at: '2026-01-01T00:00:00.000Z' })}\n`;
const env = { OPENAI_API_KEY: 'sk-test' };

test('scoring a saved session: batches still out are a structured refusal that changes nothing; abandoned, it opens with the annotator of the missing verdicts and tells of lost saves', async (t) => {
	const dir = tempDir('score-session', t);
	await extractiveRun(book, dir, 'a');
	writeFileSync(join(dir, 'a', 'batches.jsonl'), entry('a-n0-v0-a0', 'b1'));
	const state = readFileSync(join(dir, 'a', 'session.json'), 'utf8');
	const noWarning = () => assert.fail('no lost-work warning was expected');

	const refused = await openScoring(dir, { id: 'a' }, { env }, { lostWork: noWarning });
	assert.deepEqual(refused, {
		kind: 'refused',
		reason: { kind: 'batches', id: 'a', requests: 1, batches: ['b1'] },
	});
	assert.equal(readFileSync(join(dir, 'a', 'session.json'), 'utf8'), state, 'the refusal changed nothing');

	// A call logged for a node the state lacks: saves were lost.
	const calls = join(dir, 'a', 'calls.jsonl');
	const last = readFileSync(calls, 'utf8').trim().split('\n').at(-1)!;
	appendFileSync(calls, `${last.replace(/"node":"n\d+"/u, '"node":"n999"')}\n`);
	const warnings: string[] = [];
	const started = await openScoring(
		dir,
		{ id: 'a' },
		{ env, abandonBatches: true },
		{ lostWork: (warning) => warnings.push(say(warning, 'booook')) },
	);
	assert.equal(started.kind, 'ready');
	if (started.kind !== 'ready') return;
	const { scoring } = started;
	try {
		assert.equal(warnings.length, 1);
		assert.match(warnings[0]!, /^session "a" lost saved work/u);
		assert.equal(scoring.created, null);
		assert.ok(scoring.annotator, 'the final summary has no verdicts: an annotator asks for them');
		assert.match(commandLine('booook', scoring.again), /score a\b/u);
		// Nothing annotated yet: every sentence is missing, and the score has none to count.
		const result = scoring.result();
		assert.ok(result.score.missing > 0);
		assert.equal(result.figures.sentences, 0);
		assert.equal(result.figures.distribution.length, Object.keys(result.figures.types).length);
	} finally {
		await scoring.close();
	}
});
