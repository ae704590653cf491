import { counted } from './count.ts';

/** What a batch change line reads of a batch (llm/batcher.ts `BatchState`). */
type ShownBatch = Record<'id' | 'provider' | 'model' | 'status', string> &
	Record<'done' | 'total', number> &
	Record<'succeeded' | 'errored', number | null> & { cells: readonly string[] };

/** One stderr line per batch change, for a headless study. */
export function batchLine(
	state: ShownBatch,
	change: 'submitted' | 'attached' | 'progress' | 'ended' | 'failed',
	detail?: string,
): string {
	const cells = counted(state.cells.length, 'cell');
	switch (change) {
		case 'submitted':
			return `batch ${state.id}: submitted, ${counted(state.total, 'request')} from ${cells} (${state.provider}/${state.model})`;
		case 'attached':
			return `batch ${state.id}: submitted by an earlier run, waiting for it again (${state.provider}/${state.model})`;
		case 'progress':
			return `batch ${state.id}: ${state.status.replace(/_/gu, ' ')} ${state.done}/${state.total}`;
		case 'ended':
			return `batch ${state.id}: ended: ${state.succeeded ?? 0} succeeded, ${state.errored ?? 0} errored${detail ? `; ${detail}` : ''}`;
		case 'failed':
			return `batch ${state.id}: failed: ${detail ?? state.status}`;
	}
}
