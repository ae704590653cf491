import { CRITERIA, type Criterion } from '../../../score/compare.ts';
import { CRITERION_NAME } from '../../../format/compare.ts';
import type { Action, Place } from '../../keys/binding.ts';
import { stay, type KeyMsg, type Step, type Update } from '../../model.ts';
import { helpScroll } from '../../state/help-keys.ts';
import { noteKey } from '../../state/note-field.ts';
import { fieldOf, type TextField } from '../../state/text-field.ts';

/**
 * The comparison screen's state and what its keys do, as one pure update: which pair is shown,
 * the criterion under the cursor, how far both summaries are scrolled, the note field or the help,
 * and one line of feedback. Answers are in the screen's terms (the summary shown first or second);
 * the walk stores them as the pair's own, so the shown order never reaches the results.
 */

export type Shown = 'first' | 'second' | 'tie';

export type CompareOverlay =
	| { kind: 'none' }
	| { kind: 'note'; pair: number; field: TextField; before: string }
	| { kind: 'help'; scroll: number };

export interface CompareState {
	index: number;
	criterion: number;
	scroll: number;
	overlay: CompareOverlay;
	message: string | null;
	quitting: boolean;
}

/** What the update reads of the walk, as it is when the message arrives. */
export interface CompareWorld {
	pairs: number;
	/** This annotator's answers per pair (by its index), as shown. */
	answers: ReadonlyMap<number, Partial<Record<Criterion, Shown>>>;
	notes: ReadonlyMap<number, string | null>;
	/** The pair and criterion of the latest answer or note (what undo takes back), or null. */
	latest: { pair: number; criterion: number | null } | null;
	/** Rows a page of the summaries scrolls. */
	page: number;
}

export type CompareMsg = KeyMsg | { type: 'done'; message: string };

export type CompareEffect =
	| { kind: 'choose'; pair: number; criterion: Criterion; choice: Shown; done: string }
	| { kind: 'note'; pair: number; note: string | null; done: string }
	| { kind: 'undo' }
	| { kind: 'quit' }
	| { kind: 'back' };

const CHOICE_OF: Partial<Record<Action, Shown>> = {
	preferFirst: 'first',
	preferSecond: 'second',
	tie: 'tie',
};

/** How an answer reads: "A", "B", "tie". */
export const SHOWN_WORD: Record<Shown, string> = { first: 'A', second: 'B', tie: 'tie' };

/** The first criterion a pair has no answer to (the first, when it has all). */
export function openCriterion(answers: Partial<Record<Criterion, Shown>> | undefined): number {
	const at = CRITERIA.findIndex((c) => answers?.[c] === undefined);
	return at === -1 ? 0 : at;
}

/** Whether a pair has an answer to every criterion. */
export function judged(answers: Partial<Record<Criterion, Shown>> | undefined): boolean {
	return CRITERIA.every((c) => answers?.[c] !== undefined);
}

export function init(index: number, world: Pick<CompareWorld, 'answers'>): CompareState {
	return {
		index,
		criterion: openCriterion(world.answers.get(index)),
		scroll: 0,
		overlay: { kind: 'none' },
		message: null,
		quitting: false,
	};
}

/** Whose keys a press is looked up in. */
export function screenOf(overlay: CompareOverlay): Place {
	return overlay.kind === 'none' ? 'compare' : overlay.kind === 'note' ? 'field' : 'help';
}

type Result = Step<CompareState, CompareEffect>;

export const update: Update<CompareState, CompareMsg, CompareEffect, CompareWorld> = (
	state,
	msg,
	world,
): Result => {
	if (msg.type === 'done') return stay({ ...state, message: msg.message });
	if (state.quitting) return stay(state);
	if (msg.action === 'quit') return stay({ ...state, quitting: true }, [{ kind: 'quit' }]);
	const now = { ...state, message: null };
	const { overlay } = now;
	const close = (message: string | null = null): CompareState => ({
		...now,
		overlay: { kind: 'none' },
		message,
	});
	if (overlay.kind === 'help') {
		const scroll = helpScroll(overlay.scroll, msg.action, world.page);
		return stay(scroll === null ? close() : { ...now, overlay: { kind: 'help', scroll } });
	}
	if (overlay.kind === 'note') {
		const key = noteKey(overlay.field, overlay.before, msg.action, msg.press);
		if (key.type === 'edit') return stay({ ...now, overlay: { ...overlay, field: key.field } });
		if (key.type === 'close') return stay(close(key.message));
		return stay(close(), [{ kind: 'note', pair: overlay.pair, note: key.note, done: key.done }]);
	}
	if (world.pairs === 0) return stay(now, msg.action === 'back' ? [{ kind: 'back' }] : []);
	const answers = world.answers.get(now.index);
	const goTo = (index: number): CompareState => ({
		...now,
		index,
		criterion: openCriterion(world.answers.get(index)),
		scroll: 0,
	});
	const choice = msg.action ? CHOICE_OF[msg.action] : undefined;
	if (choice) {
		const criterion = CRITERIA[now.criterion]!;
		if (answers?.[criterion] === choice)
			return stay({
				...now,
				message: `unchanged: ${CRITERION_NAME[criterion]} is already ${SHOWN_WORD[choice]}; nothing saved`,
			});
		const after = { ...answers, [criterion]: choice };
		const done = judged(after)
			? `saved: ${CRITERION_NAME[criterion]} ${SHOWN_WORD[choice]} · pair judged; n for the next`
			: `saved: ${CRITERION_NAME[criterion]} ${SHOWN_WORD[choice]}`;
		// On to the next criterion not answered; a pair answered whole stays, so who made it can be read.
		const next = CRITERIA.findIndex((c, i) => i > now.criterion && after[c] === undefined);
		const open = next !== -1 ? next : CRITERIA.findIndex((c) => after[c] === undefined);
		return stay({ ...now, criterion: open === -1 ? now.criterion : open }, [
			{ kind: 'choose', pair: now.index, criterion, choice, done },
		]);
	}
	switch (msg.action) {
		case 'back':
			return stay(now, [{ kind: 'back' }]);
		case 'help':
			return stay({ ...now, overlay: { kind: 'help', scroll: 0 } });
		case 'up':
			return stay({ ...now, criterion: Math.max(0, now.criterion - 1) });
		case 'down':
			return stay({ ...now, criterion: Math.min(CRITERIA.length - 1, now.criterion + 1) });
		case 'left':
			return stay(now.index === 0 ? { ...now, message: 'this is the first pair' } : goTo(now.index - 1));
		case 'right':
			return stay(
				now.index >= world.pairs - 1 ? { ...now, message: 'this is the last pair' } : goTo(now.index + 1),
			);
		case 'scrollUp':
			return stay({ ...now, scroll: Math.max(0, now.scroll - world.page) });
		case 'scrollDown':
			return stay({ ...now, scroll: now.scroll + world.page });
		case 'nextUnjudged': {
			for (let k = 1; k <= world.pairs; k++) {
				const i = (now.index + k) % world.pairs;
				if (!judged(world.answers.get(i))) return stay(goTo(i));
			}
			return stay({ ...now, message: 'every pair is judged' });
		}
		case 'undo': {
			const latest = world.latest;
			if (latest === null) return stay({ ...now, message: 'nothing to undo' });
			return stay(
				{
					...goTo(latest.pair),
					criterion: latest.criterion ?? openCriterion(world.answers.get(latest.pair)),
				},
				[{ kind: 'undo' }],
			);
		}
		case 'note': {
			const before = world.notes.get(now.index) ?? '';
			return stay({ ...now, overlay: { kind: 'note', pair: now.index, field: fieldOf(before), before } });
		}
		default:
			return stay(now);
	}
};
