import { createHash } from 'node:crypto';
import { formatInt } from '../format/count.ts';
import { minutesText } from '../format/duration.ts';
import { abortError } from './abort.ts';
import type { Dimension, Readings } from './rate-headers.ts';

/**
 * Pacing model calls under a provider's per-minute limits, so that a run on a real account seldom
 * meets a 429 and never fails on one. One limiter serves one provider, key and model for the whole
 * process (see `sharedLimiter`): a study's cells and a scoring beside a run draw on the same budgets.
 *
 * Each limit is a budget that refills continuously, as the providers' own limits do. A call asks for
 * its estimated prompt tokens plus its output limit (what the providers count when it arrives) and
 * is held back, first come first served, until every budget has room. The budgets are learned from
 * each response's headers (corrected for the calls sent since), or stated up front (`--tpm`,
 * `--rpm`). A server that sends none is paced by the 429s themselves: the calls allowed at once halve on each
 * and grow back by one per window of answers (additive increase, multiplicative decrease).
 *
 * What no server's answer may do is make it spin or hang: a refusal pauses the calls at least
 * `MIN_PAUSE_MS` whatever wait it names; a call never waits past the wait its caller allows with no
 * call answered (`--rate-limit-wait`); and a call that asks for more than a whole minute's limit,
 * which no wait lets through, fails at once.
 */

/** What a call asks of the limits: its prompt's tokens (estimated) and its output limit. */
export interface Ask {
	input: number;
	output: number;
	/** Prompt tokens left out of `input` because the provider's cache holds them and does not count them. */
	cached?: number;
}

/** Limits a user states (per minute); the server's own headers replace them once they come. */
export interface StatedLimits {
	tpm?: number | null;
	rpm?: number | null;
}

/** Why calls are being held back, and until when. */
export interface RateWait {
	/** Epoch ms when the first call held back may go. */
	resumesAt: number;
	/** Epoch ms when the first call held back gives up, when that comes first (the wait it allows is over). */
	endsAt?: number;
	/** The budget that holds it, or the server's own "retry after". */
	why: Dimension | 'retry-after';
	/** Of that budget's limit per minute, what is spent now (0 and 0 for a retry-after). */
	used: number;
	limit: number;
	/**
	 * Another process on this key is using the limit too: the server counted more than this
	 * process's own calls explain. `others`: how much of `used` was not this process's, when known
	 * (a refusal while this process's own count was under the limit says so without a figure).
	 */
	shared?: { others?: number };
}

/** What a limiter tells its listeners. */
export interface RateLimitState {
	wait: RateWait | null;
	/** Answers of 429 (rate limits only) so far. */
	refusals: number;
	/** Calls answered, the tokens they asked for (prompt plus output limit) and used (prompt plus output). */
	answered: number;
	asked: number;
	used: number;
	/** The limits per minute known now (stated or learned). */
	limits: Partial<Record<Dimension, number>>;
}

/** A call let through: what it was charged, so the answer or a refusal can settle it. */
export interface Ticket {
	readonly seq: number;
	readonly at: number;
	readonly ask: Ask;
	/** What each dimension was charged (all four, whether a budget exists yet or not). */
	cost: Record<Dimension, number>;
	/** The response's headers were read into the budgets. */
	observed: boolean;
}

/** How long a call may wait for the limits: `ms` with no call of the limiter answered, counted from `since` at the earliest. */
export interface WaitBound {
	since: number;
	ms: number;
}

/** What `acquire` is told besides the ask. */
export interface AcquireOptions {
	/** Rejects with an AbortError when it aborts first. */
	signal?: AbortSignal;
	/** A call the server refused: it goes before every other waiting call (it has waited longest). */
	retry?: boolean;
	/** None: it waits as long as the limits hold it. */
	bound?: WaitBound;
}

/**
 * A call the limits will not let through: it asks for more than a whole minute's limit
 * (`tooLarge`), or they held it for all the wait its caller allows.
 */
export class RateLimitRefusal extends Error {
	constructor(
		/** What happened, for a message to go on with (what the server said, say). */
		readonly problem: string,
		/** What to do about it. */
		readonly fix: string,
		readonly tooLarge: boolean,
	) {
		super(`${problem}: ${fix}`);
		this.name = 'RateLimitRefusal';
	}
}

export interface RateLimiterOptions {
	stated?: StatedLimits;
	/** The provider counts the output limit when a call arrives and gives back what went unused (Anthropic). */
	refundsOutput?: boolean;
	/** The provider does not count prompt tokens read from its cache against the limits (Anthropic). */
	freeCacheReads?: boolean;
	now?: () => number;
}

/** Holds shorter than this are not shown: a call waiting a moment for a budget is not news. */
const SHOW_WAIT_MS = 400;
/** The first pause after a 429 that named no wait, doubled on each one after it. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/**
 * The least pause after any 429: a server that names a wait of a few ms (or 0, or less, which count
 * as naming none) and refuses every call would otherwise be asked hundreds of times a second.
 */
export const MIN_PAUSE_MS = 1000;
/** The longest timer Node keeps (a longer one fires after 1 ms, with a warning, again and again). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const MINUTE_MS = 60_000;
/** How long after it is sent a call is taken to reach the server (more than on a LAN, less than across an ocean). */
const ARRIVAL_MS = 50;
/**
 * The share of a limit the server may count beyond this process's own calls before the limit is
 * said to be shared: below it, the difference is the estimate's own error (tokenizers, refills).
 */
const SHARED_SHARE = 0.1;

class Budget {
	constructor(
		public limit: number,
		private level: number,
		private at: number,
	) {}

	/** What is free at `now`. */
	free(now: number): number {
		return Math.min(this.limit, this.level + ((now - this.at) * this.limit) / MINUTE_MS);
	}

	set(level: number, now: number): void {
		this.level = Math.min(this.limit, level);
		this.at = now;
	}

	take(amount: number, now: number): void {
		this.set(this.free(now) - amount, now);
	}

	/** Ms until `amount` (at most the whole limit) is free. */
	waitFor(amount: number, now: number): number {
		const short = Math.min(amount, this.limit) - this.free(now);
		return short <= 0 ? 0 : Math.ceil((short * MINUTE_MS) / this.limit);
	}
}

interface Waiter {
	ask: Ask;
	bound?: WaitBound;
	resolve: (ticket: Ticket) => void;
	reject: (error: Error) => void;
	signal?: AbortSignal;
	onAbort?: () => void;
}

const DIMENSIONS: Dimension[] = ['requests', 'tokens', 'input', 'output'];

/** A budget's unit, as messages name it. */
const PER_MINUTE: Record<Dimension, string> = {
	requests: 'requests',
	tokens: 'tokens',
	input: 'input tokens',
	output: 'output tokens',
};

/** What a call's cost in a budget is made of. */
const ASKED: Record<Dimension, string> = {
	requests: 'one request',
	tokens: 'its prompt plus its output limit',
	input: 'its prompt',
	output: 'its output limit',
};

function costOf(dimension: Dimension, ask: Ask): number {
	switch (dimension) {
		case 'requests':
			return 1;
		case 'tokens':
			return ask.input + ask.output;
		case 'input':
			return ask.input;
		case 'output':
			return ask.output;
	}
}

export class RateLimiter {
	private readonly budgets = new Map<Dimension, Budget>();
	/**
	 * The same budgets as this process's own calls alone would leave them: charged and given back as
	 * `budgets` are, never set from the server's headers. What `budgets` has less is another's use.
	 */
	private readonly own = new Map<Dimension, Budget>();
	/** What the calls let through in the last minute were charged, to start an `own` budget learned late. */
	private recent: { at: number; cost: Record<Dimension, number> }[] = [];
	/** The current pause began with a refusal that this process's own calls do not explain. */
	private pauseShared = false;
	/** Budgets the user stated, until the server states its own. */
	private readonly stated = new Set<Dimension>();
	private readonly queue: Waiter[] = [];
	private readonly inflight = new Set<Ticket>();
	/** Tickets in the order they went, kept while an earlier one may still report headers. */
	private sent: Ticket[] = [];
	private seq = 0;
	/**
	 * What the server's headers told of: 'unknown' until the first answer, then 'known' or 'blind'.
	 * The first calls go unpaced (at most the concurrency): holding all but one until the first
	 * answer would cost every run a round of latency, and a fresh minute has room for a few calls.
	 */
	private mode: 'unknown' | 'known' | 'blind' = 'unknown';
	/** Calls allowed at once ('blind' servers only). */
	private window = Infinity;
	private pausedUntil = 0;
	/** When the last pause for a refusal began (refusals of calls sent before it belong to it). */
	private pauseBegan = -Infinity;
	private backoffMs = 0;
	private timer: NodeJS.Timeout | undefined;
	private readonly listeners = new Set<(state: RateLimitState) => void>();
	private readonly now: () => number;
	private wait: RateWait | null = null;
	private refusals = 0;
	private answered = 0;
	private asked = 0;
	private used = 0;
	/** Provider tokens per locally counted prompt token, learned from answers (Claude's tokenizer is not tiktoken's). */
	private inputScale = 1;
	/** When a call of this limiter was last answered (or the limiter made). */
	lastSuccess: number;
	/** Prompt prefixes the provider has cached (as answers said), by digest. */
	private readonly cachedPrefixes = new Set<string>();

	constructor(private readonly opts: RateLimiterOptions = {}) {
		this.now = opts.now ?? Date.now;
		this.lastSuccess = this.now();
		this.state(opts.stated ?? {});
	}

	/** States limits (`--tpm`, `--rpm`); a limit the server already stated is left as it said. */
	state(stated: StatedLimits): void {
		const now = this.now();
		for (const [dimension, limit] of [
			['tokens', stated.tpm],
			['requests', stated.rpm],
		] as const) {
			if (!limit || limit <= 0) continue;
			if (this.budgets.has(dimension) && !this.stated.has(dimension)) continue;
			this.budgets.set(dimension, new Budget(limit, limit, now));
			this.ownBudget(dimension, limit, now);
			this.stated.add(dimension);
			if (this.mode === 'unknown') this.mode = 'known';
		}
	}

	/**
	 * Whether the provider reads `prefix` from its cache without counting it against the limits: it
	 * does not count cache reads (Anthropic) and an answer to a call with this prefix read it so.
	 */
	freeCache(prefix: string): boolean {
		return this.opts.freeCacheReads === true && this.cachedPrefixes.has(digest(prefix));
	}

	/** An answer to a call with `prefix` read it from the provider's cache. */
	cacheRead(prefix: string): void {
		if (this.opts.freeCacheReads) this.cachedPrefixes.add(digest(prefix));
	}

	/** The limits per minute known now (stated or learned). */
	get limits(): Partial<Record<Dimension, number>> {
		return Object.fromEntries([...this.budgets].map(([d, b]) => [d, b.limit]));
	}

	subscribe(listener: (state: RateLimitState) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	snapshot(): RateLimitState {
		return {
			wait: this.wait,
			refusals: this.refusals,
			answered: this.answered,
			asked: this.asked,
			used: this.used,
			limits: this.limits,
		};
	}

	/**
	 * Waits until the limits have room for `ask`, then charges it. Rejects with a RateLimitRefusal
	 * when `ask` is larger than a whole minute's limit, or when its `bound` is over before it may go.
	 */
	acquire(ask: Ask, { signal, retry = false, bound }: AcquireOptions = {}): Promise<Ticket> {
		return new Promise<Ticket>((resolve, reject) => {
			if (signal?.aborted) return reject(abortError('cancelled', signal));
			const waiter: Waiter = { ask, bound, resolve, reject, signal };
			waiter.onAbort = () => {
				const at = this.queue.indexOf(waiter);
				if (at >= 0) this.queue.splice(at, 1);
				reject(abortError('cancelled', signal));
				this.pump();
			};
			signal?.addEventListener('abort', waiter.onAbort, { once: true });
			if (retry) this.queue.unshift(waiter);
			else this.queue.push(waiter);
			this.pump();
		});
	}

	/**
	 * A response to `ticket`'s call, sent at `sentAt`, arrived with these limits (none: the server
	 * sends none). Each budget is set to what the server had left when the call arrived, plus what
	 * refilled since, less what the calls sent after it were charged (the server had not counted them
	 * yet). The call is taken to arrive `ARRIVAL_MS` after it was sent: a refill counted from too
	 * early would let the next call go a few tokens before the server has room for it.
	 */
	observe(ticket: Ticket, readings: Readings, status: number, sentAt = ticket.at): void {
		const now = this.now();
		const dimensions = DIMENSIONS.filter((d) => readings[d] !== undefined);
		if (dimensions.length === 0) {
			// Only an answer or a refusal says the server sends no limits (an error page may not).
			if (this.mode === 'unknown' && (status < 300 || status === 429)) this.mode = 'blind';
			this.pump();
			return;
		}
		if (this.stated.size > 0) {
			for (const d of this.stated)
				if (!dimensions.includes(d)) {
					this.budgets.delete(d);
					this.own.delete(d);
				}
			this.stated.clear();
		}
		this.mode = 'known';
		this.window = Infinity;
		ticket.observed = true;
		for (const d of dimensions) {
			const reading = readings[d]!;
			const later = this.sent.reduce((sum, t) => (t.seq > ticket.seq ? sum + t.cost[d] : sum), 0);
			const budget = this.budgets.get(d) ?? new Budget(reading.limit, reading.limit, now);
			budget.limit = reading.limit;
			budget.set(reading.remaining + ((now - sentAt - ARRIVAL_MS) * reading.limit) / MINUTE_MS - later, now);
			this.budgets.set(d, budget);
			this.ownBudget(d, reading.limit, now);
		}
		this.pump();
	}

	/** The call was answered: `used` is what it really took (an unused output limit comes back where the provider gives it back). */
	settle(ticket: Ticket, used: { input: number; output: number }): void {
		const now = this.now();
		this.lastSuccess = now;
		this.backoffMs = 0;
		if (Number.isFinite(this.window)) this.window += 1 / this.window;
		if (this.opts.refundsOutput) {
			const unused = ticket.cost.output - used.output;
			if (unused > 0) {
				this.budgets.get('output')?.take(-unused, now);
				this.own.get('output')?.take(-unused, now);
				ticket.cost.output = used.output;
			}
		}
		const counted = ticket.ask.input + (ticket.ask.cached ?? 0);
		if (counted > 0 && used.input > 0)
			this.inputScale = clamp(0.8 * this.inputScale + 0.2 * (used.input / counted), 0.5, 3);
		this.asked += ticket.cost.input + ticket.ask.output;
		this.used += used.input + used.output;
		this.answered += 1;
		// Not news by itself: listeners hear the counts with the next wait or refusal.
		this.release(ticket);
	}

	/**
	 * The server refused the call for its rate limit. Unless its headers already set the budgets, what
	 * the call was charged comes back (it was not counted); the server's wait holds every call, and
	 * without one the pause doubles with each refusal (headers or not: a server whose headers say
	 * there is room and refuses anyway must not be asked again at once); no pause is shorter than
	 * `MIN_PAUSE_MS`. A server without headers also halves the calls allowed at once.
	 */
	refused(ticket: Ticket, retryAfterMs: number | null): void {
		const now = this.now();
		this.refusals += 1;
		if (!ticket.observed) for (const [d, budget] of this.budgets) budget.take(-ticket.cost[d], now);
		// The server did not count the call: neither does this process's own count.
		for (const [d, budget] of this.own) budget.take(-ticket.cost[d], now);
		const unexplained = this.unexplainedRefusal(ticket, now);
		for (const d of DIMENSIONS) ticket.cost[d] = 0;
		if (this.mode === 'unknown') this.mode = 'blind';
		// A wait of 0 or less names no wait: retrying at once is what the refusal refused.
		const named = retryAfterMs !== null && retryAfterMs > 0 ? retryAfterMs : null;
		let pause = named ?? 0;
		// Calls refused together are one signal to slow down, not several: the pause doubles, and the
		// calls allowed at once halve, only for a refusal of a call sent after the last pause began.
		const fresh = ticket.at >= this.pauseBegan;
		if (named === null) {
			if (fresh || this.backoffMs === 0)
				this.backoffMs = Math.min(
					MAX_BACKOFF_MS,
					this.backoffMs === 0 ? FIRST_BACKOFF_MS : this.backoffMs * 2,
				);
			pause = this.backoffMs;
		}
		pause = Math.max(MIN_PAUSE_MS, pause);
		if (this.mode === 'blind' && fresh)
			this.window = Math.max(1, Math.floor(Math.min(this.window, this.inflight.size) / 2));
		if (fresh) this.pauseBegan = now;
		this.pauseShared = unexplained || (this.pauseShared && !fresh);
		this.pausedUntil = Math.max(this.pausedUntil, now + pause);
		this.release(ticket);
		this.emit();
	}

	/** The call ended another way (an error, a cancel): its place goes to the next; its charge stays (the server may have counted it). */
	release(ticket: Ticket): void {
		this.inflight.delete(ticket);
		let oldest = Infinity;
		for (const t of this.inflight) oldest = Math.min(oldest, t.seq);
		if (this.sent.length > 0 && this.sent[0]!.seq < oldest)
			this.sent = this.sent.filter((t) => t.seq >= oldest);
		this.pump();
	}

	/**
	 * Lets through the waiting calls that fit, in order; refuses those no wait lets through and those
	 * held past their bound; sets a timer for the first that must wait (or its bound, if sooner).
	 */
	private pump(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		const now = this.now();
		while (this.queue.length > 0) {
			const head = this.queue[0]!;
			const large = this.tooLarge(head.ask);
			if (large !== null) {
				this.drop(head, large);
				continue;
			}
			const full = this.inflight.size >= Math.floor(this.window);
			const held = full ? { ms: Infinity, why: 'retry-after' as const } : this.holdFor(head.ask, now);
			if (held.ms === 0) {
				this.queue.shift();
				if (head.onAbort) head.signal?.removeEventListener('abort', head.onAbort);
				head.resolve(this.charge(head.ask, now));
				continue;
			}
			// Held: every waiting call whose wait allowed is over gives up now, in line or not.
			const over = this.queue.filter((w) => w.bound && this.deadline(w.bound) <= now);
			if (over.length > 0) {
				for (const waiter of over) this.drop(waiter, this.heldTooLong(waiter.bound!, held.why));
				continue;
			}
			const ends = Math.min(...this.queue.map((w) => (w.bound ? this.deadline(w.bound) : Infinity)));
			const wake = Math.min(held.ms, ends - now, MAX_TIMER_MS);
			if (Number.isFinite(wake)) this.timer = setTimeout(() => this.pump(), wake);
			if (full) return this.show(null);
			const endsAt = head.bound ? this.deadline(head.bound) : Infinity;
			return this.show(
				held.ms >= SHOW_WAIT_MS
					? {
							resumesAt: now + held.ms,
							...(endsAt < now + held.ms ? { endsAt } : {}),
							why: held.why,
							...this.spent(held.why, now),
							...this.sharedBy(held.why, now),
						}
					: null,
			);
		}
		this.show(null);
	}

	/** When a call bound so gives up: its wait allowed after the later of its start and the last answer. */
	private deadline(bound: WaitBound): number {
		return Math.max(bound.since, this.lastSuccess) + bound.ms;
	}

	/** Takes `waiter` out of the line with `error`. */
	private drop(waiter: Waiter, error: Error): void {
		this.queue.splice(this.queue.indexOf(waiter), 1);
		if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
		waiter.reject(error);
	}

	private heldTooLong(bound: WaitBound, why: RateWait['why']): RateLimitRefusal {
		const budget = why === 'retry-after' ? '' : ` (the ${PER_MINUTE[why]} a minute held it)`;
		return new RateLimitRefusal(
			`rate limited for ${minutesText(bound.ms)} with no call answered${budget}`,
			'continue later, or allow a longer wait with --rate-limit-wait',
			false,
		);
	}

	/**
	 * Why `ask` can never go, however long it waits: it asks for more than a whole minute of a
	 * budget. Null when it fits.
	 */
	private tooLarge(ask: Ask): RateLimitRefusal | null {
		const scaled = { input: Math.round(ask.input * this.inputScale), output: ask.output };
		for (const [d, budget] of this.budgets) {
			const cost = costOf(d, scaled);
			if (cost > budget.limit) return oversized(d, cost, budget.limit, this.stated.has(d));
		}
		return null;
	}

	/** How long `ask` must wait now, and which budget (or the server's wait) holds it longest. */
	private holdFor(ask: Ask, now: number): { ms: number; why: RateWait['why'] } {
		let ms = Math.max(0, Math.ceil(this.pausedUntil - now));
		let why: RateWait['why'] = 'retry-after';
		for (const [d, budget] of this.budgets) {
			const wait = budget.waitFor(
				costOf(d, { input: Math.round(ask.input * this.inputScale), output: ask.output }),
				now,
			);
			if (wait > ms) {
				ms = wait;
				why = d;
			}
		}
		return { ms, why };
	}

	private spent(why: RateWait['why'], now: number): { used: number; limit: number } {
		const budget = why === 'retry-after' ? undefined : this.budgets.get(why);
		return budget
			? { used: Math.max(0, Math.round(budget.limit - budget.free(now))), limit: budget.limit }
			: { used: 0, limit: 0 };
	}

	/** Starts `d`'s own budget (from what the last minute's calls were charged) or follows its limit. */
	private ownBudget(d: Dimension, limit: number, now: number): void {
		const own = this.own.get(d);
		if (own) {
			const free = own.free(now);
			own.limit = limit;
			own.set(free, now);
			return;
		}
		const charged = this.recent.reduce((sum, r) => (r.at > now - MINUTE_MS ? sum + r.cost[d] : sum), 0);
		this.own.set(d, new Budget(limit, limit - charged, now));
	}

	/** What the server counts of `d` beyond this process's own calls, when that is more than the estimate's error. */
	private othersUse(d: Dimension, now: number): number | null {
		const budget = this.budgets.get(d);
		const own = this.own.get(d);
		if (!budget || !own || this.stated.has(d)) return null;
		const others = own.free(now) - budget.free(now);
		return others > SHARED_SHARE * budget.limit ? Math.round(others) : null;
	}

	/**
	 * A refusal this process's own calls do not explain: the server stated its limits, and by this
	 * process's own count every one of them had room for the call refused, and more.
	 */
	private unexplainedRefusal(ticket: Ticket, now: number): boolean {
		const learned = [...this.own].filter(([d]) => this.budgets.has(d) && !this.stated.has(d));
		return (
			learned.length > 0 &&
			learned.every(([d, own]) => own.free(now) - ticket.cost[d] > SHARED_SHARE * own.limit)
		);
	}

	/** Whether the wait for `why` is on a limit another process uses too, and how much of it. */
	private sharedBy(why: RateWait['why'], now: number): Pick<RateWait, 'shared'> {
		if (why !== 'retry-after') {
			const others = this.othersUse(why, now);
			return others === null ? {} : { shared: { others } };
		}
		const seen = DIMENSIONS.some((d) => this.othersUse(d, now) !== null);
		return this.pauseShared || seen ? { shared: {} } : {};
	}

	private charge(ask: Ask, now: number): Ticket {
		const scaled = { input: Math.round(ask.input * this.inputScale), output: ask.output };
		const cost = Object.fromEntries(DIMENSIONS.map((d) => [d, costOf(d, scaled)])) as Record<
			Dimension,
			number
		>;
		for (const [d, budget] of this.budgets) budget.take(cost[d], now);
		for (const [d, budget] of this.own) budget.take(cost[d], now);
		this.recent = this.recent.filter((r) => r.at > now - MINUTE_MS);
		this.recent.push({ at: now, cost: { ...cost } });
		const ticket: Ticket = { seq: ++this.seq, at: now, ask, cost, observed: false };
		this.inflight.add(ticket);
		this.sent.push(ticket);
		return ticket;
	}

	private show(wait: RateWait | null): void {
		const before = this.wait;
		if (wait === null && before === null) return;
		// A countdown moving with the clock is not news; a new reason or a jump of a second is.
		if (
			wait &&
			before &&
			wait.why === before.why &&
			Boolean(wait.shared) === Boolean(before.shared) &&
			Math.abs(wait.resumesAt - before.resumesAt) < 1000
		)
			return;
		this.wait = wait;
		this.emit();
	}

	private emit(): void {
		const state = this.snapshot();
		for (const listener of this.listeners) listener(state);
	}
}

/**
 * The refusal of a call asking `cost` of a budget whose whole minute is `limit`: no wait lets it
 * through. `stated`: the limit is the user's (`--tpm`, `--rpm`; only those two are stated), not the
 * server's.
 */
export function oversized(d: Dimension, cost: number, limit: number, stated: boolean): RateLimitRefusal {
	const flag = stated ? (d === 'requests' ? '--rpm' : '--tpm') : null;
	const fix = flag
		? `raise ${flag} to the account's limit, or use a smaller --chunk-size or --max-summary`
		: 'use a smaller --chunk-size or --max-summary, or a model with a higher limit';
	return new RateLimitRefusal(
		`one call asks for ${formatInt(cost)} ${PER_MINUTE[d]} (${ASKED[d]}), more than ${flag ?? "the account's limit"} ` +
			`allows in a whole minute (${formatInt(limit)}), so no wait lets it through`,
		fix,
		true,
	);
}

function digest(text: string): string {
	return createHash('sha256').update(text).digest('base64');
}

function clamp(x: number, low: number, high: number): number {
	return Math.min(high, Math.max(low, x));
}

/** Limiters by provider, server, key and model: one per account's limits, for the whole process. */
const shared = new Map<string, RateLimiter>();

/**
 * The process's limiter for `who` (the key itself is never kept: a digest of it is), made on first
 * use; limits stated later are added to it.
 */
export function sharedLimiter(
	who: { provider: string; baseURL: string; keyDigest: string; model: string },
	opts: RateLimiterOptions = {},
): RateLimiter {
	const id = `${who.provider} ${who.baseURL} ${who.keyDigest} ${who.model}`;
	let limiter = shared.get(id);
	if (!limiter) {
		limiter = new RateLimiter(opts);
		shared.set(id, limiter);
	} else if (opts.stated) limiter.state(opts.stated);
	return limiter;
}

/**
 * The least time `calls` asking for `tokens` in all (prompts plus output limits) take under stated
 * limits, in seconds: the first minute's allowance is there at the start, the rest refills.
 */
export function limitedSeconds(calls: number, tokens: number, stated: StatedLimits): number {
	const over = (amount: number, limit: number | null | undefined) =>
		limit && limit > 0 ? Math.max(0, (amount - limit) / limit) * 60 : 0;
	return Math.max(over(tokens, stated.tpm), over(calls, stated.rpm));
}
