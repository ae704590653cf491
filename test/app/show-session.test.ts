import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { showSession } from '../../source/app/show.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { FRANKENSTEIN as book } from '../support/repo-data.ts';
import { tempDir } from '../support/temp.ts';
import { say } from '../../source/program.ts';

test('show tells of saves lost before it read the session, and still shows what is there', async (t) => {
	const dir = tempDir('show-session', t);
	await extractiveRun(book, dir, 'a');
	const warnings: string[] = [];
	const first = await showSession(dir, 'a', { lostWork: (w) => warnings.push(say(w, 'booook')) });
	assert.equal(first.kind, 'book');
	assert.equal(warnings.length, 0, 'nothing was lost');

	// A call logged for a node the state lacks: saves were lost.
	const calls = join(dir, 'a', 'calls.jsonl');
	const last = readFileSync(calls, 'utf8').trim().split('\n').at(-1)!;
	appendFileSync(calls, `${last.replace(/"node":"n\d+"/u, '"node":"n999"')}\n`);
	const second = await showSession(dir, 'a', { lostWork: (w) => warnings.push(say(w, 'booook')) });
	assert.equal(warnings.length, 1);
	assert.match(warnings[0]!, /^session "a" lost saved work/u);
	assert.ok(second.kind === 'book' && second.shown.id === 'a' && second.shown.summary);
});
