import type { BatchesAwaited } from '../app/open-session.ts';
import { counted } from '../format/count.ts';

/** `--abandon-batches`, for the commands that make a session's calls themselves (resume, score). */
export const ABANDON_BATCHES_HELP =
	'make again, streamed at the full price, the requests a study left in provider batches (running the study again waits for them instead)';

/** The refusal of `awaited`, with `abandon`: how to make them again where it is read (a flag, a command). */
export function batchesLine(awaited: BatchesAwaited, abandon: string): string {
	const { id, requests, batches } = awaited;
	const named = `${batches.slice(0, 3).join(', ')}${batches.length > 3 ? ` and ${batches.length - 3} more` : ''}`;
	return (
		`session ${id} has ${counted(requests, 'request')} still out in provider batch${batches.length === 1 ? '' : 'es'} ${named}; ` +
		`run its study again to wait for them, or ${abandon} to make them again, streamed, at the full price`
	);
}
