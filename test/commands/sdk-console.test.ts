import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { tinyBookText } from '../support/study-books.ts';

/**
 * A server whose stream carries data no JSON parser reads, with escape sequences in it that would
 * retitle and clear the terminal: the SDKs print such data themselves (the OpenAI SDK with
 * console.error for named events, both through their loggers otherwise). Nothing of it may reach
 * the terminal raw, through either provider, whichever way the SDK prints it.
 */

const ATTACK = '{not json \x1b]0;PWNED\x07\x1b[2J';
// eslint-disable-next-line no-control-regex -- control characters are what the test looks for
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/u;

function hostileServer(body: string): Promise<Server> {
	const server = createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.end(body);
		});
	});
	return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const cases = [
	{ name: 'openai, a data-only event (the logger)', provider: 'openai', body: `data: ${ATTACK}\n\n` },
	{
		name: 'openai, a named event (console.error)',
		provider: 'openai',
		body: `event: thread.run.step\ndata: ${ATTACK}\n\n`,
	},
	{
		name: 'anthropic (the logger)',
		provider: 'anthropic',
		body: `event: message_start\ndata: ${ATTACK}\n\n`,
	},
] as const;

for (const c of cases) {
	test(`a stream of unparsable data with escapes in it prints none of them: ${c.name}`, async () => {
		const server = await hostileServer(c.body);
		try {
			const dir = tempDir('sdk-console');
			const book = join(dir, 'book.txt');
			writeFileSync(book, tinyBookText(30));
			const { port } = server.address() as AddressInfo;
			const base = c.provider === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
			const r = await booook(
				[
					'run',
					book,
					'--provider',
					c.provider,
					'--base-url',
					base,
					'--headless',
					'--stream-timeout',
					'5',
					'--sessions-dir',
					join(dir, 's'),
				],
				{ env: { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-test' } },
			);
			assert.equal(r.code, 1, r.stderr);
			assert.match(r.stderr, /run failed/u);
			assert.doesNotMatch(r.stderr, UNSAFE, 'no control character reached stderr');
			assert.doesNotMatch(r.stdout, UNSAFE, 'no control character reached stdout');
		} finally {
			server.close();
		}
	});
}
