import { counted } from '../format/count.ts';
import { STATUS_CODES } from 'node:http';
import type { Usage } from '../domain.ts';
import { countTokens } from '../text/tokens.ts';
import { abortError } from './abort.ts';
import type { CallRequest, FailedAttempt } from './provider.ts';
import { secondsText } from '../format/duration.ts';

/**
 * One attempt of a streamed call under watch, for what the SDKs do not notice: a stream that went
 * quiet, one that goes on too long or sends far more than it was asked for. Such an attempt is cut
 * and ends in a BrokenStream, as does one the provider found broken; every attempt that gives no
 * result, the SDKs' own retries of error responses included, is reported as a failed attempt.
 * Starting the call again is `stream-retry.ts`'s job.
 */

export const DEFAULT_STREAM_TIMEOUT_MS = 60_000;
/**
 * Without a set call timeout, a stream must finish within the stream timeout plus this much per
 * token of its output limit (a floor of 4 tokens a second): keep-alive pings, empty deltas and
 * chatter keep the watchdog fed but cannot keep a call open forever.
 */
export const DEADLINE_MS_PER_TOKEN = 250;
/** A stream that sends more than this many times its output limit (plus a little) is cut off. */
export const OUTPUT_CAP_FACTOR = 2;
const OUTPUT_CAP_SLACK = 64;

/**
 * How long an attempt the watchdog cut has to end by itself (the SDKs end it within moments, with
 * what it delivered and its usage) before it is ended without them: Node's fetch may leave the body
 * of a response aborted after its last bytes came in open for ever, neither ended nor failed.
 */
export const CUT_GRACE_MS = 1000;

/** Most time from the first byte of a stream to its end, in ms. */
export function callDeadlineMs(
	maxTokens: number,
	streamTimeoutMs: number,
	callTimeoutMs?: number | null,
): number {
	return callTimeoutMs ?? streamTimeoutMs + maxTokens * DEADLINE_MS_PER_TOKEN;
}

/**
 * Most output tokens taken from one stream. Counted with the shared counter, which may count a
 * provider's text a little differently than its own tokenizer: hence a multiple, not max_tokens.
 */
export function outputCap(maxTokens: number): number {
	return OUTPUT_CAP_FACTOR * maxTokens + OUTPUT_CAP_SLACK;
}

export interface WatchOptions {
	/** Provider name, the first word of every message. */
	label: string;
	streamTimeoutMs: number;
	/** Most time from a stream's first byte to its end; null: `callDeadlineMs` of the output limit. */
	callTimeoutMs: number | null;
	/** The SDK's own retries of error responses and failed connections (to say whether it retries). */
	sdkRetries: number;
	/** Told before each retry, so a caller showing deltas can drop what the broken attempt sent. */
	onRetry?: (reason: string) => void;
}

/**
 * One attempt of a call: its own signal, `received` told each piece of text it streams, and
 * `watched`, to be passed as the SDK request's `fetchOptions` so `watchedFetch` knows the attempt.
 */
export type StreamAttempt<T> = (
	signal: AbortSignal,
	received: (text: string) => void,
	watched: WatchedInit,
) => Promise<T>;

/** Fetch options that carry nothing the SDKs set themselves (their type for per-request fetch options). */
export type WatchedInit = Partial<Record<'body' | 'headers' | 'method' | 'signal', never>>;

/** What the watchdog and the retries need of a call's request. */
export type WatchedRequest = Pick<CallRequest, 'maxTokens' | 'signal' | 'onAttemptFailed'> &
	Partial<Pick<CallRequest, 'prompt'>>;

/** What a stream had delivered when it broke. */
export interface StreamSoFar {
	text: string;
	usage: Usage;
}

/** A stream that broke after it started: the call may be started again. */
export class BrokenStream extends Error {
	constructor(
		message: string,
		readonly soFar?: StreamSoFar,
	) {
		super(message);
		this.name = 'BrokenStream';
	}
}

/** What a call cancelled by its caller rejects with. */
export function callCancelled(label: string, signal?: AbortSignal): Error {
	return abortError(cancelMessage(label), signal);
}

function cancelMessage(label: string): string {
	return `${label}: call cancelled`;
}

interface Watch {
	/** A response with a body arrived: its stream starts. */
	arm(): void;
	/** Bytes arrived. */
	touch(): void;
	/** An HTTP exchange failed (an error response, a connection that failed); `retried` if the SDK tries again. */
	failed(reason: string, start: Date, retried: boolean): void;
	/** The watchdog or the caller ended the attempt: what fails now fails because of that. */
	ended(): boolean;
	/** HTTP exchanges started in this attempt. */
	exchanges: number;
}

// The SDK calls `fetch` deep inside its own promise chain, with the request's `fetchOptions`
// spread into its init: a symbol key there is how a fetch knows which attempt's watchdog its bytes
// belong to, without one SDK client per call. (AsyncLocalStorage did this before; on Node 20 it
// turns on promise hooks, which made every await of the process slower.)
const WATCH = Symbol('booook watch');

function watchOf(init: RequestInit | undefined): Watch | undefined {
	return (init as { [WATCH]?: Watch } | undefined)?.[WATCH];
}

const NO_USAGE: Usage = { input: 0, output: 0, cached: 0 };

/**
 * A `fetch` for the SDKs that feeds the watchdog with every chunk of a successful response body.
 * Raw bytes rather than parsed events, so keep-alive pings and SSE comments (which the SDKs drop)
 * count as a live connection. Error responses are reported and left alone: the SDK may be about to
 * sleep for a retry-after, which is not an idle stream.
 */
export function watchedFetch(
	base: typeof fetch = globalThis.fetch,
	sdk: { maxRetries: number; timeoutMs: number } = { maxRetries: 0, timeoutMs: DEFAULT_STREAM_TIMEOUT_MS },
): typeof fetch {
	return async (input, init) => {
		const watch = watchOf(init);
		if (!watch) return base(input, init);
		const exchange = watch.exchanges++;
		const start = new Date();
		let response: Response;
		try {
			response = await base(input, init);
		} catch (error) {
			if (!watch.ended()) {
				const timedOut = error instanceof Error && error.name === 'AbortError';
				const reason = timedOut
					? `no response within ${sdk.timeoutMs} ms`
					: `connection failed (${connectionDetail(error)})`;
				watch.failed(reason, start, exchange < sdk.maxRetries);
			}
			throw error;
		}
		if (!response.ok) {
			watch.failed(
				`HTTP ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`,
				start,
				exchange < sdk.maxRetries && sdkRetries(response),
			);
			return response;
		}
		if (!response.body) return response;
		watch.arm();
		const body = response.body.pipeThrough(
			new TransformStream<Uint8Array, Uint8Array>({
				transform(chunk, controller) {
					watch.touch();
					controller.enqueue(chunk);
				},
			}),
		);
		return new Response(body, {
			status: response.status,
			statusText: response.statusText,
			headers: response.headers,
		});
	};
}

/** Whether both SDKs retry this error response (when they have retries left): their rule. */
function sdkRetries(response: Response): boolean {
	const told = response.headers.get('x-should-retry');
	if (told === 'true') return true;
	if (told === 'false') return false;
	return (
		response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500
	);
}

function connectionDetail(error: unknown): string {
	const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
	return cause instanceof Error ? cause.message : String(cause);
}

/**
 * Runs one attempt with its own signal, aborted by the watchdog or by the caller's signal. The
 * watchdog cuts it when its stream stalls for `streamTimeoutMs`, is still going at its deadline, or
 * sends more than `outputCap` tokens (the attempt passes each text delta to `received`); a cut
 * attempt, and one that throws BrokenStream, is reported to `request.onAttemptFailed` and rejects
 * with a BrokenStream that gives the reason. A caller abort rejects at once with an AbortError. Any
 * other error from `attempt` is passed on unchanged.
 */
export async function watchAttempt<T>(
	options: WatchOptions,
	request: WatchedRequest,
	attempt: StreamAttempt<T>,
): Promise<T> {
	const { label, streamTimeoutMs } = options;
	const callerSignal = request.signal;
	if (callerSignal?.aborted) throw callCancelled(label, callerSignal);
	const deadlineMs = callDeadlineMs(request.maxTokens, streamTimeoutMs, options.callTimeoutMs);
	const cap = outputCap(request.maxTokens);
	const report = (failed: FailedAttempt) => request.onAttemptFailed?.(failed);

	const controller = new AbortController();
	// Why the watchdog ended this attempt, once it has.
	let cut: string | null = null;
	const end = (reason: string) => {
		if (cut !== null || controller.signal.aborted) return;
		cut = reason;
		controller.abort(new BrokenStream(reason));
	};
	let idle: NodeJS.Timeout | undefined;
	let deadline: NodeJS.Timeout | undefined;
	let streamStart: Date | null = null;
	let tokens = 0;
	let text = '';
	const restart = () => {
		clearTimeout(idle);
		idle = setTimeout(() => end(`stream stalled (no data for ${streamTimeoutMs} ms)`), streamTimeoutMs);
	};
	const watch: Watch = {
		exchanges: 0,
		arm() {
			streamStart ??= new Date();
			restart();
			deadline ??= setTimeout(
				() => end(`stream not finished ${secondsText(deadlineMs)} after it started (the call deadline)`),
				deadlineMs,
			);
		},
		touch() {
			if (streamStart && !controller.signal.aborted) restart();
		},
		failed(reason, start, retried) {
			report({ reason, text: '', usage: { ...NO_USAGE }, start, end: new Date() });
			if (retried)
				options.onRetry?.(`${reason}; the SDK retries (${watch.exchanges} of ${options.sdkRetries})`);
		},
		ended: () => controller.signal.aborted,
	};
	const received = (piece: string) => {
		if (piece === '' || cut !== null) return;
		text += piece;
		tokens += countTokens(piece);
		// Counted piece by piece, a word sent with its space after it ("word ") is two tokens, where
		// the whole text has one: before a cut, the whole text is counted (seldom: each count brings
		// the sum back to the truth, and it must cross the cap again to be counted again).
		if (tokens > cap) tokens = countTokens(text);
		if (tokens > cap)
			end(`stream sent more than ${counted(cap, 'token')} for an output limit of ${request.maxTokens}`);
	};
	const onCallerAbort = () => controller.abort(callerSignal?.reason);
	callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
	// The attempt ends when its signal aborts, whatever the SDK makes of it: at once for the caller's
	// abort (the OpenAI SDK's backoff sleep before a retry ignores the signal, and a cancelled call
	// must not wait for it), after CUT_GRACE_MS for the watchdog's cut.
	let grace: NodeJS.Timeout | undefined;
	let onEnd: () => void = () => {};
	const ended = new Promise<never>((_, reject) => {
		onEnd = () => {
			if (callerSignal?.aborted) return reject(callCancelled(label, callerSignal));
			const usage = {
				input: request.prompt ? countTokens(request.prompt) : 0,
				output: countTokens(text),
				cached: 0,
			};
			grace = setTimeout(
				() => reject(new BrokenStream(cut ?? 'stream aborted', { text, usage })),
				CUT_GRACE_MS,
			);
		};
		controller.signal.addEventListener('abort', onEnd, { once: true });
	});
	const started = new Date();
	try {
		return await Promise.race([
			attempt(controller.signal, received, { [WATCH]: watch } as WatchedInit),
			ended,
		]);
	} catch (error) {
		if (callerSignal?.aborted) throw callCancelled(label, callerSignal);
		// The watchdog's own reason first: whatever the SDK made of the abort, the attempt was cut.
		let reason: string;
		if (cut !== null) reason = cut;
		else if (error instanceof BrokenStream) reason = error.message;
		else throw error;
		const soFar = error instanceof BrokenStream ? error.soFar : undefined;
		report({
			reason,
			text: soFar?.text ?? '',
			usage: soFar?.usage ?? { ...NO_USAGE },
			start: streamStart ?? started,
			end: new Date(),
		});
		throw new BrokenStream(reason, soFar);
	} finally {
		clearTimeout(idle);
		clearTimeout(deadline);
		clearTimeout(grace);
		callerSignal?.removeEventListener('abort', onCallerAbort);
		controller.signal.removeEventListener('abort', onEnd);
	}
}
