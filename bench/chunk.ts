/**
 * Chunking War and Peace against one plain encoding of it: chunkText encodes the text once and
 * re-encodes only chunks near the limit, so the ratio should stay well under 2.
 * Run: node --import tsx bench/chunk.ts [book.txt]
 */
import { readBook } from '../source/book/read.ts';
import { chunkText } from '../source/text/chunk.ts';
import { encode } from '../source/text/tokens.ts';
import { median } from './kit.ts';
import { WAR_AND_PEACE } from '../test/support/repo-data.ts';

const BOOK = process.argv[2] ?? WAR_AND_PEACE;
const CHUNK_SIZE = 2048;
const REPETITIONS = 5;

function time(run: () => void): number {
	const start = performance.now();
	run();
	return performance.now() - start;
}

// The text as `run` chunks it: read as a book, one line per paragraph.
const { text } = await readBook(BOOK);

// Warm up: WASM compilation, the JIT and the token byte-length table.
let chunks = chunkText(text, CHUNK_SIZE).length;
encode(text);

const chunkTimes: number[] = [];
const encodeTimes: number[] = [];
// Interleaved so that drift in machine load hits both measurements alike.
for (let i = 0; i < REPETITIONS; i++) {
	chunkTimes.push(time(() => (chunks = chunkText(text, CHUNK_SIZE).length)));
	encodeTimes.push(time(() => encode(text)));
}

const chunkMs = median(chunkTimes);
const encodeMs = median(encodeTimes);
console.log(
	`chunk/encode ratio: ${(chunkMs / encodeMs).toFixed(2)} (chunk ${chunkMs.toFixed(0)} ms, encode ${encodeMs.toFixed(0)} ms, ${chunks} chunks)`,
);
