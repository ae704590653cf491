import { Watched } from './watched.ts';
import type { FaithfulnessLabel, FaithfulnessVerdict, ScoredSummary } from '../domain.ts';
import { faithfulnessUnits, undoLastFaithfulness, type FaithfulnessUnit } from '../score/faithfulness.ts';
import { partialUnits } from '../score/partial-faithfulness.ts';
import { currentSummaries } from '../score/session-score.ts';
import type { Session } from '../store/session.ts';

/**
 * A faithfulness walk over one session's summaries (LongEval's fine-grained units: one sentence
 * each), saved as it goes like the annotation walk: every verdict and undo is written before the
 * promise resolves. A book session's walk covers its final summary (pinned, as scoring pins it);
 * a collection's, all of its summaries. A partial walk (`fraction` below 1, LongEval §3.2) covers
 * a random share of each summary's sentences, drawn from the seed and the validator's name.
 */

/** Which walk: `fraction` null (or 1) is every sentence; otherwise that share of each summary's, drawn with `seed`. */
export interface FaithfulnessWalkOptions {
	seed: number;
	fraction: number | null;
}
export class FaithfulnessWalk extends Watched {
	readonly #session: Session;
	#units: FaithfulnessUnit[] = [];

	constructor(
		session: Session,
		readonly validator: string,
		private readonly now: () => Date = () => new Date(),
		readonly settings: FaithfulnessWalkOptions = { seed: 2024, fraction: null },
	) {
		super();
		this.#session = session;
	}

	/**
	 * Pins the final summary (a book run's, if not pinned yet), lists the walk's sentences, and
	 * records the walk once per validator, seed and fraction, so the report knows who annotated
	 * partially and with what share.
	 */
	async begin(): Promise<void> {
		const ids = new Set(await this.#session.scoredSummaries());
		const data = this.#session.data;
		const shown = currentSummaries(data.summaries, data.kind === 'book' ? data.run : undefined).filter((s) =>
			ids.has(s.id),
		);
		const all = faithfulnessUnits(shown);
		const { seed, fraction } = this.settings;
		this.#units = this.partial
			? partialUnits(all, { seed, validator: this.validator, fraction: fraction! })
			: all;
		await this.#session.beginWalk({
			validator: this.validator,
			mode: 'faithfulness',
			seed,
			fraction,
			startedAt: this.now().toISOString(),
		});
	}

	/** Whether this walk covers only a share of each summary's sentences. */
	get partial(): boolean {
		return this.settings.fraction !== null && this.settings.fraction < 1;
	}

	get units(): readonly FaithfulnessUnit[] {
		return this.#units;
	}

	get verdicts(): readonly FaithfulnessVerdict[] {
		return this.#session.data.faithfulness ?? [];
	}

	summary(id: ScoredSummary['id']): ScoredSummary | undefined {
		return this.#session.data.summaries.find((s) => s.id === id);
	}

	/** This validator's verdict on a unit of the walk (a later one replaces it; undo brings it back). */
	async mark(
		unit: Pick<FaithfulnessUnit, 'summary' | 'sentence'>,
		label: FaithfulnessLabel,
		note: string | null = null,
	): Promise<void> {
		if (!this.#units.some((u) => u.summary === unit.summary && u.sentence === unit.sentence))
			throw new Error(`no sentence ${unit.sentence + 1} of ${unit.summary} in this walk`);
		const verdict: FaithfulnessVerdict = {
			summary: unit.summary,
			sentence: unit.sentence,
			label,
			note,
			validator: this.validator,
			origin: 'human',
			at: this.now().toISOString(),
		};
		// A verdict is one journaled line; a session from before faithfulness verdicts gets the list now.
		await this.#session.append('faithfulness', verdict);
		this.changed();
	}

	/** Takes back this validator's latest verdict; resolves it, or null when there was none. */
	async undo(): Promise<FaithfulnessVerdict | null> {
		// Worked out on a copy: the session removes what it names, and writes that down.
		const undone = undoLastFaithfulness([...(this.#session.data.faithfulness ?? [])], this.validator);
		if (!undone) return null;
		await this.#session.remove('faithfulness', [undone]);
		this.changed();
		return undone;
	}
}
