import type { Annotation, Judgment, ScoredSummary, Verdict } from '../../../domain.ts';
import { PARTIAL_REASONS, sameVerdict } from '../../../score/validation.ts';
import type { Action, KeyPress, Place } from '../../keys/binding.ts';
import { spanAction, startAdding, typesAction, type Adding, type AddingResult } from './adding.ts';
import { fieldAction, fieldOf, type TextField } from '../../state/text-field.ts';
import { noteKey } from '../../state/note-field.ts';
import type { WalkResults } from './results.ts';
import { stay, type KeyMsg, type Step, type Update } from '../../model.ts';
import { helpScroll } from '../../state/help-keys.ts';

/**
 * The validation walk's screen state and what its keys do, as one pure update: which item is
 * shown, which dialog is open (partial-agree reasons, a note, one's own annotation, help, results)
 * and the line of feedback. Key presses come in as the keymap's actions; what is to be saved comes
 * out as effects, which the screen hands to the store.
 */

export type Overlay =
	| { kind: 'none' }
	| { kind: 'reasons'; chosen: string[] }
	/** `back`: where the walk was when the note was opened on the item judged just before (it returns there). */
	| { kind: 'note'; annotation: Annotation['id']; field: TextField; before: string; back: number | null }
	| { kind: 'help'; scroll: number }
	/** The results, null until they are computed (once, when the view opens). */
	| { kind: 'results'; scroll: number; results: WalkResults | null }
	| Adding;

export interface WalkState {
	index: number;
	overlay: Overlay;
	/** One line of feedback, until the next key. */
	message: string | null;
	/** The item the last key gave a verdict to: a note key right after it notes that item, not the next. */
	judged: Annotation['id'] | null;
	quitting: boolean;
}

/** What the update reads of the walk, as it is when the message arrives. */
export interface WalkWorld {
	items: readonly Pick<Annotation, 'id' | 'summary' | 'sentence'>[];
	/** This validator's current verdict on each annotation. */
	verdicts: ReadonlyMap<Annotation['id'], Pick<Judgment, 'verdict' | 'reasons' | 'note'>>;
	/** The annotation of this validator's latest verdict (what undo takes back), or null. */
	latest: Annotation['id'] | null;
	/** How many sentences a summary has (the span picker's range). */
	sentences: (summary: ScoredSummary['id']) => number;
	/** Rows a page of the help scrolls. */
	page: number;
}

export type WalkMsg =
	| KeyMsg
	/** A save finished (or failed): what to tell the person. */
	| { type: 'done'; message: string }
	| { type: 'results'; results: WalkResults };

export type WalkEffect =
	| {
			kind: 'judge';
			annotation: Annotation['id'];
			verdict: Verdict;
			reasons: string[];
			note: string | null;
			done: string;
	  }
	| { kind: 'undo' }
	| {
			kind: 'annotate';
			summary: ScoredSummary['id'];
			ranges: [number, number][];
			trims: [number, number][];
			questions: string;
			types: Adding['types'];
	  }
	| { kind: 'results' }
	| { kind: 'quit' }
	| { kind: 'back' };

export const VERDICT_WORD: Record<Verdict, string> = {
	agree: 'agree',
	partial: 'partially agree',
	disagree: 'disagree',
};

/**
 * What an undo took back, for the status line: `removed` as the store returns it (a verdict, a
 * note, or a verdict with its note), `verdicts` as they stand after it.
 */
export function undoneMessage(
	removed: readonly Judgment[],
	items: WalkWorld['items'],
	verdicts: WalkWorld['verdicts'],
): string {
	const last = removed.at(-1);
	if (!last) return 'nothing to undo';
	const at = items.findIndex((a) => a.id === last.annotation);
	const where = at === -1 ? `annotation ${last.annotation}` : `annotation ${at + 1}`;
	const word = VERDICT_WORD[last.verdict];
	const now = verdicts.get(last.annotation);
	const left = now ? `; back to ${VERDICT_WORD[now.verdict]}` : '; not judged now';
	if (removed.length > 1) return `undone: ${word} and its note on ${where}${left}`;
	if (now && sameVerdict(now, last)) return `undone: the note edit on ${where}; its ${word} stays`;
	return `undone: ${word} on ${where}${left}`;
}

/** A walk opens on `index` (its first unjudged item), with nothing open. */
export function init(index: number): WalkState {
	return { index, overlay: { kind: 'none' }, message: null, judged: null, quitting: false };
}

/** Whose keys a press is looked up in: the walk's, or the open dialog's. */
export function screenOf(overlay: Overlay): Place {
	switch (overlay.kind) {
		case 'none':
			return 'validate';
		case 'reasons':
			return 'reasons';
		case 'note':
			return 'field';
		case 'help':
			return 'help';
		case 'results':
			return 'results';
		case 'adding':
			return overlay.step === 'span' ? 'span' : overlay.step === 'types' ? 'types' : 'field';
	}
}

type Result = Step<WalkState, WalkEffect>;

export const update: Update<WalkState, WalkMsg, WalkEffect, WalkWorld> = (state, action, ctx) => {
	switch (action.type) {
		case 'done':
			return stay({ ...state, message: action.message });
		case 'results':
			// Closed (or reopened) while they were computed: these are not wanted any more.
			if (state.overlay.kind !== 'results' || state.overlay.results !== null) return stay(state);
			return stay({ ...state, overlay: { ...state.overlay, results: action.results } });
		case 'key':
			if (state.quitting) return stay(state);
			if (action.action === 'quit') return stay({ ...state, quitting: true }, [{ kind: 'quit' }]);
			// What the last key judged holds for this key only.
			return keyOf({ ...state, message: null, judged: null }, action.action, action.press, ctx, state.judged);
	}
};

function keyOf(
	state: WalkState,
	action: Action | null,
	press: KeyPress,
	ctx: WalkWorld,
	judged: WalkState['judged'],
): Result {
	const overlay = state.overlay;
	const close = (message: string | null = null): WalkState => ({
		...state,
		overlay: { kind: 'none' },
		message,
	});
	switch (overlay.kind) {
		case 'help': {
			const scroll = helpScroll(overlay.scroll, action, ctx.page);
			return stay(scroll === null ? close() : { ...state, overlay: { kind: 'help', scroll } });
		}
		case 'results':
			if (action === 'up' || action === 'down')
				return stay({
					...state,
					overlay: { ...overlay, scroll: Math.max(0, overlay.scroll + (action === 'up' ? -1 : 1)) },
				});
			// Any other key goes back to the walk.
			return stay(close());
		case 'reasons': {
			if (action === 'cancel') return stay(close());
			if (action === 'toggle') {
				const reason = PARTIAL_REASONS[Number(press.input) - 1];
				if (!reason) return stay(state);
				const chosen = overlay.chosen.includes(reason)
					? overlay.chosen.filter((r) => r !== reason)
					: [...overlay.chosen, reason];
				return stay({ ...state, overlay: { kind: 'reasons', chosen } });
			}
			if (action === 'save') {
				if (overlay.chosen.length === 0)
					return stay({ ...state, message: 'pick at least one reason (1–4), or esc' });
				return give(
					close(),
					ctx,
					'partial',
					PARTIAL_REASONS.filter((r) => overlay.chosen.includes(r)),
				);
			}
			return stay(state);
		}
		case 'note': {
			const key = noteKey(overlay.field, overlay.before, action, press);
			if (key.type === 'edit') return stay({ ...state, overlay: { ...overlay, field: key.field } });
			// Closing the note goes back to where the walk had moved on to.
			const leave = (message: string | null = null): WalkState => ({
				...close(message),
				index: overlay.back ?? state.index,
			});
			if (key.type === 'close') return stay(leave(key.message));
			const given = ctx.verdicts.get(overlay.annotation);
			if (!given) return stay(leave('give a verdict first (a, p or d), then add a note to it'));
			return stay(leave(), [
				{
					kind: 'judge',
					annotation: overlay.annotation,
					verdict: given.verdict,
					reasons: [...given.reasons],
					note: key.note,
					done: key.done,
				},
			]);
		}
		case 'adding':
			return addingKey(state, overlay, action, press, ctx);
		case 'none':
			return walkKey(state, action, ctx, judged);
	}
}

/** Keys on the walk itself, no dialog open. */
function walkKey(
	state: WalkState,
	action: Action | null,
	ctx: WalkWorld,
	judged: WalkState['judged'],
): Result {
	const items = ctx.items;
	const current = items[state.index];
	switch (action) {
		case 'back':
			return stay<WalkState, WalkEffect>(state, [{ kind: 'back' }]);
		case 'help':
			return stay({ ...state, overlay: { kind: 'help', scroll: 0 } });
		case 'results':
			return stay({ ...state, overlay: { kind: 'results', scroll: 0, results: null } }, [
				{ kind: 'results' },
			]);
		case 'left':
			return stay({ ...state, index: Math.max(0, state.index - 1) });
		case 'right':
			return stay({ ...state, index: Math.max(0, Math.min(items.length - 1, state.index + 1)) });
		case 'nextUnjudged': {
			for (let k = 1; k <= items.length; k++) {
				const i = (state.index + k) % items.length;
				if (!ctx.verdicts.has(items[i]!.id)) return stay({ ...state, index: i });
			}
			return stay({ ...state, message: 'every annotation is judged' });
		}
		case 'agree':
		case 'disagree':
			return give(state, ctx, action);
		case 'partial':
			return current
				? stay({
						...state,
						overlay: { kind: 'reasons', chosen: [...(ctx.verdicts.get(current.id)?.reasons ?? [])] },
					})
				: stay(state);
		case 'note': {
			// Right after a verdict (which moved the walk on) the note is for the item just judged,
			// shown while the note is written.
			const at = judged === null ? state.index : items.findIndex((a) => a.id === judged);
			const target = items[at];
			const given = target && ctx.verdicts.get(target.id);
			if (!given)
				return stay({ ...state, message: 'give a verdict first (a, p or d), then add a note to it' });
			const back = at === state.index ? null : state.index;
			return stay({
				...state,
				index: at,
				overlay: {
					kind: 'note',
					annotation: target.id,
					field: fieldOf(given.note ?? ''),
					before: given.note ?? '',
					back,
				},
			});
		}
		case 'undo': {
			if (ctx.latest === null) return stay({ ...state, message: 'nothing to undo' });
			const at = items.findIndex((a) => a.id === ctx.latest);
			return stay({ ...state, index: at === -1 ? state.index : at }, [{ kind: 'undo' }]);
		}
		case 'addAnnotation':
		case 'link': {
			if (!current) return stay(state);
			const last = Math.max(0, ctx.sentences(current.summary) - 1);
			return stay({
				...state,
				overlay: startAdding(Math.min(last, Math.max(0, current.sentence ?? 0)), action === 'link'),
			});
		}
		default:
			return stay(state);
	}
}

/**
 * A verdict on the current item, which moves the walk on (a note key next notes the item judged).
 * Giving the verdict it already has saves nothing and says so; a changed verdict keeps the note
 * written on the item.
 */
function give(state: WalkState, ctx: WalkWorld, verdict: Verdict, reasons: string[] = []): Result {
	const target = ctx.items[state.index];
	if (!target) return stay(state);
	const next = { ...state, index: Math.min(ctx.items.length - 1, state.index + 1), judged: target.id };
	const before = ctx.verdicts.get(target.id);
	if (before && sameVerdict(before, { verdict, reasons })) {
		return stay({ ...next, message: `unchanged: already ${VERDICT_WORD[verdict]}; nothing saved` });
	}
	const done = `saved: ${VERDICT_WORD[verdict]} · m: a note on it`;
	return stay(next, [
		{ kind: 'judge', annotation: target.id, verdict, reasons, note: before?.note ?? null, done },
	]);
}

function addingKey(
	state: WalkState,
	adding: Adding,
	action: Action | null,
	press: KeyPress,
	ctx: WalkWorld,
): Result {
	const current = ctx.items[state.index];
	if (!current) return stay({ ...state, overlay: { kind: 'none' } });
	let result: AddingResult;
	if (adding.step === 'questions') {
		const edited = fieldAction(adding.questions, action, press);
		if (edited === 'cancel') result = { adding: null };
		else if (edited !== 'done') result = { adding: { ...adding, questions: edited } };
		else if (adding.questions.text.trim() === '')
			result = { adding, message: 'write the questions a reader would ask, or esc' };
		else result = { adding: { ...adding, step: 'types' } };
	} else if (adding.step === 'span') result = spanAction(adding, action, ctx.sentences(current.summary));
	else result = typesAction(adding, action, press);
	const message = result.message ?? null;
	if (result.adding === null) return stay({ ...state, overlay: { kind: 'none' }, message });
	if (!result.save) return stay({ ...state, overlay: result.adding, message });
	const { ranges, trims, questions, types } = result.adding;
	return stay({ ...state, overlay: { kind: 'none' } }, [
		{ kind: 'annotate', summary: current.summary, ranges, trims, questions: questions.text.trim(), types },
	]);
}
