import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { invocation } from '../source/commands/invocation.ts';
import { sessionsDirArg } from '../source/store/dirs.ts';
import { BIN, booook, printed, shell } from './support/cli.ts';
import { startFakeApi } from './support/fake-api.ts';
import { tinyBookText } from './support/study-books.ts';
import { tempDir } from './support/temp.ts';

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

test("the program a printed command starts with: booook when this checkout is first on the PATH, npm start -- under npm start, else node and the path from the user's folder", () => {
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

	assert.equal(invocation({ PATH: path(linked, '/usr/bin') }, dir, bin), 'booook');
	assert.equal(
		invocation({ PATH: path(other, linked) }, pkg, bin),
		'node bin/booook.js',
		'another booook comes first on the PATH',
	);
	assert.equal(
		invocation({ PATH: path(npmBin) }, pkg, bin),
		'node bin/booook.js',
		"npm's node_modules/.bin is not the user's PATH",
	);
	assert.equal(invocation({}, join(pkg, 'bin'), bin), 'node booook.js');
	assert.equal(
		invocation({}, join(dir, 'linked'), bin),
		`node '${bin}'`,
		'from outside the checkout: the absolute path, quoted',
	);
	const npm = {
		npm_lifecycle_event: 'start',
		npm_lifecycle_script: 'node bin/booook.js',
		npm_package_json: join(pkg, 'package.json'),
	};
	assert.equal(invocation(npm, pkg, bin), 'npm start --');
	assert.equal(
		invocation(
			{ ...npm, npm_lifecycle_event: 'dev', npm_lifecycle_script: 'node bin/booook.js --sessions-dir x' },
			pkg,
			bin,
		),
		'npm run dev --',
	);
	assert.equal(
		invocation({ ...npm, npm_package_json: join(dir, 'package.json') }, pkg, bin),
		'node bin/booook.js',
		"another package's script",
	);
	assert.equal(invocation({ ...npm, PATH: linked }, pkg, bin), 'booook', 'on the PATH, booook is shortest');
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
		await lists(hintOf(elsewhere.stderr), `node ${BIN}`, dir);

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
		await lists(hintOf(started.stderr), 'npm start --', root);
	},
);
