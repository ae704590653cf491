import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook } from '../support/cli.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { summaryReply } from '../support/summary-reply.ts';
import { tempDir } from '../support/temp.ts';
import { PRIDE_AND_PREJUDICE as PRIDE } from '../support/repo-data.ts';

interface Logged {
	node: string;
	attempt: number;
	response: string;
}

function callLog(sessions: string, id: string): Logged[] {
	return readFileSync(join(sessions, id, 'calls.jsonl'), 'utf8')
		.split('\n')
		.filter((l) => l.trim())
		.map((l) => JSON.parse(l) as Logged);
}

for (const method of ['hier', 'inc'] as const) {
	test(`${method}: a run killed with SIGKILL mid-way resumes to the same result without repeating finished calls`, async () => {
		const api = await startFakeApi({ respond: summaryReply, latencyMs: 15, chunkDelayMs: 1 });
		try {
			const dir = tempDir('resume');
			const sessions = join(dir, 'sessions');
			const book = join(dir, 'pride.txt');
			writeFileSync(book, readFileSync(PRIDE, 'utf8').slice(0, 120_000));
			const env = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };
			const common = [
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
				'--method',
				method,
				'--headless',
				'--json',
				'--sessions-dir',
				sessions,
			];

			// The reference: the same run, uninterrupted.
			const reference = await booook(['run', book, '--session', 'reference', ...common], { env });
			assert.equal(reference.code, 0, reference.stderr);
			const referenceCalls = callLog(sessions, 'reference').length;
			api.requests.length = 0;

			let killedAfter = 0;
			const killed = await booook(['run', book, '--session', 'victim', ...common], {
				env,
				onStdout: (out, kill) => {
					const finished = out.split('\n').filter((l) => l.includes('"type":"usage"')).length;
					if (finished >= Math.floor(referenceCalls / 2) && killedAfter === 0) {
						killedAfter = finished;
						kill();
					}
				},
			});
			assert.equal(killed.signal, 'SIGKILL');
			const before = callLog(sessions, 'victim');
			assert.ok(
				before.length >= killedAfter && before.length < referenceCalls,
				`${before.length} calls logged before the kill`,
			);

			const resumed = await booook(['resume', 'victim', '--headless', '--json', '--sessions-dir', sessions], {
				env,
			});
			assert.equal(resumed.code, 0, resumed.stderr);
			const after = callLog(sessions, 'victim');
			const keys = after.map((c) => `${c.node}#${c.attempt}`);
			assert.equal(new Set(keys).size, keys.length, 'no finished call was made twice');
			assert.deepEqual(after.slice(0, before.length), before, 'the log was only appended to');
			// Only calls in flight at the kill were lost and made again (at most the concurrency, 4).
			assert.ok(
				api.requests.length - after.length <= 4,
				`${api.requests.length} requests for ${after.length} logged calls`,
			);

			const show = (id: string) =>
				booook(['show', id, '--json', '--sessions-dir', sessions]).then((r) => JSON.parse(r.stdout));
			const [a, b] = await Promise.all([show('reference'), show('victim')]);
			assert.equal(b.status, 'done');
			assert.equal(b.summary, a.summary, 'the resumed run ends with the same final summary');
			assert.deepEqual(b.structure, a.structure);
			assert.ok(
				!readFileSync(join(sessions, 'victim', 'calls.jsonl'), 'utf8').includes('sk-test'),
				'no key in the call log',
			);
			assert.ok(
				!readFileSync(join(sessions, 'victim', 'session.json'), 'utf8').includes('sk-test'),
				'no key in the session',
			);
		} finally {
			await api.close();
		}
	});
}
