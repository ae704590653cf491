import type { FaithfulnessLabel, FaithfulnessVerdict } from '../../../domain.ts';
import { FAITHFULNESS_WORD, type FaithfulnessUnit } from '../../../score/faithfulness.ts';
import type { Action, Place } from '../../keys/binding.ts';
import { fieldOf, type TextField } from '../../state/text-field.ts';
import { noteKey } from '../../state/note-field.ts';
import { stay, type KeyMsg, type Step, type Update } from '../../model.ts';
import { helpScroll } from '../../state/help-keys.ts';

/**
 * The faithfulness walk's screen state and what its keys do, as one pure update (as the validation
 * walk's model.ts is for the annotation walk): which sentence is shown, whether the note field or
 * the help is open, and one line of feedback. Verdicts to save come out as effects, which the screen hands to the store.
 */

export type FaithfulnessOverlay =
	| { kind: 'none' }
	| { kind: 'note'; unit: number; field: TextField; before: string }
	| { kind: 'help'; scroll: number };

export interface FaithfulnessState {
	index: number;
	overlay: FaithfulnessOverlay;
	message: string | null;
	quitting: boolean;
}

/** What the update reads of the walk, as it is when the message arrives. */
export interface FaithfulnessWorld {
	units: readonly Pick<FaithfulnessUnit, 'summary' | 'sentence'>[];
	/** This validator's current verdict on each unit, by its index in `units`. */
	verdicts: ReadonlyMap<number, Pick<FaithfulnessVerdict, 'label' | 'note'>>;
	/** The unit of this validator's latest verdict (what undo takes back), or null. */
	latest: number | null;
	/** This validator's coarse rating (1 to 5) of each summary rated, by summary id. */
	ratings: ReadonlyMap<string, number>;
	page: number;
}

export type FaithfulnessMsg =
	| KeyMsg
	| { type: 'done'; message: string }
	/** The units were switched: where the walk now stands among the new ones. */
	| { type: 'switched'; index: number; message: string };

export type FaithfulnessEffect =
	| { kind: 'mark'; unit: number; label: FaithfulnessLabel; note: string | null; done: string }
	| { kind: 'rate'; summary: FaithfulnessUnit['summary']; rating: number; done: string }
	| { kind: 'undo' }
	| { kind: 'units' }
	| { kind: 'quit' }
	| { kind: 'back' };

const LABEL_OF: Partial<Record<Action, FaithfulnessLabel>> = {
	faithful: 'faithful',
	partial: 'partial',
	unfaithful: 'unfaithful',
	cantTell: 'unsure',
};

const FIRST = 'give a verdict first (f, p, x or c), then add a note to it';

export function init(index: number): FaithfulnessState {
	return { index, overlay: { kind: 'none' }, message: null, quitting: false };
}

/** Whose keys a press is looked up in. */
export function screenOf(overlay: FaithfulnessOverlay): Place {
	return overlay.kind === 'none' ? 'faithfulness' : overlay.kind === 'note' ? 'field' : 'help';
}

type Result = Step<FaithfulnessState, FaithfulnessEffect>;

export const update: Update<FaithfulnessState, FaithfulnessMsg, FaithfulnessEffect, FaithfulnessWorld> = (
	state,
	action,
	ctx,
): Result => {
	if (action.type === 'done') return stay({ ...state, message: action.message });
	if (action.type === 'switched')
		return stay({ ...state, index: action.index, overlay: { kind: 'none' }, message: action.message });
	if (state.quitting) return stay(state);
	if (action.action === 'quit') return stay({ ...state, quitting: true }, [{ kind: 'quit' }]);
	const now = { ...state, message: null };
	const { press } = action;
	const overlay = now.overlay;
	const close = (message: string | null = null): FaithfulnessState => ({
		...now,
		overlay: { kind: 'none' },
		message,
	});
	if (overlay.kind === 'help') {
		const scroll = helpScroll(overlay.scroll, action.action, ctx.page);
		return stay(scroll === null ? close() : { ...now, overlay: { kind: 'help', scroll } });
	}
	if (overlay.kind === 'note') {
		const key = noteKey(overlay.field, overlay.before, action.action, press);
		if (key.type === 'edit') return stay({ ...now, overlay: { ...overlay, field: key.field } });
		if (key.type === 'close') return stay(close(key.message));
		const given = ctx.verdicts.get(overlay.unit);
		if (!given) return stay(close(FIRST));
		return stay(close(), [
			{ kind: 'mark', unit: overlay.unit, label: given.label, note: key.note, done: key.done },
		]);
	}
	const count = ctx.units.length;
	const label = action.action ? LABEL_OF[action.action] : undefined;
	if (label) {
		if (count === 0) return stay(now);
		const before = ctx.verdicts.get(now.index);
		const next = { ...now, index: Math.min(count - 1, now.index + 1) };
		if (before?.label === label)
			return stay({ ...next, message: `unchanged: already ${FAITHFULNESS_WORD[label]}; nothing saved` });
		return stay(next, [
			{
				kind: 'mark',
				unit: now.index,
				label,
				note: before?.note ?? null,
				done: `saved: ${FAITHFULNESS_WORD[label]}`,
			},
		]);
	}
	switch (action.action) {
		case 'rate': {
			if (count === 0) return stay(now);
			const summary = ctx.units[Math.min(now.index, count - 1)]!.summary;
			const rating = Number(press.input);
			if (ctx.ratings.get(summary) === rating)
				return stay({
					...now,
					message: `unchanged: the whole summary is rated ${rating}/5 already; nothing saved`,
				});
			return stay(now, [
				{ kind: 'rate', summary, rating, done: `saved: the whole summary rated ${rating}/5` },
			]);
		}
		case 'back':
			return stay(now, [{ kind: 'back' }]);
		case 'help':
			return stay({ ...now, overlay: { kind: 'help', scroll: 0 } });
		case 'units':
			return stay(now, [{ kind: 'units' }]);
		case 'left':
			return stay({ ...now, index: Math.max(0, now.index - 1) });
		case 'right':
			return stay({ ...now, index: Math.max(0, Math.min(count - 1, now.index + 1)) });
		case 'nextUnjudged': {
			for (let k = 1; k <= count; k++) {
				const i = (now.index + k) % count;
				if (!ctx.verdicts.has(i)) return stay({ ...now, index: i });
			}
			return stay({ ...now, message: 'every one is judged' });
		}
		case 'undo':
			if (ctx.latest === null) return stay({ ...now, message: 'nothing to undo' });
			return stay({ ...now, index: ctx.latest }, [{ kind: 'undo' }]);
		case 'note': {
			const given = ctx.verdicts.get(now.index);
			if (!given) return stay({ ...now, message: FIRST });
			return stay({
				...now,
				overlay: {
					kind: 'note',
					unit: now.index,
					field: fieldOf(given.note ?? ''),
					before: given.note ?? '',
				},
			});
		}
		default:
			return stay(now);
	}
};
