import type { Run } from '../../domain.ts';
import type { EngineEvent } from '../../engine/events.ts';
import { reduce, type ViewState } from './view.ts';

export interface ViewFeedOptions {
	/** Most snapshots published per second: a stream of tokens re-renders at this rate, not per token. */
	fps?: number;
	now?: () => number;
	/** The run, read when an event reshapes the graph. */
	run?: () => Run;
}

/**
 * Feeds the screens the view model (it stores nothing on disk). Every event is folded at once (nothing is lost), but subscribers see a new
 * snapshot at most `fps` times a second: the first change after a quiet spell is published
 * immediately (a key press shows at once), later ones are batched until the interval has passed.
 */
export class ViewFeed {
	#current: ViewState;
	#published: ViewState;
	readonly #listeners = new Set<() => void>();
	readonly #interval: number;
	readonly #now: () => number;
	readonly #run: (() => Run) | undefined;
	#timer: ReturnType<typeof setTimeout> | null = null;
	#last = Number.NEGATIVE_INFINITY;
	#frozen = false;
	/** Snapshots published so far (the bench counts them). */
	published = 0;
	#printedFinals = 0;

	constructor(initial: ViewState, opts: ViewFeedOptions = {}) {
		this.#current = initial;
		this.#published = initial;
		this.#interval = 1000 / Math.max(1, opts.fps ?? 15);
		this.#now = opts.now ?? Date.now;
		this.#run = opts.run;
	}

	readonly dispatch = (event: EngineEvent): void => {
		this.#current = reduce(this.#current, event, { now: this.#now(), run: this.#run?.() });
		this.#schedule();
	};

	readonly getSnapshot = (): ViewState => this.#published;

	/** The newest state, published or not. */
	get current(): ViewState {
		return this.#current;
	}

	readonly subscribe = (listener: () => void): (() => void) => {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	};

	/**
	 * Final summaries already printed above the live area. The feed outlives the screens drawn
	 * from it, so a screen drawn again (after a dialog, another screen or $EDITOR) prints only newer ones.
	 */
	get printedFinals(): number {
		return this.#printedFinals;
	}

	/** The first `count` final summaries are printed. */
	markPrinted(count: number): void {
		this.#printedFinals = Math.max(this.#printedFinals, count);
	}

	/** Publishes what is pending now. */
	flush(): void {
		if (this.#timer) clearTimeout(this.#timer);
		this.#timer = null;
		this.#publish();
	}

	/**
	 * While frozen nothing is published (events are still folded): the terminal belongs to an
	 * external editor and the app must not draw over it.
	 */
	freeze(frozen: boolean): void {
		this.#frozen = frozen;
		if (!frozen) this.flush();
	}

	dispose(): void {
		if (this.#timer) clearTimeout(this.#timer);
		this.#timer = null;
		this.#listeners.clear();
	}

	#schedule(): void {
		if (this.#timer || this.#frozen) return;
		const wait = this.#last + this.#interval - this.#now();
		if (wait <= 0) this.#publish();
		else
			this.#timer = setTimeout(() => {
				this.#timer = null;
				this.#publish();
			}, wait);
	}

	#publish(): void {
		if (this.#frozen || this.#published === this.#current) return;
		this.#last = this.#now();
		this.#published = this.#current;
		this.published++;
		for (const listener of this.#listeners) listener();
	}
}
