import { sessionsDirArg } from '../../source/config.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { invocation } from '../../source/commands/invocation.ts';
import { errorMessage } from '../../source/errors.ts';
import { next, said, say } from '../../source/program.ts';
import { diskError } from '../../source/store/disk.ts';
import { BIN, booook, printed, shell } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { tinyBookText } from '../support/study-books.ts';
import { tempDir } from '../support/temp.ts';
import { extractiveRun } from '../support/extractive-run.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/**
 * Runs a printed command line through the shell, as a user pasting it would, in `cwd` (the folder the
 * command was printed in, unless told); the fake API shares this process: no spawnSync.
 */
function paste(
	line: string,
	extra: string,
	env: Record<string, string>,
	cwd?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
	return shell(line + extra, env, cwd);
}

test('a printed command names the sessions folder only when it is not the default one, quoted for the shell', () => {
	assert.equal(sessionsDirArg('sessions', {}), '');
	assert.equal(sessionsDirArg('/srv/mine', { BOOOOK_SESSIONS: '/srv/mine' }), '');
	assert.equal(sessionsDirArg('/srv/mine', {}), ' --sessions-dir /srv/mine');
	assert.equal(sessionsDirArg("/srv/Ann's runs", {}), ` --sessions-dir '/srv/Ann'\\''s runs'`);
	assert.equal(sessionsDirArg('rel', {}), ` --sessions-dir ${resolve('rel')}`);
});

test(
	'an interrupted run in another sessions folder prints a resume command that works when pasted',
	{ timeout: 120_000 },
	async () => {
		const api = await startFakeApi({ latencyMs: 100 });
		try {
			const dir = tempDir('hint');
			const book = join(dir, 'book.txt');
			writeFileSync(book, tinyBookText(400));
			const sessions = join(dir, "Ann's sessions");
			const env = { OPENAI_API_KEY: 'sk-test' };
			let sent = false;
			const first = await booook(
				[
					'run',
					book,
					'--headless',
					'--provider',
					'openai',
					'--base-url',
					api.openaiBaseUrl,
					'--chunk-size',
					'256',
					'--concurrency',
					'1',
					'--session',
					'hinted',
					'--sessions-dir',
					sessions,
				],
				{
					env,
					onStderr: (text, kill) => {
						if (!sent && /\[1\/\d+ calls\]/u.test(text)) {
							sent = true;
							kill('SIGINT');
						}
					},
				},
			);
			assert.equal(first.code, 130, first.stderr);
			const hint = /Continue with: (.*)$/mu.exec(first.stderr)?.[1];
			assert.equal(hint, printed(`resume hinted --sessions-dir '${sessions.replaceAll("'", "'\\''")}'`));
			const again = await paste(hint!, ` --headless --base-url ${api.openaiBaseUrl}`, env);
			assert.equal(again.status, 0, again.stderr);
		} finally {
			await api.close();
		}
	},
);

test(
	'an interrupted study in another sessions folder prints a study command that works when pasted',
	{ timeout: 120_000 },
	async () => {
		const api = await startFakeApi({ latencyMs: 100 });
		try {
			const dir = tempDir('hint-study');
			const book = join(dir, 'ann.txt');
			writeFileSync(book, tinyBookText(300));
			const file = join(dir, 'study.json');
			writeFileSync(
				file,
				JSON.stringify({
					name: 'hint',
					books: [book],
					methods: ['hier'],
					providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl }],
					chunkSizes: [256],
					concurrency: 1,
				}),
			);
			const sessions = join(dir, 'elsewhere');
			mkdirSync(sessions);
			const env = { OPENAI_API_KEY: 'sk-test' };
			let sent = false;
			const first = await booook(['study', file, '--headless', '--sessions-dir', sessions], {
				env,
				onStderr: (text, kill) => {
					if (!sent && /started/u.test(text)) {
						sent = true;
						kill('SIGINT');
					}
				},
			});
			assert.equal(first.code, 130, first.stderr);
			const hint = /Continue with: (.*)$/mu.exec(first.stderr)?.[1];
			assert.equal(hint, printed(`study ${file} --sessions-dir ${sessions}`));
			const again = await paste(hint!, ' --headless', env);
			assert.equal(again.status, 0, again.stderr);
			assert.match(again.stderr, /resumed/u, 'the pasted command continues the same session');
		} finally {
			await api.close();
		}
	},
);

test('the program a printed command starts with: booook when this checkout is first on the PATH, else npm --prefix or node with the absolute path, so it runs pasted in any folder', () => {
	const dir = tempDir('invocation');
	const pkg = join(dir, 'my booook');
	mkdirSync(join(pkg, 'bin'), { recursive: true });
	const bin = join(pkg, 'bin/booook.js');
	writeFileSync(bin, '');
	writeFileSync(join(pkg, 'package.json'), '{}');
	const linked = join(dir, 'linked');
	const other = join(dir, 'other');
	const npmBin = join(pkg, 'node_modules/.bin');
	for (const folder of [linked, other, npmBin]) mkdirSync(folder, { recursive: true });
	symlinkSync(bin, join(linked, 'booook'));
	symlinkSync(bin, join(npmBin, 'booook'));
	writeFileSync(join(other, 'booook'), '', { mode: 0o755 });
	chmodSync(bin, 0o755);
	const path = (...dirs: string[]) => dirs.join(delimiter);

	const node = `node '${bin}'`;
	assert.equal(invocation({ PATH: path(linked, '/usr/bin') }, bin), 'booook');
	assert.equal(
		invocation({ PATH: path(other, linked) }, bin),
		node,
		'another booook comes first on the PATH',
	);
	assert.equal(
		invocation({ PATH: path(npmBin) }, bin),
		node,
		"npm's node_modules/.bin is not the user's PATH",
	);
	// Wherever it is started from: the absolute path, quoted, so the line works pasted in any folder.
	assert.equal(invocation({}, bin), node);
	const npm = {
		npm_lifecycle_event: 'start',
		npm_lifecycle_script: 'node bin/booook.js',
		npm_package_json: join(pkg, 'package.json'),
	};
	assert.equal(invocation(npm, bin), `npm --prefix '${pkg}' start --`);
	assert.equal(
		invocation(
			{ ...npm, npm_lifecycle_event: 'dev', npm_lifecycle_script: 'node bin/booook.js --sessions-dir x' },
			bin,
		),
		`npm --prefix '${pkg}' run dev --`,
	);
	assert.equal(
		invocation({ ...npm, npm_package_json: join(dir, 'package.json') }, bin),
		node,
		"another package's script",
	);
	assert.equal(invocation({ ...npm, PATH: linked }, bin), 'booook', 'on the PATH, booook is shortest');
});

test(
	'a hint printed under npm start, from another folder or with booook on the PATH works when pasted there',
	{ timeout: 120_000 },
	async () => {
		const dir = tempDir('pasted');
		// Not ./sessions, the default folder in dir, which a printed command leaves out.
		const sessions = join(dir, 'mine');
		mkdirSync(sessions);
		const hintOf = (stderr: string) => /list the sessions there with: (.*)$/mu.exec(stderr)?.[1];
		const lists = async (
			hint: string | undefined,
			expected: string,
			cwd: string,
			env: Record<string, string> = {},
		) => {
			assert.equal(hint, `${expected} sessions --sessions-dir ${sessions}`);
			const again = await paste(hint!, '', env, cwd);
			assert.equal(again.status, 0, again.stderr);
			assert.match(again.stdout, /no sessions in/u);
		};

		const elsewhere = await booook(['resume', 'nope', '--sessions-dir', sessions], { cwd: dir });
		assert.equal(elsewhere.code, 2);
		// booook itself when this checkout is on the user's PATH (after npm link), else node and its path.
		await lists(hintOf(elsewhere.stderr), invocation({ PATH: process.env.PATH ?? '' }), dir);

		const onPath = join(dir, 'bin');
		mkdirSync(onPath);
		symlinkSync(BIN, join(onPath, 'booook'));
		const PATH = `${onPath}${delimiter}${process.env.PATH ?? ''}`;
		const linked = await booook(['resume', 'nope', '--sessions-dir', sessions], { cwd: dir, env: { PATH } });
		await lists(hintOf(linked.stderr), 'booook', dir, { PATH });

		if (spawnSync('npm', ['--version']).status !== 0) return;
		const root = dirname(dirname(BIN));
		const started = await paste('npm start --silent -- resume nope --sessions-dir ' + sessions, '', {}, root);
		assert.equal(started.status, 2, started.stderr);
		await lists(hintOf(started.stderr), `npm --prefix ${root} start --`, root);
		// Pasted in another folder, the hint printed under npm start still runs.
		await lists(hintOf(started.stderr), `npm --prefix ${root} start --`, dir);
	},
);

test('"no session" names the folder looked in, and the folder a session of that id is in when it is elsewhere', async () => {
	const dir = tempDir('elsewhere');
	const home = join(dir, 'home');
	const kept = join(dir, 'kept');
	mkdirSync(home);
	await extractiveRun(FRANKENSTEIN, kept, 'frank');
	// As when booook on the PATH is run in the home folder, while the session was made under npm start
	// in another folder: $BOOOOK_SESSIONS names where it was made.
	const r = await booook(['show', 'frank'], { cwd: home, env: { BOOOOK_SESSIONS: kept } });
	assert.equal(r.code, 0, r.stderr);
	const missing = await booook(['show', 'frank', '--sessions-dir', join(home, 'sessions')], {
		cwd: home,
		env: { BOOOOK_SESSIONS: kept },
	});
	assert.equal(missing.code, 2);
	assert.equal(
		missing.stderr,
		`booook: no session "frank" in ${join(home, 'sessions')}, but there is one in ${kept}: give --sessions-dir ${kept}\n`,
	);
	const nowhere = await booook(['show', 'nope'], { cwd: home });
	assert.equal(nowhere.code, 2);
	assert.match(
		nowhere.stderr,
		new RegExp(
			`no session "nope" in ${join(home, 'sessions')}; give the folder that holds it with --sessions-dir DIR, or list`,
			'u',
		),
	);
});

test('a message below the commands names its commands as data: its message reads as with booook on the PATH, and the edge says them as this process was started, in a message inside a message too', () => {
	const then = said`${said`continue with: ${next('resume', 'full')}`} (what was saved before is intact)`;
	const error = diskError(
		{ code: 'ENOSPC' } as NodeJS.ErrnoException,
		'cannot save session "full"',
		'/s/full',
		then,
	);
	const started = `npm --prefix '/home/a b/booook' start --`;
	assert.equal(
		error.message,
		'cannot save session "full": the disk is full (ENOSPC at /s/full); free some space, then continue with: booook resume full (what was saved before is intact)',
	);
	assert.equal(
		errorMessage(error, started),
		`cannot save session "full": the disk is full (ENOSPC at /s/full); free some space, then continue with: ${started} resume full (what was saved before is intact)`,
	);
	assert.equal(say(said`see: ${next('sessions')}`, started), `see: ${started} sessions`);
});
