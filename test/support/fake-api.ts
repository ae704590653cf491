/**
 * A local stand-in for the OpenAI and Anthropic streaming APIs, close enough to the wire formats
 * that the real SDKs talk to it unchanged. Tests (and benchmarks, as a separate process) use it to
 * exercise streaming, retries, truncation and broken connections without a network or a key.
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { LABELS } from '../../source/score/labels.ts';
import { contentStems } from '../../source/text/stems.ts';
import { countTokens, encode, truncateToTokens } from '../../source/text/tokens.ts';
import {
	type Answer,
	contextAnswer,
	type FakeLimits,
	Limiter,
	limitHeaders,
	quotaAnswer,
	rateLimitAnswer,
	requestCost,
	unknownModelAnswer,
} from './fake-limits.ts';
import { faithfulnessReply } from './faithfulness-reply.ts';
import { memoryReply } from './memory-reply.ts';
import { bookishReply } from './summary-reply.ts';

export type { FakeLimits } from './fake-limits.ts';

export type Api = 'openai' | 'anthropic';

/** One injected failure, consumed by the next request (of either API). */
export type Fault =
	/** An error response; `retryAfter` (seconds) is sent as retry-after-ms and retry-after; `message` replaces the server's text. */
	| { kind: 'status'; status: number; retryAfter?: number; message?: string }
	/** A web page with status 200, as a website answers when the base URL points at it. */
	| { kind: 'page' }
	/** Half the deltas, then no finish/stop reason: the connection is closed mid-body, or with `clean` the response just ends. */
	| { kind: 'cut'; clean?: boolean }
	/** Half the deltas, then silence for `ms`, then the rest. */
	| { kind: 'stall'; ms: number }
	/**
	 * After the start, until the client goes, every `everyMs` (default 10): a keep-alive (an SSE
	 * comment for OpenAI, a ping event for Anthropic), an empty delta, or text that ignores max_tokens.
	 */
	| { kind: 'forever'; send: 'keepalive' | 'empty' | 'text'; everyMs?: number };

/** A content block of a message or of Anthropic's system prompt. */
export interface WireBlock {
	type?: string;
	text?: string;
	cache_control?: { type: string };
}

/**
 * A message request's body as a client sent it, with the fields of either API the fake reads; a
 * client may send them malformed, which the fake checks where it matters.
 */
export interface WireBody {
	model?: string;
	messages?: { role: string; content: string | WireBlock[] }[];
	system?: string | WireBlock[];
	max_tokens?: number;
	max_completion_tokens?: number;
	temperature?: number;
	reasoning_effort?: string;
	stream?: boolean;
	stream_options?: { include_usage?: boolean };
	[field: string]: unknown;
}

/** A line of a batch's results: OpenAI's carries a response, Anthropic's a result. */
interface ResultLine {
	response?: { status_code: number };
	result?: { type: string };
}

export interface RecordedRequest {
	api: Api;
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	/** Parsed JSON body (null when it did not parse). */
	body: WireBody | null;
	/** The request's text as the model would read it: message contents (and system) joined. */
	prompt: string;
	/** The fault this request consumed, if any. */
	fault: Fault | null;
	/**
	 * When it arrived and when its response began (null: it has not, or it was an error), as places in
	 * one sequence of the server's arrivals and response starts: comparable, not times.
	 */
	arrived: number;
	started: number | null;
	/** When it arrived (epoch ms), for a test that times a client from its first request. */
	receivedAt: number;
	/** Settles when the exchange is over: the response sent in full or cut, or the client gone. */
	ended: Promise<void>;
	/** The status of the response, once it began. */
	readonly status?: number;
}

/**
 * A request of a batch that is not answered: an error result, one that passes (the model timed out
 * or was overloaded), or left undone when the batch expires (or is cancelled).
 */
export type BatchFault = 'errored' | 'transient' | 'expired' | 'cancelled';

export interface FakeBatch {
	api: Api;
	id: string;
	/** The requests, as submitted: custom id and the body of the call. */
	items: { customId: string; body: WireBody }[];
	/** Times it was polled. */
	polls: number;
	/** Set once it ended: per custom id, the line of its result. */
	results: Map<string, unknown> | null;
	/** Cancelled by the client (POST …/cancel). */
	cancelled?: boolean;
	/** Failed as a whole at validation (OpenAI), with this error: no request was run. */
	refused?: { code: string; message: string };
}

export interface RespondInput {
	prompt: string;
	body: WireBody;
	api: Api;
	/** The provider batch whose request this answers; absent for a call made directly. */
	batch?: string;
}

export interface FakeApiOptions {
	respond?: (req: RespondInput) => string | Promise<string>;
	/** Before the first byte of every response. */
	latencyMs?: number;
	/** Between deltas. */
	chunkDelayMs?: number;
	/** 0 (the default) picks a free port. */
	port?: number;
	/**
	 * Anthropic's prompt cache as the real API documents it: a request looks its prefix up as it
	 * arrives, and the entry it writes becomes readable only once its response begins, so requests
	 * sent together all write it. Off (the default): an entry is readable from the moment the first
	 * request for it has its answer ready, so requests sent together mostly read it.
	 */
	cacheOnResponse?: boolean;
	/**
	 * Also answer requests without `stream: true`, with one JSON body as the real APIs do (LangChain's
	 * ChatOpenAI does not stream by default). Off by default: booook must always stream.
	 */
	plain?: boolean;
	/** Rate limits per API key and model, as token buckets; none by default. */
	limits?: FakeLimits;
}

export interface FakeApi {
	/** http://127.0.0.1:port */
	url: string;
	/** What the OpenAI SDK wants as baseURL (`${url}/v1`). */
	openaiBaseUrl: string;
	/** What the Anthropic SDK wants as baseURL (`${url}`). */
	anthropicBaseUrl: string;
	requests: RecordedRequest[];
	/** Settable while running. */
	respond: (req: RespondInput) => string | Promise<string>;
	latencyMs: number;
	chunkDelayMs: number;
	/** Tokens of the prompts answered and of the answers sent (before any fault cut them), also served as GET /stats. */
	totals: { input: number; output: number };
	/** Every batch submitted (OpenAI Batch, Anthropic Message Batches), in order. */
	batches: FakeBatch[];
	/** Polls (GET of a batch) a batch answers with in progress before it ends; settable. */
	batchPolls: number;
	/** Downloads of batch results so far (an OpenAI output or error file, an Anthropic results stream). */
	batchResultReads: number;
	/** While true, no batch ends, however often it is polled (a test kills a client meanwhile). */
	holdBatches: boolean;
	/** What a batch does with one request instead of answering it; null (the default): answers it. */
	batchFault: ((customId: string, input: RespondInput) => BatchFault | null) | null;
	/**
	 * Errors the next OpenAI batches fail validation with, one each, as a full queue of an account
	 * does (`token_limit_exceeded`): such a batch fails as a whole at its first poll, with no files.
	 */
	refuseBatches: { code: string; message: string }[];
	/**
	 * Rewrites the lines (JSON, no newline) of a batch's results as they are downloaded: an OpenAI
	 * output or error file, or Anthropic's results; a test adds a malformed, extra or repeated line.
	 */
	editBatchResults: ((lines: string[], batch: FakeBatch) => string[]) | null;
	/** Settable while running: each bucket takes the new size at once, its level kept within it. */
	limits: FakeLimits | null;
	/** Tokens (in and out) the account may still spend; at 0 or below every request is refused. null: no limit. */
	quota: number | null;
	/**
	 * Settable while running: streamed answers go on past max_tokens, as from some compatible
	 * servers that ignore it (each is its reply repeated past twice the limit and 100 tokens more,
	 * beyond the output cap of a client).
	 */
	ignoreMaxTokens: boolean;
	/** The models that exist; null: any. */
	models: string[] | null;
	/** The most prompt tokens a request may have; null: any. */
	contextWindow: number | null;
	/** 429s sent for rate limits (not for quota, not injected faults; `refusing`'s among them). */
	rateLimited: number;
	/**
	 * Settable while running: every message request is refused with a 429 of its API's rate-limit
	 * error and these headers (say an absurd `retry-after`: "0", "-30", a date in 2099); null: none is.
	 */
	refusing: Record<string, string> | null;
	fail(fault: Fault): void;
	close(): Promise<void>;
}

/** A reply derived from the prompt alone: same prompt, same text; two sentences ending in a period. */
export function defaultReply(prompt: string): string {
	const hash = createHash('sha256').update(prompt).digest('hex').slice(0, 8);
	const words = prompt.match(/[\p{L}\p{N}]+/gu) ?? [];
	const picked = [...new Set(words.filter((w) => w.length > 3).map((w) => w.toLowerCase()))].slice(-3);
	const about = picked.length > 0 ? picked.join(', ') : 'nothing in particular';
	return `This is reply ${hash} to a prompt of ${words.length} words. It mentions ${about}.`;
}

/** What the fake annotator says of a sentence: null for clear, else its questions and types. */
export type FakeVerdict = { questions: string; types: string[] } | null;

/**
 * A fixed verdict per sentence text, so a test can compute the score it expects from the same
 * sentences: about one sentence in three is confusing, with one or two types.
 */
export function hashVerdict(sentence: string): FakeVerdict {
	const digest = createHash('sha256').update(sentence).digest();
	if (digest[0]! % 3 !== 0) return null;
	const types = [LABELS[digest[1]! % LABELS.length]!];
	if (digest[2]! % 2 === 0) types.push(LABELS[(digest[1]! + 3) % LABELS.length]!);
	return { questions: `What does "${sentence.slice(0, 20)}" refer to?`, types };
}

/**
 * The sentences a BooookScore prompt asks about (the shipped templates' layout): one for
 * get_annotations, the numbered list for get_annotations_v2; null for any other prompt.
 */
export function annotationQuestion(prompt: string): { batch: boolean; sentences: string[] } | null {
	const between = (open: string, close: string): string | null => {
		const at = prompt.lastIndexOf(open);
		if (at < 0) return null;
		const end = prompt.indexOf(close, at + open.length);
		return end < 0 ? null : prompt.slice(at + open.length, end);
	};
	const batch = between('[Your sentences]\n', '\n\n\n[Your responses]');
	if (batch !== null)
		return { batch: true, sentences: batch.split('\n').map((line) => line.replace(/^\d+\. /u, '')) };
	const one = between('[Your sentence]\n\n', '\n\n\n[Your response]');
	return one === null ? null : { batch: false, sentences: [one] };
}

/** A well-formed answer to an annotation prompt (v1 text or v2 JSON list), or null for other prompts. */
export function annotationReply(
	prompt: string,
	verdict: (sentence: string) => FakeVerdict = hashVerdict,
): string | null {
	const asked = annotationQuestion(prompt);
	if (!asked) return null;
	if (!asked.batch) {
		const v = verdict(asked.sentences[0]!);
		return v
			? `Questions: ${v.questions}\nTypes: ${v.types.join(', ')}`
			: 'Questions: no confusion\nTypes: no confusion';
	}
	const items = asked.sentences.map((sentence, i) => {
		const v = verdict(sentence);
		return {
			sentence_num: i + 1,
			sentence,
			questions: v ? v.questions : null,
			types: v ? v.types.join(', ') : null,
		};
	});
	return JSON.stringify(items, null, 4);
}

/** Annotation prompts get annotation answers (`hashVerdict`); anything else the default reply. */
export function annotatingReply(input: RespondInput): string {
	return annotationReply(input.prompt) ?? defaultReply(input.prompt);
}

export async function startFakeApi(opts: FakeApiOptions = {}): Promise<FakeApi> {
	const faults: Fault[] = [];
	const requests: RecordedRequest[] = [];
	// Prompt-cache simulation: Anthropic caches marked blocks by content, OpenAI caches prefixes.
	const anthropicCache = new Set<string>();
	const recentPrompts: Uint32Array[] = [];
	const closing = new AbortController();
	let clock = 0;
	const files = new Map<string, string>();
	let fileCount = 0;
	let batchCount = 0;
	// Every response waiting out its latency listens here: a benchmark has more than ten at once.
	setMaxListeners(0, closing.signal);
	const limiter = new Limiter(opts.limits ?? null);

	const api: FakeApi = {
		url: '',
		openaiBaseUrl: '',
		anthropicBaseUrl: '',
		requests,
		respond: opts.respond ?? (({ prompt }) => defaultReply(prompt)),
		latencyMs: opts.latencyMs ?? 0,
		chunkDelayMs: opts.chunkDelayMs ?? 0,
		totals: { input: 0, output: 0 },
		batches: [],
		batchPolls: 2,
		batchResultReads: 0,
		holdBatches: false,
		batchFault: null,
		refuseBatches: [],
		editBatchResults: null,
		get limits() {
			return limiter.limits;
		},
		set limits(limits) {
			limiter.limits = limits;
		},
		quota: null,
		ignoreMaxTokens: false,
		models: null,
		contextWindow: null,
		rateLimited: 0,
		refusing: null,
		fail(fault) {
			faults.push(fault);
		},
		async close() {
			closing.abort();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};

	const sleep = async (ms: number) => {
		if (ms > 0) await delay(ms, undefined, { signal: closing.signal }).catch(() => {});
	};

	const server = createServer((req, res) => {
		handle(req, res).catch((error) => {
			if (!res.headersSent) json(res, 500, { error: { message: String(error) } });
			else res.destroy();
		});
	});

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		res.on('error', () => {});
		const ended = new Promise<void>((resolve) => res.once('close', () => resolve()));
		const path = (req.url ?? '/').split('?')[0] ?? '/';
		const which: Api | null =
			path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : null;
		const raw = await readBody(req);
		if (isBatchRoute(path)) {
			await batchRoute(req, res, path, raw);
			return;
		}
		if (req.method === 'GET' && path === '/stats') {
			// A benchmark's count of the calls each side made, read before and after it runs.
			// rateLimited only once limits are in play, so the counts of a run without them read as before;
			// charged (what the requests let in cost each bucket, over every key) only while limits are set.
			const limited = limiter.limits !== null || api.rateLimited > 0 ? { rateLimited: api.rateLimited } : {};
			const charged = limiter.limits !== null ? { charged: limiter.charged } : {};
			json(res, 200, { requests: requests.length, ...api.totals, ...limited, ...charged });
			return;
		}
		if (req.method === 'POST' && path === '/v1/embeddings') {
			const body = parseJson(raw);
			const recorded: RecordedRequest = {
				api: 'openai',
				method: req.method,
				path,
				headers: req.headers,
				body,
				prompt: Array.isArray(body?.input) ? body.input.join('\n') : String(body?.input ?? ''),
				fault: null,
				arrived: ++clock,
				started: null,
				receivedAt: Date.now(),
				ended,
			};
			requests.push(recorded);
			const answer = embeddingsAnswer(body);
			if (answer.status === 200) recorded.started = ++clock;
			json(res, answer.status, answer.body, answer.headers);
			return;
		}
		if (!which || req.method !== 'POST') {
			json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
			return;
		}
		let body: WireBody | null = null;
		try {
			body = JSON.parse(raw.toString('utf8')) as WireBody;
		} catch {
			// recorded as null, answered below
		}
		const prompt = body ? promptOf(which, body) : '';
		const recorded: RecordedRequest = {
			api: which,
			method: req.method,
			path,
			headers: req.headers,
			body,
			prompt,
			fault: null,
			arrived: ++clock,
			started: null,
			receivedAt: Date.now(),
			ended,
		};
		Object.defineProperty(recorded, 'status', {
			enumerable: true,
			get: () => (res.headersSent ? res.statusCode : undefined),
		});
		requests.push(recorded);
		const cacheable = which === 'anthropic' && body ? cachedPrefix(body) : null;
		const hitOnArrival = cacheable !== null && anthropicCache.has(cacheable.prefix);
		// Encoded once, and only when needed: a BooookScore prompt is thousands of tokens, and encoding is most of this server's own time.
		let encoded: Uint32Array | undefined;
		const tokensOf = () => (encoded ??= encode(prompt));
		// Refused at the door, at once: a provider's limits are checked before any latency of a model.
		if (api.refusing) {
			api.rateLimited += 1;
			sendError(res, which, 429, ERROR_TYPES[429]!, 'Rate limit reached: try again later.', api.refusing);
			return;
		}
		const gate = body
			? admit(which, res, bearer(req.headers), body, tokensOf, hitOnArrival ? cacheable.tokens : 0)
			: null;
		if (gate?.refused) {
			json(res, gate.refused.status, gate.refused.body, gate.refused.headers);
			return;
		}
		// Only a request let in consumes a fault: one refused never reached the model.
		const fault = faults.shift() ?? null;
		recorded.fault = fault;
		const sent = { text: '', chars: 0 };
		if (gate?.settle) res.once('close', () => gate.settle!(countTokens(sent.text.slice(0, sent.chars))));

		await sleep(api.latencyMs);
		if (fault?.kind === 'status') {
			sendStatus(res, which, fault, bearer(req.headers));
			return;
		}
		if (fault?.kind === 'page') {
			const page =
				'<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body><h1>Welcome to our website</h1></body></html>\n';
			res.writeHead(200, {
				'content-type': 'text/html; charset=utf-8',
				'content-length': Buffer.byteLength(page),
			});
			res.end(page);
			return;
		}
		// As OpenAI's reasoning models do: any temperature but their default is refused.
		if (
			which === 'openai' &&
			body &&
			/^(o\d|gpt-5(-mini|-nano)?$)/u.test(String(body.model)) &&
			body.temperature !== undefined &&
			body.temperature !== 1
		) {
			const message = `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`;
			json(res, 400, {
				error: { message, type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' },
			});
			return;
		}
		const streamed = body?.stream === true;
		if (!body || (!streamed && !opts.plain)) {
			sendError(res, which, 400, 'invalid_request_error', 'this fake API only streams: set stream to true');
			return;
		}
		const maxTokens: unknown =
			which === 'openai' ? (body.max_completion_tokens ?? body.max_tokens) : body.max_tokens;
		let text = await api.respond({ prompt, body, api: which });
		let truncated = false;
		if (api.ignoreMaxTokens && streamed && typeof maxTokens === 'number') {
			const reply = text || 'and so on';
			while (countTokens(text) <= 2 * maxTokens + 100) text += ` ${reply}`;
		} else if (typeof maxTokens === 'number' && countTokens(text) > maxTokens) {
			text = truncateToTokens(text, maxTokens);
			truncated = true;
		}
		sent.text = text;
		const promptTokens = tokensOf();
		const usage = {
			input: promptTokens.length,
			output: countTokens(text),
			...(which === 'anthropic'
				? anthropicCacheUsage(cacheable, hitOnArrival)
				: { cached: openaiCachedTokens(promptTokens), written: 0 }),
		};
		spend(usage);
		if (!streamed) {
			sent.chars = text.length;
			await sendPlain(
				res,
				which === 'openai'
					? openaiMessage(body, text, usage, truncated)
					: anthropicMessage(body, text, usage, truncated),
				fault,
			);
			return;
		}
		const pieces = text.match(/\S+\s*|\s+/gu) ?? [];
		const wire =
			which === 'openai' ? openaiWire(body, usage, truncated) : anthropicWire(body, usage, truncated);

		let gone = false;
		res.on('close', () => {
			gone = true;
		});
		res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
		let flushed: Promise<unknown> = Promise.resolve();
		const write = (chunk: string) => {
			if (!res.destroyed && !res.writableEnded) flushed = new Promise((resolve) => res.write(chunk, resolve));
		};
		// A cut must happen after the client has the first half, not race it: flush, then close the
		// connection without the final chunk (abrupt) or end the response early (clean).
		const cut = async (clean: boolean | undefined) => {
			await flushed;
			if (clean) res.end();
			else res.socket?.end();
		};
		write(wire.start());
		recorded.started = ++clock;
		if (opts.cacheOnResponse && cacheable) anthropicCache.add(cacheable.prefix);
		if (fault?.kind === 'forever') {
			const piece =
				fault.send === 'keepalive'
					? wire.keepalive()
					: wire.delta(fault.send === 'empty' ? '' : 'and the story went on and on, ');
			while (!gone && !closing.signal.aborted) {
				write(piece);
				await sleep(fault.everyMs ?? 10);
			}
			return;
		}
		const breakAt = fault ? Math.max(1, Math.floor(pieces.length / 2)) : -1;
		for (let i = 0; i < pieces.length; i++) {
			if (res.destroyed || closing.signal.aborted) return;
			if (i === breakAt && fault?.kind === 'cut') {
				await cut(fault.clean);
				return;
			}
			if (i === breakAt && fault?.kind === 'stall') await sleep(fault.ms);
			else if (i > 0 && api.chunkDelayMs > 0) await sleep(api.chunkDelayMs);
			write(wire.delta(pieces[i] ?? ''));
			sent.chars += pieces[i]?.length ?? 0;
		}
		if (fault?.kind === 'cut') {
			// Fewer than two pieces: there was no middle to cut at, so cut before the end.
			await cut(fault.clean);
			return;
		}
		write(wire.end());
		res.end();
	}

	/**
	 * What a provider checks as a request arrives, before a model sees it: the model, the context
	 * window, the quota, then the rate limits, debited here. Sets the rate-limit headers of the
	 * response; returns the refusal, or how to give back the output tokens held but not written.
	 */
	function admit(
		which: Api,
		res: ServerResponse,
		key: string,
		body: WireBody,
		tokensOf: () => Uint32Array,
		cacheRead: number,
	): { refused: Answer | null; settle?: (written: number) => void } {
		const model = String(body.model);
		if (api.models && !api.models.includes(model)) return { refused: unknownModelAnswer(which, model) };
		if (api.contextWindow !== null && tokensOf().length > api.contextWindow)
			return { refused: contextAnswer(which, tokensOf().length, api.contextWindow) };
		const broke = api.quota !== null && api.quota <= 0;
		if (limiter.limits === null) return { refused: broke ? quotaAnswer(which) : null };
		const bucket = `${key}\0${model}`;
		const cost = requestCost(which, body, tokensOf().length, cacheRead);
		const refusal = broke ? null : limiter.admit(bucket, cost);
		const refused = broke
			? quotaAnswer(which)
			: refusal
				? rateLimitAnswer(which, model, refusal, limiter.headers)
				: null;
		if (refused?.status === 429 && refusal) api.rateLimited += 1;
		if (limiter.headers)
			for (const [name, value] of Object.entries(limitHeaders(which, limiter.state(bucket))))
				res.setHeader(name, value);
		const held = cost.otpm;
		if (refused || held === undefined) return { refused };
		return { refused, settle: (written) => limiter.refund(bucket, 'otpm', held - written) };
	}

	function spend(usage: { input: number; output: number }): void {
		api.totals.input += usage.input;
		api.totals.output += usage.output;
		if (api.quota !== null) api.quota -= usage.input + usage.output;
	}

	async function sendPlain(res: ServerResponse, message: unknown, fault: Fault | null): Promise<void> {
		const payload = JSON.stringify(message);
		if (fault?.kind === 'forever') {
			// Headers, then nothing until the client gives up.
			res.writeHead(200, { 'content-type': 'application/json' });
			res.flushHeaders();
			while (!res.destroyed && !closing.signal.aborted) await sleep(fault.everyMs ?? 10);
			return;
		}
		if (fault?.kind === 'stall') await sleep(fault.ms);
		res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
		if (fault?.kind === 'cut') {
			// Half the body, then the connection closes: the client sees a body shorter than announced.
			res.write(payload.slice(0, Math.floor(payload.length / 2)), () => res.socket?.end());
			return;
		}
		res.end(payload);
	}

	/**
	 * The batch endpoints, as the SDKs call them: OpenAI's Files (multipart upload, JSONL content)
	 * and Batches, Anthropic's Message Batches with their results as JSONL at `results_url`. A batch
	 * is in progress for `batchPolls` polls, then ends with every request answered as a call would be.
	 */
	async function batchRoute(
		req: IncomingMessage,
		res: ServerResponse,
		path: string,
		raw: Buffer,
	): Promise<void> {
		const method = req.method ?? 'GET';
		const parts = path.split('/').filter(Boolean);
		if (method === 'POST' && path === '/v1/files') {
			const form = await new Response(new Uint8Array(raw), {
				headers: { 'content-type': String(req.headers['content-type'] ?? '') },
			}).formData();
			const file = form.get('file');
			if (form.get('purpose') !== 'batch' || !(file instanceof Blob)) {
				sendError(res, 'openai', 400, 'invalid_request_error', 'expected a file with purpose "batch"');
				return;
			}
			const id = `file-${++fileCount}`;
			const text = await file.text();
			files.set(id, text);
			json(res, 200, {
				id,
				object: 'file',
				bytes: Buffer.byteLength(text),
				created_at: now(),
				filename: (file as File).name ?? 'batch.jsonl',
				purpose: 'batch',
				status: 'processed',
			});
			return;
		}
		if (method === 'GET' && parts[1] === 'files' && parts[3] === 'content' && parts.length === 4) {
			const file = parts[2]!;
			const batch = api.batches.find((b) => file === `file-out-${b.id}` || file === `file-err-${b.id}`);
			const text = batch ? edited(files.get(file), batch) : files.get(file);
			if (text === undefined) sendError(res, 'openai', 404, 'invalid_request_error', `no file ${file}`);
			else {
				api.batchResultReads += 1;
				res.writeHead(200, {
					'content-type': 'application/octet-stream',
					'content-length': Buffer.byteLength(text),
				});
				res.end(text);
			}
			return;
		}
		if (method === 'POST' && path === '/v1/batches') {
			const body = parseJson(raw);
			const input = files.get(String(body?.input_file_id));
			if (
				input === undefined ||
				body?.endpoint !== '/v1/chat/completions' ||
				body?.completion_window !== '24h'
			) {
				sendError(
					res,
					'openai',
					400,
					'invalid_request_error',
					'expected input_file_id of an uploaded file, endpoint /v1/chat/completions and completion_window 24h',
				);
				return;
			}
			const lines = input
				.split('\n')
				.filter((l) => l.trim() !== '')
				.map((l) => JSON.parse(l) as { custom_id: string; method: string; url: string; body: WireBody });
			const batch = newBatch(
				'openai',
				`batch_${++batchCount}`,
				lines.map((l) => ({ customId: l.custom_id, body: l.body })),
			);
			(batch as FakeBatch & { inputFile: string }).inputFile = String(body.input_file_id);
			const refused = api.refuseBatches.shift();
			if (refused) batch.refused = refused;
			json(res, 200, openaiBatch(batch));
			return;
		}
		if (parts[0] === 'v1' && parts[1] === 'batches' && parts.length >= 3) {
			const batch = api.batches.find((b) => b.api === 'openai' && b.id === parts[2]);
			if (!batch) return sendError(res, 'openai', 404, 'invalid_request_error', `no batch ${parts[2]}`);
			if (method === 'GET' && parts.length === 3) await poll(batch);
			if (method === 'POST' && parts[3] === 'cancel') cancel(batch);
			json(res, 200, openaiBatch(batch));
			return;
		}
		if (method === 'POST' && path === '/v1/messages/batches') {
			const body = parseJson(raw);
			if (!Array.isArray(body?.requests) || body.requests.length === 0) {
				sendError(res, 'anthropic', 400, 'invalid_request_error', 'requests: expected a non-empty list');
				return;
			}
			// As the API checks them: each custom_id of 1 to 64 letters, digits, '_' and '-', unique in the batch.
			const seen = new Set<unknown>();
			const bad = body.requests.findIndex(
				({ custom_id: id }: { custom_id: unknown }) =>
					typeof id !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/u.test(id) || seen.size === seen.add(id).size,
			);
			if (bad >= 0) {
				sendError(
					res,
					'anthropic',
					400,
					'invalid_request_error',
					`requests.${bad}.custom_id: must match ^[a-zA-Z0-9_-]{1,64}$ and be unique in the batch`,
				);
				return;
			}
			const batch = newBatch(
				'anthropic',
				`msgbatch_${++batchCount}`,
				body.requests.map((r: { custom_id: string; params: WireBody }) => ({
					customId: r.custom_id,
					body: r.params,
				})),
			);
			json(res, 200, anthropicBatch(batch));
			return;
		}
		if (parts[1] === 'messages' && parts[2] === 'batches' && parts.length >= 4) {
			const batch = api.batches.find((b) => b.api === 'anthropic' && b.id === parts[3]);
			if (!batch) return sendError(res, 'anthropic', 404, 'not_found_error', `no batch ${parts[3]}`);
			if (method === 'GET' && parts.length === 4) {
				await poll(batch);
				json(res, 200, anthropicBatch(batch));
			} else if (method === 'POST' && parts[4] === 'cancel') {
				cancel(batch);
				json(res, 200, anthropicBatch(batch));
			} else if (method === 'GET' && parts[4] === 'results' && batch.results) {
				api.batchResultReads += 1;
				const text = edited(
					[...batch.results.values()].map((line) => `${JSON.stringify(line)}\n`).join(''),
					batch,
				)!;
				res.writeHead(200, {
					'content-type': 'application/binary',
					'content-length': Buffer.byteLength(text),
				});
				res.end(text);
			} else sendError(res, 'anthropic', 404, 'not_found_error', `no route ${method} ${path}`);
			return;
		}
		sendError(
			res,
			path.startsWith('/v1/messages') ? 'anthropic' : 'openai',
			404,
			'not_found_error',
			`no route ${method} ${path}`,
		);
	}

	/** A batch's results as `editBatchResults` has them. */
	function edited(text: string | undefined, batch: FakeBatch): string | undefined {
		if (text === undefined || !api.editBatchResults) return text;
		return api
			.editBatchResults(
				text.split('\n').filter((l) => l !== ''),
				batch,
			)
			.map((l) => `${l}\n`)
			.join('');
	}

	function newBatch(which: Api, id: string, items: FakeBatch['items']): FakeBatch {
		const batch: FakeBatch = { api: which, id, items, polls: 0, results: null };
		api.batches.push(batch);
		return batch;
	}

	/** Cancelling ends a batch at once: every request not answered is cancelled. */
	function cancel(batch: FakeBatch): void {
		if (batch.results) return;
		batch.cancelled = true;
		batch.results = new Map(
			batch.items.map(({ customId }) => [customId, faultLine(batch.api, customId, 'cancelled')]),
		);
		if (batch.api === 'openai')
			files.set(
				`file-err-${batch.id}`,
				[...batch.results.values()].map((line) => `${JSON.stringify(line)}\n`).join(''),
			);
	}

	/** A poll moves a batch on; after `batchPolls` of them (unless held) it ends, every request answered. */
	async function poll(batch: FakeBatch): Promise<void> {
		batch.polls += 1;
		if (batch.results || batch.refused || api.holdBatches || batch.polls <= api.batchPolls) return;
		const results = new Map<string, unknown>();
		for (const { customId, body } of batch.items) {
			const input: RespondInput = {
				prompt: promptOf(batch.api, body),
				body,
				api: batch.api,
				batch: batch.id,
			};
			const fault = api.batchFault?.(customId, input) ?? null;
			results.set(
				customId,
				fault ? faultLine(batch.api, customId, fault) : await answerLine(batch.api, customId, input),
			);
		}
		batch.results = results;
		if (batch.api === 'openai') {
			const lines = (keep: (line: ResultLine) => boolean) =>
				[...(results.values() as Iterable<ResultLine>)]
					.filter(keep)
					.map((line) => `${JSON.stringify(line)}\n`)
					.join('');
			const out = lines((l) => l.response?.status_code === 200);
			const errors = lines((l) => l.response?.status_code !== 200);
			if (out) files.set(`file-out-${batch.id}`, out);
			if (errors) files.set(`file-err-${batch.id}`, errors);
		}
	}

	async function answerLine(which: Api, customId: string, input: RespondInput): Promise<unknown> {
		const { body } = input;
		const maxTokens: unknown =
			which === 'openai' ? (body.max_completion_tokens ?? body.max_tokens) : body.max_tokens;
		let text = await api.respond(input);
		let truncated = false;
		if (typeof maxTokens === 'number' && countTokens(text) > maxTokens) {
			text = truncateToTokens(text, maxTokens);
			truncated = true;
		}
		const promptTokens = encode(input.prompt);
		const cacheable = which === 'anthropic' ? cachedPrefix(body) : null;
		const usage = {
			input: promptTokens.length,
			output: countTokens(text),
			...(which === 'anthropic'
				? anthropicCacheUsage(cacheable, cacheable !== null && anthropicCache.has(cacheable.prefix))
				: { cached: openaiCachedTokens(promptTokens), written: 0 }),
		};
		spend(usage);
		if (which === 'anthropic')
			return {
				custom_id: customId,
				result: { type: 'succeeded', message: anthropicMessage(body, text, usage, truncated) },
			};
		return {
			id: `batch_req_${customId}`,
			custom_id: customId,
			response: {
				status_code: 200,
				request_id: `req_${customId}`,
				body: openaiMessage(body, text, usage, truncated),
			},
			error: null,
		};
	}

	function openaiBatch(batch: FakeBatch) {
		const ended = batch.results !== null;
		// Refused at validation: seen at the first poll, as a failed batch with its errors and no files.
		const refused = batch.refused && batch.polls > 0 ? batch.refused : null;
		const failed = ended
			? [...(batch.results!.values() as Iterable<ResultLine>)].filter((l) => l.response?.status_code !== 200)
					.length
			: 0;
		return {
			id: batch.id,
			object: 'batch',
			endpoint: '/v1/chat/completions',
			errors: refused
				? {
						object: 'list',
						data: [{ code: refused.code, message: refused.message, line: null, param: null }],
					}
				: null,
			input_file_id: (batch as FakeBatch & { inputFile?: string }).inputFile ?? '',
			completion_window: '24h',
			status: refused
				? 'failed'
				: batch.cancelled
					? 'cancelled'
					: ended
						? 'completed'
						: batch.polls === 0
							? 'validating'
							: 'in_progress',
			output_file_id: ended && files.has(`file-out-${batch.id}`) ? `file-out-${batch.id}` : null,
			error_file_id: ended && files.has(`file-err-${batch.id}`) ? `file-err-${batch.id}` : null,
			created_at: now(),
			request_counts: {
				total: batch.items.length,
				completed: refused
					? 0
					: ended
						? batch.items.length - failed
						: Math.min(batch.polls, batch.items.length - 1),
				failed,
			},
			metadata: null,
		};
	}

	function anthropicBatch(batch: FakeBatch) {
		const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
		// As the API counts them: every request is processing until the whole batch has ended.
		if (batch.results)
			for (const line of batch.results.values())
				counts[(line as ResultLine).result!.type as keyof typeof counts] += 1;
		else counts.processing = batch.items.length;
		const at = new Date().toISOString();
		return {
			id: batch.id,
			type: 'message_batch',
			processing_status: batch.results ? 'ended' : 'in_progress',
			request_counts: counts,
			ended_at: batch.results ? at : null,
			created_at: at,
			expires_at: at,
			archived_at: null,
			cancel_initiated_at: null,
			results_url: batch.results ? `${api.url}/v1/messages/batches/${batch.id}/results` : null,
		};
	}

	function anthropicCacheUsage(
		cacheable: { prefix: string; tokens: number } | null,
		hitOnArrival: boolean,
	): { cached: number; written: number } {
		if (cacheable === null) return { cached: 0, written: 0 };
		if (opts.cacheOnResponse)
			return hitOnArrival
				? { cached: cacheable.tokens, written: 0 }
				: { cached: 0, written: cacheable.tokens };
		if (anthropicCache.has(cacheable.prefix)) return { cached: cacheable.tokens, written: 0 };
		anthropicCache.add(cacheable.prefix);
		return { cached: 0, written: cacheable.tokens };
	}

	function openaiCachedTokens(tokens: Uint32Array): number {
		// OpenAI caches shared prompt prefixes of at least 1024 tokens, in steps of 128.
		let best = 0;
		for (const earlier of recentPrompts) {
			let n = 0;
			const limit = Math.min(earlier.length, tokens.length);
			while (n < limit && earlier[n] === tokens[n]) n++;
			best = Math.max(best, n);
		}
		recentPrompts.push(tokens);
		if (recentPrompts.length > 16) recentPrompts.shift();
		return best >= 1024 ? best - (best % 128) : 0;
	}

	await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	api.url = `http://127.0.0.1:${port}`;
	api.openaiBaseUrl = `${api.url}/v1`;
	api.anthropicBaseUrl = api.url;
	return api;
}

interface WireUsage {
	input: number;
	output: number;
	cached: number;
	written: number;
}

interface Wire {
	start(): string;
	keepalive(): string;
	delta(text: string): string;
	end(): string;
}

function openaiWire(body: WireBody, usage: WireUsage, truncated: boolean): Wire {
	const id = `chatcmpl-fake${Date.now().toString(36)}`;
	const created = Math.floor(Date.now() / 1000);
	const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
		`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, system_fingerprint: 'fp_fake', choices, ...extra })}\n\n`;
	return {
		start: () =>
			chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
		keepalive: () => ': keep-alive\n\n',
		delta: (text) => chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]),
		end: () => {
			let out = chunk([
				{ index: 0, delta: {}, logprobs: null, finish_reason: truncated ? 'length' : 'stop' },
			]);
			if (body.stream_options?.include_usage) {
				out += chunk([], {
					usage: {
						prompt_tokens: usage.input,
						completion_tokens: usage.output,
						total_tokens: usage.input + usage.output,
						prompt_tokens_details: { cached_tokens: usage.cached },
					},
				});
			}
			return `${out}data: [DONE]\n\n`;
		},
	};
}

function openaiMessage(body: WireBody, text: string, usage: WireUsage, truncated: boolean) {
	return {
		id: `chatcmpl-fake${Date.now().toString(36)}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: body.model,
		system_fingerprint: 'fp_fake',
		choices: [
			{
				index: 0,
				message: { role: 'assistant', content: text, refusal: null },
				logprobs: null,
				finish_reason: truncated ? 'length' : 'stop',
			},
		],
		usage: {
			prompt_tokens: usage.input,
			completion_tokens: usage.output,
			total_tokens: usage.input + usage.output,
			prompt_tokens_details: { cached_tokens: usage.cached },
		},
	};
}

function anthropicMessage(body: WireBody, text: string, usage: WireUsage, truncated: boolean) {
	return {
		id: `msg_fake${Date.now().toString(36)}`,
		type: 'message',
		role: 'assistant',
		content: [{ type: 'text', text }],
		model: body.model,
		stop_reason: truncated ? 'max_tokens' : 'end_turn',
		stop_sequence: null,
		usage: {
			input_tokens: usage.input - usage.cached - usage.written,
			output_tokens: usage.output,
			cache_creation_input_tokens: usage.written,
			cache_read_input_tokens: usage.cached,
		},
	};
}

function anthropicWire(body: WireBody, usage: WireUsage, truncated: boolean): Wire {
	const event = (type: string, data: Record<string, unknown>) =>
		`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
	// Anthropic's input_tokens excludes cache reads and writes.
	const input = usage.input - usage.cached - usage.written;
	return {
		start: () =>
			event('message_start', {
				message: {
					id: `msg_fake${Date.now().toString(36)}`,
					type: 'message',
					role: 'assistant',
					content: [],
					model: body.model,
					stop_reason: null,
					stop_sequence: null,
					usage: {
						input_tokens: input,
						output_tokens: 1,
						cache_creation_input_tokens: usage.written,
						cache_read_input_tokens: usage.cached,
					},
				},
			}) +
			event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
			event('ping', {}),
		keepalive: () => event('ping', {}),
		delta: (text) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
		end: () =>
			event('content_block_stop', { index: 0 }) +
			event('message_delta', {
				delta: { stop_reason: truncated ? 'max_tokens' : 'end_turn', stop_sequence: null },
				usage: { output_tokens: usage.output },
			}) +
			event('message_stop', {}),
	};
}

/** An Anthropic request's cached prefix: everything up to and including the last block marked for caching, as in the real API. */
function cachedPrefix(body: WireBody): { prefix: string; tokens: number } | null {
	const content = body.messages?.[0]?.content;
	const blocks: WireBlock[] = Array.isArray(content) ? content : [];
	const last = blocks.map((b) => Boolean(b?.cache_control)).lastIndexOf(true);
	if (last < 0) return null;
	const prefix = blocks
		.slice(0, last + 1)
		.map((b) => String(b?.text ?? ''))
		.join('');
	return { prefix, tokens: countTokens(prefix) };
}

/** The prompt a request's body carries, as `respond` is given it. */
export function promptOf(api: Api, body: WireBody): string {
	const text = (content: unknown): string => {
		if (typeof content === 'string') return content;
		if (Array.isArray(content))
			return content
				.map((part: { text?: unknown } | null) => (typeof part?.text === 'string' ? part.text : ''))
				.join('');
		return '';
	};
	const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
	const parts = messages.map((m) => text((m as { content?: unknown } | null)?.content));
	if (api === 'anthropic' && body.system) parts.unshift(text(body.system));
	return parts.join('\n');
}

/** The embedding models the fake serves; any other is refused as OpenAI refuses a model it does not have. */
const FAKE_EMBEDDING_MODELS = ['text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002'];

/** Dimensions of the fake's vectors. */
const FAKE_EMBEDDING_DIMENSIONS = 256;

/**
 * A fake embedding, and honestly so: a hashed bag of the text's content stems (each stem adds 1 or -1
 * at a place its hash picks), normalized. Texts that share words are alike and nothing else is: it
 * knows no synonym and no paraphrase, so a rerank by it measures nothing about a real model's.
 */
export function fakeEmbedding(text: string): Float32Array {
	const vector = new Float32Array(FAKE_EMBEDDING_DIMENSIONS);
	for (const term of contentStems(text)) {
		const digest = createHash('sha256').update(term).digest();
		vector[digest.readUInt32LE(0) % FAKE_EMBEDDING_DIMENSIONS]! += digest[4]! % 2 === 0 ? 1 : -1;
	}
	const norm = Math.hypot(...vector);
	return norm === 0 ? vector : vector.map((x) => x / norm);
}

/** POST /v1/embeddings in OpenAI's wire format: `data[].embedding` (floats or base64), `usage.prompt_tokens`. */
function embeddingsAnswer(body: Record<string, unknown> | null): Answer {
	const model = typeof body?.model === 'string' ? body.model : '';
	const input = body?.input;
	const texts = typeof input === 'string' ? [input] : input;
	if (
		!Array.isArray(texts) ||
		texts.length === 0 ||
		texts.length > 2048 ||
		!texts.every((x) => typeof x === 'string' && x !== '')
	)
		return {
			status: 400,
			body: {
				error: { message: "'$.input' is invalid.", type: 'invalid_request_error', param: null, code: null },
			},
			headers: {},
		};
	if (!FAKE_EMBEDDING_MODELS.includes(model)) return unknownModelAnswer('openai', model);
	const base64 = body?.encoding_format === 'base64';
	const data = (texts as string[]).map((text, index) => {
		const vector = fakeEmbedding(text);
		return {
			object: 'embedding',
			index,
			embedding: base64 ? Buffer.from(vector.buffer).toString('base64') : [...vector],
		};
	});
	const tokens = (texts as string[]).reduce((sum, text) => sum + countTokens(text), 0);
	return {
		status: 200,
		body: { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } },
		headers: {},
	};
}

function bearer(headers: IncomingHttpHeaders): string {
	const auth = headers.authorization ?? '';
	return auth.startsWith('Bearer ') ? auth.slice(7) : String(headers['x-api-key'] ?? '');
}

const ERROR_TYPES: Record<number, string> = {
	400: 'invalid_request_error',
	401: 'authentication_error',
	403: 'permission_error',
	404: 'not_found_error',
	429: 'rate_limit_error',
	529: 'overloaded_error',
};

function sendStatus(
	res: ServerResponse,
	api: Api,
	fault: Extract<Fault, { kind: 'status' }>,
	key: string,
): void {
	const headers: Record<string, string> = {};
	if (fault.retryAfter !== undefined) {
		headers['retry-after-ms'] = String(Math.round(fault.retryAfter * 1000));
		headers['retry-after'] = String(fault.retryAfter);
	}
	// Real servers quote (part of) a rejected key; this one quotes all of it, so a test can prove
	// the provider keeps it out of its messages.
	const message =
		fault.message ??
		(fault.status === 401
			? `Incorrect API key provided: ${key}.`
			: `fake ${fault.status} from the test server`);
	sendError(
		res,
		api,
		fault.status,
		ERROR_TYPES[fault.status] ?? (fault.status >= 500 ? 'api_error' : 'invalid_request_error'),
		message,
		headers,
	);
}

function sendError(
	res: ServerResponse,
	api: Api,
	status: number,
	type: string,
	message: string,
	headers: Record<string, string> = {},
): void {
	const body =
		api === 'openai'
			? { error: { message, type, param: null, code: null } }
			: { type: 'error', error: { type, message } };
	json(res, status, body, headers);
}

function json(
	res: ServerResponse,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): void {
	const text = JSON.stringify(body);
	res.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

function isBatchRoute(path: string): boolean {
	return (
		path.startsWith('/v1/files') || path.startsWith('/v1/batches') || path.startsWith('/v1/messages/batches')
	);
}

/** A JSON object's fields as sent (null when it did not parse); the caller checks their shapes. */
function parseJson(raw: Buffer): Record<string, unknown> | null {
	try {
		return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
	} catch {
		return null;
	}
}

function now(): number {
	return Math.floor(Date.now() / 1000);
}

/** A request a batch did not answer, in each API's result shape. */
function faultLine(which: Api, customId: string, fault: BatchFault): unknown {
	if (which === 'anthropic') {
		if (fault === 'errored' || fault === 'transient') {
			const [type, message] =
				fault === 'errored'
					? ['invalid_request_error', `fake error for ${customId}`]
					: ['overloaded_error', 'Overloaded'];
			return {
				custom_id: customId,
				result: { type: 'errored', error: { type: 'error', error: { type, message } } },
			};
		}
		return { custom_id: customId, result: { type: fault === 'cancelled' ? 'canceled' : 'expired' } };
	}
	// A request whose model call timed out has no response, as one the batch never ran.
	if (fault === 'transient')
		return {
			id: `batch_req_${customId}`,
			custom_id: customId,
			response: null,
			error: { code: 'request_timeout', message: 'The underlying call to the model timed out.' },
		};
	if (fault !== 'errored') {
		const message =
			fault === 'expired'
				? 'This request could not be executed before the completion window expired.'
				: 'This request was not executed because the batch was cancelled.';
		return {
			id: `batch_req_${customId}`,
			custom_id: customId,
			response: null,
			error: { code: `batch_${fault}`, message },
		};
	}
	return {
		id: `batch_req_${customId}`,
		custom_id: customId,
		response: {
			status_code: 400,
			request_id: `req_${customId}`,
			body: {
				error: {
					message: `fake error for ${customId}`,
					type: 'invalid_request_error',
					param: null,
					code: null,
				},
			},
		},
		error: null,
	};
}

// As a separate process (benchmarks): prints {"url": ...} on one line, serves until killed.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
	const { values } = parseArgs({
		options: {
			port: { type: 'string', default: '0' },
			latency: { type: 'string', default: '0' },
			'chunk-delay': { type: 'string', default: '0' },
			// Answer BooookScore prompts with annotations (bench/score), the faithfulness judge's
			// prompts with claims and quotes (faithfulness-reply.ts), and the memory probes' questions
			// and scenes (memory-reply.ts).
			annotate: { type: 'boolean', default: false },
			// Answer summarization prompts as long as a model would (bookishReply): 80% of the words a
			// prompt asks for, or this many when it names no length. Without it: two short sentences.
			words: { type: 'string' },
			// Also answer requests that do not stream (LangChain's default).
			plain: { type: 'boolean', default: false },
			// Rate limits per minute (see FakeLimits); --no-limit-headers: 429s without rate-limit headers or retry-after.
			rpm: { type: 'string' },
			tpm: { type: 'string' },
			itpm: { type: 'string' },
			otpm: { type: 'string' },
			'no-limit-headers': { type: 'boolean', default: false },
			// Stream answers on past max_tokens (see FakeApi.ignoreMaxTokens).
			'ignore-max-tokens': { type: 'boolean', default: false },
		},
	});
	const limits: FakeLimits = {};
	for (const name of ['rpm', 'tpm', 'itpm', 'otpm'] as const)
		if (values[name] !== undefined) limits[name] = Number(values[name]);
	const summarize =
		values.words === undefined
			? (input: RespondInput) => defaultReply(input.prompt)
			: bookishReply(Number(values.words));
	const fake = await startFakeApi({
		port: Number(values.port),
		latencyMs: Number(values.latency),
		chunkDelayMs: Number(values['chunk-delay']),
		plain: values.plain,
		...(Object.keys(limits).length > 0
			? { limits: { ...limits, headers: !values['no-limit-headers'] } }
			: {}),
		respond: values.annotate
			? (input) =>
					annotationReply(input.prompt) ??
					faithfulnessReply(input.prompt) ??
					memoryReply(input.prompt) ??
					summarize(input)
			: summarize,
	});
	fake.ignoreMaxTokens = values['ignore-max-tokens'];
	process.stdout.write(
		`${JSON.stringify({ url: fake.url, openaiBaseUrl: fake.openaiBaseUrl, anthropicBaseUrl: fake.anthropicBaseUrl })}\n`,
	);
	const stop = () => {
		void fake.close().then(() => process.exit(0));
	};
	process.once('SIGTERM', stop);
	process.once('SIGINT', stop);
}
