import { abortError, unlessAborted } from '../llm/abort.ts';

/**
 * Admits model calls: all of them while running, none while paused, one per `step()` while
 * stepping. Calls already admitted are not affected, so pausing lets calls in flight finish.
 */
export class Gate {
	private mode: 'running' | 'paused' | 'stepping';
	private credits = 0;
	private waiters: (() => void)[] = [];

	constructor(start: 'running' | 'stepping' = 'running') {
		this.mode = start;
	}

	get state(): 'running' | 'paused' | 'stepping' {
		return this.mode;
	}

	pause(): void {
		this.mode = 'paused';
		this.credits = 0;
	}

	resume(): void {
		this.mode = 'running';
		this.wake();
	}

	/** Lets exactly one more call through, then holds again. */
	step(): void {
		this.mode = 'stepping';
		this.credits++;
		this.wake();
	}

	/** Resolves when a call may start; rejects with an AbortError if `signal` aborts first. */
	async pass(signal: AbortSignal): Promise<void> {
		while (!this.admit()) {
			if (signal.aborted) throw abortError();
			await unlessAborted(new Promise<void>((resolve) => this.waiters.push(resolve)), signal);
		}
	}

	private admit(): boolean {
		if (this.mode === 'running') return true;
		if (this.mode === 'stepping' && this.credits > 0) {
			this.credits--;
			return true;
		}
		return false;
	}

	private wake(): void {
		const waiters = this.waiters;
		this.waiters = [];
		for (const w of waiters) w();
	}
}
