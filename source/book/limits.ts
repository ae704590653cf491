import { badInput, type UserError } from '../errors.ts';
import { fixed } from '../format/number.ts';

/**
 * The largest book booook reads: 32 MB of text, ten times War and Peace and three times the
 * longest novels in print. Every step holds the whole book in memory several times over (its
 * tokens, its chunks, the run's state, the evidence index), and their time grows with it: at
 * 32 MB `plan` takes 10 s and 0.4 GB for prose (up to 40 s and 0.9 GB for degenerate text such as
 * one line of 16 million words), an extractive `run` about 90 s and 0.6 GB, while a 200 MB book
 * took 54 s and 1.9 GB to plan and 2.5 GB to run. A bigger file is refused before it is read, so
 * what it costs is a `stat`.
 */
export const MAX_BOOK_BYTES = 32 * 1024 * 1024;

/** "32 MB", "200.5 MB": rounded up, so a size just over a limit never reads as the limit. */
export function megabytes(bytes: number): string {
	const mb = bytes / (1024 * 1024);
	return `${Number.isInteger(mb) ? mb : fixed(Math.ceil(mb * 10) / 10, 1)} MB`;
}

/** The one-line refusal of a book over MAX_BOOK_BYTES; `what` says how big it is ("the file is 200 MB"). */
export function tooBig(label: string, what: string): UserError {
	return badInput(
		`${label}: ${what}, and booook reads books of up to ${megabytes(MAX_BOOK_BYTES)} of text (the whole book is held in memory at every step); ` +
			`split it into parts of at most ${megabytes(MAX_BOOK_BYTES)} and summarize each part`,
	);
}
