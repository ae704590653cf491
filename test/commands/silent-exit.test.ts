import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { booook } from '../support/cli.ts';
import { digestReply } from '../support/digest-reply.ts';
import { annotationReply, startFakeApi } from '../support/fake-api.ts';
import { faithfulnessReply } from '../support/faithfulness-reply.ts';
import { memoryReply } from '../support/memory-reply.ts';
import { tinyBookText } from '../support/study-books.ts';
import { tempDir } from '../support/temp.ts';

/**
 * No command ends in silence: against a server whose answers run past max_tokens (some compatible
 * servers ignore it), every command that calls a model fails with a line that names why, and a
 * non-zero code that is not Node's 13 ("unsettled top-level await": the process ran out of things
 * to wait on while the command still waited).
 */

const ENV = { OPENAI_API_KEY: 'sk-silent-exit' };
const CAPPED = /stream sent more than [\d,]+ tokens for an output limit of \d+/u;

test(
	'every command that calls a model fails with a line naming why when the answers run past max_tokens, never with exit 13',
	{
		timeout: 90_000,
	},
	async (t) => {
		const dir = tempDir('silent-exit', t);
		const fake = await startFakeApi({
			respond: ({ prompt }) =>
				annotationReply(prompt) ??
				faithfulnessReply(prompt) ??
				memoryReply(prompt) ??
				digestReply({ prompt }) ??
				'Nothing happens.',
		});
		t.after(() => fake.close());
		const model = ['--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', fake.openaiBaseUrl];
		const books = [1, 2].map((seed) => {
			const path = join(dir, `book${seed}.txt`);
			writeFileSync(path, tinyBookText(150, seed));
			return path;
		});
		// Finished runs, made while the server behaves, one for each command to lock (memory's wrong
		// options come from the other book's).
		const made = await Promise.all(
			[...books, books[0]!].map((book, i) =>
				booook(
					[
						'run',
						book,
						...model,
						'--chunk-size',
						'512',
						'--headless',
						'--session',
						`s${i}`,
						'--sessions-dir',
						dir,
					],
					{
						env: ENV,
					},
				),
			),
		);
		for (const r of made) assert.equal(r.code, 0, r.stderr);
		fake.ignoreMaxTokens = true;
		const at = ['--sessions-dir', dir];
		const commands: Record<string, string[]> = {
			run: ['run', books[0]!, ...model, '--chunk-size', '512', '--headless', '--session', 'fresh', ...at],
			score: ['score', 's0', '--base-url', fake.openaiBaseUrl, ...at],
			faithfulness: ['faithfulness', 's1', '--base-url', fake.openaiBaseUrl, ...at],
			memory: [
				'memory',
				's2',
				'--questions',
				'4',
				'--level-0-scenes',
				'--base-url',
				fake.openaiBaseUrl,
				...at,
			],
		};
		const ended = await Promise.all(
			Object.entries(commands).map(async ([name, args]) => ({ name, ...(await booook(args, { env: ENV })) })),
		);
		for (const { name, code, stderr } of ended) {
			assert.notEqual(code, 13, `${name} ended in silence:\n${stderr}`);
			assert.notEqual(code, 0, `${name}: ${stderr}`);
			const lines = stderr.trim().split('\n');
			assert.ok(
				lines.some((line) => CAPPED.test(line)),
				`${name}: no line says why it failed:\n${stderr}`,
			);
		}
		// Every attempt is in the call log, failed ones too.
		const logged = readFileSync(join(dir, 's2', 'calls.jsonl'), 'utf8')
			.trim()
			.split('\n')
			.map((line) => JSON.parse(line) as { error?: string; params: { template: string } });
		assert.ok(
			logged.some(
				(c) => c.params.template === 'memory-question' && c.error !== undefined && CAPPED.test(c.error),
			),
			"memory's refused attempts are logged",
		);
	},
);
