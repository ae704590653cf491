import { actionFor, type KeyPress } from '../../keymap.ts';

/** The BooookScore screen's state: which confusing sentence is picked, the scroll, the help. */
export interface ScoreUi {
	pick: number;
	/** First line of the summary shown, or null to keep the picked sentence in view. */
	offset: number | null;
	help: boolean;
}

export type ScoreEffect = 'back' | 'quit' | 'validate';

export const initialScoreUi = (): ScoreUi => ({ pick: 0, offset: null, help: false });

/** A key press on the score screen; `confusing` is how many sentences can be picked now, `page` the rows of the summary. */
export function scorePress(
	ui: ScoreUi,
	press: KeyPress,
	ctx: { confusing: number; page: number; shownFrom: number },
): { state: ScoreUi; effects: ScoreEffect[] } {
	const none = (state: ScoreUi) => ({ state, effects: [] as ScoreEffect[] });
	switch (actionFor('score', press)) {
		case 'quit':
			return { state: ui, effects: ['quit'] };
		case 'help':
			return none({ ...ui, help: !ui.help });
		case 'back':
			return ui.help ? none({ ...ui, help: false }) : { state: ui, effects: ['back'] };
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
