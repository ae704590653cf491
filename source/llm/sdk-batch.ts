import { guardConsole } from './console-guard.ts';
import { isAbortError } from './abort.ts';
import type { BatchResults, ItemResult } from './batcher.ts';
import { ProviderError } from './provider.ts';
import { DEFAULT_SDK_RETRIES } from './sdk-client.ts';
import { toProviderError, type FailureContext } from './sdk-errors.ts';

/** What a vendor's batch API is made with: the key, model and server a run's provider would use. */
export interface BatchApiOptions {
	apiKey: string;
	model: string;
	baseURL?: string | null;
	maxRetries?: number;
	fetch?: typeof fetch;
	/** The longest line of a results file that is read (DEFAULT_MAX_LINE_BYTES); a longer one is skipped as unreadable. */
	maxLineBytes?: number;
}

/** The settings of a batch API's SDK client, as both SDKs take them. */
export interface BatchClientSettings {
	apiKey: string;
	baseURL: string;
	maxRetries: number;
	fetch?: typeof fetch;
	/** As for streamed calls: the SDK's logger would print what a server sends raw. */
	logLevel: 'off';
}

/**
 * A result line holds one answer: the longest a model gives (128k tokens, about 0.5 MB of text) fits
 * many times over, JSON-escaped and with its usage, while a line with no end (a broken or hostile
 * server) costs no more than this to skip.
 */
export const DEFAULT_MAX_LINE_BYTES = 8 * 2 ** 20;

/** A line of a results file as both vendors have it: the request's custom id, then the vendor's own fields. */
export type ResultLine = { custom_id: string } & Record<string, unknown>;

/**
 * What both vendors' batch APIs share: their SDK client, made as a run's provider makes its own,
 * and every SDK error turned into the one line a user can act on (a 401 names the key variable).
 */
export abstract class SdkBatchApi<Client> {
	readonly model: string;
	protected readonly client: Client;
	protected readonly failure: FailureContext;
	private readonly maxLineBytes: number;

	constructor(
		opts: BatchApiOptions,
		vendor: { label: string; keyVar: string; defaultBaseURL: string },
		makeClient: (settings: BatchClientSettings) => Client,
	) {
		this.model = opts.model;
		const baseURL = opts.baseURL || vendor.defaultBaseURL;
		const maxRetries = opts.maxRetries ?? DEFAULT_SDK_RETRIES;
		guardConsole();
		this.client = makeClient({
			apiKey: opts.apiKey,
			baseURL,
			maxRetries,
			...(opts.fetch ? { fetch: opts.fetch } : {}),
			logLevel: 'off',
		});
		this.failure = {
			label: vendor.label,
			keyVar: vendor.keyVar,
			model: opts.model,
			baseURL,
			apiKey: opts.apiKey,
			maxRetries,
			timeoutMs: 600_000,
		};
		this.maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
	}

	/** Runs one call of the API with a signal of its own (see `withOwnSignal`), its errors made ProviderErrors. */
	protected async sdk<T>(
		work: (signal: AbortSignal | undefined) => Promise<T>,
		signal?: AbortSignal,
	): Promise<T> {
		try {
			return await withOwnSignal(signal, work);
		} catch (error) {
			throw error instanceof ProviderError ? error : toProviderError(error, this.failure);
		}
	}

	/**
	 * Reads a results file (JSONL) into `into` a line at a time, so a file of any size takes no more
	 * memory than its longest line. A line too long, not JSON or with no custom id is counted as
	 * unreadable and skipped: the others' answers are kept, and its request (having none) goes out again.
	 */
	protected async readResults(
		body: ReadableStream<Uint8Array> | null,
		into: BatchResults,
		read: (line: ResultLine) => ItemResult,
	): Promise<void> {
		if (!body) return;
		for await (const line of jsonLines(body, this.maxLineBytes, this.failure.label)) {
			if (line !== null && line.trim() === '') continue;
			const parsed = line === null ? undefined : resultLine(line);
			const result = parsed && readable(() => read(parsed));
			if (parsed && result) into.add(parsed.custom_id, result);
			else into.unreadable += 1;
		}
	}
}

/**
 * Runs `work` with a signal of its own, aborted when `signal` aborts, and stops listening to `signal`
 * once `work` has ended. The SDKs leave a listener on the signal a call is given (OpenAI's until the
 * signal is collected), so one signal that lasts a whole study would gather one per poll.
 */
export async function withOwnSignal<T>(
	signal: AbortSignal | undefined,
	work: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
	if (!signal) return work(undefined);
	const own = new AbortController();
	const abort = () => own.abort(signal.reason);
	if (signal.aborted) abort();
	else signal.addEventListener('abort', abort, { once: true });
	try {
		return await work(own.signal);
	} finally {
		signal.removeEventListener('abort', abort);
	}
}

/**
 * The lines of a body, decoded as UTF-8 as they arrive; null for a line longer than `most` bytes,
 * which is dropped as it comes rather than held. A body cut off while read rejects with a ProviderError
 * that may be retried (the batch's results are read again at the next poll).
 */
export async function* jsonLines(
	body: ReadableStream<Uint8Array>,
	most: number,
	label: string,
): AsyncGenerator<string | null> {
	const reader = body.getReader();
	const lines = new LineSplitter(most);
	let done = false;
	try {
		for (;;) {
			const chunk = await readChunk(reader, label);
			if (chunk === null) break;
			yield* lines.push(chunk);
		}
		done = true;
		const last = lines.end();
		if (last !== undefined) yield last;
	} finally {
		// Left early (an abort, a consumer that threw): the rest of the body is not wanted.
		if (!done) await reader.cancel().catch(() => {});
	}
}

async function readChunk(
	reader: ReadableStreamDefaultReader<Uint8Array>,
	label: string,
): Promise<Uint8Array | null> {
	try {
		const { done, value } = await reader.read();
		return done ? null : value;
	} catch (error) {
		if (isAbortError(error)) throw error;
		throw new ProviderError(
			`${label}: the download of a batch's results broke off (${error instanceof Error ? error.message : String(error)}); it is read again at the next poll`,
			true,
		);
	}
}

/** Splits bytes into lines at '\n' (never inside a UTF-8 character), holding at most `most` bytes of a line. */
export class LineSplitter {
	private pieces: Buffer[] = [];
	private size = 0;
	private tooLong = false;

	constructor(private readonly most: number) {}

	/** The lines `chunk` ends: text, or null for one longer than `most`. */
	push(chunk: Uint8Array): (string | null)[] {
		const lines: (string | null)[] = [];
		let start = 0;
		for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
			this.keep(chunk.subarray(start, end), false);
			lines.push(this.take());
			start = end + 1;
		}
		// A line that goes on past this chunk is copied: whoever made the chunk may reuse it.
		if (start < chunk.length) this.keep(chunk.subarray(start), true);
		return lines;
	}

	/** The last line, when the body did not end with '\n'. */
	end(): string | null | undefined {
		return this.size > 0 || this.tooLong ? this.take() : undefined;
	}

	private keep(piece: Uint8Array, copy: boolean): void {
		if (this.tooLong) return;
		this.size += piece.length;
		if (this.size > this.most) {
			// Dropped now, not held until the line ends: a line with no end costs no more than `most`.
			this.tooLong = true;
			this.pieces = [];
		} else if (piece.length > 0)
			this.pieces.push(copy ? Buffer.from(piece) : Buffer.from(piece.buffer, piece.byteOffset, piece.length));
	}

	private take(): string | null {
		const line = this.tooLong ? null : Buffer.concat(this.pieces, this.size).toString('utf8');
		this.pieces = [];
		this.size = 0;
		this.tooLong = false;
		return line;
	}
}

/** The line as JSON with a custom id; undefined when it is not. */
function resultLine(line: string): ResultLine | undefined {
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return undefined;
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
	const { custom_id: id } = value as Record<string, unknown>;
	return typeof id === 'string' && id !== '' ? (value as ResultLine) : undefined;
}

/** A vendor's reading of a line, or undefined when the line lacks what it reads (a field of the wrong shape). */
function readable(read: () => ItemResult): ItemResult | undefined {
	try {
		return read();
	} catch {
		return undefined;
	}
}
