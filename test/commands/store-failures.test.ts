import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Book, Run } from '../../source/domain.ts';
import { makeConfig, sessionsDirArg } from '../../source/config.ts';
import { UserError } from '../../source/errors.ts';
import { BOOOOK, say } from '../../source/program.ts';
import { runCommand } from '../../source/commands/run.ts';
import { resumeCommand } from '../../source/commands/resume.ts';
import { newRun } from '../../source/summarize/run.ts';
import { listSessions } from '../../source/app/list-sessions.ts';
import { Session, type BookSessionData } from '../../source/store/session.ts';
import { stateFs } from '../../source/store/state-file.ts';
import { booook } from '../support/cli.ts';
import { firstLine } from '../support/children.ts';
import { tempDir } from '../support/temp.ts';

const ROOT = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const SESSION_MODULE = path.join(ROOT, 'source', 'store', 'session.ts');
const STATE_FILE_MODULE = path.join(ROOT, 'source', 'store', 'state-file.ts');
const TEXT = 'Call me Ishmael. Some years ago, never mind how long precisely.\n';

function init(id: string, text = TEXT) {
	const book: Book = {
		title: 'Whale',
		sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
		source: 'whale.txt',
		chars: text.length,
		tokens: 15,
	};
	const run: Run = newRun(
		makeConfig({
			provider: 'extractive',
			model: 'textrank',
			method: 'inc',
			temperature: 0,
			concurrency: 1,
			seed: 7,
		}),
		[{ index: 0, start: 0, end: text.length, tokens: 15 }],
	);
	return { id, book, text, run };
}

async function refusal(promise: Promise<unknown>, exitCode: 1 | 2): Promise<string> {
	const error = await promise.then(
		() => assert.fail('expected a refusal'),
		(e: unknown) => e,
	);
	assert.ok(error instanceof UserError, String((error as Error).stack ?? error));
	assert.equal(error.exitCode, exitCode, error.message);
	assert.ok(!error.message.includes('\n'), 'one line');
	return error.message;
}

async function deadPid(): Promise<number> {
	const proc = spawn(process.execPath, ['-e', '']);
	await new Promise((resolve) => proc.once('exit', resolve));
	return proc.pid!;
}

/** Every file under `dir` with its content, for "nothing changed" checks. */
async function tree(dir: string): Promise<Record<string, string>> {
	const out: Record<string, string> = {};
	for (const entry of await readdir(dir, { withFileTypes: true })) {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory())
			for (const [name, text] of Object.entries(await tree(file))) out[path.join(entry.name, name)] = text;
		else out[entry.name] = await readFile(file, 'utf8');
	}
	return out;
}

/** A book long enough for several extractive calls at --chunk-size 1024. */
function bookText(): string {
	const sentences: string[] = [];
	for (let i = 0; i < 400; i++)
		sentences.push(`Sentence number ${i} tells of the ship, the sea and captain ${i % 7}.`);
	return sentences.join(' ').replace(/(\. )(?=Sentence number \d*0 )/gu, '.\n\n');
}

/** A node process that creates session `id` in `dir` and stops, for good, once its session.json is written in the hidden folder. */
function stalledCreator(dir: string, id: string): ChildProcessWithoutNullStreams {
	const code = `
		const { stateFs } = await import(${JSON.stringify(STATE_FILE_MODULE)});
		const { Session } = await import(${JSON.stringify(SESSION_MODULE)});
		const real = stateFs.writeFile;
		stateFs.writeFile = async (...args) => {
			await real(...args);
			console.log('stalled');
			setInterval(() => {}, 1000);
			await new Promise(() => {});
		};
		await Session.create(process.env.DIR, JSON.parse(process.env.INIT));`;
	return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
		cwd: ROOT,
		env: { ...process.env, DIR: dir, INIT: JSON.stringify(init(id)) },
	});
}

function killed(proc: ChildProcessWithoutNullStreams): Promise<void> {
	const done = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
	if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
	proc.kill('SIGKILL');
	return done;
}

// Item 6: kill -9 while a session is being created.

test('a creation under way is hidden; killed with SIGKILL, it leaves no session, is reported, and the id is free', async (t) => {
	const dir = tempDir('fail', t);
	const proc = stalledCreator(dir, 'crashed');
	t.after(() => killed(proc));
	assert.equal(await firstLine(proc), 'stalled');

	// While it is alive: no session yet, nothing reported, and other creations leave it alone.
	const [hidden] = await readdir(dir);
	assert.match(hidden!, /^\.creating-crashed-/u);
	assert.deepEqual([...(await listSessions(dir))], []);
	assert.deepEqual((await listSessions(dir)).problems, []);
	assert.match(
		await refusal(Session.open(dir, 'crashed'), 2),
		new RegExp(`still being created by another booook process \\(pid ${proc.pid}\\)`, 'u'),
	);
	const other = await Session.create(dir, init('other'));
	await other.close();
	assert.ok(existsSync(path.join(dir, hidden!, 'lock')), 'a live creation is not swept');

	await killed(proc);
	assert.ok(!existsSync(path.join(dir, 'crashed')), 'no folder that looks like a session');
	const listing = await listSessions(dir);
	assert.deepEqual(
		listing.map((s) => s.id),
		['other'],
	);
	assert.equal(listing.problems.length, 1);
	assert.equal(listing.problems[0]!.id, 'crashed');
	assert.equal(listing.problems[0]!.file, path.join(dir, hidden!));
	assert.match(
		say(listing.problems[0]!.reason, BOOOOK),
		new RegExp(`interrupted \\(pid ${proc.pid} is gone\\)`, 'u'),
	);
	// resume and run agree: there is no session "crashed", and the id can be used.
	assert.match(await refusal(Session.open(dir, 'crashed'), 2), /^no session "crashed" in /u);
	const cli = await booook(['resume', 'crashed', '--headless', '--sessions-dir', dir]);
	assert.equal(cli.code, 2, cli.stderr);
	assert.match(cli.stderr, /^booook: no session "crashed" in /u);
	const again = await Session.create(dir, init('crashed'));
	await again.close();
	assert.deepEqual((await readdir(dir)).sort(), ['crashed', 'other'], 'the dead creation was swept');
	await (await Session.open(dir, 'crashed')).close();
});

test('the leftover of an interrupted creation (a folder with a lock and no session.json) is named and replaced', async (t) => {
	const dir = tempDir('fail', t);
	const dead = await deadPid();
	const left = path.join(dir, 'left');
	await mkdir(left);
	await writeFile(
		path.join(left, 'lock'),
		JSON.stringify({ pid: dead, host: os.hostname(), startedAt: '2024-01-01T00:00:00.000Z' }),
	);
	await writeFile(path.join(left, 'book.txt'), TEXT);

	const message = await refusal(Session.open(dir, 'left'), 2);
	assert.ok(
		message.startsWith(
			`session "left" was never created whole: the booook process creating it (pid ${dead}) stopped before it wrote session.json`,
		),
		message,
	);
	assert.ok(message.includes('--session left') && message.includes(`delete ${left}`), message);
	const problem = (await listSessions(dir)).problems.find((p) => p.id === 'left');
	assert.match(
		say(problem!.reason, BOOOOK),
		new RegExp(`interrupted \\(pid ${dead} is gone\\) and it holds no work`, 'u'),
	);

	// The CLI says the same to `resume`, and `run --session left` replaces the leftover.
	const resumed = await booook(['resume', 'left', '--headless', '--sessions-dir', dir]);
	assert.equal(resumed.code, 2);
	assert.match(resumed.stderr, /was never created whole/u);
	const bookFile = path.join(dir, 'whale.txt');
	await writeFile(bookFile, bookText());
	const run = await booook([
		'run',
		bookFile,
		'--headless',
		'--session',
		'left',
		'--sessions-dir',
		dir,
		'--chunk-size',
		'1024',
	]);
	assert.equal(run.code, 0, run.stderr);
	const opened = await Session.open(dir, 'left');
	assert.equal(opened.data.kind === 'book' && opened.data.run.status, 'done');
	await opened.close();
	assert.deepEqual((await listSessions(dir)).problems, []);
});

test('a leftover whose creator is alive, or a folder with other files, is refused and left as it is', async (t) => {
	const dir = tempDir('fail', t);
	const busy = path.join(dir, 'busy');
	await mkdir(busy);
	// This process stands for an older booook still creating the session.
	await writeFile(
		path.join(busy, 'lock'),
		JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: '2024-01-01T00:00:00.000Z' }),
	);
	const odd = path.join(dir, 'odd');
	await mkdir(odd);
	await writeFile(path.join(odd, 'calls.jsonl'), '{"a call": 1}\n');
	await writeFile(path.join(dir, 'notes.txt'), 'a file named like a session');
	const before = await tree(dir);

	assert.match(
		await refusal(Session.open(dir, 'busy'), 2),
		new RegExp(`still being created by another booook process \\(pid ${process.pid}\\)`, 'u'),
	);
	assert.match(
		await refusal(Session.create(dir, init('busy')), 2),
		new RegExp(
			`is being created by another booook process \\(pid ${process.pid}\\); choose another --session`,
			'u',
		),
	);
	assert.match(await refusal(Session.open(dir, 'odd'), 2), /session\.json is missing .*left unchanged/u);
	assert.match(
		await refusal(Session.create(dir, init('odd')), 2),
		/odd already exists and is not a session/u,
	);
	assert.match(
		await refusal(Session.open(dir, 'notes.txt'), 2),
		/notes\.txt is a file, not a session folder; it was left unchanged/u,
	);
	assert.match(
		await refusal(Session.create(dir, init('notes.txt')), 2),
		/notes\.txt already exists and is not a session/u,
	);
	assert.deepEqual(await tree(dir), before);
	assert.deepEqual((await readdir(dir)).sort(), ['busy', 'notes.txt', 'odd']);
});

// Item 8: environment failures.

test('a sessions dir that is a file (or under one) is a one-line error, exit 2, and the file is untouched', async (t) => {
	const dir = tempDir('fail', t);
	const file = path.join(dir, 'sessions');
	await writeFile(file, 'not a folder\n');
	const bookFile = path.join(dir, 'whale.txt');
	await writeFile(bookFile, bookText());
	for (const args of [
		['sessions'],
		['resume', 'x', '--headless'],
		['run', bookFile, '--headless'],
		['show', 'x'],
	]) {
		const r = await booook([...args, '--sessions-dir', file]);
		assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
		assert.equal(
			r.stderr,
			`booook: the sessions dir ${file} is a file, not a folder; choose another with --sessions-dir or BOOOOK_SESSIONS, or move the file\n`,
		);
	}
	const under = await booook(['sessions', '--sessions-dir', path.join(file, 'inner')]);
	assert.equal(under.code, 2);
	assert.match(under.stderr, /a part of its path is a file/u);
	assert.equal(await readFile(file, 'utf8'), 'not a folder\n');
	assert.deepEqual((await readdir(dir)).sort(), ['sessions', 'whale.txt']);
});

function errno(code: string, file: string): NodeJS.ErrnoException {
	return Object.assign(new Error(`${code}: simulated, write '${file}'`), {
		code,
		syscall: 'write',
		path: file,
	});
}

/** From the `from`-th write of session.json or its journal on, the disk fills up after a few bytes. */
function diskFullFrom(
	t: { after: (fn: () => void) => void },
	from: number,
	code = 'ENOSPC',
): { writes: () => number; restore: () => void } {
	const real = { writeFile: stateFs.writeFile, appendFile: stateFs.appendFile };
	let n = 0;
	const filling = (write: (file: string, data: string, encoding: BufferEncoding) => Promise<void>) =>
		(async (file: string, data: string, encoding: BufferEncoding) => {
			n++;
			if (n < from) return write(file, data, encoding);
			await write(file, data.slice(0, 10), encoding);
			throw errno(code, file);
		}) as never;
	stateFs.writeFile = filling(real.writeFile as never);
	stateFs.appendFile = filling(real.appendFile as never);
	const restore = () => {
		Object.assign(stateFs, real);
	};
	t.after(restore);
	return { writes: () => n, restore };
}

test('a full disk during a run: one line naming it and how to resume, exit 1, no temp file, nothing lost', async (t) => {
	const dir = tempDir('fail', t);
	const bookFile = path.join(dir, 'whale.txt');
	await writeFile(bookFile, bookText());
	const sink = { write: () => true } as unknown as NodeJS.WritableStream;
	const opts = {
		config: { provider: 'extractive' as const, model: 'textrank', method: 'hier', chunkSize: 1024 },
		sessionsDir: dir,
		session: 'full',
		json: true,
		program: 'booook',
		stdout: sink,
		stderr: sink,
	};
	// The first writes go through (the creation, the plan, the first nodes started and their calls),
	// then the disk is full. Each change to the state is a write of its own.
	const disk = diskFullFrom(t, 12);
	const message = await refusal(runCommand(bookFile, opts), 1);
	assert.ok(disk.writes() >= 12);
	const at = [
		path.join(dir, 'full', '.session.json.tmp'),
		path.join(dir, 'full', '.changes.jsonl.tmp'),
		path.join(dir, 'full', 'changes.jsonl'),
	];
	assert.ok(
		at.some((file) =>
			message.startsWith(
				`cannot save session "full": the disk is full (ENOSPC at ${file}); free some space, then continue with: booook resume full`,
			),
		),
		message,
	);
	const left = (await readdir(path.join(dir, 'full'))).sort();
	assert.deepEqual(
		left.filter((f) => f !== 'changes.jsonl'),
		['book.txt', 'calls.jsonl', 'session.json'],
		'no temp file and no lock left',
	);
	// What the journal holds up to the failed write is part of the saved state.
	const saved = (await Session.snapshot(dir, 'full')).data as BookSessionData;
	const calls = (await readFile(path.join(dir, 'full', 'calls.jsonl'), 'utf8')).trim().split('\n');
	assert.ok(calls.length >= saved.run.nodes.filter((n: { status: string }) => n.status === 'done').length);

	// Space is freed: the resume finishes the run without repeating a logged call.
	disk.restore();
	assert.equal(
		await resumeCommand(dir, 'full', { json: true, program: 'booook', stdout: sink, stderr: sink }),
		0,
	);
	const done = JSON.parse(await readFile(path.join(dir, 'full', 'session.json'), 'utf8'));
	assert.equal(done.run.status, 'done');
	assert.ok(
		!existsSync(path.join(dir, 'full', 'changes.jsonl')),
		'closing folds the journal into session.json',
	);
	const after = (await readFile(path.join(dir, 'full', 'calls.jsonl'), 'utf8')).trim().split('\n');
	assert.deepEqual(after.slice(0, calls.length), calls);
	const prompts = after.map((l) => JSON.parse(l).prompt as string);
	assert.equal(new Set(prompts).size, prompts.length, 'no call was made twice');
});

test('a full disk while a session is created: nothing is left, exit 1, and the message says to run again', async (t) => {
	const dir = tempDir('fail', t);
	diskFullFrom(t, 1);
	const message = await refusal(Session.create(dir, init('new')), 1);
	assert.ok(message.startsWith('cannot create session "new": the disk is full (ENOSPC at '), message);
	assert.ok(
		message.endsWith('free some space, then run the same command again (nothing was created)'),
		message,
	);
	assert.deepEqual(await readdir(dir), []);
});

test('a full disk while a collection is being scored names booook score as the way to continue', async (t) => {
	const dir = tempDir('fail', t);
	const session = await Session.createCollection(dir, {
		id: 'coll',
		title: 'Released',
		sources: ['summaries.json'],
		runs: [],
		summaries: [
			{
				id: 's0',
				book: 'whale',
				text: 'A whale. A ship.',
				node: null,
				version: null,
				source: 'summaries.json',
			},
		],
		annotations: [],
		judgments: [],
	});
	t.after(() => session.close());
	diskFullFrom(t, 1);
	const saved = session.append('annotations', {
		id: 'a0',
		summary: 's0',
		sentence: 0,
		spans: [],
		confusing: false,
		questions: '',
		types: [],
		source: 'human',
		annotator: 'me',
		imported: null,
		raw: null,
		failure: null,
		createdAt: new Date().toISOString(),
	});
	const message = await refusal(saved, 1);
	assert.ok(
		message.endsWith(
			`free some space, then continue with: booook score coll${sessionsDirArg(dir)} (what was saved before is intact)`,
		),
		message,
	);
	assert.match(
		message,
		/ --sessions-dir /u,
		'the sessions folder is not the default one: the command names it',
	);
	assert.deepEqual((await readdir(path.join(dir, 'coll'))).sort(), ['lock', 'session.json']);
});

test('session.json that cannot be replaced (read-only folder, immutable file): named with the fix, old file intact, no temp file', async (t) => {
	const dir = tempDir('fail', t);
	const first = await Session.create(dir, init('ro'));
	await first.close();
	const file = path.join(dir, 'ro', 'session.json');
	const before = await readFile(file, 'utf8');

	// Root ignores permissions, so the refusal of a read-only folder is made at the rename.
	const real = stateFs.rename;
	stateFs.rename = (async (from: string) => {
		throw Object.assign(new Error(`EACCES: simulated, rename '${from}'`), {
			code: 'EACCES',
			syscall: 'rename',
			path: from,
		});
	}) as typeof stateFs.rename;
	t.after(() => {
		stateFs.rename = real;
	});
	const message = await refusal(Session.open(dir, 'ro'), 1);
	assert.ok(message.startsWith('cannot save session "ro": permission denied (EACCES at '), message);
	// Opening writes at once, before any work: the fix is followed by the same command.
	assert.ok(
		message.endsWith(
			'make the folder and its files writable, then run the same command again (what was saved before is intact)',
		),
		message,
	);
	assert.equal(await readFile(file, 'utf8'), before);
	assert.deepEqual(
		(await readdir(path.join(dir, 'ro'))).sort(),
		['book.txt', 'session.json'],
		'no temp file, and the lock released',
	);
	stateFs.rename = real;
});

test('an immutable session.json (chattr +i, where the system allows it) is refused with the fix', async (t) => {
	const dir = tempDir('fail', t);
	const first = await Session.create(dir, init('frozen'));
	await first.close();
	const file = path.join(dir, 'frozen', 'session.json');
	try {
		execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
	} catch {
		t.skip('chattr +i is not available here (needs CAP_LINUX_IMMUTABLE and ext2/3/4 or similar)');
		return;
	}
	try {
		const before = await readFile(file, 'utf8');
		const r = await booook(['resume', 'frozen', '--headless', '--sessions-dir', dir]);
		assert.equal(r.code, 1, r.stderr);
		assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
		assert.match(
			r.stderr,
			/^booook: cannot save session "frozen": the operation is not permitted \(a read-only or immutable file or folder\) \(EPERM at .*\); make it writable \(chmod, and chattr -i for an immutable file\), then run the same command again \(what was saved before is intact\)\n$/u,
		);
		assert.equal(await readFile(file, 'utf8'), before);
		assert.deepEqual((await readdir(path.join(dir, 'frozen'))).sort(), ['book.txt', 'session.json']);
	} finally {
		// Before the folder is removed: an immutable file cannot be.
		execFileSync('chattr', ['-i', file]);
	}
});

// Item 9: chunk offsets outside the book.

test('a hand-edited chunk past the end of the book is reported as corrupt when the session is opened', async (t) => {
	const dir = tempDir('fail', t);
	const s = await Session.create(dir, init('edited'));
	await s.close();
	const file = path.join(dir, 'edited', 'session.json');
	const data = JSON.parse(await readFile(file, 'utf8'));
	data.run.chunks[0].end = TEXT.length + 500;
	const text = JSON.stringify(data, null, 2);
	await writeFile(file, text);
	const expected = `session "edited" cannot be opened: ${file} is corrupt (chunk 1 of 1 spans characters 0 to ${TEXT.length + 500}, outside the book's ${TEXT.length}); the file was left unchanged`;
	assert.equal(await refusal(Session.open(dir, 'edited'), 2), expected);
	assert.equal(await refusal(Session.snapshot(dir, 'edited'), 2), expected);
	const r = await booook(['show', 'edited', '--sessions-dir', dir]);
	assert.equal(r.code, 2);
	assert.equal(r.stderr, `booook: ${expected}\n`);
	assert.equal(await readFile(file, 'utf8'), text);
	assert.ok(!existsSync(path.join(dir, 'edited', 'lock')));
});
