import { createRequire } from 'node:module';
import type { Tiktoken, TiktokenEncoding } from 'tiktoken';

/** The encodings a user may pick with `--encoding`. */
export const ENCODINGS = ['cl100k_base', 'o200k_base'] as const;
export type EncodingName = (typeof ENCODINGS)[number];
export const DEFAULT_ENCODING: EncodingName = 'cl100k_base';

// One shared encoder per encoding: building one costs tens of milliseconds and megabytes of WASM
// memory, so every module counts tokens through here. They live as long as the process: freeing
// them on exit only delayed the exit (14 ms), as the memory goes with the process anyway.
const encoders = new Map<EncodingName, Tiktoken>();

// tiktoken compiles its WASM when it is loaded, so it is loaded on the first count, not with this
// module: commands that never count (`--help`, `sessions` of finished runs) start without it. Its Node entry is
// CommonJS, so a synchronous require gives the same module an import would.
let tiktoken: typeof import('tiktoken') | null = null;

export function encoder(name: EncodingName = DEFAULT_ENCODING): Tiktoken {
	let enc = encoders.get(name);
	if (!enc) {
		tiktoken ??= createRequire(import.meta.url)('tiktoken') as typeof import('tiktoken');
		enc = tiktoken.get_encoding(name as TiktokenEncoding);
		encoders.set(name, enc);
	}
	return enc;
}

/**
 * Longest stretch handed to the encoder in one piece inside a run of one kind of character.
 * tiktoken's byte-pair merge is quadratic in the length of a pre-tokenizer piece, and a run of
 * letters, of punctuation or of whitespace is one piece: 100 KB of "a" took 16 s to chunk and
 * 1 MB crashed the WASM. Words, URLs and sentences of unspaced scripts (which stop at
 * punctuation) are far shorter, so normal text is never cut and its counts stay exact.
 */
export const MAX_RUN = 128;
// The three kinds of run: letters and marks, whitespace, and punctuation or symbols (digits are none).
const KINDS = ['[\\p{L}\\p{M}]', '\\s', '[^\\s\\p{L}\\p{M}\\p{N}]'];
// Where a run longer than MAX_RUN starts, and which kind it is (the group that matched). The match
// has a fixed length: a regex match of unbounded length costs the regex engine stack in proportion
// to it, and a run of 6 MB overflowed it ("Maximum call stack size exceeded").
const LONG_RUN_START = new RegExp(KINDS.map((kind) => `(${kind}{${MAX_RUN + 1}})`).join('|'), 'gu');
// The rest of a run, matched a bounded stretch at a time from where the last one stopped.
const RUN_STEP = 4096;
const RUN_REST = KINDS.map((kind) => new RegExp(`${kind}{1,${RUN_STEP}}`, 'uy'));

/**
 * The runs of more than MAX_RUN characters of one kind in `text`, as [start, end) ranges in order:
 * what `/[\p{L}\p{M}]{129,}|\s{129,}|[^\s\p{L}\p{M}\p{N}]{129,}/gu` matches, found in time linear in
 * the text and in constant stack at any length of run.
 */
export function* longRuns(text: string): Generator<[number, number]> {
	const start = new RegExp(LONG_RUN_START);
	for (let m = start.exec(text); m; m = start.exec(text)) {
		const rest = RUN_REST[m[1] !== undefined ? 0 : m[2] !== undefined ? 1 : 2]!;
		let end = m.index + m[0].length;
		for (;;) {
			rest.lastIndex = end;
			const more = rest.exec(text);
			if (!more) break;
			end += more[0].length;
		}
		yield [m.index, end];
		start.lastIndex = end;
	}
}

/**
 * Token ids of `text`. `encode_ordinary` treats special-token text such as `<|endoftext|>` as plain
 * text, which is what a book containing that string needs. Runs longer than MAX_RUN characters of
 * one kind are encoded MAX_RUN characters at a time (never splitting a character), so the time is
 * linear in the length of the text; the ids still decode to `text` exactly.
 */
export function encode(text: string, name: EncodingName = DEFAULT_ENCODING): Uint32Array {
	const enc = encoder(name);
	if (text.length <= MAX_RUN || !mayHaveLongRun(text)) return enc.encode_ordinary(text);
	const cuts: number[] = [];
	for (const [start, end] of longRuns(text)) {
		for (let p = start + MAX_RUN; p < end; p += MAX_RUN) {
			// Never between the two halves of a surrogate pair.
			if (isLowSurrogate(text.charCodeAt(p)) && isHighSurrogate(text.charCodeAt(p - 1))) p += 1;
			if (p < end) cuts.push(p);
		}
	}
	if (cuts.length === 0) return enc.encode_ordinary(text);
	cuts.push(text.length);
	const parts: Uint32Array[] = [];
	let total = 0;
	let from = 0;
	for (const cut of cuts) {
		const ids = enc.encode_ordinary(text.slice(from, cut));
		parts.push(ids);
		total += ids.length;
		from = cut;
	}
	const out = new Uint32Array(total);
	let at = 0;
	for (const ids of parts) {
		out.set(ids, at);
		at += ids.length;
	}
	return out;
}

/**
 * False when `text` surely has no run `longRuns` would find, told by one pass over its char codes:
 * the regex's Unicode classes cost a run of War and Peace half a second. A run of letters, marks or
 * punctuation has no ASCII whitespace in it; a run of whitespace has nothing but ASCII whitespace
 * and characters beyond ASCII. Text with neither kind of stretch longer than MAX_RUN has no run.
 */
export function mayHaveLongRun(text: string): boolean {
	let unspaced = 0;
	let spaceOrWide = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		const asciiSpace = c === 32 || (c >= 9 && c <= 13);
		unspaced = asciiSpace ? 0 : unspaced + 1;
		spaceOrWide = asciiSpace || c > 126 ? spaceOrWide + 1 : 0;
		if (unspaced > MAX_RUN || spaceOrWide > MAX_RUN) return true;
	}
	return false;
}

function isHighSurrogate(c: number): boolean {
	return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
	return c >= 0xdc00 && c <= 0xdfff;
}

export function countTokens(text: string, name: EncodingName = DEFAULT_ENCODING): number {
	if (text.length === 0) return 0;
	return encode(text, name).length;
}

const utf8 = new TextDecoder('utf-8');

export function decode(tokens: Uint32Array, name: EncodingName = DEFAULT_ENCODING): string {
	return utf8.decode(encoder(name).decode(tokens));
}

/** The longest prefix of `text` with at most `limit` tokens (it never splits a character). */
export function truncateToTokens(text: string, limit: number, name: EncodingName = DEFAULT_ENCODING): string {
	const tokens = encode(text, name);
	if (tokens.length <= limit) return text;
	let prefix = decode(tokens.subarray(0, Math.max(0, limit)), name);
	// A token boundary can fall inside a multi-byte character; drop the replacement character.
	while (prefix.endsWith('\uFFFD')) prefix = prefix.slice(0, -1);
	return prefix;
}

export function countWords(text: string): number {
	const trimmed = text.trim();
	// No `u` flag: the same whitespace, and no stack overflow on a run of millions of it.
	return trimmed.length === 0 ? 0 : trimmed.split(/\s+/).length;
}
