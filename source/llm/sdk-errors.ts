import { counted } from '../format/count.ts';
import { STATUS_CODES } from 'node:http';
import { isAbortError } from './abort.ts';
import { ProviderError } from './provider.ts';
import { retryAfterMs } from './rate-headers.ts';

/**
 * What an SDK error thrown before a stream started means to a user: one line they can act on,
 * whether a retry could help, and never the key (a server may echo it back).
 */

export interface FailureContext {
	label: string;
	/** The environment variable the key came from, named in 401/403 messages. */
	keyVar: string;
	model: string;
	baseURL: string;
	/** Redacted from every message, in case a server echoes it. */
	apiKey: string;
	maxRetries: number;
	timeoutMs: number;
}

const CANNOT_REACH = 'cannot reach';

/**
 * The server address a failure's message says could not be reached (a run's saved error is that
 * message), or null when the failure was another one.
 */
export function unreachedServer(message: string): string | null {
	return new RegExp(`: ${CANNOT_REACH} (\\S+)`, 'u').exec(message)?.[1] ?? null;
}

/**
 * Said of an OpenAI-compatible server's address that names no path: such servers answer under
 * `/v1` (the OpenAI SDK adds only `/chat/completions`), the likeliest cause of a 404 there.
 */
function missingV1(ctx: FailureContext): string {
	if (!ctx.label.startsWith('openai')) return '';
	let path: string;
	try {
		path = new URL(ctx.baseURL).pathname;
	} catch {
		return '';
	}
	return path === '' || path === '/' ? `: most end in /v1, e.g. ${ctx.baseURL.replace(/\/*$/u, '')}/v1` : '';
}

/**
 * One line a user can act on, from an SDK error thrown before the stream started. Statuses a retry
 * cannot fix are not retryable; the rest have already been retried by the SDK.
 */
export function toProviderError(error: unknown, ctx: FailureContext): Error {
	if (isAbortError(error)) return error as Error;
	const { label } = ctx;
	const status = statusOf(error);
	const name = error instanceof Error ? error.constructor.name : '';
	if (status === undefined) {
		if (/Timeout/u.test(name)) {
			return new ProviderError(
				`${label}: no response from ${ctx.baseURL} within ${ctx.timeoutMs} ms (after ${retries(ctx.maxRetries)})`,
				true,
			);
		}
		if (/Connection/u.test(name)) {
			const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
			const detail =
				cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : '';
			return new ProviderError(
				redact(
					`${label}: ${CANNOT_REACH} ${ctx.baseURL}${detail ? ` (${detail})` : ''} after ${counted(ctx.maxRetries, 'retry', 'retries')}`,
					ctx.apiKey,
				),
				true,
			);
		}
		return new ProviderError(redact(`${label}: ${messageOf(error)}`, ctx.apiKey), false);
	}
	const head = `${label}: ${status} ${STATUS_CODES[status] ?? 'Error'}`;
	const detail = serverMessage(error);
	const tail = detail ? ` (${detail})` : '';
	let message: string;
	let retryable = false;
	switch (status) {
		case 401:
			// The server's text for a bad key often quotes (part of) the key: leave it out.
			message = `${head} — check ${ctx.keyVar}`;
			break;
		case 403:
			message = `${head} — the key in ${ctx.keyVar} may not use model ${ctx.model}${tail}`;
			break;
		case 404:
			message = `${head} — check the model name (${ctx.model}) and the base URL (${ctx.baseURL}${missingV1(ctx)})${tail}`;
			break;
		case 429:
		case 400:
		case 402: {
			const meant = accountProblem(status, error, detail, ctx);
			if (meant) {
				message = meant;
				break;
			}
			if (status === 429) {
				// Slowing down fixes it: the caller waits as the server says and tries again.
				return new ProviderError(redact(`${head} — rate limited${tail}`, ctx.apiKey), true, status, {
					rateLimited: true,
					retryAfterMs: retryAfterMs(headersOf(error)),
				});
			}
			message = `${head}${detail ? ` — ${detail}` : ''}`;
			break;
		}
		default:
			retryable = status === 408 || status === 409 || status >= 500;
			message = retryable
				? `${head} — still failing after ${retries(ctx.maxRetries)}${tail}`
				: `${head}${detail ? ` — ${detail}` : ''}`;
	}
	return new ProviderError(redact(message, ctx.apiKey), retryable, status);
}

/**
 * What a 400, 402 or 429 says when waiting cannot fix it, with the fix: an account out of credit,
 * a prompt longer than the model's window, a request larger than a whole minute's limit. Null for
 * anything else (a 429 then means "slow down").
 */
function accountProblem(status: number, error: unknown, detail: string, ctx: FailureContext): string | null {
	const { code, type } = errorCodes(error);
	const head = `${ctx.label}: ${status} ${STATUS_CODES[status] ?? 'Error'}`;
	const said = detail ? ` (${detail})` : '';
	if (
		status === 402 ||
		code === 'insufficient_quota' ||
		type === 'insufficient_quota' ||
		/credit balance|billing|quota/iu.test(detail)
	) {
		return (
			`${head} — the account behind ${ctx.keyVar} is out of credit or over its spending limit${said}: ` +
			`add credit or raise the limit in the provider's billing settings, then continue`
		);
	}
	if (
		code === 'context_length_exceeded' ||
		/maximum context length|prompt is too long|context window|too many tokens/iu.test(detail)
	) {
		return `${head} — a prompt is longer than ${ctx.model} can read${said}: start a new run with a --context-window (or --chunk-size) that fits the model`;
	}
	// A 400 that speaks of the rate limit: a call no wait can let through (Anthropic's way of saying so).
	if (/request too large|must be reduced/iu.test(detail) || (status === 400 && /rate limit/iu.test(detail))) {
		return (
			`${head} — one call asks for more tokens than the account's whole per-minute limit${said}: ` +
			`use a smaller --chunk-size or --max-summary, or a model with a higher limit`
		);
	}
	return null;
}

/** The error's code and type, from either SDK's error body. */
function errorCodes(error: unknown): { code?: string; type?: string } {
	const body = (error as { error?: unknown }).error as
		{ code?: unknown; type?: unknown; error?: { type?: unknown; code?: unknown } } | undefined;
	const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
	return {
		code: text(body?.code) ?? text(body?.error?.code),
		type: text(body?.error?.type) ?? text(body?.type),
	};
}

function headersOf(error: unknown): Headers | undefined {
	const headers = (error as { headers?: unknown }).headers;
	return headers instanceof Headers ? headers : undefined;
}

function retries(n: number): string {
	return counted(n, 'retry', 'retries');
}

function statusOf(error: unknown): number | undefined {
	const status = (error as { status?: unknown } | null)?.status;
	return typeof status === 'number' ? status : undefined;
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** The server's own explanation from either SDK's error body, on one short line. */
function serverMessage(error: unknown): string {
	const body = (error as { error?: unknown }).error as
		{ message?: unknown; error?: { message?: unknown } } | undefined;
	const text = body?.error?.message ?? body?.message;
	if (typeof text !== 'string') return '';
	const line = text.replace(/\s+/gu, ' ').trim();
	return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Removes the key and anything shaped like one from text meant for a screen or a log. */
export function redact(text: string, apiKey: string): string {
	let out = apiKey.length >= 4 ? text.split(apiKey).join('[key]') : text;
	out = out.replace(/\bsk-[\w*.-]{6,}/gu, '[key]');
	return out;
}
