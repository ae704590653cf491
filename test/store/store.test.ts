import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Book, Node, Run, Version } from '../../source/domain.ts';
import { makeConfig, resolveSessionsDir } from '../../source/config.ts';
import { UserError } from '../../source/errors.ts';
import { readCallLog } from '../../source/store/calls.ts';
import { newSessionId, slug } from '../../source/store/dirs.ts';
import { listSessions } from '../../source/app/list-sessions.ts';
import { bookSession, Session, type CallRecord } from '../../source/store/session.ts';
import type { BookSessionData } from '../../source/store/schema.ts';
import { tempDir } from '../support/temp.ts';

const TEXT =
	'It was a dark and stormy night. The rain fell in torrents.\n\nExcept at occasional intervals.\n';

function sha256(text: string): string {
	return createHash('sha256').update(text, 'utf8').digest('hex');
}

function version(text: string): Version {
	const at = '2024-05-01T10:00:00.000Z';
	const params = { temperature: 0.5, maxTokens: 100, words: 50, template: 'hier-init' };
	const usage = { input: 40, output: 12, cached: 0 };
	const timings = { start: at, end: at, ms: 0 };
	return {
		text,
		origin: 'model',
		template: 'hier-init',
		params,
		usage,
		cost: 0.001,
		attempts: [{ text, finishReason: 'stop', params, usage, cost: 0.001, timings }],
		timings,
		overBudget: false,
		model: 'openai gpt-4o-mini',
		createdAt: at,
	};
}

function node(id: `n${number}`, summary: string | null): Node {
	return {
		id,
		kind: 'summarize',
		level: 0,
		index: 0,
		inputs: ['c0'],
		context: null,
		budget: { promptTokens: 1000, summaryTokens: 200, words: 100 },
		status: summary === null ? 'pending' : 'done',
		versions: summary === null ? [] : [version(summary)],
		active: summary === null ? null : 0,
		pending: [],
		meta: { expectedWords: 10, note: 'x', flag: true },
	};
}

function init(opts: { id?: string; title?: string; text?: string; summary?: string | null } = {}) {
	const text = opts.text ?? TEXT;
	const book: Book = {
		title: opts.title ?? 'A Stormy Night',
		sha256: sha256(text),
		source: 'night.txt',
		chars: text.length,
		tokens: 20,
	};
	const summary = opts.summary === undefined ? 'A storm. Rain.' : opts.summary;
	const run: Run = {
		config: makeConfig({
			provider: 'extractive',
			model: 'textrank',
			method: 'hier',
			concurrency: 2,
			seed: 1,
		}),
		status: summary === null ? 'planned' : 'done',
		chunks: [{ index: 0, start: 0, end: text.length, tokens: 20 }],
		nodes: [node('n0', summary)],
		root: summary === null ? null : 'n0',
		error: null,
	};
	return { id: opts.id, book, text, run };
}

function call(i: number, prompt = `prompt ${i}`): CallRecord {
	const at = '2024-05-01T10:00:00.000Z';
	return {
		node: `n${i}`,
		version: 0,
		attempt: 0,
		provider: 'openai',
		model: 'gpt-4o-mini',
		prompt,
		response: `response ${i}`,
		finishReason: 'stop',
		params: { temperature: 0, maxTokens: 10, words: 5, template: 't' },
		usage: { input: 1, output: 2, cached: 0 },
		cost: 0,
		timings: { start: at, end: at, ms: 3 },
	};
}

/** Every file of a directory tree with its bytes, to prove nothing changed. */
async function snapshot(dir: string): Promise<Map<string, Buffer>> {
	const files = new Map<string, Buffer>();
	for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
		if (entry.isFile()) {
			const file = path.join(entry.parentPath, entry.name);
			files.set(path.relative(dir, file), await readFile(file));
		}
	}
	return files;
}

async function rejectsUserError(promise: Promise<unknown>, ...fragments: string[]): Promise<UserError> {
	const error = await promise.then(
		() => assert.fail('expected a UserError'),
		(e: unknown) => e,
	);
	assert.ok(error instanceof UserError, `expected a UserError, got ${String(error)}`);
	assert.equal(error.exitCode, 2);
	for (const fragment of fragments)
		assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`);
	return error;
}

test('create then open round-trips through real files', async (t) => {
	const dir = tempDir('store', t);
	const created = await Session.create(dir, init({ id: 'night-1' }));
	assert.equal(created.id, 'night-1');
	assert.equal(created.path, path.join(dir, 'night-1'));
	assert.equal(await readFile(path.join(dir, 'night-1', 'book.txt'), 'utf8'), TEXT);
	const onDisk = JSON.parse(await readFile(path.join(dir, 'night-1', 'session.json'), 'utf8'));
	assert.deepEqual(onDisk, created.data);
	assert.equal(onDisk.schema, 2);

	const edited = [
		...created.data.run.nodes[0]!.versions,
		{ ...version('An edited storm.'), origin: 'edit' as const, model: null },
	];
	await created.updateNode(created.data.run.nodes[0]!.id, { versions: edited, active: 1 });
	const before = structuredClone(created.data);
	await created.close();

	const opened = bookSession(await Session.open(dir, 'night-1'));
	t.after(() => opened.close());
	assert.equal(opened.data.run.nodes[0]!.versions[1]!.text, 'An edited storm.');
	assert.deepEqual(opened.data.book, before.book);
	assert.deepEqual(opened.data.run, before.run);
	assert.equal(opened.data.createdAt, before.createdAt);
	assert.ok(opened.data.openedAt >= before.openedAt);
	assert.equal(await opened.bookText(), TEXT);
	// open() saves the new openedAt.
	const reread = JSON.parse(await readFile(path.join(dir, 'night-1', 'session.json'), 'utf8'));
	assert.equal(reread.openedAt, opened.data.openedAt);
});

test('create without an id makes a readable one from the title', async (t) => {
	const dir = tempDir('store', t);
	const session = await Session.create(dir, init({ title: 'The Stormy Night' }));
	t.after(() => session.close());
	assert.match(session.id, /^the-stormy-night-\d{8}-\d{6}-[0-9a-f]{4}$/);
	assert.ok(existsSync(path.join(dir, session.id, 'session.json')));
});

test('create refuses an existing id and leaves its files byte-identical', async (t) => {
	const dir = tempDir('store', t);
	const first = await Session.create(dir, init({ id: 'taken' }));
	await first.appendCall(call(1));
	const before = await snapshot(dir);

	await rejectsUserError(
		Session.create(dir, init({ id: 'taken', text: 'Another book entirely.' })),
		'session "taken" already exists in',
		dir,
		'booook resume taken',
	);
	assert.deepEqual(await snapshot(dir), before);
	// The first session is still usable and still holds its lock.
	await first.updateRun({ status: 'cancelled' });
	await first.close();
	await rejectsUserError(Session.create(dir, init({ id: 'taken' })), 'already exists');
});

test('a failure during create leaves nothing behind', async (t) => {
	const dir = tempDir('store', t);
	const bad = init({ id: 'broken' });
	// Fails the schema when session.json is written, after the directory, lock and book.txt exist.
	(bad.run as { status: string }).status = 'exploded';
	await assert.rejects(Session.create(dir, bad), /status/);
	assert.deepEqual(await readdir(dir), []);

	const mismatched = init({ id: 'mismatch' });
	mismatched.book.sha256 = sha256('something else');
	await assert.rejects(Session.create(dir, mismatched));
	assert.deepEqual(await readdir(dir), []);

	// The id is free again: a good create succeeds.
	const ok = await Session.create(dir, init({ id: 'broken' }));
	await ok.close();
});

test('create and open refuse ids that would leave the sessions directory', async (t) => {
	const dir = tempDir('store', t);
	const inner = path.join(dir, 'inner');
	await rejectsUserError(Session.create(inner, init({ id: '../../escaped' })), 'not a valid session id');
	await rejectsUserError(Session.open(inner, '../../escaped'), 'not a valid session id');
	assert.deepEqual(await readdir(dir), []);
});

test("an id ending in .compare is refused, naming the fix: a comparison's folder is named so, and the session list would pass over it", async (t) => {
	const dir = tempDir('store', t);
	const error = await rejectsUserError(
		Session.create(dir, init({ id: 'mill.compare' })),
		'"mill.compare" is not a valid session id',
		'holds a comparison',
		'choose an id that does not end in .compare',
	);
	assert.doesNotMatch(error.message, /\n/u, 'one line');
	await rejectsUserError(Session.open(dir, 'mill.compare'), 'does not end in .compare');
	assert.deepEqual(await readdir(dir).catch(() => []), [], 'nothing made');
	// A name that merely holds the word is an id like any other.
	await (await Session.create(dir, init({ id: 'mill.compared' }))).close();
	await (await Session.create(dir, init({ id: 'compare.mill' }))).close();
});

test('open of a missing session names the id and dir and suggests booook sessions', async (t) => {
	const dir = tempDir('store', t);
	await rejectsUserError(Session.open(dir, 'nope'), '"nope"', dir, 'booook sessions');
});

async function closedSession(dir: string, id: string): Promise<string> {
	const s = await Session.create(dir, init({ id }));
	await s.close();
	return path.join(dir, id);
}

test('open refuses a session.json that is not JSON, and leaves it unchanged', async (t) => {
	const dir = tempDir('store', t);
	const sessionDir = await closedSession(dir, 'torn');
	const file = path.join(sessionDir, 'session.json');
	const full = await readFile(file, 'utf8');
	await writeFile(file, full.slice(0, Math.floor(full.length / 2)));
	const before = await snapshot(sessionDir);

	await rejectsUserError(Session.open(dir, 'torn'), file, 'corrupt', 'left unchanged');
	assert.deepEqual(await snapshot(sessionDir), before);
	assert.ok(!existsSync(path.join(sessionDir, 'lock')), 'a refused open releases its lock');
});

test('open refuses another schema version, a schema violation or an unknown field, leaving the file unchanged', async (t) => {
	const dir = tempDir('store', t);
	const sessionDir = await closedSession(dir, 'bent');
	const file = path.join(sessionDir, 'session.json');
	const good = JSON.parse(await readFile(file, 'utf8')) as BookSessionData;
	// A field set as a hand-edited file could have it, whatever the schema allows.
	const loose = (fields: object) => fields as Record<string, unknown>;

	const cases: [string, (d: BookSessionData) => void, string][] = [
		['version', (d) => (loose(d).schema = 3), 'schema version 3'],
		[
			'dangling annotation',
			(d) =>
				d.annotations.push({
					id: 'a0',
					summary: 's9',
					sentence: 0,
					spans: [],
					confusing: false,
					questions: '',
					types: [],
					source: 'model',
					annotator: 'm',
					imported: null,
					raw: null,
					failure: null,
					createdAt: d.createdAt,
				}),
			'no summary s9',
		],
		[
			'unknown error type',
			(d) => {
				d.summaries.push({ id: 's0', book: 'b', text: 'A.', node: null, version: null, source: 'run' });
				(d.annotations as unknown[]).push({
					id: 'a0',
					summary: 's0',
					sentence: 0,
					spans: [],
					confusing: true,
					questions: 'Who?',
					types: ['plot hole'],
					source: 'model',
					annotator: 'm',
					imported: null,
					raw: null,
					failure: null,
					createdAt: d.createdAt,
				});
			},
			'annotations.0.types.0',
		],
		['no version', (d) => delete loose(d).schema, 'corrupt'],
		['bad status', (d) => (loose(d.run.nodes[0]!).status = 'exploded'), 'run.nodes.0.status'],
		['missing field', (d) => delete loose(d.run.config).model, 'run.config.model'],
		['active past the end', (d) => (d.run.nodes[0]!.active = 5), 'active'],
		['unknown field', (d) => (loose(d.run.config).apiKey = 'sk-not-a-real-key-000000000000'), 'apiKey'],
		['other id', (d) => (d.id = 'someone-else'), 'someone-else'],
	];
	for (const [name, mutate, fragment] of cases) {
		const bad = structuredClone(good);
		mutate(bad);
		await writeFile(file, JSON.stringify(bad));
		const before = await snapshot(sessionDir);
		await rejectsUserError(Session.open(dir, 'bent'), file, 'left unchanged', fragment).catch((e) => {
			throw new Error(`${name}: ${e.message}`);
		});
		assert.deepEqual(await snapshot(sessionDir), before, name);
	}
});

test('a version 1 session opens as a book run with no scored summaries, and is saved as version 2', async (t) => {
	const dir = tempDir('store', t);
	const sessionDir = await closedSession(dir, 'old');
	const file = path.join(sessionDir, 'session.json');
	const current = JSON.parse(await readFile(file, 'utf8'));
	const { kind: _kind, summaries: _summaries, ...v1 } = { ...current, schema: 1 };
	await writeFile(file, JSON.stringify(v1));
	const opened = bookSession(await Session.open(dir, 'old'));
	t.after(() => opened.close());
	assert.deepEqual(opened.data.run, current.run);
	assert.deepEqual(opened.data.summaries, []);
	const saved = JSON.parse(await readFile(file, 'utf8'));
	assert.equal(saved.schema, 2);
	assert.equal(saved.kind, 'book');
});

test('open refuses a book.txt whose sha256 does not match', async (t) => {
	const dir = tempDir('store', t);
	const sessionDir = await closedSession(dir, 'tampered');
	const bookFile = path.join(sessionDir, 'book.txt');
	await writeFile(bookFile, TEXT.replace('dark', 'bright'));
	const before = await snapshot(sessionDir);
	await rejectsUserError(Session.open(dir, 'tampered'), bookFile, 'sha256', 'left unchanged');
	assert.deepEqual(await snapshot(sessionDir), before);

	await rm(bookFile);
	await rejectsUserError(Session.open(dir, 'tampered'), bookFile);
});

test('overlapping writes never interleave and the session reads back at the last state', async (t) => {
	const dir = tempDir('store', t);
	const session = await Session.create(dir, init({ id: 'busy' }));
	t.after(() => session.close());
	// Large enough that one write is not a single small syscall.
	const filler = 'word '.repeat(20_000);
	const saves: Promise<void>[] = [];
	const n0 = session.data.run.nodes[0]!;
	for (let i = 0; i < 40; i++) {
		saves.push(session.updateRun({ error: `state ${i}` }));
		const versions = [...n0.versions, version(`${i} ${filler}`)];
		saves.push(session.updateNode('n0', { versions, active: versions.length - 1 }));
	}
	await Promise.all(saves);
	const { data } = await Session.snapshot(dir, 'busy');
	assert.ok(data.kind === 'book');
	assert.equal(data.run.error, 'state 39');
	assert.equal(data.run.nodes[0]!.versions.at(-1)!.text, `39 ${filler}`);
	assert.equal(data.run.nodes[0]!.versions.length, 41);

	// A change made in place, through no operation, is not on disk.
	session.data.run.error = 'not saved';
	assert.equal(((await Session.snapshot(dir, 'busy')).data as typeof data).run.error, 'state 39');
	// No temp file is left next to it.
	assert.deepEqual((await readdir(session.path)).sort(), [
		'book.txt',
		'changes.jsonl',
		'lock',
		'session.json',
	]);
});

test('an operation writes what it changed, not the session: the bytes it adds do not grow with the session', async (t) => {
	const dir = tempDir('store', t);
	const session = await Session.create(dir, init({ id: 'growing', summary: null }));
	const journal = path.join(session.path, 'changes.jsonl');
	const size = async () => (existsSync(journal) ? (await readFile(journal)).length : 0);
	const added: number[] = [];
	const text = 'A summary sentence of some length. '.repeat(40);
	for (let i = 1; i <= 60; i++) {
		const id = `n${i}` as const;
		await session.addNodes(node(id, null));
		const before = await size();
		await session.updateNode(id, { versions: [version(`${i} ${text}`)], active: 0, status: 'done' });
		added.push((await size()) - before);
	}
	// Each finished node costs the same few kilobytes, the 60th as the first.
	assert.ok(
		Math.max(...added) - Math.min(...added) < 16,
		`bytes per save: ${Math.min(...added)} to ${Math.max(...added)}`,
	);
	assert.ok(Math.max(...added) < 3 * text.length + 2000, `bytes per save: ${Math.max(...added)}`);
	const stateBefore = await readFile(path.join(session.path, 'session.json'), 'utf8');
	assert.equal(
		JSON.parse(stateBefore).run.nodes.length,
		1,
		'session.json is not rewritten by each operation',
	);
	const live = JSON.parse(JSON.stringify(session.data));
	await session.close();
	// Closing folds the journal into session.json, and the journal goes.
	assert.ok(!existsSync(journal));
	const closed = JSON.parse(await readFile(path.join(session.path, 'session.json'), 'utf8'));
	assert.deepEqual({ ...closed, updatedAt: null }, { ...live, updatedAt: null });
});

test('the journal: a line cut short by a kill is skipped; a journal left by an earlier snapshot is ignored; a removal writes the whole state', async (t) => {
	const dir = tempDir('store', t);
	const session = await Session.create(dir, init({ id: 'cut', summary: null }));
	const journal = path.join(session.path, 'changes.jsonl');
	await session.addNodes(node('n1', 'Saved.'));
	// A kill in the middle of the next line's write.
	await appendFile(journal, '{"at":"2024-05-01T10:00:00.000Z","nodes":[{"id":"n2","ki');
	const read = async () => (await Session.snapshot(dir, 'cut')).data as unknown as { run: Run };
	assert.deepEqual(
		(await read()).run.nodes.map((n) => n.id),
		['n0', 'n1'],
	);

	// A journal naming an older snapshot (killed between the snapshot and removing the journal).
	const stale = await readFile(journal, 'utf8');
	await session.close();
	assert.ok(!existsSync(journal), 'closing writes session.json whole');
	await writeFile(journal, stale);
	assert.deepEqual(
		(await read()).run.nodes.map((n) => n.id),
		['n0', 'n1'],
	);
	// Opening reads it the same way, and writes the state whole.
	const reopened = await Session.open(dir, 'cut');
	t.after(() => reopened.close());
	assert.equal(bookSession(reopened).data.run.nodes.length, 2);
	assert.ok(!existsSync(journal));
});

test('a change open() would refuse is refused, keeping the last good file', async (t) => {
	const dir = tempDir('store', t);
	const session = await Session.create(dir, init({ id: 'guarded' }));
	t.after(() => session.close());
	const file = path.join(session.path, 'session.json');
	const before = await readFile(file);
	const config = { ...session.data.run.config, apiKey: 'sk-not-a-real-key-000000000000' };
	await assert.rejects(session.updateRun({ config }), /apiKey/);
	const [first] = session.data.run.nodes;
	const versions = [{ ...first!.versions[0]!, cost: Number.NaN }];
	await assert.rejects(session.updateNode(first!.id, { versions }), /cost/);
	assert.deepEqual(await readFile(file), before);
	assert.ok(!existsSync(path.join(session.path, 'changes.jsonl')), 'nothing was journaled');
	assert.ok(Number.isFinite(session.data.run.nodes[0]!.versions[0]!.cost), 'nor changed in memory');
});

test('appendCall writes one line per call, in order, even when calls overlap', async (t) => {
	const dir = tempDir('store', t);
	const session = await Session.create(dir, init({ id: 'calls' }));
	t.after(() => session.close());
	const big = 'x'.repeat(300_000);
	await Promise.all(Array.from({ length: 12 }, (_, i) => session.appendCall(call(i, `${i}${big}`))));
	const lines = (await readFile(path.join(session.path, 'calls.jsonl'), 'utf8')).split('\n');
	assert.equal(lines.pop(), '');
	assert.equal(lines.length, 12);
	lines.forEach((line, i) => assert.equal(JSON.parse(line).prompt, `${i}${big}`));
	const read = await session.calls();
	assert.deepEqual(
		read.map((c) => c.node),
		Array.from({ length: 12 }, (_, i) => `n${i}`),
	);
	await assert.rejects(session.appendCall({ ...call(99), cost: Number.NaN }));
});

test('a torn last line of calls.jsonl is skipped, and later appends start on a fresh line', async (t) => {
	const dir = tempDir('store', t);
	const session = await Session.create(dir, init({ id: 'killed' }));
	for (let i = 0; i < 3; i++) await session.appendCall(call(i));
	await session.close();
	const log = path.join(session.path, 'calls.jsonl');
	const whole = JSON.stringify(call(3));
	await appendFile(log, whole.slice(0, whole.length - 10)); // a kill in the middle of a write

	const resumed = await Session.open(dir, 'killed');
	t.after(() => resumed.close());
	assert.deepEqual(
		(await resumed.calls()).map((c) => c.node),
		['n0', 'n1', 'n2'],
	);
	await resumed.appendCall(call(4));
	assert.deepEqual(
		(await resumed.calls()).map((c) => c.node),
		['n0', 'n1', 'n2', 'n4'],
	);
	assert.deepEqual((await readCallLog(log)).skipped, [4]);
});

test('listSessions lists readable sessions and reports broken ones without locking', async (t) => {
	const dir = tempDir('store', t);
	const done = await Session.create(dir, init({ id: 'done', summary: 'One two three four five.' }));
	await done.close();
	const pending = await Session.create(dir, init({ id: 'pending', summary: null, title: 'Pending Book' }));
	// Still open in this process: listing must not need its lock.
	t.after(() => pending.close());
	const broken = await closedSession(dir, 'broken');
	await writeFile(path.join(broken, 'session.json'), '{"schema": 1, "id": "bro');
	await mkdir(path.join(dir, 'stray'));
	await writeFile(path.join(dir, 'notes.txt'), 'not a session');

	const listing = await listSessions(dir);
	const byId = new Map(listing.map((s) => [s.id, s]));
	assert.deepEqual([...byId.keys()].sort(), ['done', 'pending']);
	assert.equal(byId.get('done')!.finalWords, 5);
	assert.deepEqual(byId.get('done')!.progress, { done: 1, total: 1 });
	assert.equal(byId.get('done')!.status, 'done');
	assert.equal(byId.get('pending')!.title, 'Pending Book');
	assert.equal(byId.get('pending')!.finalWords, undefined);
	assert.deepEqual(byId.get('pending')!.progress, { done: 0, total: 1 });
	assert.equal(byId.get('pending')!.method, 'hier');
	assert.equal(byId.get('pending')!.provider, 'extractive');
	assert.deepEqual(
		listing.problems.map((p) => p.id),
		['broken', 'stray'],
	);
	assert.ok(listing.problems[0]!.file.endsWith(path.join('broken', 'session.json')));
	assert.ok(existsSync(path.join(dir, 'pending', 'lock')), 'the open session keeps its lock');

	assert.deepEqual([...(await listSessions(path.join(dir, 'missing')))], []);
});

test('resolveSessionsDir: flag, then BOOOOK_SESSIONS, then ./sessions, always absolute', () => {
	const env = { BOOOOK_SESSIONS: '/from/env' };
	assert.equal(resolveSessionsDir('/from/flag', env), '/from/flag');
	assert.equal(resolveSessionsDir(null, env), '/from/env');
	assert.equal(resolveSessionsDir(undefined, env), '/from/env');
	assert.equal(resolveSessionsDir(undefined, {}), path.join(process.cwd(), 'sessions'));
	assert.equal(resolveSessionsDir('', { BOOOOK_SESSIONS: '' }), path.join(process.cwd(), 'sessions'));
	assert.equal(resolveSessionsDir('rel/dir', env), path.join(process.cwd(), 'rel', 'dir'));
	assert.equal(resolveSessionsDir(null, { BOOOOK_SESSIONS: 'rel' }), path.join(process.cwd(), 'rel'));
});

test('newSessionId is slug-date-time-hex, in local time', () => {
	const now = new Date(2024, 0, 2, 3, 4, 5);
	const id = newSessionId('Pride & Préjudice: A Novel in Three Volumes', now, () => 0);
	assert.match(id, /^[a-z0-9-]{1,24}-20240102-030405-0000$/);
	assert.ok(id.startsWith('pride-prejudice-a-novel'));
	assert.ok(newSessionId('x', now, () => 0.99999).endsWith('-ffff'));
	assert.notEqual(
		newSessionId('x', now, () => 0.1),
		newSessionId('x', now, () => 0.2),
	);
	assert.ok(newSessionId('???', now, () => 0).startsWith('book-'));
	assert.ok(slug('a'.repeat(23) + ' bcd').length <= 24);
	assert.ok(!slug('a'.repeat(23) + ' bcd').endsWith('-'));
});

test('after close, writes are refused; close is idempotent', async (t) => {
	const dir = tempDir('store', t);
	const session = await Session.create(dir, init({ id: 'closing' }));
	await session.close();
	await session.close();
	await assert.rejects(session.updateRun({ status: 'cancelled' }), /closed/);
	await assert.rejects(session.appendCall(call(0)), /closed/);
});

test('booook sessions prints a header row and columns as wide as their widest cell, in terminal columns (wide characters do not shift them)', async (t) => {
	const dir = tempDir('store', t);
	for (const [id, title] of [
		['a', 'Short'],
		['a-much-longer-session-id-20261123', 'A Rather Longer Book Title'],
		['hlm', '紅樓夢 Dream of the Red Chamber'],
	] as const) {
		const s = await Session.create(dir, init({ id, title, summary: 'One two three four five.' }));
		await s.close();
	}
	const { sessionsCommand } = await import('../../source/commands/sessions.ts');
	const { textWidth } = await import('../../source/format/text.ts');
	const { PassThrough } = await import('node:stream');
	const stdout = new PassThrough();
	let text = '';
	stdout.on('data', (d) => (text += d));
	assert.equal(await sessionsCommand(dir, { json: false, program: 'booook', stdout }), 0);
	const lines = text.trimEnd().split('\n');
	assert.match(lines[0]!, /^id\s+book\s+method\s+model\s+progress\s+score\s+updated$/u);
	assert.equal(lines.length, 4);
	assert.ok(
		text.includes('A Rather Longer Book Title') && text.includes('a-much-longer-session-id-20261123'),
		'nothing is cut when not on a terminal',
	);
	// Every column starts at the same terminal column on every line.
	const columnAt = (line: string, at: number) => {
		let w = 0;
		let i = 0;
		for (const ch of line) {
			if (w >= at) break;
			w += textWidth(ch);
			i += ch.length;
		}
		return w === at ? line.slice(i) : undefined;
	};
	for (const column of ['book', 'method', 'model', 'progress', 'updated']) {
		const at = textWidth(lines[0]!.slice(0, lines[0]!.indexOf(column)));
		const cells = lines.slice(1).map((l) => columnAt(l, at)?.split(/\s{2,}/u)[0]);
		assert.ok(
			cells.every((c) => c !== undefined && c.length > 0 && !c.startsWith(' ')),
			`${column}: ${cells.join(' | ')}\n${text}`,
		);
	}
});
