import { sentencesLine } from '../format/progress.ts';
import { statusLine, type Stream } from './output.ts';

/** How often the progress of a long `evidence` or `coverage` is redrawn, and how long it waits before the first. */
export const PROGRESS_EVERY_MS = 1000;

export interface SentenceProgress {
	/** `done` sentences are done: redrawn when a second has passed since the last draw. */
	tick(done: number): void;
	/** All are done: a progress line that was drawn shows the total and is ended. */
	end(): void;
}

/** A progress line redrawn at most once a second, the first after a second: long work's only. */
export interface ThrottledLine {
	/** Draws `text()` when a second has passed since the last draw, or at once when `last`. */
	tick(text: () => string, last?: boolean): void;
	/** Ends a line that was drawn (one never drawn: nothing). */
	end(): void;
}

export function throttledLine(stream: Stream, clock: () => number = () => performance.now()): ThrottledLine {
	// Throttled here, to a line a second on a pipe too: the line's own pace would be a clock of its own.
	const line = statusLine(stream, clock, 0);
	let next = clock() + PROGRESS_EVERY_MS;
	let drawn = false;
	return {
		tick(text, last = false) {
			const now = clock();
			if (now < next && !(last && drawn)) return;
			next = now + PROGRESS_EVERY_MS;
			drawn = true;
			line.draw(text());
		},
		end() {
			if (drawn) line.end();
		},
	};
}

/**
 * Progress over a node's sentences on `stream` (stderr): nothing for work that ends within a second,
 * then "evidence of n51: 12,000 of 190,000 sentences (6%), 14s" once a second.
 */
export function sentenceProgress(
	stream: Stream,
	what: string,
	total: number,
	clock: () => number = () => performance.now(),
): SentenceProgress {
	const line = throttledLine(stream, clock);
	const started = clock();
	const text = (done: number) => () => sentencesLine(what, done, total, (clock() - started) / 1000);
	return {
		tick: (done) => line.tick(text(done)),
		end() {
			line.tick(text(total), true);
			line.end();
		},
	};
}

/**
 * Writes to `stream` that wait while its buffer is full, so output made faster than a pipe is read
 * is not all held in memory. A stream that closes or fails ends the wait (the CLI exits on EPIPE).
 */
export function writer(stream: Stream): (text: string) => Promise<void> {
	return async (text) => {
		if (stream.write(text)) return;
		await new Promise<void>((resolve) => {
			const done = () => {
				stream.off('drain', done);
				stream.off('close', done);
				stream.off('error', done);
				resolve();
			};
			stream.on('drain', done);
			stream.on('close', done);
			stream.on('error', done);
		});
	};
}
