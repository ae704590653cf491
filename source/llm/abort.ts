/** Cancelled calls and waits: the one error they reject with, and how to tell one. */

/**
 * What a cancelled call, or a wait for one, rejects with (`name` is 'AbortError'); the signal's
 * reason, when it has one, is kept as the cause.
 */
export function abortError(message = 'cancelled', signal?: AbortSignal): Error {
	const error = new DOMException(message, 'AbortError');
	if (signal?.reason !== undefined) Object.defineProperty(error, 'cause', { value: signal.reason });
	return error;
}

/**
 * Settles as `work` does, or rejects with `abortError(message, signal)` the moment `signal` aborts
 * (at once if it has): for waits that must not outlast a cancel, whatever `work` does meanwhile.
 */
export function unlessAborted<T>(
	work: Promise<T>,
	signal: AbortSignal | undefined,
	message?: string,
): Promise<T> {
	if (!signal) return work;
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(abortError(message, signal));
		if (signal.aborted) return onAbort();
		signal.addEventListener('abort', onAbort, { once: true });
		work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
	});
}

/** Whether an error means a call was cancelled: ours, fetch's, or an SDK's own. */
export function isAbortError(error: unknown): boolean {
	return error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
}
