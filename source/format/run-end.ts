import { said, shellWord, type Next, type Said } from '../program.ts';

/** How a run left unfinished stands, worded for stderr; the edge says its command lines (program.ts `say`). */

/** A run stopped by the user or a signal: saved, and the command that continues it. */
export function runStopped(continueWith: Next): Said {
	return said`stopped; session saved. Continue with: ${continueWith}`;
}

/** What `runFailed` reads: structurally app/run.ts's failed `RunOutcome`. */
export interface RunFailure {
	error: string | null;
	/** The address the failure says could not be reached, or null for another failure. */
	unreached: string | null;
	/** The server address the session is saved with. */
	baseUrl: string | null;
	continueWith: Next;
}

/**
 * Why a run failed (the provider's or planner's message, which may quote a server) and how to go on,
 * two lines. A server that could not be reached may have stopped or moved: the command names the
 * address the session uses, where a new one goes.
 */
export function runFailed({ error, unreached, baseUrl, continueWith }: RunFailure): Said {
	const down = `The server at ${unreached} could not be reached`;
	const way = !unreached
		? said`Fix the cause, then continue with: ${continueWith}`
		: baseUrl
			? said`${down}: start it (or put its new address after --base-url), then continue with: ${continueWith} --base-url ${shellWord(baseUrl)}`
			: said`${down}: check your network or the server, then continue with: ${continueWith} (--base-url URL points the session at another server)`;
	return said`run failed: ${error ?? 'unknown error'}\n${way}\n`;
}
