import { abortError, unlessAborted } from '../llm/abort.ts';

/** The call that is writing a prefix into the provider's cache says how it went, once. */
export interface Warming {
	/** Its response has begun: the cache holds the prefix, so the calls waiting for it may go. */
	warmed(): void;
	/** It ended without a response: the next waiting call writes the cache instead. */
	cold(): void;
}

/**
 * Lets calls that share a cacheable prefix (BooookScore's instructions and summary) start only once
 * the provider can serve that prefix from its cache. Anthropic's prompt cache makes an entry
 * readable only after the first response that writes it begins ("if you need cache hits for
 * parallel requests, wait for the first response before sending subsequent requests"); calls sent
 * together before that each pay to write it and none reads it. So the first call of a prefix goes
 * alone, and the rest go, all at once, when its response has begun. Calls with other prefixes are
 * not held.
 */
export class CacheWarmup {
	/** Per prefix: warm, or the first call's response awaited. Absent: nobody has tried yet. */
	readonly #prefixes = new Map<string, 'warm' | Promise<void>>();

	/**
	 * Waits until a call with `prefix` may start. Resolves null when the prefix is warm, or a handle
	 * when this call is the one to warm it (it must call `warmed` or `cold` on it). Rejects with an
	 * AbortError if `signal` aborts while waiting.
	 */
	async enter(prefix: string, signal: AbortSignal): Promise<Warming | null> {
		for (;;) {
			if (signal.aborted) throw abortError();
			const state = this.#prefixes.get(prefix);
			if (state === 'warm') return null;
			if (state === undefined) return this.#warmer(prefix);
			await unlessAborted(state, signal);
		}
	}

	#warmer(prefix: string): Warming {
		let done = false;
		let wake = () => {};
		this.#prefixes.set(prefix, new Promise<void>((resolve) => (wake = resolve)));
		const end = (warm: boolean) => {
			if (done) return;
			done = true;
			if (warm) this.#prefixes.set(prefix, 'warm');
			else this.#prefixes.delete(prefix);
			wake();
		};
		return { warmed: () => end(true), cold: () => end(false) };
	}
}
