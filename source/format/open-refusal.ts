import { next, said, type Said } from '../program.ts';
import { oneLine } from '../text/sanitize.ts';
import { counted } from './count.ts';

/** Why a saved session was not opened, worded; the edge says the commands it names (program.ts `say`). */

/** Requests a study left in provider batches (structurally app/open-session.ts's `BatchesAwaited`). */
interface BatchesAwaited {
	id: string;
	requests: number;
	batches: readonly string[];
}

/** The refusal of `awaited`, with `abandon`: how to make them again where it is read (a flag, a command). */
export function batchesLine(awaited: BatchesAwaited, abandon: Said): Said {
	const { id, requests, batches } = awaited;
	const named = `${batches.slice(0, 3).join(', ')}${batches.length > 3 ? ` and ${batches.length - 3} more` : ''}`;
	const out = `session ${id} has ${counted(requests, 'request')} still out in provider batch${batches.length === 1 ? '' : 'es'} ${named}`;
	return said`${out}; run its study again to wait for them, or ${abandon} to make them again, streamed, at the full price`;
}

/** Why a session was not opened (structurally app/open-session.ts's `OpenRefusal`). */
type OpenRefusal = (BatchesAwaited & { kind: 'batches' }) | { kind: 'imported'; id: string; file: string };

/**
 * Why a saved session was not opened, one line: after `booook resume` (`from: 'resume'`, where
 * `--abandon-batches` can be added) or on the home screen, which names the command that can;
 * `where`: the words that reach the session's folder (config.ts `sessionsDirArg`).
 */
export function refusal(reason: OpenRefusal, where: string, from: 'resume' | 'home'): Said {
	const at = `${reason.id}${where}`;
	switch (reason.kind) {
		case 'batches':
			return batchesLine(
				reason,
				from === 'resume'
					? 'add --abandon-batches'
					: said`continue it with ${next('resume', `${at} --abandon-batches`)}`,
			);
		case 'imported': {
			const read = said`${next('evidence', at)}, ${next('coverage', at)} or ${next('report', at)}`;
			return said`session ${reason.id} holds a summary imported from ${oneLine(reason.file)}: there is nothing to run; read it with ${read}`;
		}
	}
}
