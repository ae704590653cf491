import type { Annotation, Judgment, ScoredSummary, Verdict } from '../../domain.ts';
import { PARTIAL_REASONS } from '../../score/validation.ts';
import type { Action, KeyPress, Screen } from '../keymap.ts';
import type { Step } from '../hooks.ts';
import { spanAction, startAdding, typesAction, type Adding, type AddingResult } from './adding.ts';
import { fieldAction, fieldOf, type Field } from './field.ts';
import type { WalkResults } from './results.ts';

/**
 * The validation walk's screen state and what its keys do, as one pure reducer: which item is
 * shown, which dialog is open (partial-agree reasons, a note, one's own annotation, help, results)
 * and the line of feedback. Key presses come in as the keymap's actions; what is to be saved comes
 * out as effects, which the screen hands to the store.
 */

export type Overlay =
	| { kind: 'none' }
	| { kind: 'reasons'; chosen: string[] }
	| { kind: 'note'; annotation: Annotation['id']; field: Field; before: string }
	| { kind: 'help'; scroll: number }
	/** The results, null until they are computed (once, when the view opens). */
	| { kind: 'results'; scroll: number; results: WalkResults | null }
	| Adding;

export interface WalkUi {
	index: number;
	overlay: Overlay;
	/** One line of feedback, until the next key. */
	message: string | null;
	quitting: boolean;
}

/** What the reducer reads of the walk, as it is when the key arrives. */
export interface WalkContext {
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

export type WalkAction =
	| { type: 'key'; action: Action | null; press: KeyPress; ctx: WalkContext }
	/** A save finished (or failed): what to tell the person. */
	| { type: 'done'; message: string }
	| { type: 'results'; results: WalkResults };

export type WalkEffect =
	| { kind: 'judge'; annotation: Annotation['id']; verdict: Verdict; reasons: string[]; note: string | null; done: string }
	| { kind: 'undo' }
	| { kind: 'annotate'; summary: ScoredSummary['id']; ranges: [number, number][]; trims: [number, number][]; questions: string; types: Adding['types'] }
	| { kind: 'results' }
	| { kind: 'quit' }
	| { kind: 'back' };

export const VERDICT_WORD: Record<Verdict, string> = { agree: 'agree', partial: 'partially agree', disagree: 'disagree' };

/** A walk opens on `index` (its first unjudged item), with nothing open. */
export function initialWalk(index: number): WalkUi {
	return { index, overlay: { kind: 'none' }, message: null, quitting: false };
}

/** Whose keys a press is looked up in: the walk's, or the open dialog's. */
export function screenOf(overlay: Overlay): Screen {
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

type Result = Step<WalkUi, WalkEffect>;
const stay = (state: WalkUi, effects: WalkEffect[] = []): Result => ({ state, effects });

export function walkReducer(state: WalkUi, action: WalkAction): Result {
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
			return keyOf({ ...state, message: null }, action.action, action.press, action.ctx);
	}
}

function keyOf(state: WalkUi, action: Action | null, press: KeyPress, ctx: WalkContext): Result {
	const overlay = state.overlay;
	const close = (message: string | null = null): WalkUi => ({ ...state, overlay: { kind: 'none' }, message });
	switch (overlay.kind) {
		case 'help':
			if (action === 'help' || action === 'back') return stay(close());
			if (action === 'up' || action === 'down') return stay({ ...state, overlay: { kind: 'help', scroll: Math.max(0, overlay.scroll + (action === 'up' ? -1 : 1)) } });
			if (action === 'scrollUp' || action === 'scrollDown') return stay({ ...state, overlay: { kind: 'help', scroll: Math.max(0, overlay.scroll + (action === 'scrollUp' ? -ctx.page : ctx.page)) } });
			return stay(state);
		case 'results':
			if (action === 'up' || action === 'down') return stay({ ...state, overlay: { ...overlay, scroll: Math.max(0, overlay.scroll + (action === 'up' ? -1 : 1)) } });
			// Any other key goes back to the walk.
			return stay(close());
		case 'reasons': {
			if (action === 'cancel') return stay(close());
			if (action === 'toggle') {
				const reason = PARTIAL_REASONS[Number(press.input) - 1];
				if (!reason) return stay(state);
				const chosen = overlay.chosen.includes(reason) ? overlay.chosen.filter((r) => r !== reason) : [...overlay.chosen, reason];
				return stay({ ...state, overlay: { kind: 'reasons', chosen } });
			}
			if (action === 'save') {
				if (overlay.chosen.length === 0) return stay({ ...state, message: 'pick at least one reason (1–4), or esc' });
				return give(close(), ctx, 'partial', PARTIAL_REASONS.filter((r) => overlay.chosen.includes(r)));
			}
			return stay(state);
		}
		case 'note': {
			const edited = fieldAction(overlay.field, action, press);
			if (edited === 'cancel') return stay(close());
			if (edited !== 'done') return stay({ ...state, overlay: { ...overlay, field: edited } });
			const note = overlay.field.text.trim();
			if (note === overlay.before) return stay(close(note === '' ? 'no note written; nothing saved' : 'note unchanged; nothing saved'));
			const given = ctx.verdicts.get(overlay.annotation);
			if (!given) return stay(close('give a verdict first (a, p or d), then add a note to it'));
			return stay(close(), [{ kind: 'judge', annotation: overlay.annotation, verdict: given.verdict, reasons: [...given.reasons], note: note === '' ? null : note, done: note === '' ? 'note removed' : 'note saved' }]);
		}
		case 'adding':
			return addingKey(state, overlay, action, press, ctx);
		case 'none':
			return walkKey(state, action, ctx);
	}
}

/** Keys on the walk itself, no dialog open. */
function walkKey(state: WalkUi, action: Action | null, ctx: WalkContext): Result {
	const items = ctx.items;
	const current = items[state.index];
	switch (action) {
		case 'back':
			return stay(state, [{ kind: 'back' }]);
		case 'help':
			return stay({ ...state, overlay: { kind: 'help', scroll: 0 } });
		case 'results':
			return stay({ ...state, overlay: { kind: 'results', scroll: 0, results: null } }, [{ kind: 'results' }]);
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
			return current ? stay({ ...state, overlay: { kind: 'reasons', chosen: [...(ctx.verdicts.get(current.id)?.reasons ?? [])] } }) : stay(state);
		case 'note': {
			const given = current && ctx.verdicts.get(current.id);
			if (!given) return stay({ ...state, message: 'give a verdict first (a, p or d), then add a note to it' });
			return stay({ ...state, overlay: { kind: 'note', annotation: current.id, field: fieldOf(given.note ?? ''), before: given.note ?? '' } });
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
			return stay({ ...state, overlay: startAdding(Math.min(last, Math.max(0, current.sentence ?? 0)), action === 'link') });
		}
		default:
			return stay(state);
	}
}

/**
 * A verdict on the current item, which moves the walk on. Giving the verdict it already has saves
 * nothing and says so; a changed verdict keeps the note written on the item.
 */
function give(state: WalkUi, ctx: WalkContext, verdict: Verdict, reasons: string[] = []): Result {
	const target = ctx.items[state.index];
	if (!target) return stay(state);
	const next = { ...state, index: Math.min(ctx.items.length - 1, state.index + 1) };
	const before = ctx.verdicts.get(target.id);
	if (before && before.verdict === verdict && before.reasons.join('\n') === reasons.join('\n')) {
		return stay({ ...next, message: `unchanged: already ${VERDICT_WORD[verdict]}; nothing saved` });
	}
	return stay(next, [{ kind: 'judge', annotation: target.id, verdict, reasons, note: before?.note ?? null, done: `saved: ${VERDICT_WORD[verdict]}` }]);
}

function addingKey(state: WalkUi, adding: Adding, action: Action | null, press: KeyPress, ctx: WalkContext): Result {
	const current = ctx.items[state.index];
	if (!current) return stay({ ...state, overlay: { kind: 'none' } });
	let result: AddingResult;
	if (adding.step === 'questions') {
		const edited = fieldAction(adding.questions, action, press);
		if (edited === 'cancel') result = { adding: null };
		else if (edited !== 'done') result = { adding: { ...adding, questions: edited } };
		else if (adding.questions.text.trim() === '') result = { adding, message: 'write the questions a reader would ask, or esc' };
		else result = { adding: { ...adding, step: 'types' } };
	} else if (adding.step === 'span') result = spanAction(adding, action, ctx.sentences(current.summary));
	else result = typesAction(adding, action, press);
	const message = result.message ?? null;
	if (result.adding === null) return stay({ ...state, overlay: { kind: 'none' }, message });
	if (!result.save) return stay({ ...state, overlay: result.adding, message });
	const { ranges, trims, questions, types } = result.adding;
	return stay({ ...state, overlay: { kind: 'none' } }, [{ kind: 'annotate', summary: current.summary, ranges, trims, questions: questions.text.trim(), types }]);
}
