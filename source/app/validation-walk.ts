import { scoredSpans } from '../score/annotate.ts';
import { Watched } from './watched.ts';
import type { Annotation, ErrorType, Judgment, ScoredSummary, Span, Verdict, Walk } from '../domain.ts';
import { nextAnnotationId } from '../score/annotate.ts';
import { undoLast, walkItems, type WalkOptions } from '../score/validation.ts';
import type { Session } from '../store/session.ts';

/**
 * A validator's walk over one session's annotations, saved as it goes: every verdict, undo and
 * added annotation is written to session.json before the promise resolves, so quitting (or a
 * crash) between two key presses loses nothing. Screens subscribe and re-render on change.
 */
export class ValidationWalk extends Watched {
	readonly items: Annotation[];
	readonly summaries: Map<ScoredSummary['id'], ScoredSummary>;
	readonly #session: Session;
	readonly #startedAt: string;

	constructor(
		session: Session,
		readonly validator: string,
		readonly settings: WalkOptions,
		private readonly now: () => Date = () => new Date(),
	) {
		super();
		this.#session = session;
		// A walk begun before keeps its start: the annotations made by hand since then stay out of it.
		this.#startedAt = this.#record()?.startedAt ?? now().toISOString();
		this.items = walkItems(session.data, settings, { validator, startedAt: this.#startedAt });
		this.summaries = new Map(session.data.summaries.map((s) => [s.id, s]));
	}

	/** This walk's record in the session, once begun. */
	#record(): Walk | undefined {
		const fraction = this.#fraction();
		return this.#session.data.walks?.find(
			(w) =>
				w.validator === this.validator &&
				w.mode === this.settings.mode &&
				w.seed === this.settings.seed &&
				w.fraction === fraction,
		);
	}

	#fraction(): number | null {
		return this.settings.mode === 'sample' ? (this.settings.fraction ?? 0.2) : null;
	}

	/** The parts of the session a report reads. */
	get session(): {
		summaries: readonly ScoredSummary[];
		annotations: readonly Annotation[];
		judgments: readonly Judgment[];
		walks?: readonly Walk[];
	} {
		return this.#session.data;
	}

	/**
	 * Records that this validator began this walk (once; walking it again adds nothing), so that a
	 * report run before a blind walk is done keeps their precision pooled over both sources.
	 */
	async begin(): Promise<void> {
		const begun = await this.#session.beginWalk({
			validator: this.validator,
			mode: this.settings.mode,
			seed: this.settings.seed,
			fraction: this.#fraction(),
			startedAt: this.#startedAt,
		});
		if (begun) this.changed();
	}

	get judgments(): readonly Judgment[] {
		return this.#session.data.judgments;
	}

	get annotations(): readonly Annotation[] {
		return this.#session.data.annotations;
	}

	async judge(
		annotation: Annotation['id'],
		verdict: Verdict,
		reasons: readonly string[] = [],
		note: string | null = null,
	): Promise<void> {
		if (!this.annotations.some((a) => a.id === annotation)) throw new Error(`no annotation ${annotation}`);
		await this.#session.append('judgments', {
			annotation,
			validator: this.validator,
			verdict,
			reasons: verdict === 'partial' ? [...reasons] : [],
			note,
			at: this.now().toISOString(),
		});
		this.changed();
	}

	/** Takes back this validator's latest action (a verdict, a note, or a verdict with its note); resolves what it removed. */
	async undo(): Promise<Judgment[]> {
		// Worked out on a copy: the session removes what it names, and writes that down.
		const undone = undoLast([...this.#session.data.judgments], this.validator);
		await this.#session.remove('judgments', undone);
		if (undone.length > 0) this.changed();
		return undone;
	}

	/**
	 * A person's own annotation: one span (a single) or two (a relation: one confusion in two
	 * places), with questions and error types. It is stored with source human and the validator's
	 * name, so someone else can later judge it blind.
	 */
	async annotate(
		summary: ScoredSummary['id'],
		spans: readonly Span[],
		questions: string,
		types: readonly ErrorType[],
	): Promise<Annotation> {
		const target = this.summaries.get(summary);
		if (!target) throw new Error(`no summary ${summary}`);
		if (spans.length < 1 || spans.length > 2)
			throw new Error('an annotation has one span, or two for a relation');
		if (types.length === 0) throw new Error('pick at least one error type');
		if (questions.trim() === '') throw new Error('write the clarifying questions');
		const first = [...spans].sort((a, b) => a.start - b.start)[0]!;
		const sentence = scoredSpans(target).findIndex((s) => s.end > first.start);
		const annotation: Annotation = {
			id: nextAnnotationId(this.#session.data.annotations),
			summary,
			sentence: sentence === -1 ? null : sentence,
			spans: spans.map((s) => ({ start: s.start, end: s.end })),
			confusing: true,
			questions: questions.trim(),
			types: [...new Set(types)],
			source: 'human',
			annotator: this.validator,
			imported: null,
			raw: null,
			failure: null,
			createdAt: this.now().toISOString(),
		};
		await this.#session.append('annotations', annotation);
		this.changed();
		return annotation;
	}
}
