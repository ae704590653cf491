import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { FRANKENSTEIN as BOOK } from '../support/repo-data.ts';

function scratch() {
	const dir = tempDir('cli');
	const sessions = join(dir, 'sessions');
	return { dir, sessions };
}

function smallBook(dir: string): string {
	const path = join(dir, 'small.txt');
	writeFileSync(path, readFileSync(BOOK, 'utf8').slice(0, 60_000));
	return path;
}

const badInputs: [string, (dir: string) => string[], RegExp][] = [
	['a missing book', (d) => ['run', join(d, 'nope.txt')], /nope\.txt/],
	['a directory', (d) => ['run', d], /director/i],
	['an empty file', (d) => (writeFileSync(join(d, 'e.txt'), '  \n\n'), ['run', join(d, 'e.txt')]), /empty/i],
	['an unknown extension', (d) => (writeFileSync(join(d, 'b.pdf'), 'x'), ['run', join(d, 'b.pdf')]), /\.pdf/],
	[
		'binary content',
		(d) => (writeFileSync(join(d, 'b.txt'), Buffer.from([0x41, 0, 0x42, 0])), ['run', join(d, 'b.txt')]),
		/binary/i,
	],
	['a non-numeric chunk size', (d) => ['run', smallBook(d), '--chunk-size', 'big'], /chunk-size/],
	[
		'a window too small for the chunks',
		(d) => ['run', smallBook(d), '--context-window', '2000'],
		/context-window/,
	],
	// Its last merge would have no room for two summaries: found before level 0 is paid for.
	[
		'a summary limit that leaves a merge no room',
		(d) => ['run', smallBook(d), '--max-summary', '8000'],
		/--max-summary 8000 leaves the last merge no room/,
	],
	['openai without a key', (d) => ['run', smallBook(d), '--provider', 'openai'], /OPENAI_API_KEY/],
	['an unknown method', (d) => ['run', smallBook(d), '--method', 'tree'], /method/],
	[
		'a call timeout of 0',
		(d) => ['run', smallBook(d), '--call-timeout', '0'],
		/--call-timeout 0: must be a number from 1 to 86400/,
	],
	[
		'an unknown option',
		(d) => ['run', smallBook(d), '--frobnicate'],
		/^booook: unknown option '--frobnicate' \(run with --help for usage\)$/m,
	],
	[
		'a misspelt option',
		(d) => ['run', smallBook(d), '--jsn'],
		/^booook: unknown option '--jsn' \(Did you mean --json\?\) \(run with --help for usage\)$/m,
	],
	['a missing session', () => ['resume', 'no-such-session'], /no-such-session/],
];

for (const [name, args, pattern] of badInputs) {
	test(`bad input (${name}): one-line error, exit 2, nothing written`, async () => {
		const { dir, sessions } = scratch();
		const before = readdirSync(dir).sort();
		const argv = args(dir);
		const after = readdirSync(dir).sort();
		const r = await booook([...argv, '--sessions-dir', sessions]);
		assert.equal(r.code, 2, r.stderr);
		assert.match(r.stderr, pattern);
		assert.equal(r.stdout, '');
		const lines = r.stderr.trim().split('\n');
		assert.equal(lines.length, 1, r.stderr);
		assert.ok(!existsSync(sessions), 'no sessions directory was created');
		assert.deepEqual(readdirSync(dir).sort(), after);
		assert.ok(after.length >= before.length);
	});
}

test('run with the extractive baseline, then sessions, show, export and resume of a finished session', async () => {
	const { dir, sessions } = scratch();
	const book = smallBook(dir);
	const r = await booook([
		'run',
		book,
		'--headless',
		'--session',
		's1',
		'--sessions-dir',
		sessions,
		'--chunk-size',
		'1024',
	]);
	assert.equal(r.code, 0, r.stderr);
	assert.match(r.stderr, /extractive baseline \(not an LLM\)/);
	assert.ok(r.stdout.trim().length > 100, 'the final summary is printed');
	for (const file of ['book.txt', 'session.json', 'calls.jsonl'])
		assert.ok(existsSync(join(sessions, 's1', file)), file);
	assert.ok(!existsSync(join(sessions, 's1', 'lock')), 'the lock is released');

	const list = JSON.parse((await booook(['sessions', '--json', '--sessions-dir', sessions])).stdout);
	assert.equal(list.sessions[0].id, 's1');
	assert.equal(list.sessions[0].status, 'done');

	const show = JSON.parse((await booook(['show', 's1', '--json', '--sessions-dir', sessions])).stdout);
	assert.equal(show.summary.trim(), r.stdout.trim());
	assert.equal(show.config.provider, 'extractive');
	assert.equal(show.config.clean, false, 'no artifact removal for the extractive baseline');
	assert.ok(show.stats.tokens > 0 && show.stats.tokens <= 900);
	const calls = readFileSync(join(sessions, 's1', 'calls.jsonl'), 'utf8')
		.trim()
		.split('\n');
	assert.equal(calls.length, show.usage.calls);

	const exported = JSON.parse(
		(await booook(['export', 's1', '--format', 'booookscore', '--sessions-dir', sessions])).stdout,
	);
	assert.deepEqual(Object.keys(exported), ['small.txt']);
	assert.equal(exported['small.txt'], show.summary);
	const inter = JSON.parse(
		(await booook(['export', 's1', '--intermediate', '--sessions-dir', sessions])).stdout,
	);
	assert.equal(inter['small.txt'].final_summary, show.summary);
	assert.ok(inter['small.txt'].summaries_dict['0'].length > 1);

	const again = await booook(['resume', 's1', '--headless', '--sessions-dir', sessions]);
	assert.equal(again.code, 0);
	assert.match(again.stderr, /already done/);
	assert.equal(
		readFileSync(join(sessions, 's1', 'calls.jsonl'), 'utf8')
			.trim()
			.split('\n').length,
		calls.length,
		'no new calls',
	);

	const dup = await booook(['run', book, '--session', 's1', '--sessions-dir', sessions]);
	assert.equal(dup.code, 2);
	assert.match(dup.stderr, /already exists/);
});

test('a corrupt session.json is reported and left unchanged', async () => {
	const { dir, sessions } = scratch();
	const book = smallBook(dir);
	assert.equal(
		(
			await booook([
				'run',
				book,
				'--method',
				'inc',
				'--session',
				's2',
				'--sessions-dir',
				sessions,
				'--chunk-size',
				'2048',
			])
		).code,
		0,
	);
	const file = join(sessions, 's2', 'session.json');
	const broken = readFileSync(file, 'utf8').slice(0, 500);
	writeFileSync(file, broken);
	for (const args of [
		['resume', 's2'],
		['show', 's2'],
	]) {
		const r = await booook([...args, '--sessions-dir', sessions]);
		assert.equal(r.code, 2);
		assert.match(r.stderr, /session\.json/);
		assert.equal(readFileSync(file, 'utf8'), broken);
	}
});

test('plan makes no calls and reports chunks and calls per level', async () => {
	const { dir, sessions } = scratch();
	mkdirSync(sessions);
	const r = await booook(
		['plan', smallBook(dir), '--json', '--chunk-size', '1024', '--provider', 'openai', '--model', 'gpt-4o'],
		{ env: { OPENAI_API_KEY: 'unused' } },
	);
	assert.equal(r.code, 0, r.stderr);
	const plan = JSON.parse(r.stdout);
	assert.ok(plan.chunks.count > 10);
	assert.ok(plan.chunks.max <= 1024);
	assert.equal(plan.calls.rows[0].calls, plan.chunks.count);
	assert.ok(plan.estimate.cost > 0);
	const inc = JSON.parse(
		(
			await booook([
				'plan',
				smallBook(dir),
				'--json',
				'--method',
				'inc',
				'--chunk-size',
				'1024',
				'--no-clean',
			])
		).stdout,
	);
	assert.equal(inc.calls.total, inc.chunks.count, 'one call per chunk before compressions');
	assert.deepEqual(readdirSync(sessions), []);
});

test('plan says how long a run waits under the limits stated: the tokens asked for beyond the first minute, at the limit', async () => {
	const { dir } = scratch();
	const args = ['plan', smallBook(dir), '--chunk-size', '1024', '--provider', 'openai'];
	// Above the largest call (a merge of about 6,000 tokens), below what the run asks for in all.
	const plan = JSON.parse((await booook([...args, '--json', '--tpm', '10000'])).stdout);
	const tokens = plan.estimate.inputTokens + plan.estimate.outputTokens;
	assert.ok(tokens > 10_000, `the plan asks for ${tokens} tokens`);
	assert.deepEqual(plan.limits, {
		tpm: 10_000,
		rpm: null,
		seconds: Math.round(((tokens - 10_000) / 10_000) * 60),
	});
	const text = await booook([...args, '--tpm', '10000']);
	assert.match(
		text.stdout,
		/under 10,000 tokens a minute: about \d+m\d\ds of waiting for the limits; ~[\d,]+ tokens asked for in \d+ calls/u,
	);
	assert.equal(JSON.parse((await booook([...args, '--json'])).stdout).limits, null);
	const bad = await booook([...args, '--tpm', '0']);
	assert.equal(bad.code, 2);
	assert.match(bad.stderr, /--tpm takes a whole number from 1 up/u);
});

test('--version prints the package version and exits 0', async () => {
	const r = await booook(['--version']);
	assert.equal(r.code, 0);
	const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
		version: string;
	};
	assert.equal(r.stdout.trim(), version);
});
