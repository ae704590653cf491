import type { Run } from '../../source/domain.ts';
import type { RunStore } from '../../source/engine/engine.ts';

type CallRecord = Parameters<RunStore['appendCall']>[0];

/** A RunStore kept in memory, with the snapshots a crash would leave (one per save). */
export class MemoryStore implements RunStore {
	readonly log: CallRecord[] = [];
	saves = 0;
	constructor(
		readonly data: { run: Run },
		readonly id = 'memory',
	) {}
	async save(): Promise<void> {
		this.saves++;
		structuredClone(this.data);
	}
	async appendCall(record: CallRecord): Promise<void> {
		this.log.push(record);
	}
	async calls(): Promise<CallRecord[]> {
		return [...this.log];
	}
}
