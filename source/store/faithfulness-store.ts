import type { FaithLabel, FaithVerdict, ScoredSummary } from '../domain.ts';
import { faithUnits, undoLastFaith, type FaithUnit } from '../score/faithfulness.ts';
import { currentSummaries } from '../score/session-score.ts';
import { scoredSummaries } from './scored-summaries.ts';
import type { Session } from './session.ts';

/**
 * A faithfulness walk over one session's summaries (LongEval's fine-grained units: one sentence
 * each), saved as it goes like the annotation walk: every verdict and undo is written before the
 * promise resolves. A book session's walk covers its final summary (pinned, as scoring pins it);
 * a collection's, all of its summaries.
 */
export class FaithfulnessStore {
	readonly #session: Session;
	#units: FaithUnit[] = [];
	#version = 0;
	readonly #listeners = new Set<() => void>();

	constructor(
		session: Session,
		readonly validator: string,
		private readonly now: () => Date = () => new Date(),
	) {
		this.#session = session;
	}

	/** Pins the final summary (a book run's, if not pinned yet) and lists the walk's sentences. */
	async begin(): Promise<void> {
		const data = this.#session.data;
		const before = data.summaries.length;
		const ids = new Set(scoredSummaries(data));
		if (data.summaries.length !== before) await this.#session.save();
		const shown = currentSummaries(data.summaries, data.kind === 'book' ? data.run : undefined).filter((s) => ids.has(s.id));
		this.#units = faithUnits(shown);
	}

	get units(): readonly FaithUnit[] {
		return this.#units;
	}

	get verdicts(): readonly FaithVerdict[] {
		return this.#session.data.faithfulness ?? [];
	}

	summary(id: ScoredSummary['id']): ScoredSummary | undefined {
		return this.#session.data.summaries.find((s) => s.id === id);
	}

	readonly getVersion = (): number => this.#version;

	readonly subscribe = (listener: () => void): (() => void) => {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	};

	/** This validator's verdict on a unit of the walk (a later one replaces it; undo brings it back). */
	async mark(unit: Pick<FaithUnit, 'summary' | 'sentence'>, label: FaithLabel, note: string | null = null): Promise<void> {
		if (!this.#units.some((u) => u.summary === unit.summary && u.sentence === unit.sentence)) throw new Error(`no sentence ${unit.sentence + 1} of ${unit.summary} in this walk`);
		const data = this.#session.data;
		const verdict: FaithVerdict = { summary: unit.summary, sentence: unit.sentence, label, note, validator: this.validator, origin: 'human', at: this.now().toISOString() };
		// A session from before faithfulness verdicts gets the list now.
		(data.faithfulness ??= []).push(verdict);
		await this.#saved();
	}

	/** Takes back this validator's latest verdict; resolves it, or null when there was none. */
	async undo(): Promise<FaithVerdict | null> {
		const list = this.#session.data.faithfulness;
		const undone = list ? undoLastFaith(list, this.validator) : null;
		if (undone) await this.#saved();
		return undone;
	}

	async #saved(): Promise<void> {
		await this.#session.save();
		this.#version += 1;
		for (const listener of this.#listeners) listener();
	}
}
