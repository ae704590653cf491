import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitSentences } from '../source/text/sentences.ts';
import { Session, type BookSessionData } from '../source/store/session.ts';
import { booook } from './support/cli.ts';
import { startFakeApi } from './support/fake-api.ts';
import { claimQuestion, claimsQuestion, faithfulnessReply } from './support/faithfulness-reply.ts';
import { tempDir } from './support/temp.ts';

const FRANKENSTEIN = fileURLToPath(new URL('../../shared/books/frankenstein.txt', import.meta.url));

test('booook faithfulness: the model judges every sentence of the final summary with its evidence, and report shows the verdicts', async (t) => {
	const dir = tempDir('faith-cli', t);
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
			return faithfulnessReply(prompt) ?? 'not a faithfulness prompt';
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
			'--top',
			'2',
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
	const splits = prompts.filter((p) => claimsQuestion(p) !== null);
	const judgings = prompts.map(claimQuestion).filter((q) => q !== null);
	assert.equal(splits.length, sentences.length, 'one claims call per sentence');
	const verdicts = data.faithfulness ?? [];
	assert.equal(verdicts.length, sentences.length);
	assert.equal(judgings.length, verdicts.flatMap((v) => v.claims ?? []).length, 'one call per claim');
	assert.ok(verdicts.every((v) => v.origin === 'model' && v.validator === 'openai/gpt-4o-mini'));
	// At most --top passages per claim, retrieved for the claim: its best passage holds it when the
	// claim is a piece of a sentence copied from the book (the extractive summary's).
	assert.ok(judgings.every((q) => q.passages.length >= 1 && q.passages.length <= 2));
	const found = judgings.filter((q) => q.passages.some((p) => p.includes(q.claim))).length;
	assert.ok(found >= 0.9 * judgings.length, `${found} of ${judgings.length} claims found`);
	// Every quote the fake gave is the claim, word for word in a passage: booook finds it there.
	const checks = verdicts.flatMap((v) => v.claims!);
	assert.deepEqual(
		checks.filter((c) => c.verdict === 'supported').length,
		found,
		JSON.stringify(checks.filter((c) => c.verdict !== 'supported').slice(0, 2)),
	);
	assert.ok(checks.every((c) => (c.verdict === 'supported') === (c.passage !== null)));
	const faithful = verdicts.filter((v) => v.label === 'faithful').length;
	assert.equal(faithful, verdicts.filter((v) => v.claims!.every((c) => c.verdict === 'supported')).length);
	assert.match(
		judged.stderr,
		new RegExp(`${sentences.length} sentences judged through ${judgings.length} claims`, 'u'),
	);

	const report = await booook(['report', 'frank', '--json', '--sessions-dir', dir]);
	assert.equal(report.code, 0, report.stderr);
	const faith = JSON.parse(report.stdout).faithfulness;
	assert.equal(faith.validators['openai/gpt-4o-mini'].faithful, faithful);
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
	assert.equal(prompts.length, splits.length + judgings.length);

	// Without a key: one line naming the variable, exit 2, nothing changed.
	const before = JSON.stringify((await Session.snapshot(dir, 'frank')).data);
	// A prompts folder that is not there, or a template in it without the judge's slots, is one line too.
	const badPrompts = tempDir('faith-prompts', t);
	writeFileSync(join(badPrompts, 'faithfulness-judge.txt'), 'Judge {claim} against {evidence}.');
	for (const [folder, says] of [
		[join(badPrompts, 'nowhere'), /--prompts .*nowhere: no such directory/u],
		[
			badPrompts,
			/faithfulness-judge\.txt: template "faithfulness-judge" has named fields \{claim\}, \{evidence\} but needs/u,
		],
	] as const) {
		const refused = await booook(['faithfulness', 'frank', '--prompts', folder, '--sessions-dir', dir], {
			env,
		});
		assert.equal(refused.code, 2, refused.stderr);
		assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
		assert.match(refused.stderr, says);
	}
	const noTop = await booook(['faithfulness', 'frank', '--top', '0', '--sessions-dir', dir], { env });
	assert.equal(noTop.code, 2);
	assert.match(noTop.stderr, /--top takes a whole number from 1 up/u);
	const keyless = await booook(['faithfulness', 'frank', '--provider', 'anthropic', '--sessions-dir', dir]);
	assert.equal(keyless.code, 2);
	assert.match(keyless.stderr.trim(), /^booook: .*needs ANTHROPIC_API_KEY: export it/u);
	assert.equal(keyless.stderr.trim().split('\n').length, 1);
	assert.equal(JSON.stringify((await Session.snapshot(dir, 'frank')).data), before);
});
