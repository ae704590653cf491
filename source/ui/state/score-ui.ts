import { actionFor, type KeyPress } from '../keymap.ts';
import { helpScroll } from './help-keys.ts';

/** The BooookScore screen's state: which confusing sentence is picked, the scroll, the help. */
export interface ScoreUi {
	pick: number;
	/** First line of the summary shown, or null to keep the picked sentence in view. */
	offset: number | null;
	help: boolean;
	helpScroll: number;
}

export type ScoreEffect = 'back' | 'quit' | 'validate';

export const initialScoreUi = (): ScoreUi => ({ pick: 0, offset: null, help: false, helpScroll: 0 });

/** A key press on the score screen; `confusing` is how many sentences can be picked now, `page` the rows of the summary. */
export function scorePress(
	ui: ScoreUi,
	press: KeyPress,
	ctx: { confusing: number; page: number; shownFrom: number },
): { state: ScoreUi; effects: ScoreEffect[] } {
	const none = (state: ScoreUi) => ({ state, effects: [] as ScoreEffect[] });
	const action = actionFor('score', press);
	if (action === 'quit') return { state: ui, effects: ['quit'] };
	if (ui.help) {
		const scroll = helpScroll(ui.helpScroll, action, ctx.page);
		return none(scroll === null ? { ...ui, help: false } : { ...ui, helpScroll: scroll });
	}
	switch (action) {
		case 'help':
			return none({ ...ui, help: true, helpScroll: 0 });
		case 'back':
			return { state: ui, effects: ['back'] };
		case 'validate':
			return { state: ui, effects: ['validate'] };
		case 'up':
			return none({ ...ui, pick: Math.max(0, Math.min(ui.pick, ctx.confusing - 1) - 1), offset: null });
		case 'down':
			return none({ ...ui, pick: Math.min(Math.max(0, ctx.confusing - 1), ui.pick + 1), offset: null });
		case 'scrollUp':
			return none({ ...ui, offset: Math.max(0, ctx.shownFrom - Math.max(1, ctx.page - 1)) });
		case 'scrollDown':
			return none({ ...ui, offset: ctx.shownFrom + Math.max(1, ctx.page - 1) });
		default:
			return none(ui);
	}
}
