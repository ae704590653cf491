import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { faithful, memoryOf, placed } from '../../bench/trust-read.ts';
import { readBook } from '../../source/book/read.ts';
import { DEFAULTS } from '../../source/config.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { chapterAt, chaptersOf } from '../../source/text/chapters.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { annotationReply, startFakeApi } from '../support/fake-api.ts';
import { faithfulnessReply } from '../support/faithfulness-reply.ts';
import { memoryReply } from '../support/memory-reply.ts';
import { BOOKS_DIR, readEvidenceSet } from '../support/evidence-set.ts';
import { bookishReply } from '../support/summary-reply.ts';
import { tempDir } from '../support/temp.ts';

const TRUST = join(import.meta.dirname, '..', '..', 'bench', 'trust.ts');

/** bench/trust.ts as a person starts it, with `env` instead of this process's keys. */
function trust(
	args: string[],
	env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	const child = spawn(process.execPath, ['--import', 'tsx', TRUST, ...args], {
		env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
	child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
	return new Promise((done, fail) => {
		child.on('error', fail);
		child.on('close', (code) => done({ code, stdout, stderr }));
	});
}

/** The table's row named `figure`, its cells after the name. */
function row(table: string, figure: string): string[] {
	const line = table.split('\n').find((l) => l.startsWith(`| ${figure} |`));
	assert.ok(line, `no row "${figure}" in:\n${table}`);
	return line
		.split('|')
		.slice(2, -1)
		.map((c) => c.trim());
}

const BOOKS = ['frankenstein.txt', 'pride-and-prejudice.txt'];

test('bench/trust.ts against the fake server prints every figure of issue 37, the evidence ones as the index ranks the labelled set', async (t) => {
	const summarize = bookishReply(150);
	const fake = await startFakeApi({
		respond: (input) =>
			annotationReply(input.prompt) ??
			faithfulnessReply(input.prompt) ??
			memoryReply(input.prompt) ??
			summarize(input),
	});
	t.after(() => fake.close());
	const dir = tempDir('bench-trust', t);
	const r = await trust(
		[
			'--base-url',
			fake.openaiBaseUrl,
			'--books',
			BOOKS.join(','),
			'--questions',
			'4',
			'--sessions-dir',
			dir,
			'--no-write',
		],
		{},
	);
	assert.equal(r.code, 0, r.stderr);
	// It ran the real CLI: the sessions a user would have are there.
	assert.deepEqual(readdirSync(join(dir, 'runs')).sort(), [
		'trust-frankenstein',
		'trust-pride-and-prejudice',
	]);

	// BM25's figures are what the passage index gives each labelled sentence, book by book.
	for (const [k, labelled] of readEvidenceSet()
		.filter((b) => BOOKS.includes(b.book))
		.entries()) {
		const { text } = await readBook(join(BOOKS_DIR, labelled.book));
		const index = new PassageIndex(text, chunkText(text, DEFAULTS.chunkSize, DEFAULTS.encoding));
		const chapters = chaptersOf(text);
		const truths = labelled.sentences.filter((s) => s.kind !== 'invented');
		const got = placed(labelled, {
			evidence: truths.map((s) => ({
				text: s.text,
				passages: index.rank(s.text, 3).map((h) => ({ chapter: chapterAt(chapters, h.start) })),
			})),
		});
		const share = (hits: number, n: number) => `${Math.round((100 * hits) / n)}% (${hits}/${n})`;
		assert.equal(
			row(r.stdout, 'evidence (BM25): single-event, right chapter first')[k],
			share(got.top1, got.single),
		);
		assert.equal(
			row(r.stdout, 'evidence (BM25): single-event, right chapter in the first 3')[k],
			share(got.top3, got.single),
		);
		assert.equal(
			row(r.stdout, 'evidence (BM25): two-chapter, both in the first 3')[k],
			share(got.both, got.two),
		);
	}
	// Each figure has a cell for each book and for all, a share or the dash of one not printed.
	const figures = r.stdout.split('\n').filter((l) => /^\| (evidence|faithfulness|memory)/u.test(l));
	assert.equal(figures.length, 17);
	for (const line of figures) {
		const cells = line
			.split('|')
			.slice(2, -2)
			.map((c) => c.trim());
		assert.equal(cells.length, BOOKS.length + 1, line);
		for (const c of cells) assert.match(c, /^(—|\d+(\.\d)?%( \(\d+\/\d+\))?)$/u, line);
	}
	assert.ok(
		row(r.stdout, 'evidence (reranked by text-embedding-3-small): single-event, right chapter first'),
	);
	// The reader saw the summaries: its accuracy and chance are figures, per book and pooled.
	for (const cell of row(r.stdout, 'memory: accuracy on the final summary').slice(0, 3))
		assert.match(cell, /%$/u);
	for (const cell of row(r.stdout, 'memory: chance').slice(0, 3)) assert.match(cell, /%$/u);
	assert.match(row(r.stdout, 'faithfulness: true sentences, claims supported')[2]!, /%$/u);
});

test('bench/trust.ts without a key or a server says so in one line, before any work', async () => {
	const r = await trust([], {});
	assert.equal(r.code, 1);
	assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
	assert.match(r.stderr, /OPENAI_API_KEY.*--base-url/u);
});

test("the trust figures are read from each shape the commands print: faithfulness before and after LongEval's counting, memory with and without a floor and a shortcut", () => {
	// report --json before: the sentences' share of decided verdicts, and claims as counts.
	assert.deepEqual(
		faithful({
			faithfulness: {
				validators: {
					alice: { origin: 'human', faithful_share: 10 },
					'openai/m': {
						origin: 'model',
						faithful_share: 75,
						claims: { claims: 8, supported: 6, not_found: 2 },
					},
				},
			},
		}),
		{ sentences: 0.75, claims: 0.75, notFound: null, contradicted: null },
	);
	// And as LongEval counts it: per unit kind, with the other outcomes' shares.
	assert.deepEqual(
		faithful({
			faithfulness: {
				validators: {
					'openai/m': {
						origin: 'model',
						sentences: { faithful_share: 60, shares: { faithful: 60, not_found: 30, contradicted: 10 } },
						claims: { faithful_share: 70 },
					},
				},
			},
		}),
		{ sentences: 0.6, claims: 0.7, notFound: 0.3, contradicted: 0.1 },
	);
	assert.deepEqual(faithful({}), { sentences: null, claims: null, notFound: null, contradicted: null });

	const reader = {
		reader: 'openai/m',
		shown: 'summary',
		overall: { n: 30, correct: 12, accuracy: 0.4 },
		chance: 0.2,
	};
	const none = { accuracy: 0.4, correct: 12, n: 30, chance: 0.2, floor: null, longest: null, shortest: null };
	assert.deepEqual(memoryOf({ session: 's', readers: [reader] }), none);
	// The floor beside the reader's results, or as a reader listed on its own; the shortcut among its results.
	assert.deepEqual(
		memoryOf({
			readers: [
				{
					...reader,
					floor: { overall: { accuracy: 0.28 } },
					shortcuts: { longest: 0.2, shortest: 0.3, n: 30 },
				},
			],
		}),
		{ ...none, floor: 0.28, longest: 0.2, shortest: 0.3 },
	);
	assert.deepEqual(memoryOf({ readers: [reader, { shown: 'none', overall: { accuracy: 0.3 } }] }), {
		...none,
		floor: 0.3,
	});
	assert.deepEqual(memoryOf({ readers: [{ ...reader, floor: null }] }), none);
});
