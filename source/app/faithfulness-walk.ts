import { Watched } from './watched.ts';
import type { FaithfulnessLabel, FaithfulnessRating, FaithfulnessVerdict, ScoredSummary } from '../domain.ts';
import {
	claimUnits,
	faithfulnessUnits,
	faithfulnessVerdictsOf,
	undoLastFaithfulness,
	unitKey,
	type FaithfulnessUnit,
	type UnitKind,
} from '../score/faithfulness.ts';
import { partialUnits } from '../score/partial-faithfulness.ts';
import { currentSummaries } from '../score/session-score.ts';
import type { Session } from '../store/session.ts';

/**
 * A faithfulness walk over one session's summaries (LongEval's fine-grained units), saved as it
 * goes like the annotation walk: every verdict and undo is written before the promise resolves.
 * Its units are the sentences, or the atomic claims a model judge split them into (`switchUnits`):
 * LongEval judged clauses because whole sentences were "overloaded", and judging the claims the
 * model judged makes the two comparable claim by claim. A book session's walk covers its final
 * summary (pinned, as scoring pins it); a collection's, all of its summaries. A partial walk
 * (`fraction` below 1, LongEval §3.2) covers a random share of each summary's sentences, drawn
 * from the seed and the validator's name, and their claims. Before a summary's sentences, the
 * validator may rate the whole summary 1 to 5 (LongEval's coarse protocol), saved the same way.
 */

/** Which walk: `fraction` null (or 1) is every sentence; otherwise that share of each summary's, drawn with `seed`. */
export interface FaithfulnessWalkOptions {
	seed: number;
	fraction: number | null;
}
export class FaithfulnessWalk extends Watched {
	readonly #session: Session;
	#sentences: FaithfulnessUnit[] = [];
	#claims: FaithfulnessUnit[] = [];
	#kind: UnitKind = 'sentences';

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
		this.#sentences = this.partial
			? partialUnits(all, { seed, validator: this.validator, fraction: fraction! })
			: all;
		this.#claims = claimUnits(this.#sentences, this.verdicts);
		// It opens on the kind of unit last judged, so a walk cut short goes on where it was.
		const walked = new Set([...this.#sentences, ...this.#claims].map(unitKey));
		const last = [...this.verdicts]
			.reverse()
			.find((v) => v.validator === this.validator && walked.has(unitKey(v)));
		this.#kind = last?.claim && this.#claims.length > 0 ? 'claims' : 'sentences';
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
		return this.#kind === 'claims' ? this.#claims : this.#sentences;
	}

	/** What the walk's units are now: whole sentences, or claims. */
	get unitKind(): UnitKind {
		return this.#kind;
	}

	/** The model judge whose split into claims the walk offers; null when no model judged with claims. */
	get claimJudge(): string | null {
		return this.#claims[0]?.claim?.judge ?? null;
	}

	/**
	 * From sentences to the claims a model judge split them into, or back; resolves the kind now
	 * judged, or null (staying on sentences) when no model has split the walk's sentences yet.
	 * Nothing is written: the walk reopens on the kind of its validator's latest verdict.
	 */
	switchUnits(): UnitKind | null {
		if (this.#kind === 'claims') this.#kind = 'sentences';
		else {
			// A judging run since the walk opened counts.
			this.#claims = claimUnits(this.#sentences, this.verdicts);
			if (this.#claims.length === 0) return null;
			this.#kind = 'claims';
		}
		this.changed();
		return this.#kind;
	}

	/** This validator's verdicts on the walk's current units, by unit key. */
	mine(): Map<string, FaithfulnessVerdict> {
		return faithfulnessVerdictsOf(this.verdicts, this.validator);
	}

	get verdicts(): readonly FaithfulnessVerdict[] {
		return this.#session.data.faithfulness ?? [];
	}

	/** This validator's current coarse rating of each summary (the latest given), by summary id. */
	ratings(): Map<ScoredSummary['id'], FaithfulnessRating> {
		const out = new Map<ScoredSummary['id'], FaithfulnessRating>();
		for (const r of this.#session.data.faithfulnessRatings ?? [])
			if (r.validator === this.validator) out.set(r.summary, r);
		return out;
	}

	/**
	 * Rates a summary of the walk as a whole, 1 to 5 (a later rating replaces it). One journaled
	 * line, as a verdict is; a session from before ratings gets the list now.
	 */
	async rate(summary: ScoredSummary['id'], rating: number): Promise<void> {
		if (!this.units.some((u) => u.summary === summary)) throw new Error(`no summary ${summary} in this walk`);
		await this.#session.append('faithfulnessRatings', {
			summary,
			rating,
			validator: this.validator,
			at: this.now().toISOString(),
		});
		this.changed();
	}

	summary(id: ScoredSummary['id']): ScoredSummary | undefined {
		return this.#session.data.summaries.find((s) => s.id === id);
	}

	/** This validator's verdict on a unit of the walk (a later one replaces it; undo brings it back). */
	async mark(
		unit: Pick<FaithfulnessUnit, 'summary' | 'sentence' | 'claim'>,
		label: FaithfulnessLabel,
		note: string | null = null,
	): Promise<void> {
		const key = unitKey(unit);
		const found = this.units.find((u) => unitKey(u) === key);
		if (!found)
			throw new Error(
				`no ${unit.claim ? `claim ${unit.claim.index + 1} of ` : ''}sentence ${unit.sentence + 1} of ${unit.summary} in this walk`,
			);
		const verdict: FaithfulnessVerdict = {
			summary: unit.summary,
			sentence: unit.sentence,
			label,
			note,
			validator: this.validator,
			origin: 'human',
			at: this.now().toISOString(),
			...(found.claim && { claim: found.claim }),
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
