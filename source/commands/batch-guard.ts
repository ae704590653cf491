/** `--abandon-batches`, for the commands that make a session's calls themselves (resume, score). */
export const ABANDON_BATCHES_HELP =
	'make again, streamed at the full price, the requests a study left in provider batches (running the study again waits for them instead)';
