import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import wrapAnsi from 'wrap-ansi';
import { createHash } from 'node:crypto';
import { MAX_BOOK_BYTES, megabytes } from '../../source/book/limits.ts';
import { readBook } from '../../source/book/read.ts';
import { txtTitle } from '../../source/book/txt.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { runsOf } from '../../source/text/runs.ts';
import { sanitize } from '../../source/text/sanitize.ts';
import { sentenceProgress, writer } from '../../source/commands/sentence-progress.ts';
import { longRuns, MAX_RUN } from '../../source/text/tokens.ts';
import { wrapColumns } from '../../source/text/wrap.ts';
import { prng } from '../support/prng.ts';
import { capture } from '../support/assertions.ts';
import { BOOKS_DIR } from '../support/repo-data.ts';

/** The parts behind issue 24's input bounds (see input-bounds.test.ts for the inputs themselves). */

test('longRuns finds what the unbounded regex found, in order, at any length', () => {
	const unbounded = new RegExp(
		`[\\p{L}\\p{M}]{${MAX_RUN + 1},}|\\s{${MAX_RUN + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${MAX_RUN + 1},}`,
		'gu',
	);
	const random = prng(24);
	const alphabet = [
		'a',
		'é',
		'\u0301',
		'7',
		'-',
		'.',
		'—',
		' ',
		'\t',
		'\n',
		'\u3000',
		'猫',
		'𝔞',
		'😀',
		'\u0007',
	];
	let runs = 0;
	for (let i = 0; i < 1000; i++) {
		// Few characters per string, and stretches of one character, so runs of each kind happen.
		const pool = alphabet.filter(() => random() < 0.2);
		if (pool.length === 0) continue;
		const text = Array.from({ length: 20 + Math.floor(random() * 100) }, () =>
			pool[Math.floor(random() * pool.length)]!.repeat(1 + Math.floor(random() * 40)),
		).join('');
		const expected = [...text.matchAll(unbounded)].map((m) => [m.index, m.index + m[0].length]);
		assert.deepEqual([...longRuns(text)], expected, JSON.stringify(text.slice(0, 60)));
		runs += expected.length;
	}
	assert.ok(runs > 300, `${runs} runs`);
	// Runs many times longer than one step of the bounded match, of each kind, back to back.
	const long = `${'a'.repeat(50_000)}${' '.repeat(50_001)}${'-'.repeat(50_002)}7${'😀'.repeat(30_000)}`;
	assert.deepEqual(
		[...longRuns(long)],
		[
			[0, 50_000],
			[50_000, 100_001],
			[100_001, 150_003],
			[150_004, 210_004],
		],
	);
});

test('wrapColumns gives what wrap-ansi gives for text of one-column characters, and leaves other text to it', () => {
	const random = prng(7);
	const alphabet = ['a', 'b', 'c', ' ', ' ', ' ', '—', 'é', '“', '’', '…', '\n', 'wrapping', 'x'.repeat(45)];
	for (let i = 0; i < 4000; i++) {
		const text = Array.from(
			{ length: Math.floor(random() * 30) },
			() => alphabet[Math.floor(random() * alphabet.length)]!,
		).join('');
		const width = 1 + Math.floor(random() * 30);
		assert.deepEqual(
			wrapColumns(text, width),
			wrapAnsi(text, width, { hard: true, trim: true }).split('\n'),
			`${JSON.stringify(text)} at ${width}`,
		);
	}
	for (const other of ['猫 cat', 'tab\there', 'e\u0301', 'no\u00a0break', 'soft\u00adhyphen', '😀'])
		assert.equal(wrapColumns(other, 10), null, JSON.stringify(other));
	// A word of a megabyte is cut in one pass.
	const rows = wrapColumns(`go ${'a'.repeat(1_000_000)}`, 80)!;
	assert.equal(rows.join(''), `go${'a'.repeat(1_000_000)}`);
	assert.ok(rows.every((row) => row.length <= 80));
});

test('progress over sentences: nothing within the first second, then at most a line a second, and the total at the end', () => {
	let now = 0;
	const { stream, text: written } = capture();
	const quick = sentenceProgress(stream, 'evidence of n3', 10, () => now);
	for (let done = 1; done <= 10; done++) {
		now += 50;
		quick.tick(done);
	}
	quick.end();
	assert.equal(written(), '', 'work done within a second says nothing');

	now = 0;
	const slow = sentenceProgress(stream, 'coverage of n9', 12_000, () => now);
	for (let done = 1; done <= 12_000; done++) {
		now += 0.25;
		slow.tick(done);
	}
	slow.end();
	const lines = written().trimEnd().split('\n');
	assert.deepEqual(lines.slice(0, 2), [
		'coverage of n9: 4,000 of 12,000 sentences (33%), 1s',
		'coverage of n9: 8,000 of 12,000 sentences (66%), 2s',
	]);
	assert.equal(lines.at(-1), 'coverage of n9: 12,000 of 12,000 sentences (100%), 3s');
	assert.equal(lines.length, 4);
});

test('the writer waits while the stream is full, and goes on once it drains or closes', async () => {
	const taken: string[] = [];
	let release: (() => void) | null = null;
	const stream = new Writable({
		highWaterMark: 4,
		decodeStrings: false,
		write(chunk, _encoding, done) {
			taken.push(String(chunk));
			release = done;
		},
	});
	const write = writer(stream);
	let written = false;
	const pending = write('more than four').then(() => (written = true));
	await new Promise((resolve) => setImmediate(resolve));
	assert.equal(written, false, 'it waits for the drain');
	release!();
	await pending;
	assert.deepEqual(taken, ['more than four']);
	// A stream that is gone ends the wait instead of hanging.
	const closing = write('again');
	stream.destroy();
	await closing;
});

test('the book size limit reads as a size, rounded up', () => {
	assert.equal(megabytes(MAX_BOOK_BYTES), '32 MB');
	assert.equal(megabytes(MAX_BOOK_BYTES + 1), '32.1 MB');
	assert.equal(megabytes(200 * 1024 * 1024), '200 MB');
	assert.equal(megabytes(1.25 * 1024 * 1024), '1.3 MB');
});

test('runsOf finds the runs that a regex `+` over the same class finds, joined at single apostrophes when asked', () => {
	const random = prng(5);
	const alphabet = [
		'a',
		'Z',
		'é',
		'\u0301',
		'7',
		"'",
		'’',
		"''",
		' ',
		'.',
		'中',
		'𝔞',
		'😀',
		'\n',
		'x'.repeat(5000),
	];
	for (let i = 0; i < 2000; i++) {
		const text = Array.from(
			{ length: Math.floor(random() * 40) },
			() => alphabet[Math.floor(random() * alphabet.length)]!,
		).join('');
		for (const [kind, joins, regex] of [
			['\\S', '', /\S+/gu],
			['[\\p{L}\\p{M}\\p{N}]', "'’", /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}\p{M}\p{N}]+)*/gu],
		] as const) {
			const expected = [...text.matchAll(regex)].map((m) => [m.index, m.index + m[0].length]);
			assert.deepEqual(
				[...runsOf(text, kind, joins)],
				expected,
				`${kind}: ${JSON.stringify(text.slice(0, 80))}`,
			);
		}
	}
});

test('sanitize removes exactly what the escape-sequence regex it replaced removed', () => {
	// The regex as it was: the reference for the single-pass scanner.
	const ESCAPES =
		// eslint-disable-next-line no-control-regex -- escape sequences are what it matches
		/\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]P^_X][\s\S]*?(?:\x07|\x1b\\|\x9c)|\x9b[0-?]*[ -/]*[@-~]|[\x9d\x90\x9e\x9f\x98][\s\S]*?(?:\x07|\x1b\\|\x9c)|\x1b[@-Z\\-_]?/gu;
	// eslint-disable-next-line no-control-regex -- control characters are what the test looks for
	const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/gu;
	const reference = (text: string) => text.replace(ESCAPES, '').replace(CONTROLS, '');
	const random = prng(3);
	const alphabet = [
		'\x1b',
		'\x1b',
		'[',
		']',
		'P',
		'^',
		'_',
		'X',
		'\\',
		'\x07',
		'\x9c',
		'\x9b',
		'\x9d',
		'\x90',
		'\x98',
		'\x9e',
		'\x9f',
		'0',
		'?',
		';',
		' ',
		'/',
		'm',
		'a',
		'@',
		'Z',
		'~',
		'\x7f',
		'😀',
		'\n',
		'\u202e',
		'\ud800',
	];
	for (let i = 0; i < 50_000; i++) {
		const text = Array.from(
			{ length: Math.floor(random() * 16) },
			() => alphabet[Math.floor(random() * alphabet.length)]!,
		).join('');
		assert.equal(sanitize(text), reference(text), JSON.stringify(text));
	}
	// Every character after an ESC.
	for (let c = 0; c < 0x10000; c++) {
		const text = `\x1b${String.fromCharCode(c)}x\x07y`;
		assert.equal(sanitize(text), reference(text), c.toString(16));
	}
});

test('the title of a .txt book is found as before when its lines are long', () => {
	const title = 'x'.repeat(95);
	assert.equal(txtTitle(`Title: ${title}\n\nText.`), title);
	assert.equal(txtTitle(`Title:   ${'y '.repeat(60)}\n\nText.`), null);
	assert.equal(txtTitle(`${'word '.repeat(1_000_000)}\n\nText.`), null);
	assert.equal(txtTitle(`${' '.repeat(1_000_000)}\nShort Title\n\n${'z'.repeat(10_000)}`), 'Short Title');
});

test('chunks of real books are where they were before chunking went lazy (the cuts behind Table 2)', async () => {
	// Fingerprints of chunkText's output before this change.
	const cases: [string, number, number, string][] = [
		['frankenstein', 500, 219, '6f8f4b8269534716d2ccecac01402d081ab0313e705574578c6270a58e01f54c'],
		['frankenstein', 2048, 47, '976bb4c20eb4a901a2a4133904d3f419af2bee37dc5ff4d3e50a27ef71ac983e'],
		['pride-and-prejudice', 1000, 163, '0286cca211049357158dc303047e5d7c2aff38decd117d807cc998aa8d792b33'],
	];
	for (const [name, size, count, sha] of cases) {
		const { text } = await readBook(join(BOOKS_DIR, `${name}.txt`));
		const chunks = chunkText(text, size);
		assert.equal(chunks.length, count, `${name} at ${size}`);
		assert.equal(
			createHash('sha256').update(JSON.stringify(chunks)).digest('hex'),
			sha,
			`${name} at ${size}`,
		);
	}
});
