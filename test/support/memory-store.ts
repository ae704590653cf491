import assert from 'node:assert/strict';
import type { Run } from '../../source/domain.ts';
import type { RunStore } from '../../source/engine/engine.ts';

type CallRecord = Parameters<RunStore['appendCall']>[0];

/** A RunStore kept in memory that checks, at every save, that the state is plain JSON. */
export class MemoryStore implements RunStore {
	readonly log: CallRecord[] = [];
	constructor(
		readonly data: { run: Run },
		readonly id = 'memory',
	) {}
	async save(): Promise<void> {
		// What a real store writes must survive JSON; a Map or undefined-in-array would not.
		assert.deepEqual(JSON.parse(JSON.stringify(this.data)), this.data);
	}
	async appendCall(record: CallRecord): Promise<void> {
		this.log.push(record);
	}
	async calls(): Promise<CallRecord[]> {
		return [...this.log];
	}
}
