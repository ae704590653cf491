import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../support/temp.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

// The compiled start-up path (bin/build.js, dist/, bin/booook.js choosing between dist/ and the
// sources). Each test works in its own copy of the package, with node_modules linked, so the
// repository's own dist/ is never built, changed or relied on here.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DESCRIPTION = 'Summarize books longer than a model';

interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
}

function node(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
	return new Promise((resolve, reject) => {
		execFile(
			process.execPath,
			args,
			{
				cwd,
				env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
				maxBuffer: 16 << 20,
			},
			(error, stdout, stderr) => {
				if (error && typeof error.code !== 'number') reject(error);
				else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
			},
		);
	});
}

/** A copy of the package in a temporary folder, removed after the test. */
function packageCopy(t: TestContext): string {
	const dir = tempDir('build', t);
	for (const entry of ['source', 'bin', 'prompts', 'package.json', 'tsconfig.json'])
		cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
	symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
	return dir;
}

async function build(dir: string, ...args: string[]): Promise<Run> {
	return node(dir, ['bin/build.js', ...args]);
}

const help = (dir: string, env: Record<string, string> = {}) => node(dir, ['bin/booook.js', '--help'], env);

test('the compiled entry does what the sources do: help, version, a plan (prompts, tokenizer) and an extractive run (dictionary)', async (t) => {
	const dir = packageCopy(t);
	const built = await build(dir);
	assert.equal(built.code, 0, built.stderr);
	assert.ok(existsSync(join(dir, 'dist', 'build-stamp')));
	const book = join(dir, 'small.txt');
	writeFileSync(book, readFileSync(BOOK, 'utf8').slice(0, 60_000));

	const fromSource = (args: string[]) => node(dir, ['bin/booook.js', ...args], { BOOOOK_FROM_SOURCE: '1' });
	const fromBuild = (args: string[]) => node(dir, ['dist/cli.js', ...args]);
	for (const args of [['--help'], ['--version'], ['run', '--help']]) {
		const [a, b] = [await fromSource(args), await fromBuild(args)];
		assert.equal(a.code, 0, a.stderr);
		assert.deepEqual(b, a, args.join(' '));
	}
	// The usage line starts as the user started booook, with the checkout's absolute path: it runs from any folder.
	const usage = `Usage: node ${join(dir, 'bin/booook.js')} `;
	assert.ok((await fromBuild(['--help'])).stdout.startsWith(usage), usage);

	// A plan reads the prompt templates (found from the module's own folder) and counts tokens.
	const plan = async (run: (args: string[]) => Promise<Run>) => {
		const r = await run(['plan', book, '--provider', 'anthropic', '--json']);
		assert.equal(r.code, 0, r.stderr);
		const json = JSON.parse(r.stdout) as { chunks: { ms?: number } };
		delete json.chunks.ms;
		return json;
	};
	assert.deepEqual(await plan(fromBuild), await plan(fromSource));

	// The extractive baseline splits sentences with the dictionary package, resolved from the module.
	const run = async (go: (args: string[]) => Promise<Run>, session: string) => {
		const r = await go([
			'run',
			book,
			'--provider',
			'extractive',
			'--headless',
			'--sessions-dir',
			join(dir, 'sessions'),
			'--session',
			session,
		]);
		assert.equal(r.code, 0, r.stderr);
		return r.stdout;
	};
	const summary = await run(fromBuild, 'built');
	assert.ok(summary.length > 500, summary);
	assert.equal(summary, await run(fromSource, 'source'));
});

test('bin runs dist/ only while it was built from the sources on disk, else the sources', async (t) => {
	const dir = packageCopy(t);
	const original = readFileSync(join(dir, 'source', 'cli.tsx'), 'utf8');
	assert.ok(original.includes(DESCRIPTION));

	// No build: the sources run.
	let r = await help(dir);
	assert.equal(r.code, 0, r.stderr);
	assert.match(r.stdout, new RegExp(DESCRIPTION, 'u'));

	assert.equal((await build(dir)).code, 0);
	// Marks the compiled code, to see which of the two runs.
	const compiled = join(dir, 'dist', 'cli.js');
	writeFileSync(compiled, readFileSync(compiled, 'utf8').replace(DESCRIPTION, `BUILT ${DESCRIPTION}`));
	assert.match((await help(dir)).stdout, /BUILT Summarize/u);
	assert.doesNotMatch((await help(dir, { BOOOOK_FROM_SOURCE: '1' })).stdout, /BUILT/u);

	// An edited source runs at once.
	writeFileSync(join(dir, 'source', 'cli.tsx'), original.replace(DESCRIPTION, `EDITED ${DESCRIPTION}`));
	r = await help(dir);
	assert.match(r.stdout, /EDITED Summarize/u);
	assert.doesNotMatch(r.stdout, /BUILT/u);

	// Back to what was built: the build is used again; a new source file makes it stale again.
	writeFileSync(join(dir, 'source', 'cli.tsx'), original);
	assert.match((await help(dir)).stdout, /BUILT Summarize/u);
	writeFileSync(join(dir, 'source', 'added.ts'), 'export const added = 1;\n');
	assert.doesNotMatch((await help(dir)).stdout, /BUILT/u);
	rmSync(join(dir, 'source', 'added.ts'));

	// A changed build recipe makes it stale too.
	writeFileSync(join(dir, 'tsconfig.json'), `${readFileSync(join(dir, 'tsconfig.json'), 'utf8')}\n`);
	assert.doesNotMatch((await help(dir)).stdout, /BUILT/u);
});

test('a failed build leaves no stamp, so the sources run; under `prepare` it warns instead of failing the install', async (t) => {
	const dir = packageCopy(t);
	assert.equal((await build(dir)).code, 0);
	const broken = join(dir, 'source', 'errors.ts');
	const text = readFileSync(broken, 'utf8');
	writeFileSync(broken, `${text}\nexport const = ;\n`);

	let r = await build(dir);
	assert.equal(r.code, 1);
	assert.match(r.stderr, /booook: could not compile source\/ into dist\//u);
	assert.ok(!existsSync(join(dir, 'dist', 'build-stamp')));
	r = await build(dir, '--prepare');
	assert.equal(r.code, 0);
	assert.match(r.stderr, /runs from the TypeScript sources instead/u);
	assert.ok(!existsSync(join(dir, 'dist', 'build-stamp')));

	writeFileSync(broken, text);
	r = await help(dir);
	assert.equal(r.code, 0, r.stderr);
	assert.match(r.stdout, new RegExp(DESCRIPTION, 'u'));
});
