import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Chunk } from '../../source/domain.ts';
import { chunkText } from '../../source/text/chunk.ts';
import { sentenceSpans, type Span } from '../../source/text/sentences.ts';
import { countTokens, type EncodingName } from '../../source/text/tokens.ts';
import { prng } from '../support/prng.ts';
import { BOOKS_DIR } from '../support/repo-data.ts';

const texts = (chunks: Chunk[], text: string): string[] => chunks.map((c) => text.slice(c.start, c.end));

/** Index of the last span starting at or before `p`, or -1. */
function spanAt(spans: Span[], p: number): number {
	let lo = 0;
	let hi = spans.length;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (spans[mid]!.start <= p) lo = mid + 1;
		else hi = mid;
	}
	return lo - 1;
}

interface CheckOptions {
	encoding?: EncodingName;
	/** The text has whitespace runs longer than a chunk: those must be cut, even into blank chunks. */
	blankRuns?: boolean;
}

/** Every property chunkText promises, checked against the exact token counter. */
function checkChunks(
	text: string,
	size: number,
	{ encoding = 'cl100k_base', blankRuns = false }: CheckOptions = {},
): Chunk[] {
	const spans = sentenceSpans(text);
	const chunks = chunkText(text, size, encoding);
	if (!/\S/u.test(text)) {
		assert.deepEqual(chunks, []);
		return chunks;
	}
	assert.ok(chunks.length > 0);
	assert.equal(texts(chunks, text).join(''), text, 'chunks cover the text exactly');
	let at = 0;
	const tooLong = new Set<number>();
	chunks.forEach((chunk, i) => {
		const where = `chunk ${i} [${chunk.start}, ${chunk.end}) of ${chunks.length}, C=${size}`;
		assert.equal(chunk.index, i, where);
		assert.equal(chunk.start, at, `${where}: contiguous`);
		assert.ok(chunk.end > chunk.start, `${where}: not empty`);
		at = chunk.end;
		const slice = text.slice(chunk.start, chunk.end);
		if (!blankRuns) assert.match(slice, /\S/u, `${where}: not whitespace only`);
		assert.equal(chunk.tokens, countTokens(slice, encoding), `${where}: exact token count`);
		assert.ok(chunk.tokens <= size, `${where}: ${chunk.tokens} tokens over the limit`);
		if (i === chunks.length - 1 || blankRuns) return;

		// Where it ends: at the start of a non-blank line (blank lines stay with the chunk before) ...
		const e = chunk.end;
		if (text[e - 1] === '\n') {
			const lineEnd = text.indexOf('\n', e);
			assert.match(
				text.slice(e, lineEnd === -1 ? text.length : lineEnd),
				/\S/u,
				`${where}: next chunk starts with a blank line`,
			);
			return;
		}
		// ... or at a sentence end ...
		const k = spanAt(spans, e - 1);
		const span = spans[k];
		assert.ok(span, `${where}: ends before any sentence`);
		if (span.end === e) return;
		// ... or inside a sentence that is too long for a chunk, when the chunk has no sentence end.
		assert.ok(e > span.start && e < span.end, `${where}: ends between sentences but not at a sentence end`);
		assert.ok(
			chunk.start >= span.start || !/\S/u.test(text.slice(chunk.start, span.start)),
			`${where}: cut inside a sentence though it holds a sentence end`,
		);
		// Counted once per sentence: a long one is cut into many chunks.
		if (!tooLong.has(k)) {
			const from = Math.min(chunk.start, spans[k - 1]?.end ?? 0);
			const to = spans[k + 1]?.start ?? text.length;
			assert.ok(countTokens(text.slice(from, to), encoding) > size, `${where}: cut a sentence that fits`);
			tooLong.add(k);
		}
	});
	assert.equal(at, text.length);
	return chunks;
}

/** A synthetic book: paragraphs of sentences of mixed scripts, with the odd long sentence, word or gap. */
function syntheticText(random: () => number): string {
	const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
	const words = [
		'the',
		'Prince',
		'said',
		'Anna',
		'Pávlovna',
		'Moscow',
		'война',
		'мир',
		'戦争',
		'と',
		'平和',
		'naïve',
		'1812',
		'3.14',
		'a',
		'very',
		'old',
		'man',
		"didn't",
		'“quoted”',
		'😀',
		'👩‍👩‍👧',
		'Mr.',
		'St.',
		'<|endoftext|>',
		'--',
		'(aside)',
		'e.g.',
		'U.S.A.',
	];
	const ends = ['.', '.', '.', '!', '?', '...', '."', '?"', ''];
	const gaps = [' ', ' ', ' ', ' ', '  ', '\t', ', ', ', ', '; ', ': ', ' — '];
	const sentence = (length: number): string => {
		let s = '';
		for (let i = 0; i < length; i++) s += (i ? pick(gaps) : '') + pick(words);
		return s + pick(ends);
	};
	const paragraph = (): string => {
		const roll = random();
		if (roll < 0.05) return sentence(200 + Math.floor(random() * 600)); // one sentence longer than a chunk
		if (roll < 0.08) return pick(words).repeat(50 + Math.floor(random() * 400)); // a word longer than a chunk
		if (roll < 0.1) return ' '.repeat(Math.floor(random() * 30)) + sentence(5);
		const n = 1 + Math.floor(random() * (random() < 0.2 ? 60 : 6));
		const parts: string[] = [];
		for (let i = 0; i < n; i++) parts.push(sentence(1 + Math.floor(random() * 25)));
		return parts.join(pick([' ', ' ', '  ']));
	};
	const breaks = ['\n', '\n', '\n\n', '\n\n\n', '\n   \n', '\r\n', '\r\n\r\n', '\n\t\n\n'];
	let text = random() < 0.2 ? pick(breaks) : '';
	const paragraphs = 1 + Math.floor(random() * 40);
	for (let i = 0; i < paragraphs; i++)
		text += paragraph() + (i < paragraphs - 1 || random() < 0.5 ? pick(breaks) : '');
	return text;
}

test('random synthetic texts keep every invariant', () => {
	const random = prng(20240611);
	for (let i = 0; i < 120; i++) {
		const text = syntheticText(random);
		const size = 64 + Math.floor(random() * 400);
		checkChunks(text, size);
	}
});

test('random synthetic texts with o200k_base', () => {
	const random = prng(7);
	for (let i = 0; i < 30; i++)
		checkChunks(syntheticText(random), 64 + Math.floor(random() * 200), { encoding: 'o200k_base' });
});

test('an empty or whitespace-only text gives no chunks', () => {
	assert.deepEqual(chunkText('', 64), []);
	assert.deepEqual(chunkText(' \n\n\t \r\n', 64), []);
});

test('chunk size must be an integer of at least 64', () => {
	for (const bad of [63, 0, -100, 64.5, Number.NaN, Number.POSITIVE_INFINITY]) {
		assert.throws(() => chunkText('Some text.', bad), Error, String(bad));
	}
	assert.equal(chunkText('Some text.', 64).length, 1);
});

test('a text that fits is one chunk with its exact count', () => {
	const text = 'First paragraph.\nSecond one.\n\nThird.\n';
	assert.deepEqual(chunkText(text, 2048), [
		{ index: 0, start: 0, end: text.length, tokens: countTokens(text) },
	]);
});

test('paragraphs are packed whole and blank lines go with the paragraph before them', () => {
	// Each paragraph has 30 to 50 tokens, so no two fit together in 64.
	const paragraph = (name: string): string =>
		`${name} ${'went to the market and bought some bread. '.repeat(4).trim()}`;
	const [a, b, c] = [paragraph('Anna'), paragraph('Boris'), paragraph('Pierre')];
	for (const p of [a, b, c]) assert.ok(countTokens(p) > 32 && countTokens(p) <= 60);
	const text = `\n\n${a}\n\n\n${b}\n   \n${c}\n\n`;
	const chunks = checkChunks(text, 64);
	assert.deepEqual(texts(chunks, text), [`\n\n${a}\n\n\n`, `${b}\n   \n`, `${c}\n\n`]);
	// With room for exactly the first two, they share a chunk.
	const two = countTokens(`\n\n${a}\n\n\n${b}\n   \n`);
	assert.deepEqual(texts(checkChunks(text, two), text), [`\n\n${a}\n\n\n${b}\n   \n`, `${c}\n\n`]);
});

test('a paragraph longer than the chunk size is cut at sentence ends, each chunk as full as it can be', () => {
	const sentences = Array.from(
		{ length: 120 },
		(_, i) => `Sentence number ${i} tells of the snow on the road to Moscow.`,
	);
	const text = `${sentences.join(' ')}\n`;
	const chunks = checkChunks(text, 100);
	assert.ok(chunks.length > 10);
	for (const chunk of chunks.slice(0, -1)) {
		assert.equal(text[chunk.end - 1], '.');
		assert.equal(text[chunk.end], ' ');
		// Greedy: adding the next sentence would have gone over the limit.
		const nextEnd = text.indexOf('.', chunk.end) + 1;
		assert.ok(countTokens(text.slice(chunk.start, nextEnd)) > 100);
	}
});

test('a sentence longer than the chunk size is cut at commas and starts its own chunk', () => {
	const clauses = Array.from({ length: 60 }, (_, i) => `the soldiers marched past village ${i}`);
	const long = `Then ${clauses.join(', ')}.`;
	const text = `It was cold. ${long} It ended.`;
	const chunks = checkChunks(text, 80);
	const parts = texts(chunks, text);
	// The short sentence before it is not topped up with part of the long one.
	assert.equal(parts[0], 'It was cold.');
	for (const chunk of chunks.slice(1, -1)) assert.equal(text[chunk.end - 1], ',');
	assert.ok(parts.at(-1)!.endsWith('. It ended.'));
});

test('a sentence of 200,000 words without punctuation is cut between words', () => {
	const text = 'lorem ipsum '.repeat(100000);
	const chunks = checkChunks(text, 2048);
	for (const chunk of chunks.slice(0, -1)) assert.equal(text[chunk.end], ' ');
});

test('a text with neither spaces nor punctuation is cut between tokens', () => {
	const random = prng(3);
	const letters = 'abcdefghijklmnopqrstuvwxyzéü中文ж';
	let text = '';
	for (let i = 0; i < 20000; i++) text += letters[Math.floor(random() * letters.length)];
	const chunks = checkChunks(text, 64);
	assert.ok(chunks.length > 50);
	assert.equal(checkChunks('😀'.repeat(3000), 64).length > 1, true);
});

test('<|endoftext|> in the text is plain text', () => {
	const text = `Before.<|endoftext|> After the end <|endoftext|>.\n\n${'More <|endoftext|> text, again. '.repeat(80)}`;
	const chunks = checkChunks(text, 64);
	assert.ok(chunks.length > 1);
	assert.ok(countTokens('<|endoftext|>') > 1, 'counted as ordinary text, not one special token');
});

test('text without carriage returns, with blank lines and indented lines', () => {
	const para = (i: number): string =>
		`    ${'Indented paragraph with a few words in it. '.repeat(1 + (i % 5)).trim()}`;
	const text = Array.from({ length: 40 }, (_, i) => para(i)).join('\n\n');
	assert.ok(!text.includes('\r'));
	const chunks = checkChunks(text, 128);
	// Every cut falls at the start of an indented paragraph, right after a blank line.
	for (const chunk of chunks.slice(0, -1)) assert.equal(text.slice(chunk.end - 2, chunk.end + 4), '\n\n    ');
});

test('whitespace runs stay with text when they fit and are cut only when longer than a chunk', () => {
	const spaces = `Start.${' '.repeat(5000)}End.`;
	assert.ok(countTokens(spaces) <= 64);
	assert.equal(checkChunks(spaces, 64).length, 1);

	// A run of line breaks longer than a chunk but short enough to share chunks with the two words:
	// it must be cut, yet no chunk is blank.
	const run = '\n'.repeat(3000);
	const runTokens = countTokens(run);
	assert.ok(
		runTokens > 64 && runTokens + countTokens('Start.\n') + countTokens('End.') < 120,
		String(runTokens),
	);
	const gap = `Start.\n${run}End.`;
	for (const chunk of checkChunks(gap, 64, { blankRuns: true }))
		assert.match(gap.slice(chunk.start, chunk.end), /\S/u);

	// Two such runs and two words cannot fit in two chunks of 64: blank chunks are the only way to keep the limit.
	checkChunks(`Start.\n${run}End.\n${run}`, 64, { blankRuns: true });
});

for (const name of ['frankenstein', 'pride-and-prejudice', 'war-and-peace']) {
	test(`the book ${name} in chunks of 2048 tokens`, () => {
		const text = readFileSync(join(BOOKS_DIR, `${name}.txt`), 'utf8');
		const chunks = checkChunks(text, 2048);
		// Whole paragraphs of a few hundred tokens at most: chunks come out well filled.
		const mean = chunks.reduce((sum, c) => sum + c.tokens, 0) / chunks.length;
		assert.ok(mean > 1500, `mean ${mean}`);
	});
}
