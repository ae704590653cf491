import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chunkText } from '../../source/text/chunk.ts';
import {
	countTokens,
	decode,
	encode,
	encoder,
	ENCODINGS,
	MAX_RUN,
	mayHaveLongRun,
} from '../../source/text/tokens.ts';
import { prng } from '../support/prng.ts';
import { FRANKENSTEIN } from '../support/repo-data.ts';

test('a megabyte of one character is tokenized and chunked, covering the text exactly', () => {
	// Before, each of these was one pre-tokenizer piece: quadratic to merge, and at 1 MB the
	// tokenizer's WASM crashed ("unreachable").
	for (const ch of ['a', '.', ' ', '中', '😀']) {
		const text = ch.repeat(1_000_000 / ch.length);
		const ids = encode(text);
		assert.equal(decode(ids), text, `${JSON.stringify(ch)}: the ids decode to the text`);
		// One token per character at most (a pair for an emoji's four bytes at worst), and merges happen.
		assert.ok(ids.length > 0 && ids.length <= text.length, `${JSON.stringify(ch)}: ${ids.length} tokens`);
	}
	const text = 'a'.repeat(1_000_000);
	const chunks = chunkText(text, 2048);
	assert.equal(chunks.map((c) => text.slice(c.start, c.end)).join(''), text);
	let total = 0;
	for (const chunk of chunks) {
		assert.ok(chunk.tokens <= 2048, `chunk ${chunk.index}: ${chunk.tokens} tokens`);
		assert.equal(chunk.tokens, countTokens(text.slice(chunk.start, chunk.end)));
		total += chunk.tokens;
	}
	// The chunks' counts add up to about the whole text's count (a cut can move a merge or two).
	assert.ok(Math.abs(total - countTokens(text)) <= chunks.length, `${total} vs ${countTokens(text)}`);
});

test('normal text is encoded exactly as the tokenizer encodes it whole', () => {
	const book = readFileSync(FRANKENSTEIN, 'utf8');
	// Long words, a long URL, unspaced script up to its punctuation, and runs just at the limit.
	const samples = [
		book,
		`See https://example.org/${'path/'.repeat(20)}index.html?q=${'x'.repeat(40)} for more.`,
		'吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。'.repeat(50),
		`${'b'.repeat(MAX_RUN)} ${'-'.repeat(MAX_RUN)}\n${' '.repeat(MAX_RUN)}x`,
	];
	for (const name of ENCODINGS) {
		for (const text of samples)
			assert.deepEqual(
				encode(text, name),
				encoder(name).encode_ordinary(text),
				`${name}: ${text.slice(0, 40)}`,
			);
	}
});

test('a long run is never cut inside a surrogate pair', () => {
	// Odd offsets put a would-be cut between the halves of every pair.
	for (const lead of ['', 'x']) {
		const text = `${lead}${'𝔞'.repeat(3 * MAX_RUN)}`;
		assert.equal(decode(encode(text)), text);
	}
});

test('the quick check for long runs never misses one the tokenizer would choke on', () => {
	const longRun = new RegExp(
		`[\\p{L}\\p{M}]{${MAX_RUN + 1},}|\\s{${MAX_RUN + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${MAX_RUN + 1},}`,
		'u',
	);
	const random = prng(11);
	// Characters of every class, ASCII and not: letters, marks, digits, punctuation, spaces.
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
		'\u00a0',
		'\u3000',
		'猫',
		'\u0007',
	];
	let found = 0;
	for (let i = 0; i < 3000; i++) {
		// Few classes per string, so long runs of one class happen.
		const pool = alphabet.filter(() => random() < 0.3);
		if (pool.length === 0) continue;
		const text = Array.from(
			{ length: 150 + Math.floor(random() * 200) },
			() => pool[Math.floor(random() * pool.length)]!,
		).join('');
		if (longRun.test(text)) {
			found++;
			assert.ok(mayHaveLongRun(text), JSON.stringify(text.slice(0, 40)));
		}
	}
	assert.ok(found > 100, `${found} strings with a long run`);
	assert.equal(mayHaveLongRun(readFileSync(FRANKENSTEIN, 'utf8').slice(0, 50_000)), false);
});
