import type { Chunk } from '../domain.ts';
import { eachSentenceSpan } from './sentences.ts';
import { countTokens, DEFAULT_ENCODING, encode, encoder, type EncodingName } from './tokens.ts';

/** The smallest chunk size we accept: below it a chunk holds too little text to summarize. */
export const MIN_CHUNK_SIZE = 64;

// How a piece of text was cut off from its neighbours, coarsest first. A piece that is too long is
// cut again with the next level's cuts.
const PARAGRAPH = 0;
const SENTENCE = 1;
const CLAUSE = 2;
const WORD = 3;
const TOKEN = 4;
const CODE_POINT = 5;

// Chunks whose estimated count is this close to C are counted exactly. The estimate is exact for a
// chunk whose edges are safe (see `isSafeEdge`); the margin only guards that argument.
const VERIFY_MARGIN = 4;

/** A contiguous piece of text that is kept whole inside a chunk. */
interface Atom {
	start: number;
	end: number;
	level: number;
	/** The first piece of a sentence cut below sentence level: it starts a new chunk. */
	breakBefore: boolean;
}

/**
 * A piece of text still to be cut into atoms at `level`, cut lazily: a paragraph of a million
 * sentences, or a word of ten million tokens, was a million (ten million) atom objects held at once
 * (1.5 GB to chunk 10 million CJK characters of one word). Taken from `pending`, it gives its next
 * piece, as an atom when it fits or else as a finer range, and goes back on the stack for the rest.
 */
interface Range {
	range: true;
	level: number;
	/** The next cut position (the last one is the range's end), or null when all are given. */
	next: () => number | null;
	/** Where the next piece starts. */
	from: number;
	/**
	 * What the first atom of the range's first piece must have as `breakBefore`, whatever the cuts
	 * below set (null: what they set). Cleared once the first piece is given.
	 */
	firstBreak: boolean | null;
}

/**
 * Cuts `text` into contiguous chunks of at most `chunkSize` tokens (exact `countTokens` of each
 * chunk's text). Chunks are made of whole paragraphs (a paragraph is a line; the blank lines after
 * it belong to it); a paragraph longer than the chunk size is cut at sentence ends, a sentence
 * longer than that at commas (and semicolons, colons), then between words, then between tokens.
 * A sentence cut below sentence level starts a new chunk, so every chunk that contains a sentence
 * end ends at one. The chunks cover the text exactly: joined, their texts give `text` back. An
 * empty or whitespace-only text gives no chunks.
 *
 * The text is encoded once; chunk boundaries are chosen by token position, and only chunks whose
 * count is near the limit, or whose edge is not a pre-tokenizer boundary, are re-encoded.
 */
export function chunkText(
	text: string,
	chunkSize: number,
	encoding: EncodingName = DEFAULT_ENCODING,
): Chunk[] {
	if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE) {
		throw new Error(`chunkSize must be an integer of at least ${MIN_CHUNK_SIZE}, got ${chunkSize}`);
	}
	if (!/\S/u.test(text)) return [];
	const chunker = new Chunker(text, chunkSize, encoding);
	return mergeBlankChunks(text, chunker.run(), chunkSize, encoding);
}

class Chunker {
	private readonly ends: Int32Array;
	private readonly clean: Uint8Array;
	private readonly paragraphs: number[];
	private nextParagraph = 0;
	private paragraphStart = 0;
	/** Atoms and ranges still to place, the next one last. */
	private readonly pending: (Atom | Range)[] = [];
	private readonly chunks: Chunk[] = [];
	private current: Atom[] = [];
	private start = 0;

	constructor(
		private readonly text: string,
		private readonly limit: number,
		private readonly encoding: EncodingName,
	) {
		({ ends: this.ends, clean: this.clean } = tokenEnds(text, encode(text, encoding), encoding));
		this.paragraphs = paragraphEnds(text);
	}

	run(): Chunk[] {
		for (;;) {
			const atom = this.nextAtom();
			if (!atom) {
				if (this.current.length === 0) break;
				this.flush();
				continue;
			}
			if (this.current.length > 0 && (atom.breakBefore || this.approx(this.start, atom.end) > this.limit)) {
				this.pending.push(atom);
				this.flush();
				continue;
			}
			this.current.push(atom);
		}
		return this.chunks;
	}

	/** Number of tokens of the whole-text encoding that end at or before char offset `p`. */
	private tokensBefore(p: number): number {
		const ends = this.ends;
		let lo = 0;
		let hi = ends.length;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (ends[mid]! <= p) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	/** Tokens of text[a, b) as the whole-text encoding cut them. */
	private approx(a: number, b: number): number {
		return this.tokensBefore(b) - this.tokensBefore(a);
	}

	/** The next atom to place: from the pending stack (cutting the range on top), else from the next paragraph. */
	private nextAtom(): Atom | undefined {
		for (;;) {
			const top = this.pending.pop() ?? this.readParagraph();
			if (!top) return undefined;
			if (!('range' in top)) return top;
			const cut = top.next();
			if (cut === null) continue;
			const from = top.from;
			const firstBreak = top.firstBreak;
			top.from = cut;
			top.firstBreak = null;
			this.pending.push(top);
			if (this.approx(from, cut) <= this.limit || top.level === CODE_POINT) {
				return { start: from, end: cut, level: top.level, breakBefore: firstBreak ?? false };
			}
			// Too long: cut finer. A sentence cut into smaller pieces starts its own chunk (see chunkText).
			this.pending.push(
				this.range(from, cut, top.level + 1, false, firstBreak ?? (top.level <= SENTENCE ? true : null)),
			);
		}
	}

	private readParagraph(): Atom | Range | undefined {
		const end = this.paragraphs[this.nextParagraph++];
		if (end === undefined) return undefined;
		const start = this.paragraphStart;
		this.paragraphStart = end;
		if (this.approx(start, end) <= this.limit) return { start, end, level: PARAGRAPH, breakBefore: false };
		return this.range(start, end, SENTENCE, false, null);
	}

	/**
	 * text[a, b) to be cut at the cuts of `level` (see Range); pieces still over the limit are cut at
	 * the next level. `force` cuts even when the estimate says the piece fits (its exact count did
	 * not): with no cut at this level, the next level's are used.
	 */
	private range(a: number, b: number, level: number, force: boolean, firstBreak: boolean | null): Range {
		const cuts = this.cuts(level, a, b);
		let ahead = cuts.next();
		if (ahead.done && force && level < CODE_POINT) return this.range(a, b, level + 1, true, firstBreak);
		let done = false;
		const next = (): number | null => {
			if (!ahead.done) {
				const cut = ahead.value;
				ahead = cuts.next();
				return cut;
			}
			if (done) return null;
			done = true;
			return b;
		};
		return { range: true, level, next, from: a, firstBreak };
	}

	/** Cut positions of `level` strictly inside (a, b), leaving non-space text on both sides, in order. */
	private *cuts(level: number, a: number, b: number): Generator<number> {
		const text = this.text;
		const first = firstNonSpace(text, a, b);
		const last = lastNonSpace(text, a, b);
		const ok = (p: number): boolean => p > first && p <= last;
		switch (level) {
			case SENTENCE: {
				for (const span of eachSentenceSpan(text.slice(a, b))) if (ok(a + span.end)) yield a + span.end;
				break;
			}
			case CLAUSE:
			case WORD: {
				// Only before a space or tab: there the tokenizer's pre-split always breaks too.
				const re = level === CLAUSE ? /[,;:](?=[ \t])/gu : /\S(?=[ \t])/gu;
				const piece = text.slice(a, b);
				for (let m = re.exec(piece); m; m = re.exec(piece)) {
					const p = a + m.index + m[0].length;
					if (ok(p)) yield p;
				}
				break;
			}
			case TOKEN: {
				for (let k = this.tokensBefore(a); k < this.ends.length && this.ends[k]! < b; k++) {
					if (this.clean[k] && ok(this.ends[k]!)) yield this.ends[k]!;
				}
				break;
			}
			case CODE_POINT: {
				// The last resort may leave whitespace alone on one side (mergeBlankChunks tidies up).
				for (let p = a + 1; p < b; p++) {
					if (!(isLowSurrogate(text.charCodeAt(p)) && isHighSurrogate(text.charCodeAt(p - 1)))) yield p;
				}
				break;
			}
		}
	}

	/** Emits the current atoms as one chunk, giving back atoms whose exact count overflows. */
	private flush(): void {
		const text = this.text;
		const start = this.start;
		let end = this.current[this.current.length - 1]!.end;
		let tokens = this.approx(start, end);
		if (tokens > this.limit - VERIFY_MARGIN || !isSafeEdge(text, start) || !isSafeEdge(text, end)) {
			tokens = countTokens(text.slice(start, end), this.encoding);
			while (tokens > this.limit) {
				if (this.current.length === 1) {
					// One atom whose standalone count exceeds its estimate: cut it finer and retry.
					const atom = this.current.pop()!;
					this.pending.push(
						this.range(atom.start, atom.end, Math.min(atom.level + 1, CODE_POINT), true, atom.breakBefore),
					);
					return;
				}
				// Give back at least as many estimated tokens as the chunk is over.
				const target = this.approx(start, end) - (tokens - this.limit);
				do this.pending.push(this.current.pop()!);
				while (
					this.current.length > 1 &&
					this.approx(start, this.current[this.current.length - 1]!.end) > target
				);
				end = this.current[this.current.length - 1]!.end;
				tokens = countTokens(text.slice(start, end), this.encoding);
			}
		}
		this.chunks.push({ index: this.chunks.length, start, end, tokens });
		this.start = end;
		this.current = [];
	}
}

/**
 * True where the tokenizer's pre-split (the cl100k/o200k regex) always breaks, whatever follows:
 * between a non-space and a space or tab, and after a line break unless only blanks lead to the
 * next line break. A slice between two such offsets encodes alone exactly as it does inside the text,
 * because those regexes look back at nothing and ahead only at whitespace.
 */
function isSafeEdge(text: string, p: number): boolean {
	if (p === 0 || p === text.length) return true;
	const before = text.charCodeAt(p - 1);
	const after = text.charCodeAt(p);
	if (before === 10) {
		// A line break followed by blanks and another line break is one pre-split piece.
		for (let q = p; q < text.length; q++) {
			const c = text.charCodeAt(q);
			if (c === 10 || c === 13) return false;
			if (!isSpace(c)) return true;
		}
		return true;
	}
	return (after === 32 || after === 9) && !isSpace(before);
}

/**
 * For each token of `ids` (the encoding of `text`), the UTF-16 offset where it ends, and whether
 * it ends on a character boundary (a token may end inside a multi-byte character; its offset is
 * then rounded up to the end of that character, which keeps `ends` sorted).
 */
function tokenEnds(
	text: string,
	ids: Uint32Array,
	name: EncodingName,
): { ends: Int32Array; clean: Uint8Array } {
	const lengths = byteLengths(name);
	const enc = encoder(name);
	const ends = new Int32Array(ids.length);
	const clean = new Uint8Array(ids.length);
	let char = 0;
	let byte = 0; // UTF-8 offset of text[char]
	let tokenEnd = 0;
	for (let i = 0; i < ids.length; i++) {
		const id = ids[i]!;
		let length = id < lengths.length ? lengths[id]! : 0;
		if (length === 0) {
			length = enc.decode_single_token_bytes(id).length;
			if (id < lengths.length) lengths[id] = length;
		}
		tokenEnd += length;
		while (byte < tokenEnd) {
			const c = text.charCodeAt(char);
			if (c < 0x80) {
				byte += 1;
				char += 1;
			} else if (c < 0x800) {
				byte += 2;
				char += 1;
			} else if (isHighSurrogate(c) && isLowSurrogate(text.charCodeAt(char + 1))) {
				byte += 4;
				char += 2;
			} else {
				// Other BMP characters, and lone surrogates, which the encoder sees as U+FFFD.
				byte += 3;
				char += 1;
			}
		}
		ends[i] = char;
		clean[i] = byte === tokenEnd ? 1 : 0;
	}
	return { ends, clean };
}

// Byte length of each token id, per encoding, filled as ids are met (0 = not yet known).
const byteLengthTables = new Map<EncodingName, Uint8Array>();

function byteLengths(name: EncodingName): Uint8Array {
	let table = byteLengthTables.get(name);
	if (!table) {
		// Both encodings have fewer ids than this and no token longer than 255 bytes; ids outside
		// are measured every time (see tokenEnds).
		table = new Uint8Array(1 << 18);
		byteLengthTables.set(name, table);
	}
	return table;
}

/**
 * End offsets of the paragraphs: each non-blank line starts a paragraph, except the first, whose
 * paragraph also holds any blank lines before it. The last end is `text.length`.
 */
function paragraphEnds(text: string): number[] {
	const ends: number[] = [];
	const nonSpace = /\S/gu;
	let nextNonSpace = -1;
	let seenText = false;
	for (let lineStart = 0; lineStart < text.length;) {
		const newline = text.indexOf('\n', lineStart);
		const lineEnd = newline === -1 ? text.length : newline + 1;
		if (nextNonSpace < lineStart) {
			nonSpace.lastIndex = lineStart;
			nextNonSpace = nonSpace.exec(text)?.index ?? text.length;
		}
		if (nextNonSpace < lineEnd) {
			if (seenText) ends.push(lineStart);
			seenText = true;
		}
		lineStart = lineEnd;
	}
	ends.push(text.length);
	return ends;
}

/**
 * A chunk of whitespace only can appear only when a whitespace run is itself too long for the
 * limit; merge it into a neighbour when the merged chunk still fits.
 */
function mergeBlankChunks(text: string, chunks: Chunk[], limit: number, encoding: EncodingName): Chunk[] {
	const out: Chunk[] = [];
	for (let i = 0; i < chunks.length; i++) {
		const chunk = chunks[i]!;
		const blank = !/\S/u.test(text.slice(chunk.start, chunk.end));
		const prev = out[out.length - 1];
		if (blank && prev) {
			const tokens = countTokens(text.slice(prev.start, chunk.end), encoding);
			if (tokens <= limit) {
				out[out.length - 1] = { ...prev, end: chunk.end, tokens };
				continue;
			}
		}
		const next = chunks[i + 1];
		if (blank && next) {
			const tokens = countTokens(text.slice(chunk.start, next.end), encoding);
			if (tokens <= limit) {
				chunks[i + 1] = { ...next, start: chunk.start, tokens };
				continue;
			}
		}
		out.push(chunk);
	}
	return out.map((chunk, index) => (chunk.index === index ? chunk : { ...chunk, index }));
}

function firstNonSpace(text: string, a: number, b: number): number {
	for (let p = a; p < b; p++) if (!isSpace(text.charCodeAt(p))) return p;
	return b;
}

function lastNonSpace(text: string, a: number, b: number): number {
	for (let p = b - 1; p >= a; p--) if (!isSpace(text.charCodeAt(p))) return p;
	return a - 1;
}

function isSpace(c: number): boolean {
	return /\s/u.test(String.fromCharCode(c));
}

function isHighSurrogate(c: number): boolean {
	return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
	return c >= 0xdc00 && c <= 0xdfff;
}
