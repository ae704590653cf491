import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { serverIdentity } from '../llm/base-url.ts';
import type { Embedder } from '../llm/embeddings.ts';
import { readIfThere, replaceFile } from './state-file.ts';

/**
 * A book's passages embedded once per model and server, kept in the session's folder:
 * `embeddings/<model>@<server>.f32` (the server as a short hash of `serverIdentity`: its address,
 * without the port for a server on this machine) holds the vectors one after another (32-bit floats
 * in this machine's byte order), `embeddings/<model>@<server>.json` what they are of. One pair per
 * server, so going back and forth between two servers of one model embeds the book once on each,
 * and a local server restarted on another port reads back what it made. A later call reads them
 * back if the index still names this book (its hash), these passages (their ranges), this model and
 * this server, and the vectors file is the one it was written with (its hash); anything else embeds
 * again, and says why (`discarded`), since a whole book is many tokens.
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
	/** Why vectors kept in the session's folder were not used (then embedded again); null when none were kept or they were used. */
	discarded: string | null;
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
	const server = serverIdentity(embedder.server);
	const name = `${fileName(embedder.model)}@${sha256(server).slice(0, 8)}`;
	const indexFile = join(dir, `${name}.json`);
	const vectorsFile = join(dir, `${name}.f32`);
	const wanted = {
		model: embedder.model,
		server,
		book: sha256(book),
		passages: passages.map((p): [number, number] => [p.start, p.end]),
	};
	const cached = await readCache(indexFile, vectorsFile, wanted);
	if (Array.isArray(cached))
		return { vectors: cached, cached: true, tokens: 0, requests: 0, discarded: null };
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
	return {
		vectors: made.vectors,
		cached: false,
		tokens: made.tokens,
		requests: made.requests,
		discarded: cached === null ? null : `${join(EMBEDDINGS_DIR, `${name}.json`)} ${cached.discarded}`,
	};
}

/**
 * The cached vectors when the index names exactly `wanted` and the vectors file matches it; null
 * when nothing is kept; else why what is kept cannot be used.
 */
async function readCache(
	indexFile: string,
	vectorsFile: string,
	wanted: { model: string; server: string; book: string; passages: [number, number][] },
): Promise<Float32Array[] | { discarded: string } | null> {
	const text = await readIfThere(indexFile);
	if (text === null) return null;
	let parsed: z.infer<typeof indexSchema>;
	try {
		parsed = indexSchema.parse(JSON.parse(text));
	} catch {
		return { discarded: 'is unreadable (cut short or changed)' };
	}
	// The file is named by model and server: these differ only when two names share a hash.
	if (parsed.model !== wanted.model || parsed.server !== wanted.server)
		return { discarded: `holds ${parsed.model} on ${parsed.server}` };
	if (parsed.book !== wanted.book) return { discarded: 'is of another text of the book' };
	if (JSON.stringify(parsed.passages) !== JSON.stringify(wanted.passages))
		return { discarded: 'is of other passages of the book' };
	if (parsed.endianness !== endianness())
		return { discarded: 'was written on a machine of the other byte order' };
	const bytes = await readFile(vectorsFile).catch(() => null);
	if (!bytes) return { discarded: 'has lost its vectors file' };
	if (bytes.length !== parsed.passages.length * parsed.dimensions * 4 || sha256(bytes) !== parsed.vectors)
		return { discarded: 'does not match its vectors file (cut short or changed)' };
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
