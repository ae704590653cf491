import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSession } from '../../source/app/open-session.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { FRANKENSTEIN as book } from '../support/repo-data.ts';
import { tempDir } from '../support/temp.ts';
import { say } from '../../source/program.ts';

const entry = (customId: string, batch: string) =>
	`${JSON.stringify({ customId, batch, hash: 'h', provider: 'openai', model: 'gpt-4o-mini', at: '2026-01-01T00:00:00.000Z' })}\n`;
const noWarning = () => assert.fail('no lost-work warning was expected');

test('opening a session: batches still out are a structured refusal that changes nothing, unless abandoned; a lost-work warning is asked about before it opens, and declining leaves it closed', async (t) => {
	const dir = tempDir('open-session', t);
	await extractiveRun(book, dir, 'a');
	writeFileSync(
		join(dir, 'a', 'batches.jsonl'),
		entry('a-n0-v0-a0', 'b1') + entry('a-n1-v0-a0', 'b2') + entry('a-n2-v0-a0', 'b1'),
	);
	const state = readFileSync(join(dir, 'a', 'session.json'), 'utf8');

	const refused = await openSession(dir, 'a', {}, { lostWork: noWarning });
	assert.deepEqual(refused, {
		kind: 'refused',
		reason: { kind: 'batches', id: 'a', requests: 3, batches: ['b1', 'b2'] },
	});
	assert.equal(readFileSync(join(dir, 'a', 'session.json'), 'utf8'), state, 'the refusal changed nothing');

	const abandoned = await openSession(dir, 'a', { abandonBatches: true }, { lostWork: noWarning });
	assert.equal(abandoned.kind, 'opened');
	if (abandoned.kind === 'opened') {
		assert.equal(abandoned.opened.finished, true);
		const run = await abandoned.opened.prepare();
		assert.equal(run.prepared.provider.name, 'extractive');
		assert.equal(run.engine().run.status, 'done');
		await abandoned.opened.close();
	}

	// A call logged for a node the state lacks: saves were lost.
	const calls = join(dir, 'a', 'calls.jsonl');
	const last = readFileSync(calls, 'utf8').trim().split('\n').at(-1)!;
	appendFileSync(calls, `${last.replace(/"node":"n\d+"/u, '"node":"n999"')}\n`);
	const warnings: string[] = [];
	const declined = await openSession(
		dir,
		'a',
		{ abandonBatches: true },
		{
			lostWork: (warning) => {
				warnings.push(say(warning, 'booook'));
				return false;
			},
		},
	);
	assert.deepEqual(declined, { kind: 'declined' });
	assert.equal(warnings.length, 1);
	assert.match(warnings[0]!, /^session "a" lost saved work: calls\.jsonl holds 1 call for work missing/u);
	// Declining closed it: it opens again (its lock was released).
	const again = await openSession(dir, 'a', { abandonBatches: true }, { lostWork: () => true });
	assert.equal(again.kind, 'opened');
	if (again.kind === 'opened') await again.opened.close();
});
