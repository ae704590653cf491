/**
 * Runs `work` with Ctrl-C and SIGTERM turned into `cancel()`: the work stops its calls in flight,
 * saves, and resolves, so the command can say how to continue instead of dying mid-write.
 */
export async function cancelOnSignal<T>(cancel: () => void, work: () => Promise<T>): Promise<T> {
	process.once('SIGINT', cancel);
	process.once('SIGTERM', cancel);
	try {
		return await work();
	} finally {
		process.off('SIGINT', cancel);
		process.off('SIGTERM', cancel);
	}
}

/** `cancelOnSignal` for work that takes an AbortSignal: Ctrl-C and SIGTERM abort it. */
export async function abortOnSignal<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
	const abort = new AbortController();
	return await cancelOnSignal(
		() => abort.abort(),
		() => work(abort.signal),
	);
}
