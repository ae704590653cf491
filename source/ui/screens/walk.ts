import { errorMessage } from '../../errors.ts';
import type { Evidence } from '../components/EvidencePane.tsx';

/** What both walks (validation, faithfulness) are given: the walk itself, a title, the book's evidence, where to go. */
export interface WalkProps<Walk, Unit> {
	walk: Walk;
	title: string;
	/** The book's passages for a sentence, when the evidence slot is plugged in. */
	evidenceFor?: (unit: Unit) => readonly Evidence[];
	/** Esc with nothing open: back to the screen the walk was opened from (else quit). */
	onBack?: () => void;
	onQuit?: () => void;
}

/**
 * How a walk's save ended, for its model's status line: `done`'s words for it, or why it failed (the
 * command it names said as `program` starts booook).
 */
export function reportSave<T>(
	work: Promise<T>,
	done: (value: T) => string,
	dispatch: (msg: { type: 'done'; message: string }) => void,
	program: string,
): void {
	work.then(
		(value) => dispatch({ type: 'done', message: done(value) }),
		(error: unknown) => dispatch({ type: 'done', message: errorMessage(error, program) }),
	);
}
