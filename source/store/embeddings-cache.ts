import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { Embedder } from '../llm/embeddings.ts';
import { readIfThere, replaceFile } from './state-file.ts';

/**
 * A book's passages embedded once per model and server, kept in the session's folder:
 * `embeddings/<model>@<server>.f32` (the server as a short hash of its address) holds the vectors
 * one after another (32-bit floats in this machine's byte order), `embeddings/<model>@<server>.json`
 * what they are of. One pair per server, so going back and forth between two servers of one model
 * embeds the book once on each. A later call reads them back if the index still names this book
 * (its hash), these passages (their ranges), this model and this server, and the vectors file is
 * the one it was written with (its hash); anything else embeds again.
 */

/** The folder of a session's embeddings. */
const EMBEDDINGS_DIR = 'embeddings';

const indexSchema = z.object({
	model: z.string(),
	server: z.string(),
	book: z.string(),
	/** `[start, end]` of each passage, in order. */
	passages: z.array(z.tuple([z.number(), z.number()])),
	dimensions: z.number().int().positive(),
	endianness: z.enum(['LE', 'BE']),
	/** sha256 of the vectors file: the two are written one after the other, and a crash between leaves them apart. */
	vectors: z.string(),
});

/** The passages' vectors, and what making them cost (nothing when read back). */
export interface PassageVectors {
	vectors: Float32Array[];
	/** Read from the session's folder: no request made. */
	cached: boolean;
	tokens: number;
	requests: number;
}

/**
 * The vectors of `passages` of `book` by `embedder`, from `sessionDir`'s cache when it holds them,
 * else embedded and then saved (each file replaced whole, the index last).
 */
export async function passageVectors(
	sessionDir: string,
	book: string,
	passages: readonly { start: number; end: number }[],
	embedder: Pick<Embedder, 'model' | 'server' | 'embed'>,
	signal?: AbortSignal,
): Promise<PassageVectors> {
	const dir = join(sessionDir, EMBEDDINGS_DIR);
	const name = `${fileName(embedder.model)}@${sha256(embedder.server).slice(0, 8)}`;
	const indexFile = join(dir, `${name}.json`);
	const vectorsFile = join(dir, `${name}.f32`);
	const wanted = {
		model: embedder.model,
		server: embedder.server,
		book: sha256(book),
		passages: passages.map((p): [number, number] => [p.start, p.end]),
	};
	const cached = await readCache(indexFile, vectorsFile, wanted);
	if (cached) return { vectors: cached, cached: true, tokens: 0, requests: 0 };
	const made = await embedder.embed(
		passages.map((p) => book.slice(p.start, p.end)),
		signal,
	);
	const dimensions = made.vectors[0]?.length ?? 0;
	if (dimensions > 0) {
		const bytes = new Uint8Array(made.vectors.length * dimensions * 4);
		const all = new Float32Array(bytes.buffer);
		made.vectors.forEach((v, k) => all.set(v, k * dimensions));
		await mkdir(dir, { recursive: true });
		await replaceFile(vectorsFile, bytes);
		const index = { ...wanted, dimensions, endianness: endianness(), vectors: sha256(bytes) };
		await replaceFile(indexFile, JSON.stringify(index));
	}
	return { vectors: made.vectors, cached: false, tokens: made.tokens, requests: made.requests };
}

/** The cached vectors when the index names exactly `wanted` and the vectors file matches it; else null. */
async function readCache(
	indexFile: string,
	vectorsFile: string,
	wanted: { model: string; server: string; book: string; passages: [number, number][] },
): Promise<Float32Array[] | null> {
	const text = await readIfThere(indexFile);
	if (text === null) return null;
	let parsed: z.infer<typeof indexSchema>;
	try {
		parsed = indexSchema.parse(JSON.parse(text));
	} catch {
		return null;
	}
	if (
		parsed.model !== wanted.model ||
		parsed.server !== wanted.server ||
		parsed.book !== wanted.book ||
		parsed.endianness !== endianness() ||
		JSON.stringify(parsed.passages) !== JSON.stringify(wanted.passages)
	)
		return null;
	const bytes = await readFile(vectorsFile).catch(() => null);
	if (
		!bytes ||
		bytes.length !== parsed.passages.length * parsed.dimensions * 4 ||
		sha256(bytes) !== parsed.vectors
	)
		return null;
	// A copy: a Buffer read from a file may start at an offset a Float32Array cannot view.
	const all = new Float32Array(new Uint8Array(bytes).buffer);
	return parsed.passages.map((_, k) => all.subarray(k * parsed.dimensions, (k + 1) * parsed.dimensions));
}

/**
 * A file name for a model's name: a compatible server's may hold `/` or `:` (`BAAI/bge-small`,
 * `nomic-embed-text:latest`), replaced, with a hash of the name so that two names never share a file.
 */
function fileName(model: string): string {
	const safe = model.replace(/[^\w.-]/gu, '_');
	return safe === model && !model.startsWith('.') ? model : `_${safe}-${sha256(model).slice(0, 8)}`;
}

function sha256(data: string | Uint8Array): string {
	return createHash('sha256').update(data).digest('hex');
}
