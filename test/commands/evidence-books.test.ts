import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import type { BookSessionData } from '../../source/store/session.ts';
import { Session } from '../../source/store/session.ts';
import { citedChunks, coverageOf } from '../../source/evidence/coverage.ts';
import { finalEvidence, type SentenceEvidence } from '../../source/evidence/evidence.ts';
import { bookPlace } from '../../source/evidence/book-place.ts';
import { chunkRuns, placeText } from '../../source/format/places.ts';
import { chaptersOf } from '../../source/text/chapters.ts';
import { sentenceKey } from '../../source/evidence/provenance.ts';
import { PassageIndex } from '../../source/evidence/rank.ts';
import { booook } from '../support/cli.ts';
import { tempDir } from '../support/temp.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

/**
 * Issue 14's done-when on a real book: Frankenstein summarized offline (the extractive baseline) by
 * both methods; every sentence of each final summary has evidence from the book, and the top
 * passage of a sentence copied from the book holds it.
 */
const METHODS = ['hier', 'inc'] as const;
const dir = tempDir('evidence');
/** `text` as a regular expression that matches it literally. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
const runs = new Map<string, { data: BookSessionData; book: string; evidence: SentenceEvidence[] }>();

before(async () => {
	await Promise.all(
		METHODS.map(async (method) => {
			const r = await booook([
				'run',
				FRANKENSTEIN,
				'--provider',
				'extractive',
				'--method',
				method,
				'--headless',
				'--session',
				method,
				'--sessions-dir',
				dir,
			]);
			assert.equal(r.code, 0, r.stderr);
			const { data, text } = await Session.snapshot(dir, method);
			assert.equal(data.kind, 'book');
			const run = (data as BookSessionData).run;
			runs.set(method, {
				data: data as BookSessionData,
				book: text,
				evidence: finalEvidence(run, new PassageIndex(text, run.chunks))!,
			});
		}),
	);
});

for (const method of METHODS) {
	test(`${method}: every final-summary sentence has evidence from the book, and a copied sentence's top passage holds it`, () => {
		const { data, book, evidence } = runs.get(method)!;
		const flat = sentenceKey(book);
		assert.ok(evidence.length >= 10, `${evidence.length} sentences`);
		let copied = 0;
		for (const s of evidence) {
			assert.ok(s.chunks.length > 0, `sentence ${s.index} has no candidate chunk`);
			assert.ok(
				s.passages.length > 0 && s.passages.length <= 3,
				`sentence ${s.index}: ${s.passages.length} passages`,
			);
			for (const p of s.passages) {
				assert.ok(s.chunks.includes(p.chunk));
				const chunk = data.run.chunks[p.chunk]!;
				assert.ok(
					chunk.start <= p.start && p.start < p.end && p.end <= chunk.end,
					'a passage lies inside its chunk of the book',
				);
			}
			if (!flat.includes(sentenceKey(s.text))) continue;
			copied++;
			const top = s.passages[0]!;
			assert.ok(
				sentenceKey(book.slice(top.start, top.end)).includes(sentenceKey(s.text)),
				`sentence ${s.index} "${s.text}" is not in its top passage`,
			);
			assert.equal(top.verbatim, true);
		}
		// The extractive baseline copies whole sentences; a few may be cut or closed with a '.'.
		assert.ok(
			copied >= 0.9 * evidence.length,
			`${copied} of ${evidence.length} sentences are copied from the book`,
		);
		if (method === 'hier') {
			// A copied sentence of a hierarchical summary traces down to the one level-0 summary it came from.
			assert.ok(evidence.filter((s) => s.chunks.length === 1).length >= 0.8 * evidence.length);
		}
	});
}

test('coverage of both summaries: shares and positions in [0, 1], and each sentence cites a chunk', () => {
	for (const method of METHODS) {
		const { data, book, evidence } = runs.get(method)!;
		const c = coverageOf(data.run.chunks, book.length, citedChunks(evidence));
		assert.equal(c.citing, evidence.length, method);
		assert.ok(c.cited >= 1 && c.cited <= c.chunks);
		for (const x of [
			c.share,
			c.meanPosition!,
			c.halves.first!,
			c.halves.second!,
			...c.parts.map((p) => p.share!),
		])
			assert.ok(x >= 0 && x <= 1, `${method}: ${x}`);
		assert.equal(
			c.citations.reduce((a, b) => a + b, 0),
			evidence.length,
		);
	}
});

test('booook evidence: one sentence with its passages as text and JSON, the same as the core gives', async () => {
	const { evidence, book } = runs.get('hier')!;
	const r = await booook([
		'evidence',
		'hier',
		'--sentence',
		'2',
		'--top',
		'2',
		'--json',
		'--sessions-dir',
		dir,
	]);
	assert.equal(r.code, 0, r.stderr);
	const shown = JSON.parse(r.stdout);
	assert.equal(shown.final, true);
	assert.equal(shown.sentences, evidence.length);
	assert.equal(shown.evidence.length, 1);
	const [one] = shown.evidence;
	assert.equal(one.index, 1);
	assert.deepEqual(one.chunks, chunkRuns(evidence[1]!.chunks));
	// Each passage is placed by the book's headings and its start.
	const chapters = chaptersOf(book);
	for (const p of one.passages as { start: number; chapter: unknown; position: number }[]) {
		assert.deepEqual(p.chapter, bookPlace(chapters, book.length, p.start).chapter);
		assert.ok(Math.abs(p.position - p.start / book.length) < 1e-4, `${p.position}`);
	}
	assert.deepEqual(
		one.passages.map((p: { start: number }) => p.start),
		evidence[1]!.passages.slice(0, 2).map((p) => p.start),
	);
	assert.equal(one.passages[0].text, sentenceKey(book.slice(one.passages[0].start, one.passages[0].end)));
	const text = await booook(['evidence', 'hier', '--sentence', '2', '--sessions-dir', dir]);
	assert.equal(text.code, 0, text.stderr);
	assert.match(text.stdout, /^2\. /mu);
	// Text counts chunks from 1; JSON keeps the stored index.
	const first = one.passages[0].chunk as number;
	assert.match(
		text.stdout,
		new RegExp(
			`\\[1\\] ${escape(placeText(bookPlace(chapters, book.length, one.passages[0].start)))} \\(chunk ${first + 1} of ${runs.get('hier')!.data.run.chunks.length}, characters \\d+-\\d+\\), score [\\d.]+, holds the sentence word for word`,
			'u',
		),
	);
	// Any node of the run, not only the final summary.
	const node = await booook(['evidence', 'hier', '--node', 'n0', '--json', '--sessions-dir', dir]);
	assert.equal(node.code, 0, node.stderr);
	const n0 = JSON.parse(node.stdout);
	assert.equal(n0.final, false);
	assert.ok(
		n0.evidence.every((s: { chunks: number[][] }) => JSON.stringify(s.chunks) === '[[0,0]]'),
		'a level-0 summary comes from its chunk',
	);
});

test('evidence --help and coverage --help name every field their --json prints', async () => {
	/** The keys of `value` and of the objects inside it, at any depth (an array's first item stands for all). */
	const keys = (value: unknown): string[] => {
		if (Array.isArray(value)) return value.length > 0 ? keys(value[0]) : [];
		if (value === null || typeof value !== 'object') return [];
		return Object.entries(value).flatMap(([k, v]) => (k === 'span' ? [k] : [k, ...keys(v)]));
	};
	for (const command of ['evidence', 'coverage']) {
		const help = (await booook([command, '--help'])).stdout.replace(/\s+/gu, ' ');
		const json = help.slice(help.indexOf('--json'));
		const r = await booook([command, 'hier', '--json', '--sessions-dir', dir]);
		assert.equal(r.code, 0, r.stderr);
		const printed = new Set(keys(JSON.parse(r.stdout)));
		const unnamed = [...printed].filter((k) => !new RegExp(`\\b${k}\\b`, 'u').test(json));
		assert.deepEqual(unnamed, [], `${command} --help: ${json}`);
	}
});

test('booook evidence and coverage refuse bad input with one line and a fix', async () => {
	const cases: [string[], RegExp][] = [
		[
			['evidence', 'hier', '--sentence', '999'],
			/^booook: --sentence 999: node n\d+ has \d+ sentences; use 1 to \d+\n$/u,
		],
		[
			['evidence', 'hier', '--node', 'n9999'],
			/^booook: no node n9999 in session "hier": its nodes are n0 to n\d+\n$/u,
		],
		[['evidence', 'hier', '--node', 'x'], /--node x: name a node of the run as n<number>/u],
		[['evidence', 'hier', '--top', '0'], /^booook: --top 0: use a whole number from 1 to 50/u],
		[['coverage', 'nope'], /^booook: no session "nope"/u],
		[['coverage', 'hier', '--width', '2'], /^booook: --width 2: use a whole number from/u],
	];
	for (const [args, message] of cases) {
		const r = await booook([...args, '--sessions-dir', dir]);
		assert.equal(r.code, 2, args.join(' '));
		assert.match(r.stderr, message);
		assert.equal(r.stderr.trimEnd().split('\n').length, 1);
	}
});

test('booook coverage draws the strip chart at the width asked for, and report --json carries the same numbers', async () => {
	for (const method of METHODS) {
		const r = await booook(['coverage', method, '--width', '60', '--sessions-dir', dir]);
		assert.equal(r.code, 0, r.stderr);
		const strip = r.stdout.split('\n').find((l) => l.startsWith('start '))!;
		assert.equal([...strip].length, 60);
		assert.match(strip, /^start [·░▒▓█]+ end$/u);
		assert.match(r.stdout, /cited: \d+ of \d+ chunks \(\d+%\)/u);
		const json = JSON.parse(
			(await booook(['coverage', method, '--json', '--width', '60', '--sessions-dir', dir])).stdout,
		);
		assert.equal([...json.strip].length, 50);
		const report = JSON.parse((await booook(['report', method, '--json', '--sessions-dir', dir])).stdout);
		assert.equal(report.coverage.share, json.share);
		assert.equal(report.coverage.mean_position, json.mean_position);
		const piped = JSON.parse((await booook(['coverage', method, '--json', '--sessions-dir', dir])).stdout);
		assert.deepEqual(report.coverage, piped, 'report --json holds what coverage --json prints');
		const { data, book, evidence } = runs.get(method)!;
		const c = coverageOf(data.run.chunks, book.length, citedChunks(evidence));
		assert.equal(json.cited, c.cited);
		assert.equal(json.chunks, data.run.chunks.length);
	}
});
