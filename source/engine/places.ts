import { abortError } from './gate.ts';

/**
 * A fixed number of places for model calls, given out in the order they were asked for. A free
 * place is taken at once, before `take` returns, so a caller that starts several jobs in one go
 * sees each one's place gone when it counts what is left.
 */
export class Places {
	#held = 0;
	readonly #waiting: (() => void)[] = [];

	constructor(readonly size: number) {}

	/** Places neither held nor promised to a call already waiting for one. */
	get idle(): number {
		return Math.max(0, this.size - this.#held - this.#waiting.length);
	}

	/** Resolves once a place is this caller's; rejects with an AbortError if `signal` aborts first. */
	take(signal: AbortSignal): Promise<void> {
		if (signal.aborted) return Promise.reject(abortError());
		if (this.#held < this.size && this.#waiting.length === 0) {
			this.#held += 1;
			return Promise.resolve();
		}
		return new Promise<void>((resolve, reject) => {
			const granted = () => {
				signal.removeEventListener('abort', onAbort);
				resolve();
			};
			const onAbort = () => {
				const at = this.#waiting.indexOf(granted);
				if (at >= 0) this.#waiting.splice(at, 1);
				reject(abortError());
			};
			this.#waiting.push(granted);
			signal.addEventListener('abort', onAbort, { once: true });
		});
	}

	/** Gives a place back: straight to the longest-waiting caller, if any. */
	release(): void {
		const next = this.#waiting.shift();
		if (next) next();
		else this.#held = Math.max(0, this.#held - 1);
	}
}
