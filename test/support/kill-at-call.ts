import assert from 'node:assert/strict';
import { waitFor } from './wait.ts';

/**
 * Kills a booook process at its `n`th model call of the kind a test counts, for tests that a process
 * killed with SIGKILL resumes without asking anything twice. The process must make one call at a
 * time (`--concurrency 1`), so that every answer before the killing request has been saved.
 */
export class CallKiller {
	/** The prompts answered since the last `take`, in order. */
	readonly #asked: string[] = [];
	#at = Number.POSITIVE_INFINITY;
	#kill: (() => void) | null = null;

	/**
	 * For the fake API's reply to a counted call: records `prompt`, or at the armed call kills the
	 * process and returns true (the reply is never read). `what` names the work in a timeout.
	 */
	async reached(prompt: string, what: string): Promise<boolean> {
		if (this.#asked.length === this.#at) {
			this.#at = Number.POSITIVE_INFINITY;
			(await waitFor(what, () => this.#kill))();
			return true;
		}
		this.#asked.push(prompt);
		return false;
	}

	/** The next run is killed when it asks its `n + 1`th counted call, after `n` answered. */
	arm(n: number): void {
		this.#at = n;
		this.#kill = null;
	}

	/** `booook`'s `onStderr`: how the armed run is killed. */
	readonly onStderr = (_out: string, stop: (signal: NodeJS.Signals) => void): void => {
		this.#kill ??= () => stop('SIGKILL');
	};

	/** The prompts answered since the last take. */
	take(): string[] {
		return this.#asked.splice(0);
	}
}

/**
 * A killed run (`before`: what it was answered) and its resume (`after`) asked nothing twice, and
 * made between them the calls of one run never killed (`whole`).
 */
export function assertResumedOnce(
	before: readonly string[],
	after: readonly string[],
	whole: readonly string[],
	what: string,
): void {
	const seen = new Set(before);
	assert.deepEqual(
		after.filter((p) => seen.has(p)),
		[],
		'no prompt answered before the kill is asked again',
	);
	assert.equal(before.length + after.length, whole.length, `the two make the calls one ${what} makes`);
}
