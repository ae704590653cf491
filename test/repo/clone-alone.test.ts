import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shell } from '../support/cli.ts';
import { quickStart } from '../support/quick-start.ts';
import { tempDir } from '../support/temp.ts';

// A user clones booook onto a machine with nothing beside it, so the README's books and the
// authors' data have to come with the clone. This clones the committed repository into a folder of
// its own and runs there, as written through npm, every quick-start command that needs no server.
// The checkout's node_modules is linked in rather than installed: downloading is npm's part of
// `npm install`, the build (`prepare`) is this project's and is run. `.ci/run` also refuses tracked
// files that name paths beside the repository.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const git = (args: string[], cwd = ROOT) => spawnSync('git', args, { cwd, encoding: 'utf8' });
const notAClone = git(['rev-parse', '--is-inside-work-tree']).stdout.trim() !== 'true';

/** Lines that reach a model's server (a key or --base-url) are test/repo/readme.test.ts's, with its fake API. */
const offline = (line: string) => !/_API_KEY=|--base-url /u.test(line);

test(
	"a clone with nothing beside it builds, runs the README's offline quick start and scores the authors' data",
	{ skip: notAClone && 'not a git checkout: nothing to clone', timeout: 300_000 },
	async (t) => {
		const parent = tempDir('alone', t);
		const clone = join(parent, 'booook');
		const cloned = git(['clone', '--quiet', ROOT, clone]);
		assert.equal(cloned.status, 0, cloned.stderr);
		symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(clone, 'node_modules'));
		assert.deepEqual(readdirSync(parent), ['booook'], 'nothing beside the clone');

		const env = {};
		const build = await shell('npm run prepare', env, clone);
		assert.equal(build.status, 0, build.stderr);
		assert.ok(existsSync(join(clone, 'dist', 'build-stamp')), `the clone's build is whole\n${build.stderr}`);

		const lines = quickStart(clone).filter(offline);
		assert.ok(
			lines.some((line) => / -- examples\/books\//u.test(line)),
			lines.join('\n'),
		);
		for (const line of lines) {
			const result = await shell(line, env, clone);
			assert.equal(result.status, 0, `${line}\n${result.stderr}`);
			assert.doesNotMatch(result.stderr, /error|no such file/iu, line);
			if (/ -- examples\/books\//u.test(line))
				assert.ok(result.stdout.split(/\s+/u).length > 100, `${line}: a summary on stdout\n${result.stdout}`);
		}
		const sessions = readdirSync(join(clone, 'sessions')).filter((id) => !id.startsWith('.'));
		assert.ok(sessions.length > 0, 'the runs are saved in the clone');
		for (const id of sessions) {
			const state = JSON.parse(readFileSync(join(clone, 'sessions', id, 'session.json'), 'utf8'));
			assert.equal(state.run.status, 'done', id);
		}

		// The authors' released data: Table 2's GPT-4 2048 hierarchical cell, as docs/booookscore.md gives it.
		assert.ok(existsSync(join(clone, 'data/booookscore/LICENSE')));
		const score = await shell(
			'npm start -- score --summaries data/booookscore/summaries/gpt4-2048-hier-cleaned.json --annotations data/booookscore/annotations/gpt4-2048-hier.json --json',
			env,
			clone,
		);
		assert.equal(score.status, 0, score.stderr);
		const scored = JSON.parse(score.stdout.slice(score.stdout.indexOf('{')));
		assert.equal(scored.booookscore.toFixed(2), '89.39');
	},
);
