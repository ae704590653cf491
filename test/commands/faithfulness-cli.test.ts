import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitSentences } from '../../source/text/sentences.ts';
import { contentTokens } from '../../source/text/textrank.ts';
import { Session, type BookSessionData } from '../../source/store/session.ts';
import { booook } from '../support/cli.ts';
import { extractiveRun as extractiveSession } from '../support/extractive-run.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { claimQuestion, claimsQuestion, faithfulnessReply } from '../support/faithfulness-reply.ts';
import { assertResumedOnce, CallKiller } from '../support/kill-at-call.ts';
import { tempDir } from '../support/temp.ts';
import { chunkedBook, done, treeRun } from '../support/trees.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/** A session "frank" in `dir`: the extractive baseline's run over Frankenstein. */
const extractiveRun = (dir: string) => extractiveSession(FRANKENSTEIN, dir, 'frank');

/** `booook faithfulness frank` judged by gpt-4o-mini on the fake API, with sessions in `dir`. */
function judging(baseUrl: string, dir: string, ...extra: string[]): string[] {
	const model = ['--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', baseUrl];
	return ['faithfulness', 'frank', ...model, ...extra, '--sessions-dir', dir];
}

test('booook faithfulness: the model judges every sentence of the final summary with its evidence, and report shows the verdicts', async (t) => {
	const dir = tempDir('faith-cli', t);
	await extractiveRun(dir);
	const prompts: string[] = [];
	const api = await startFakeApi({
		respond: ({ prompt }) => {
			prompts.push(prompt);
			return faithfulnessReply(prompt) ?? 'not a faithfulness prompt';
		},
	});
	t.after(() => api.close());
	const env = { OPENAI_API_KEY: 'test-key' };
	const judged = await booook(judging(api.openaiBaseUrl, dir, '--top', '2'), { env });
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
	const held = judgings.filter((q) => q.passages.some((p) => p.includes(q.claim)));
	assert.ok(held.length >= 0.9 * judgings.length, `${held.length} of ${judgings.length} claims found`);
	// Every quote the fake gave is the claim, word for word in a passage: booook finds it there,
	// unless it has no content word ("one by one"), which shows nothing.
	const found = held.filter((q) => contentTokens(q.claim).length > 0).length;
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
	assert.equal(faith.validators['openai/gpt-4o-mini'].sentences.counts.faithful, faithful);
	const text = await booook(['report', 'frank', '--sessions-dir', dir]);
	assert.match(
		text.stdout,
		new RegExp(`, claims \\(FABLES\\): .*; n=${judgings.length} in 1 summary \\(${found} supported, `, 'u'),
	);
	assert.equal(faith.validators['openai/gpt-4o-mini'].sentences.n, sentences.length);
	// The judging ends with its figures, the lines report gives them (its judge's only), on stdout.
	const figures = judged.stdout.trimEnd().split('\n');
	assert.equal(figures.length, 3, judged.stdout);
	for (const line of figures) assert.ok(text.stdout.includes(`${line}\n`), `${line} as report says it`);
	assert.match(
		figures[1]!,
		new RegExp(
			`^  openai/gpt-4o-mini \\(model\\), sentences: .* faithful, .*n=${sentences.length} in 1 summary \\(${faithful} faithful`,
			'u',
		),
	);
	assert.match(judged.stderr, /; the other judges, the people's verdicts and agreement: .*report frank/u);

	// Again: nothing is asked twice.
	const again = await booook(judging(api.openaiBaseUrl, dir), { env });
	assert.equal(again.code, 0, again.stderr);
	assert.equal(prompts.length, splits.length + judgings.length);
	assert.equal(again.stdout, judged.stdout, 'the figures of the verdicts kept');

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

test('a run without a final summary: evidence, coverage, faithfulness, score and export each name the resume that finishes it, in its sessions folder; faithfulness of a collection names the walk there', async (t) => {
	const dir = tempDir('faithfulness-unfinished', t);
	const { book, chunks } = chunkedBook([
		'Victor built a creature. It fled.\n',
		'Elizabeth wrote from Geneva.\n',
	]);
	const first = done('n0', 'summarize', ['c0'], 'Victor built a creature.');
	const waiting = {
		...done('n1', 'summarize', ['c1'], ''),
		status: 'pending' as const,
		versions: [],
		active: null,
	};
	const run = { ...treeRun('hier', chunks, [first, waiting]), root: null, status: 'running' as const };
	const sha256 = createHash('sha256').update(book, 'utf8').digest('hex');
	const meta = { title: 'Unfinished', sha256, source: 'unfinished.txt', chars: book.length, tokens: 20 };
	await (await Session.create(dir, { id: 'half', book: meta, text: book, run })).close();
	for (const command of ['evidence', 'coverage', 'faithfulness', 'score', 'export']) {
		const r = await booook([command, 'half', '--sessions-dir', dir]);
		assert.equal(r.code, 2, `${command}: ${r.stderr}`);
		assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
		assert.ok(
			r.stderr.includes('has no final summary') && r.stderr.includes(`resume half --sessions-dir ${dir}`),
			`${command}: ${r.stderr}`,
		);
	}
	// A collection of the authors' summaries has no book: people can still judge it, in that folder.
	const summaries = fileURLToPath(
		new URL('../fixtures/booookscore/summaries/chatgpt-2048-hier-cleaned.json', import.meta.url),
	);
	const imported = await booook([
		'import',
		'booookscore',
		'--summaries',
		summaries,
		'--session',
		'authors',
		'--sessions-dir',
		dir,
	]);
	assert.equal(imported.code, 0, imported.stderr);
	const bookless = await booook(['faithfulness', 'authors', '--sessions-dir', dir]);
	assert.equal(bookless.code, 2, bookless.stderr);
	assert.ok(
		bookless.stderr.includes(`validate authors --sessions-dir ${dir} --mode faithfulness`),
		bookless.stderr,
	);
});

test('booook faithfulness killed with SIGKILL mid-way: run again, it finishes without asking any answered prompt again', async (t) => {
	const dir = tempDir('faith-kill', t);
	await extractiveRun(dir);
	const killer = new CallKiller();
	const api = await startFakeApi({
		respond: async ({ prompt }) =>
			(await killer.reached(prompt, 'the judging to start'))
				? 'never read: the process is gone'
				: (faithfulnessReply(prompt) ?? 'not a faithfulness prompt'),
	});
	t.after(() => api.close());
	const env = { OPENAI_API_KEY: 'test-key' };
	const args = (sessions: string) => judging(api.openaiBaseUrl, sessions, '--concurrency', '1');
	// The reference: how many calls a whole judging makes.
	const reference = await booook(args(dir), { env });
	assert.equal(reference.code, 0, reference.stderr);
	const all = killer.take();
	const { data: judgedOnce } = await Session.snapshot(dir, 'frank');
	// Again from nothing, killed halfway.
	const fresh = tempDir('faith-kill-2', t);
	await extractiveRun(fresh);
	const half = Math.floor(all.length / 2);
	killer.arm(half);
	const killed = await booook(args(fresh), { env, onStderr: killer.onStderr });
	assert.equal(killed.signal, 'SIGKILL');
	const before = killer.take();
	assert.equal(before.length, half);
	const resumed = await booook(args(fresh), { env });
	assert.equal(resumed.code, 0, resumed.stderr);
	assertResumedOnce(before, killer.take(), all, 'judging');
	const { data } = await Session.snapshot(fresh, 'frank');
	const labels = (d: typeof data) =>
		(d.faithfulness ?? []).map((v) => [v.sentence, v.label, v.claims]).sort();
	assert.deepEqual(labels(data), labels(judgedOnce), 'the same verdicts as a judging never killed');
});
