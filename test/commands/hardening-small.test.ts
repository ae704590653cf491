import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
	closeSync,
	constants,
	existsSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { resumeCommand } from '../../source/commands/resume.ts';
import { loadBook } from '../../source/app/run.ts';
import { runCommand } from '../../source/commands/run.ts';
import { createProvider } from '../../source/llm/create.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import { parseStudy } from '../../source/study/spec.ts';
import { newRun } from '../../source/summarize/run.ts';
import { Session } from '../../source/store/session.ts';
import { booook } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { tempDir } from '../support/temp.ts';
import { usageError } from '../support/assertions.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

/**
 * Issue 24, items 5 and 7: internal errors that reached the user bare (a session file that is a
 * folder, a sessions dir that is a looping or dangling link, a report of a session whose final
 * summary names a node it does not have), and inputs that hung or failed late (a named pipe as a
 * prompt template, a study named with "..", a secret in the query of a base URL).
 */

function smallBook(dir: string): string {
	const book = join(dir, 'small.txt');
	writeFileSync(book, readFileSync(BOOK, 'utf8').slice(0, 20_000));
	return book;
}

/** A command's output thrown away; its command lines named as booook on the PATH names them. */
const quiet = () => ({ stdout: new PassThrough(), stderr: new PassThrough(), program: 'booook' });

/** One line on stderr, nothing "unexpected" about it. */
function oneLine(stderr: string): string {
	assert.equal(stderr.split('\n').filter(Boolean).length, 1, stderr);
	assert.doesNotMatch(stderr, /unexpected error/u);
	return stderr.trim();
}

/** A session's state but for the times it was opened and saved. */
function content(stateFile: string): unknown {
	const {
		openedAt: _opened,
		updatedAt: _updated,
		...rest
	} = JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, unknown>;
	return rest;
}

/** A session of `book` planned but not run, so that resuming it runs it (and reads its call log). */
async function plannedSession(sessions: string, book: string, id: string): Promise<void> {
	const loaded = await loadBook(book, { provider: 'extractive', model: 'textrank', chunkSize: 1024 });
	const created = await Session.create(sessions, {
		id,
		book: loaded.book,
		text: loaded.loaded.text,
		run: newRun(loaded.config, loaded.chunks),
	});
	await created.close();
}

test('a session file that is a folder (changes.jsonl, calls.jsonl, batches.jsonl): one line naming it, the cause and the fix; exit 1; nothing changed', async () => {
	const dir = tempDir('eisdir');
	const book = smallBook(dir);
	const cases: [file: string, args: (id: string, sessions: string) => string[]][] = [
		['changes.jsonl', (id, sessions) => ['show', id, '--sessions-dir', sessions]],
		['changes.jsonl', (id, sessions) => ['report', id, '--json', '--sessions-dir', sessions]],
		['calls.jsonl', (id, sessions) => ['resume', id, '--headless', '--sessions-dir', sessions]],
		['batches.jsonl', (id, sessions) => ['resume', id, '--headless', '--sessions-dir', sessions]],
	];
	for (const [i, [file, args]] of cases.entries()) {
		const sessions = join(dir, `sessions-${i}`);
		await plannedSession(sessions, book, 's1');
		const folder = join(sessions, 's1', file);
		mkdirSync(folder);
		writeFileSync(join(folder, 'kept'), 'x');
		const state = content(join(sessions, 's1', 'session.json'));
		const r = await booook(args('s1', sessions));
		assert.equal(r.code, 1, `${file}: ${r.stderr}`);
		const line = oneLine(r.stderr);
		assert.equal(
			line,
			`booook: cannot read ${folder}: a folder is where a file should be (EISDIR); move that folder out of the way, then run the same command again`,
		);
		assert.ok(
			statSync(folder).isDirectory() && existsSync(join(folder, 'kept')),
			'the folder is left as it was',
		);
		// Opening a session to resume it notes when (openedAt, updatedAt); nothing else changes.
		assert.deepEqual(content(join(sessions, 's1', 'session.json')), state, 'session.json is left as it was');
	}
});

test('a sessions dir that is a symbolic link looping or pointing to nothing: one line naming the link and the fix, exit 2, nothing created', async () => {
	const dir = tempDir('links');
	const book = smallBook(dir);
	symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
	symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
	symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
	const loop = join(dir, 'loop-a');
	const dangling = join(dir, 'dangling');
	const choose = 'choose another with --sessions-dir or BOOOOK_SESSIONS';
	for (const args of [
		['sessions'],
		['show', 's1'],
		['run', book, '--headless', '--provider', 'extractive', '--chunk-size', '1024'],
	]) {
		const looped = await booook([...args, '--sessions-dir', loop]);
		assert.equal(looped.code, 2, looped.stderr);
		assert.equal(
			oneLine(looped.stderr),
			`booook: the sessions dir ${loop} cannot be used: the symbolic link ${loop} loops (ELOOP); fix or remove that link, or ${choose}`,
		);

		const below = join(dangling, 'sub');
		for (const sessions of [dangling, below]) {
			const r = await booook([...args, '--sessions-dir', sessions]);
			assert.equal(r.code, 2, r.stderr);
			assert.equal(
				oneLine(r.stderr),
				`booook: the sessions dir ${sessions} cannot be used: the symbolic link ${dangling} points to ${join(dir, 'nowhere')}, which does not exist; create ${join(dir, 'nowhere')}, remove the link, or ${choose}`,
			);
		}
	}
	assert.equal(existsSync(join(dir, 'nowhere')), false, 'nothing was created where the link points');
	assert.deepEqual(readdirSync(dir).sort(), ['dangling', 'loop-a', 'loop-b', 'small.txt']);
});

test('report and report --json agree on a session whose final summary names a node it does not have: both report what it holds, with one warning', async () => {
	const dir = tempDir('missing-root');
	const book = smallBook(dir);
	const sessions = join(dir, 'sessions');
	assert.equal(
		await runCommand(book, {
			config: { provider: 'extractive', model: 'textrank', chunkSize: 1024 },
			session: 's1',
			sessionsDir: sessions,
			json: true,
			...quiet(),
		}),
		0,
	);
	const stateFile = join(sessions, 's1', 'session.json');
	const state = JSON.parse(readFileSync(stateFile, 'utf8'));
	const last = state.run.nodes.at(-1).id;
	state.run.root = 'n9999';
	writeFileSync(stateFile, JSON.stringify(state));
	const edited = readFileSync(stateFile, 'utf8');

	const text = await booook(['report', 's1', '--sessions-dir', sessions]);
	const json = await booook(['report', 's1', '--json', '--sessions-dir', sessions]);
	const warning = `warning: session "s1" names n9999 as its final summary, but its run has no such node (its nodes are n0 to ${last}): its session.json was edited or damaged; this report leaves the final summary out`;
	assert.equal(text.code, 0, text.stderr);
	assert.equal(oneLine(text.stderr), warning);
	assert.match(text.stdout, /^BooookScore$/mu);
	assert.equal(json.code, 0, json.stderr);
	assert.equal(oneLine(json.stderr), `${warning} (coverage: null)`);
	const report = JSON.parse(json.stdout);
	assert.equal(report.coverage, null);
	assert.deepEqual(report.booookscore, { model: null, human: null });
	assert.equal(readFileSync(stateFile, 'utf8'), edited, 'report changes nothing');
});

test(
	'a named pipe (FIFO) given as a prompt template is refused at once in one line, not waited on',
	{ skip: process.platform === 'win32' ? 'no named pipes' : false, timeout: 60_000 },
	async () => {
		const prompts = tempDir('fifo-prompts');
		const fifo = join(prompts, 'hier-init.txt');
		assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
		let settled = false;
		const loading = loadTemplates(prompts).finally(() => (settled = true));
		try {
			// Without the fix the read waits for a writer forever: the race ends it, and a writer
			// opened below lets the stuck read go, so the test ends either way.
			const watchdog = new Promise<never>((_, reject) =>
				setTimeout(
					() =>
						!settled &&
						reject(new Error('loading the templates is still waiting on the named pipe after 20 s')),
					20_000,
				).unref(),
			);
			await assert.rejects(
				Promise.race([loading, watchdog]),
				usageError(
					new RegExp(
						`^${fifo.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}: template "hier-init" is a named pipe \\(FIFO\\), not a regular file; put a text file there, or delete it to use the shipped one \\(see prompts/README\\.md\\)$`,
						'u',
					),
				),
			);
		} finally {
			if (!settled) {
				closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
				await loading.catch(() => {});
			}
		}
	},
);

test('a study named with two dots in a row is refused by the study check, with the fix, before any cell runs', async () => {
	const spec = {
		name: 'x..y',
		books: ['a.txt'],
		methods: ['hier'],
		providers: [{ provider: 'extractive' }],
		chunkSizes: [1024],
	};
	assert.throws(
		() => parseStudy(spec, 's.json'),
		usageError(
			/^study s\.json: name: two dots in a row are not allowed .*; use a name of letters, digits, "\.", "_" and "-" \(starting with a letter or digit, no two dots in a row\), e\.g\. "name": "table2"$/u,
		),
	);
	assert.equal(parseStudy({ ...spec, name: 'x.y' }, 's.json').name, 'x.y');

	const dir = tempDir('study-dots');
	const book = smallBook(dir);
	const file = join(dir, 'study.json');
	writeFileSync(file, JSON.stringify({ ...spec, books: [book] }));
	const sessions = join(dir, 'sessions');
	const r = await booook(['study', file, '--sessions-dir', sessions]);
	assert.equal(r.code, 2, r.stderr);
	assert.match(oneLine(r.stderr), /^booook: study .*study\.json: name: two dots in a row are not allowed/u);
	assert.equal(existsSync(sessions), false, 'no session was made');
});

test('a secret in the query of a base URL (api_key, key, token, ...) is refused with its value hidden; nothing is saved, no call is made', async (t) => {
	const dir = tempDir('url-secret');
	const book = smallBook(dir);
	const sessions = join(dir, 'sessions');
	const fake = await startFakeApi();
	t.after(() => fake.close());
	const env = { OPENAI_API_KEY: 'sk-test-key', ANTHROPIC_API_KEY: 'sk-test-key' };
	const secret = 'Zq9secretValue';
	for (const query of [
		`api_key=${secret}`,
		`key=${secret}`,
		`token=${secret}`,
		`x=1&access_token=${secret}`,
		`api-key=${secret}`,
	]) {
		const url = `${fake.openaiBaseUrl}?${query}`;
		const config = { provider: 'openai' as const, model: 'gpt-4o-mini', baseUrl: url, chunkSize: 1024 };
		await assert.rejects(
			runCommand(book, { config, sessionsDir: sessions, json: true, env, ...quiet() }),
			usageError(
				/^--base-url http:\/\/127\.0\.0\.1:\d+\/v1\?.*=…: leave the secret out of the URL \(".*": it is saved with the session and shown in messages\); give the key in OPENAI_API_KEY$/u,
				secret,
			),
			url,
		);
		assert.throws(
			() => createProvider({ provider: 'anthropic', model: 'm', env: { ...env, ANTHROPIC_BASE_URL: url } }),
			usageError(/^ANTHROPIC_BASE_URL .*leave the secret out of the URL.*ANTHROPIC_API_KEY$/u, secret),
		);
	}
	assert.equal(existsSync(sessions), false, 'no session was created');
	assert.equal(fake.requests.length, 0, 'no call was made');

	// Resuming with such an address leaves the session as it was.
	await plannedSession(sessions, book, 's1');
	const before = readFileSync(join(sessions, 's1', 'session.json'), 'utf8');
	await assert.rejects(
		resumeCommand(sessions, 's1', { baseUrl: `http://localhost/v1?token=${secret}`, json: true, ...quiet() }),
		usageError(/leave the secret out of the URL/u, secret),
	);
	assert.equal(readFileSync(join(sessions, 's1', 'session.json'), 'utf8'), before);

	// A query that holds no secret (Azure's api-version) is an address like any other.
	assert.equal(
		createProvider({
			provider: 'openai',
			model: 'm',
			env: { ...env, OPENAI_BASE_URL: 'https://example.org/v1?api-version=2024-06-01' },
		}).name,
		'openai',
	);
});
