import assert from 'node:assert/strict';
import type { Node, NodeRef, Run } from '../../source/domain.ts';
import type { RunStore } from '../../source/engine/engine.ts';
import { assignNode, patchedNode, type NodePatch, type RunPatch } from '../../source/store/changes.ts';

type CallRecord = Parameters<RunStore['appendCall']>[0];

/** A RunStore kept in memory that checks, at every change, that what changed is plain JSON. */
export class MemoryStore implements RunStore {
	readonly log: CallRecord[] = [];
	/** The durable writes a session would make: one an operation, one a `together`. */
	writes = 0;
	#together = false;
	constructor(
		readonly data: { run: Run },
		readonly id = 'memory',
	) {}
	async updateNode(id: NodeRef, patch: NodePatch): Promise<void> {
		if (!this.#together) this.writes++;
		const node = this.data.run.nodes.find((n) => n.id === id);
		assert.ok(node, `no node ${id}`);
		assignNode(node, patchedNode(node, patch));
		plain(node);
	}
	async addNodes(...nodes: Node[]): Promise<void> {
		if (!this.#together) this.writes++;
		this.data.run.nodes.push(...nodes);
		plain(nodes);
	}
	async updateRun(patch: RunPatch): Promise<void> {
		if (!this.#together) this.writes++;
		Object.assign(this.data.run, patch);
		plain(patch);
	}
	// Not async: as the session's, what `make` throws is thrown here, not turned into a rejection.
	together(make: () => void): Promise<void> {
		this.writes++;
		this.#together = true;
		try {
			make();
		} finally {
			this.#together = false;
		}
		return Promise.resolve();
	}
	async appendCall(record: CallRecord): Promise<void> {
		this.log.push(record);
	}
	async calls(): Promise<CallRecord[]> {
		return [...this.log];
	}
}

/** What a real store writes must survive JSON; a Map or undefined-in-array would not. */
function plain(value: unknown): void {
	assert.deepEqual(JSON.parse(JSON.stringify(value)), value);
}
