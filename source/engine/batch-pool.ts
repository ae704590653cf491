import type { ProviderName } from '../domain.ts';
import { BatchJournal } from '../store/batch-journal.ts';
import {
	Batcher,
	type BatchChange,
	type BatchLane,
	type BatchListener,
	type BatchState,
} from '../llm/batcher.ts';
import { createBatchApi } from '../llm/create.ts';

export interface BatchPoolOptions {
	/** Seconds between polls of a batch in progress; seconds without a new call before gathered calls go out. */
	poll?: number;
	gather?: number;
	/** Most requests in one batch. */
	size?: number;
	env?: NodeJS.ProcessEnv;
}

/**
 * The batchers of a study: one per provider, model and server, shared by every cell (its run and its
 * scoring) that calls that model, so their calls go out together. Screens read `states()` and hear
 * of each change through `on`.
 */
export class BatchPool {
	private readonly batchers = new Map<string, Batcher>();
	/** One journal per session, whichever lanes (its run's, its scoring's) write to it: one queue, so its lines never interleave. */
	private readonly journals = new Map<string, Promise<BatchJournal>>();
	private readonly listeners = new Set<BatchListener>();

	constructor(private readonly opts: BatchPoolOptions = {}) {}

	/**
	 * Where one session's calls to `model` go: the session's batches.jsonl records each batch, and
	 * `cell` names the session in the batch states. Throws the one-line error of a missing key.
	 */
	async lane(
		model: { provider: ProviderName; model: string; baseUrl: string | null },
		session: { id: string; path: string },
		cell: string,
	): Promise<BatchLane> {
		const key = JSON.stringify([model.provider, model.model, model.baseUrl]);
		let batcher = this.batchers.get(key);
		if (!batcher) {
			const seconds = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
			batcher = new Batcher({
				api: createBatchApi({ ...model, env: this.opts.env }),
				pollMs: seconds(this.opts.poll),
				gatherMs: seconds(this.opts.gather),
				maxSize: this.opts.size,
			});
			batcher.on((state, change, detail) => {
				for (const listener of this.listeners) listener(state, change, detail);
			});
			this.batchers.set(key, batcher);
		}
		let journal = this.journals.get(session.path);
		if (!journal) {
			journal = BatchJournal.open(session.path);
			this.journals.set(session.path, journal);
		}
		return batcher.lane({ session: session.id, cell, journal: await journal });
	}

	/** Every batch of the study this process submitted or waits for, as it last stood. */
	states(): BatchState[] {
		return [...this.batchers.values()].flatMap((b) => b.states());
	}

	on(listener: (state: BatchState, change: BatchChange, detail?: string) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Stops polling; batches still running are recorded in their sessions for the next run. */
	close(): void {
		for (const batcher of this.batchers.values()) batcher.close();
	}
}
