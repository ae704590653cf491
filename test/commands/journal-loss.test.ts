import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { summaryReply } from '../support/summary-reply.ts';
import { tempDir } from '../support/temp.ts';
import { PRIDE_AND_PREJUDICE as PRIDE } from '../support/repo-data.ts';

const ENV = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };

interface Logged {
	node: string;
	prompt: string;
	error?: string;
}

function callLog(session: string): Logged[] {
	return readFileSync(join(session, 'calls.jsonl'), 'utf8')
		.split('\n')
		.filter((l) => l.trim())
		.map((l) => JSON.parse(l) as Logged);
}

/** The lines of `text` that warn about the session's saved state. */
const warnings = (text: string) => text.split('\n').filter((l) => /warning/iu.test(l));

/** Each way a journal is lost or ignored, done to a copy of the killed session. */
const DAMAGE: Record<string, (session: string) => void> = {
	intact: () => {},
	deleted: (session) => rmSync(join(session, 'changes.jsonl')),
	// Line 1 is the header; line 2 is the first save, cut in half with the rest left after it.
	cut: (session) => {
		const file = join(session, 'changes.jsonl');
		const lines = readFileSync(file, 'utf8').split('\n');
		assert.ok(lines.filter((l) => l !== '').length > 3, 'saves follow the line cut short');
		lines[1] = lines[1]!.slice(0, Math.floor(lines[1]!.length / 2));
		writeFileSync(file, lines.join('\n'));
	},
	future: (session) => {
		const file = join(session, 'session.json');
		const state = JSON.parse(readFileSync(file, 'utf8')) as { updatedAt: string };
		state.updatedAt = '2999-01-01T00:00:00.000Z';
		writeFileSync(file, JSON.stringify(state, null, 2));
	},
};

test('a changes.jsonl deleted, cut short early or skipped: one warning, and resume buys no call that calls.jsonl holds the answer to', async () => {
	const api = await startFakeApi({ respond: summaryReply, latencyMs: 15, chunkDelayMs: 1 });
	try {
		const dir = tempDir('journal-loss');
		const book = join(dir, 'pride.txt');
		writeFileSync(book, readFileSync(PRIDE, 'utf8').slice(0, 260_000));
		const killedDir = join(dir, 'killed');
		const args = [
			'--provider',
			'openai',
			'--model',
			'gpt-4o-mini',
			'--base-url',
			api.openaiBaseUrl,
			'--chunk-size',
			'1024',
			'--max-summary',
			'400',
			'--headless',
			'--json',
		];

		// The run is killed once 45 calls are logged: merges are planned by then, and saved only in the journal.
		const killed = await booook(['run', book, '--session', 'victim', ...args, '--sessions-dir', killedDir], {
			env: ENV,
			onStdout: (out, kill) => {
				if (out.split('\n').filter((l) => l.includes('"type":"usage"')).length >= 45) kill();
			},
		});
		assert.equal(killed.signal, 'SIGKILL', killed.stderr);
		const logged = callLog(join(killedDir, 'victim'));
		assert.ok(logged.length >= 45, `${logged.length} calls logged before the kill`);
		const answered = new Set(logged.filter((c) => c.error === undefined).map((c) => c.prompt));

		const results = new Map<string, { requests: number; summary: string }>();
		for (const [name, damage] of Object.entries(DAMAGE)) {
			const sessions = join(dir, name);
			cpSync(join(killedDir, 'victim'), join(sessions, 'victim'), { recursive: true });
			damage(join(sessions, 'victim'));
			const expected = name === 'intact' ? 0 : 1;

			const show = await booook(['show', 'victim', '--sessions-dir', sessions]);
			assert.equal(show.code, 0, show.stderr);
			assert.equal(
				warnings(show.stdout + show.stderr).length,
				expected,
				`${name}: show warns ${expected} time(s):\n${show.stdout}\n${show.stderr}`,
			);

			api.requests.length = 0;
			const resumed = await booook(['resume', 'victim', '--headless', '--json', '--sessions-dir', sessions], {
				env: ENV,
			});
			assert.equal(resumed.code, 0, resumed.stderr);
			const warned = warnings(resumed.stderr);
			assert.equal(
				warned.length,
				expected,
				`${name}: resume warns ${expected} time(s) on stderr:\n${resumed.stderr}`,
			);
			if (expected) assert.match(warned[0]!, /changes\.jsonl/u, `${name}: the warning names the journal`);
			const bought = api.requests.filter((r) => answered.has(r.prompt)).length;
			assert.equal(
				bought,
				0,
				`${name}: ${bought} of ${api.requests.length} requests asked again what calls.jsonl already answered`,
			);

			const after = await booook(['show', 'victim', '--json', '--sessions-dir', sessions]);
			assert.equal(after.code, 0, after.stderr);
			assert.deepEqual(warnings(after.stderr), [], `${name}: once resumed, nothing is missing`);
			const shown = JSON.parse(after.stdout) as { status: string; summary: string };
			assert.equal(shown.status, 'done');
			results.set(name, { requests: api.requests.length, summary: shown.summary });
		}
		const intact = results.get('intact')!;
		for (const [name, result] of results) {
			assert.equal(result.requests, intact.requests, `${name}: as many requests as the intact copy`);
			assert.equal(result.summary, intact.summary, `${name}: the same final summary`);
		}
	} finally {
		await api.close();
	}
});
