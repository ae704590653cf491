import { STATUS_CODES } from 'node:http';
import { isAbortError, ProviderError } from './provider.ts';

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
			return new ProviderError(`${label}: no response from ${ctx.baseURL} within ${ctx.timeoutMs} ms (after ${retries(ctx.maxRetries)})`, true);
		}
		if (/Connection/u.test(name)) {
			const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
			const detail = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : '';
			return new ProviderError(
				redact(`${label}: cannot reach ${ctx.baseURL}${detail ? ` (${detail})` : ''} after ${ctx.maxRetries} retries`, ctx.apiKey),
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
			message = `${head} — check the model name (${ctx.model}) and the base URL (${ctx.baseURL})${tail}`;
			break;
		default:
			retryable = status === 408 || status === 409 || status === 429 || status >= 500;
			message = retryable ? `${head} — still failing after ${retries(ctx.maxRetries)}${tail}` : `${head}${detail ? ` — ${detail}` : ''}`;
	}
	return new ProviderError(redact(message, ctx.apiKey), retryable, status);
}

function retries(n: number): string {
	return n === 1 ? '1 retry' : `${n} retries`;
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
		| { message?: unknown; error?: { message?: unknown } }
		| undefined;
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
