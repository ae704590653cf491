/**
 * The fake API's rate limits, quota and request checks, in the shapes OpenAI and Anthropic send
 * them, so a client's handling of 429s and of their headers is tested against what it will meet.
 * Pure: the clock is passed in, and nothing here knows about HTTP beyond status, body and headers.
 */

export interface FakeLimits {
	/** Requests per minute. */
	rpm?: number;
	/** Tokens per minute: prompt plus max tokens (OpenAI's TPM; Anthropic's combined bucket). */
	tpm?: number;
	/** Anthropic: input tokens per minute, cache reads not counted. */
	itpm?: number;
	/** Anthropic: output tokens per minute, max_tokens held at arrival, the unused part given back at the end. */
	otpm?: number;
	/** Send the rate-limit headers and retry-after (default true); false: a bare 429, as some compatible servers do. */
	headers?: boolean;
}

export type Limit = 'rpm' | 'tpm' | 'itpm' | 'otpm';
export type Cost = Partial<Record<Limit, number>>;
type Wire = 'openai' | 'anthropic';

const LIMITS: Limit[] = ['rpm', 'tpm', 'itpm', 'otpm'];

/** A bucket's name in GET /stats' `charged`. */
const CHARGED_NAME: Record<Limit, string> = {
	rpm: 'requests',
	tpm: 'tokens',
	itpm: 'inputTokens',
	otpm: 'outputTokens',
};

interface Bucket {
	capacity: number;
	level: number;
	/** When `level` was last brought up to date (ms, the clock's). */
	at: number;
}

/** Why a request was refused: the first bucket without room, and how long until all of them have it. */
export interface Refusal {
	limit: Limit;
	capacity: number;
	used: number;
	cost: number;
	/** Infinity: the cost is more than the bucket holds, so it never passes. */
	waitMs: number;
}

/** A bucket as the headers describe it. */
export interface BucketState {
	limit: Limit;
	capacity: number;
	remaining: number;
	/** Until the bucket is full again. */
	resetMs: number;
}

/**
 * Token buckets per API key and model, refilling continuously at limit/60000 per ms, starting full.
 * Changing the limits re-sizes every bucket at once (refilled at the old rate up to then).
 */
export class Limiter {
	#limits: FakeLimits | null;
	#sets = new Map<string, Partial<Record<Limit, Bucket>>>();
	/** Per bucket name, what the requests let in cost it, over every key (what a refund gave back not taken off). */
	readonly #charged: Record<string, number> = {};
	readonly #now: () => number;

	constructor(limits: FakeLimits | null, now: () => number = () => performance.now()) {
		this.#limits = limits;
		this.#now = now;
	}

	get limits(): FakeLimits | null {
		return this.#limits;
	}

	set limits(limits: FakeLimits | null) {
		const now = this.#now();
		for (const set of this.#sets.values()) this.#sync(set, now);
		this.#limits = limits;
		for (const set of this.#sets.values()) this.#sync(set, now);
	}

	get headers(): boolean {
		return this.#limits !== null && this.#limits.headers !== false;
	}

	/** Debits every bucket the cost names if all have room; else debits nothing and says why. */
	admit(key: string, cost: Cost): Refusal | null {
		const set = this.#set(key);
		const charged = LIMITS.filter((limit) => set[limit] && cost[limit] !== undefined);
		const short = charged.filter((limit) => set[limit]!.level < cost[limit]!);
		if (short.length === 0) {
			for (const limit of charged) {
				set[limit]!.level -= cost[limit]!;
				this.#charged[CHARGED_NAME[limit]] = (this.#charged[CHARGED_NAME[limit]] ?? 0) + cost[limit]!;
			}
			return null;
		}
		const wait = (limit: Limit) => {
			const b = set[limit]!;
			return cost[limit]! > b.capacity ? Infinity : ((cost[limit]! - b.level) * 60000) / b.capacity;
		};
		// A request that can never pass is reported as such, whichever bucket is also short.
		const first = short.find((limit) => wait(limit) === Infinity) ?? short[0]!;
		const b = set[first]!;
		return {
			limit: first,
			capacity: b.capacity,
			used: Math.ceil(b.capacity - b.level),
			cost: cost[first]!,
			waitMs: Math.max(...short.map(wait)),
		};
	}

	/**
	 * The total cost of the requests admitted so far, per bucket name (`requests`, `tokens`,
	 * `inputTokens`, `outputTokens`), over every key and model: a benchmark's floor under the limits.
	 */
	get charged(): Record<string, number> {
		return { ...this.#charged };
	}

	/** Gives back tokens held but not used (Anthropic's output tokens), up to the bucket's capacity. */
	refund(key: string, limit: Limit, tokens: number): void {
		const b = this.#set(key)[limit];
		if (b && tokens > 0) b.level = Math.min(b.capacity, b.level + tokens);
	}

	state(key: string): BucketState[] {
		const set = this.#set(key);
		return LIMITS.flatMap((limit) => {
			const b = set[limit];
			if (!b) return [];
			return [
				{
					limit,
					capacity: b.capacity,
					remaining: Math.max(0, Math.floor(b.level)),
					resetMs: ((b.capacity - b.level) * 60000) / b.capacity,
				},
			];
		});
	}

	#set(key: string): Partial<Record<Limit, Bucket>> {
		let set = this.#sets.get(key);
		if (!set) this.#sets.set(key, (set = {}));
		this.#sync(set, this.#now());
		return set;
	}

	/** Refills each bucket up to now, then fits it to the current limit (a limit object may also be changed in place). */
	#sync(set: Partial<Record<Limit, Bucket>>, now: number): void {
		for (const limit of LIMITS) {
			const capacity = this.#limits?.[limit];
			const b = set[limit];
			if (capacity === undefined || !(capacity > 0)) delete set[limit];
			else if (!b) set[limit] = { capacity, level: capacity, at: now };
			else {
				b.level = Math.min(b.capacity, b.level + ((now - b.at) * b.capacity) / 60000);
				b.at = now;
				b.capacity = capacity;
				b.level = Math.min(b.level, capacity);
			}
		}
	}
}

/** OpenAI's durations: `120ms`, `1s`, `59.32s`, `6m0s`, `1h2m3s`. */
export function openaiDuration(ms: number): string {
	const whole = Math.ceil(ms);
	if (whole < 1000) return whole === 0 ? '0s' : `${whole}ms`;
	const h = Math.floor(whole / 3600000);
	const m = Math.floor((whole % 3600000) / 60000);
	const s = `${(whole % 60000) / 1000}s`;
	return h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
}

const OPENAI_HEADER: Partial<Record<Limit, string>> = { rpm: 'requests', tpm: 'tokens' };
const ANTHROPIC_HEADER: Record<Limit, string> = {
	rpm: 'requests',
	itpm: 'input-tokens',
	otpm: 'output-tokens',
	tpm: 'tokens',
};

export function limitHeaders(
	wire: Wire,
	states: BucketState[],
	wallNow = Date.now(),
): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const { limit, capacity, remaining, resetMs } of states) {
		if (wire === 'openai') {
			const name = OPENAI_HEADER[limit];
			if (!name) continue;
			headers[`x-ratelimit-limit-${name}`] = String(capacity);
			headers[`x-ratelimit-remaining-${name}`] = String(remaining);
			headers[`x-ratelimit-reset-${name}`] = openaiDuration(resetMs);
		} else {
			const name = ANTHROPIC_HEADER[limit];
			headers[`anthropic-ratelimit-${name}-limit`] = String(capacity);
			headers[`anthropic-ratelimit-${name}-remaining`] = String(remaining);
			headers[`anthropic-ratelimit-${name}-reset`] = new Date(wallNow + Math.ceil(resetMs)).toISOString();
		}
	}
	return headers;
}

/**
 * What a request takes from each bucket as it arrives: the prompt plus the most it may write
 * (max tokens, 4096 when it names none), as both providers estimate; Anthropic's input tokens
 * leave out what the prompt cache reads.
 */
export function requestCost(
	wire: Wire,
	body: { max_tokens?: unknown; max_completion_tokens?: unknown },
	promptTokens: number,
	cacheRead: number,
): Cost {
	const max: unknown = wire === 'openai' ? (body.max_completion_tokens ?? body.max_tokens) : body.max_tokens;
	const out = typeof max === 'number' ? max : 4096;
	const tokens = promptTokens + out;
	return wire === 'openai'
		? { rpm: 1, tpm: tokens }
		: { rpm: 1, tpm: tokens, itpm: promptTokens - cacheRead, otpm: out };
}

/**
 * The waits a server may name in a 429 that no client should take as they stand (set them as a
 * fake's `refusing`): none at all (0, less), a few ms, three thousand years, a date in 2099.
 */
export const ABSURD_RETRY_AFTER: Record<string, string>[] = [
	{ 'retry-after': '0' },
	{ 'retry-after': '-30' },
	{ 'retry-after-ms': '-5000', 'retry-after': '-5' },
	{ 'retry-after-ms': '1' },
	{ 'retry-after': '99999999999' },
	{ 'retry-after': 'Thu, 01 Jan 2099 00:00:00 GMT' },
];

/** An error response: status, JSON body, headers. */
export interface Answer {
	status: number;
	body: unknown;
	headers: Record<string, string>;
}

const openaiError = (status: number, message: string, type: string, code: string): Answer => ({
	status,
	body: { error: { message, type, param: null, code } },
	headers: {},
});
const anthropicError = (status: number, type: string, message: string): Answer => ({
	status,
	body: { type: 'error', error: { type, message } },
	headers: {},
});

const OPENAI_UNIT: Partial<Record<Limit, [string, string]>> = {
	rpm: ['requests per min (RPM)', 'requests'],
	tpm: ['tokens per min (TPM)', 'tokens'],
};
const ANTHROPIC_UNIT: Record<Limit, string> = {
	rpm: 'requests',
	tpm: 'tokens',
	itpm: 'input tokens',
	otpm: 'output tokens',
};

/** The 429 (or, for a request that can never fit at Anthropic, the 400) of a refusal; retry-after only with `retry`. */
export function rateLimitAnswer(wire: Wire, model: string, r: Refusal, retry: boolean): Answer {
	const never = r.waitMs === Infinity;
	const perMinute = `${r.capacity.toLocaleString('en-US')} ${ANTHROPIC_UNIT[r.limit]} per minute`;
	if (wire === 'anthropic' && never) {
		return anthropicError(
			400,
			'invalid_request_error',
			`This request would exceed the rate limit for your organization of ${perMinute}: it asks for ${r.cost}, more than the limit allows, so it can never succeed. Please reduce the prompt length or the maximum tokens requested.`,
		);
	}
	let answer: Answer;
	if (wire === 'anthropic') {
		answer = anthropicError(
			429,
			'rate_limit_error',
			`This request would exceed the rate limit for your organization of ${perMinute}. For details, refer to: https://docs.anthropic.com/en/api/rate-limits; see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.`,
		);
	} else {
		const [unit, type] = OPENAI_UNIT[r.limit] ?? ['tokens per min (TPM)', 'tokens'];
		const on = `for ${model} in organization org-fake on ${unit}`;
		const message = never
			? `Request too large ${on}: Limit ${r.capacity}, Requested ${r.cost}. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.`
			: `Rate limit reached ${on}: Limit ${r.capacity}, Used ${r.used}, Requested ${r.cost}. Please try again in ${openaiDuration(r.waitMs)}. Visit https://platform.openai.com/account/rate-limits to learn more.`;
		answer = openaiError(429, message, type, 'rate_limit_exceeded');
	}
	if (retry && !never) {
		const ms = Math.ceil(r.waitMs);
		if (wire === 'openai') answer.headers['retry-after-ms'] = String(ms);
		// Anthropic never says 0: a client that retries at once would just be refused again.
		answer.headers['retry-after'] = String(Math.max(wire === 'anthropic' ? 1 : 0, Math.ceil(ms / 1000)));
	}
	return answer;
}

export function quotaAnswer(wire: Wire): Answer {
	return wire === 'openai'
		? openaiError(
				429,
				'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
				'insufficient_quota',
				'insufficient_quota',
			)
		: anthropicError(
				400,
				'invalid_request_error',
				'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
			);
}

export function unknownModelAnswer(wire: Wire, model: string): Answer {
	return wire === 'openai'
		? openaiError(
				404,
				`The model \`${model}\` does not exist or you do not have access to it.`,
				'invalid_request_error',
				'model_not_found',
			)
		: anthropicError(404, 'not_found_error', `model: ${model}`);
}

export function contextAnswer(wire: Wire, tokens: number, window: number): Answer {
	return wire === 'openai'
		? openaiError(
				400,
				`This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
				'invalid_request_error',
				'context_length_exceeded',
			)
		: anthropicError(
				400,
				'invalid_request_error',
				`prompt is too long: ${tokens} tokens > ${window} maximum`,
			);
}
