import { get_encoding, type Tiktoken, type TiktokenEncoding } from 'tiktoken';

/** The encodings a user may pick with `--encoding`. */
export const ENCODINGS = ['cl100k_base', 'o200k_base'] as const;
export type EncodingName = (typeof ENCODINGS)[number];
export const DEFAULT_ENCODING: EncodingName = 'cl100k_base';

// One shared encoder per encoding: building one costs tens of milliseconds and megabytes of WASM
// memory, so every module counts tokens through here and the encoders are freed once, on exit.
const encoders = new Map<EncodingName, Tiktoken>();
let freeHooked = false;

export function encoder(name: EncodingName = DEFAULT_ENCODING): Tiktoken {
	let enc = encoders.get(name);
	if (!enc) {
		enc = get_encoding(name as TiktokenEncoding);
		encoders.set(name, enc);
		if (!freeHooked) {
			freeHooked = true;
			process.once('exit', freeEncoders);
		}
	}
	return enc;
}

export function freeEncoders(): void {
	for (const enc of encoders.values()) enc.free();
	encoders.clear();
}

/**
 * Token ids of `text`. `encode_ordinary` treats special-token text such as `<|endoftext|>` as plain
 * text, which is what a book containing that string needs.
 */
export function encode(text: string, name: EncodingName = DEFAULT_ENCODING): Uint32Array {
	return encoder(name).encode_ordinary(text);
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
	return trimmed.length === 0 ? 0 : trimmed.split(/\s+/u).length;
}
