import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Book, Node, Run, Version } from '../../source/domain.ts';
import { makeConfig } from '../../source/config.ts';
import { Session, type CallRecord } from '../../source/store/session.ts';
import { tempDir } from '../support/temp.ts';
import { say } from '../../source/program.ts';

/**
 * A journal that loses saves says so, once; the ways a journal legitimately ends or is left over
 * (a kill cutting its last line, a kill between a snapshot and removing the journal it replaced,
 * calls a kill left logged but unsaved) say nothing.
 */

const TEXT =
	'It was a dark and stormy night. The rain fell in torrents.\n\nExcept at occasional intervals.\n';
const AT = '2024-05-01T10:00:00.000Z';
const PARAMS = { temperature: 0.5, maxTokens: 100, words: 50, template: 'hier-init' };

function version(text: string): Version {
	const usage = { input: 40, output: 12, cached: 0 };
	const timings = { start: AT, end: AT, ms: 0 };
	return {
		text,
		origin: 'model',
		template: 'hier-init',
		params: PARAMS,
		usage,
		cost: 0.001,
		attempts: [{ text, finishReason: 'stop', params: PARAMS, usage, cost: 0.001, timings }],
		timings,
		overBudget: false,
		model: 'openai gpt-4o-mini',
		createdAt: AT,
	};
}

function node(id: Node['id'], inputs: Node['inputs'], summary: string | null): Node {
	return {
		id,
		kind: inputs.some((ref) => ref.startsWith('n')) ? 'merge' : 'summarize',
		level: inputs.some((ref) => ref.startsWith('n')) ? 1 : 0,
		index: 0,
		inputs,
		context: null,
		budget: { promptTokens: 1000, summaryTokens: 200, words: 100 },
		status: summary === null ? 'pending' : 'done',
		versions: summary === null ? [] : [version(summary)],
		active: summary === null ? null : 0,
		pending: [],
		meta: {},
	};
}

function call(nodeId: string, version = 0): CallRecord {
	return {
		node: nodeId,
		version,
		attempt: 0,
		provider: 'openai',
		model: 'gpt-4o-mini',
		prompt: `prompt of ${nodeId}`,
		response: 'An answer.',
		finishReason: 'stop',
		params: PARAMS,
		usage: { input: 1, output: 2, cached: 0 },
		cost: 0,
		timings: { start: AT, end: AT, ms: 3 },
	};
}

async function created(dir: string, id: string) {
	const book: Book = {
		title: 'A Stormy Night',
		sha256: createHash('sha256').update(TEXT, 'utf8').digest('hex'),
		source: 'night.txt',
		chars: TEXT.length,
		tokens: 20,
	};
	const run: Run = {
		config: makeConfig({ provider: 'openai', model: 'gpt-4o-mini', method: 'hier', concurrency: 2, seed: 1 }),
		status: 'planned',
		chunks: [{ index: 0, start: 0, end: TEXT.length, tokens: 20 }],
		nodes: [],
		root: null,
		error: null,
	};
	return Session.create(dir, { id, book, text: TEXT, run });
}

/**
 * A run that saved four times to its journal (two chunk summaries planned, made, then a merge
 * planned) and is taken as killed there: session.json is the one written at creation. The test
 * closes it once done with the files, which stands for the next process.
 */
async function killedRun(
	dir: string,
	id: string,
): Promise<{ journal: string; state: string; session: Session }> {
	const session = await created(dir, id);
	await session.addNodes(node('n0', ['c0'], null), node('n1', ['c0'], null));
	for (const n of ['n0', 'n1'] as const) {
		await session.appendCall(call(n));
		const { id: _id, ...done } = node(n, ['c0'], `Summary of ${n}.`);
		await session.updateNode(n, done);
	}
	await session.addNodes(node('n2', ['n0', 'n1'], null));
	return { journal: join(session.path, 'changes.jsonl'), state: join(session.path, 'session.json'), session };
}

/** The lost-work warning of session `id`, as it reads with booook on the PATH; null when nothing was lost. */
const lostWork = async (dir: string, id: string) => {
	const warning = await Session.lostWork(dir, await Session.snapshot(dir, id));
	return warning === null ? null : say(warning, 'booook');
};

test('a journal cut short before its last line, or with no header, warns once, naming the line and what was not read', async () => {
	const dir = tempDir('journal-check');
	const { journal, session } = await killedRun(dir, 'cut');
	const lines = (await readFile(journal, 'utf8')).split('\n');
	await writeFile(journal, [lines[0], lines[1]!.slice(0, 20), ...lines.slice(2)].join('\n'));
	const warning = await lostWork(dir, 'cut');
	assert.match(
		warning ?? '',
		/^session "cut" lost saved work: line 2 of changes\.jsonl is cut short, so the 3 saves after it were not read; booook resume cut/u,
	);
	assert.ok(!warning!.includes('\n'), 'one line');

	await writeFile(journal, ['{"base":', ...lines.slice(1)].join('\n'));
	assert.match(
		(await lostWork(dir, 'cut')) ?? '',
		/changes\.jsonl has no readable first line, so none of its 4 saves were read/u,
	);
	await session.close();
});

test('a journal continuing a later save than session.json (an older copy put back) warns', async () => {
	const dir = tempDir('journal-check');
	const { state, session } = await killedRun(dir, 'older');
	const data = JSON.parse(await readFile(state, 'utf8')) as { updatedAt: string };
	data.updatedAt = '2000-01-01T00:00:00.000Z';
	await writeFile(state, JSON.stringify(data));
	assert.match(
		(await lostWork(dir, 'older')) ?? '',
		/changes\.jsonl continues a later save than session\.json/u,
	);
	await session.close();
});

test('a journal skipped because session.json records a later save warns when it holds what session.json lacks', async () => {
	const dir = tempDir('journal-check');
	const { state, session } = await killedRun(dir, 'skipped');
	const data = JSON.parse(await readFile(state, 'utf8')) as { updatedAt: string };
	data.updatedAt = '2999-01-01T00:00:00.000Z';
	await writeFile(state, JSON.stringify(data));
	assert.match(
		(await lostWork(dir, 'skipped')) ?? '',
		/changes\.jsonl was skipped because session\.json records a later save/u,
	);
	await session.close();
});

test('a deleted journal warns through the calls logged for work the state lacks', async () => {
	const dir = tempDir('journal-check');
	const { journal, session } = await killedRun(dir, 'deleted');
	await rm(journal);
	assert.match(
		(await lostWork(dir, 'deleted')) ?? '',
		/calls\.jsonl holds 2 calls for work missing from session\.json and changes\.jsonl \(was changes\.jsonl deleted\?\); booook resume deleted .*reuses the answers in calls\.jsonl instead of buying them again/u,
	);
	await session.close();
});

test('what a kill leaves says nothing: calls logged but not saved, a last line cut short, a journal left by the snapshot after it', async () => {
	const dir = tempDir('journal-check');
	const { journal, session } = await killedRun(dir, 'kill');
	// n2 reads n0 and n1, both done: its call was logged, then the process died before saving it.
	await session.appendCall(call('n2'));
	// And a call for n0's next version (a re-run), whose version 0 is saved.
	await session.appendCall(call('n0', 1));
	assert.equal(await lostWork(dir, 'kill'), null, 'calls logged but not saved');
	const whole = await readFile(journal, 'utf8');
	await appendFile(journal, '{"at":"2024-05-01T10:00:00.000Z","nodes":[{"id":"n2","ki');
	assert.equal(await lostWork(dir, 'kill'), null, 'the last line cut short by a kill');
	// Closing writes session.json whole; a kill before the journal was removed leaves it behind.
	await session.close();
	await writeFile(journal, whole);
	assert.equal(await lostWork(dir, 'kill'), null, 'a journal the later snapshot holds');
	const reopened = await Session.open(dir, 'kill');
	try {
		assert.equal(await reopened.lostWork(), null, 'opened, the same');
	} finally {
		await reopened.close();
	}
});
