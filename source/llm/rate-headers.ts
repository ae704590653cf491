/**
 * What a provider's response headers say of its rate limits and of how long to wait: OpenAI's
 * `x-ratelimit-*` and `retry-after-ms`, Anthropic's `anthropic-ratelimit-*`, and `retry-after`.
 */

/** A limit a provider counts per minute: requests, tokens (prompt plus output limit), or input and output tokens each on its own. */
export type Dimension = 'requests' | 'tokens' | 'input' | 'output';

/** A limit as one response states it. */
export interface Reading {
	/** Per minute. */
	limit: number;
	remaining: number;
}

export type Readings = Partial<Record<Dimension, Reading>>;

/** Header families, in the order they are read. */
const OPENAI: [Dimension, string][] = [
	['requests', 'requests'],
	['tokens', 'tokens'],
];
const ANTHROPIC: [Dimension, string][] = [
	['requests', 'requests'],
	['input', 'input-tokens'],
	['output', 'output-tokens'],
	['tokens', 'tokens'],
];

/** The limits `headers` state; none for a server that sends no rate-limit headers. */
export function readLimits(headers: Headers): Readings {
	const readings: Readings = {};
	for (const [dimension, name] of OPENAI) {
		const reading = pair(
			headers.get(`x-ratelimit-limit-${name}`),
			headers.get(`x-ratelimit-remaining-${name}`),
		);
		if (reading) readings[dimension] = reading;
	}
	for (const [dimension, name] of ANTHROPIC) {
		const reading = pair(
			headers.get(`anthropic-ratelimit-${name}-limit`),
			headers.get(`anthropic-ratelimit-${name}-remaining`),
		);
		if (reading) readings[dimension] ??= reading;
	}
	// Anthropic's combined "tokens" figures repeat the tighter of its input and output limits: a
	// budget of their own would count every call twice.
	if (readings.input || readings.output) delete readings.tokens;
	return readings;
}

function pair(limit: string | null, remaining: string | null): Reading | null {
	const l = Number(limit);
	const r = Number(remaining);
	if (limit === null || remaining === null || !Number.isFinite(l) || !Number.isFinite(r) || l <= 0)
		return null;
	return { limit: l, remaining: Math.max(0, r) };
}

/**
 * How long the server asks a client to wait before it tries again, in ms: `retry-after-ms`, else
 * `retry-after` in seconds or as a date; null when it names no wait. A wait of 0 or less (a date
 * passed) names none: it would only have the client ask again at once.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | null {
	if (!headers) return null;
	const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
	if (Number.isFinite(ms) && ms > 0) return ms;
	const after = headers.get('retry-after');
	if (after === null || after.trim() === '') return null;
	const seconds = Number(after);
	if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : null;
	const at = Date.parse(after);
	return Number.isFinite(at) && at > now ? at - now : null;
}
