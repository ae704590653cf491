import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { splitSentences } from '../source/text/sentences.ts';
import { Session, type BookSessionData } from '../source/store/session.ts';
import { booook } from './support/cli.ts';
import { startFakeApi } from './support/fake-api.ts';
import { tempDir } from './support/temp.ts';

const FRANKENSTEIN = fileURLToPath(new URL('../../shared/books/frankenstein.txt', import.meta.url));

test('booook faithfulness: the model judges every sentence of the final summary with its evidence, and report shows the verdicts', async (t) => {
	const dir = tempDir('faith-cli');
	const made = await booook([
		'run',
		FRANKENSTEIN,
		'--provider',
		'extractive',
		'--chunk-size',
		'4096',
		'--headless',
		'--session',
		'frank',
		'--sessions-dir',
		dir,
	]);
	assert.equal(made.code, 0, made.stderr);
	const prompts: string[] = [];
	const api = await startFakeApi({
		respond: ({ prompt }) => {
			prompts.push(prompt);
			const sentence = /The sentence to check:\n(.*)\n/u.exec(prompt)?.[1] ?? '';
			// Faithful when a passage shown holds the sentence (an extractive summary copies the book).
			const passages = prompt
				.split('Passages of the book that may be relevant')[1]!
				.split('Answer in exactly two lines')[0]!
				.replace(/\s+/gu, ' ');
			// (Its opening: where two copied sentences read as one, each passage holds one of them.)
			return passages.includes(sentence.replace(/\s+/gu, ' ').slice(0, 20))
				? 'Label: faithful\nReason: in the passage.'
				: "Label: can't tell\nReason: not in the passages.";
		},
	});
	t.after(() => api.close());
	const env = { OPENAI_API_KEY: 'test-key' };
	const judged = await booook(
		[
			'faithfulness',
			'frank',
			'--provider',
			'openai',
			'--model',
			'gpt-4o-mini',
			'--base-url',
			api.openaiBaseUrl,
			'--sessions-dir',
			dir,
		],
		{ env },
	);
	assert.equal(judged.code, 0, judged.stderr);
	const { data } = await Session.snapshot(dir, 'frank');
	const run = (data as BookSessionData).run;
	const root = run.nodes.find((n) => n.id === run.root)!;
	const sentences = splitSentences(root.versions[root.active!]!.text);
	assert.equal(prompts.length, sentences.length, 'one call per sentence');
	const verdicts = data.faithfulness ?? [];
	assert.equal(verdicts.length, sentences.length);
	assert.ok(verdicts.every((v) => v.origin === 'model' && v.validator === 'openai/gpt-4o-mini'));
	// Every sentence was copied from the book, so its evidence holds it and the model saw it there.
	assert.ok(
		verdicts.every((v) => v.label === 'faithful'),
		JSON.stringify(verdicts.filter((v) => v.label !== 'faithful').slice(0, 2)),
	);
	assert.match(judged.stderr, new RegExp(`${sentences.length} sentences judged`, 'u'));

	const report = await booook(['report', 'frank', '--json', '--sessions-dir', dir]);
	assert.equal(report.code, 0, report.stderr);
	const faith = JSON.parse(report.stdout).faithfulness;
	assert.equal(faith.validators['openai/gpt-4o-mini'].faithful_share, 100);
	assert.equal(faith.validators['openai/gpt-4o-mini'].n, sentences.length);

	// Again: nothing is asked twice.
	const again = await booook(
		[
			'faithfulness',
			'frank',
			'--base-url',
			api.openaiBaseUrl,
			'--model',
			'gpt-4o-mini',
			'--provider',
			'openai',
			'--sessions-dir',
			dir,
		],
		{ env },
	);
	assert.equal(again.code, 0, again.stderr);
	assert.equal(prompts.length, sentences.length);

	// Without a key: one line naming the variable, exit 2, nothing changed.
	const before = JSON.stringify((await Session.snapshot(dir, 'frank')).data);
	const keyless = await booook(['faithfulness', 'frank', '--provider', 'anthropic', '--sessions-dir', dir]);
	assert.equal(keyless.code, 2);
	assert.match(keyless.stderr.trim(), /^booook: .*needs ANTHROPIC_API_KEY: export it/u);
	assert.equal(keyless.stderr.trim().split('\n').length, 1);
	assert.equal(JSON.stringify((await Session.snapshot(dir, 'frank')).data), before);
});
