import { actionFor } from '../../keymap.ts';
import type { KeyPress } from '../../keys/binding.ts';
import { stay, type Update } from '../../model.ts';
import { helpScroll } from '../../state/help-keys.ts';

/** The BooookScore screen's state: which confusing sentence is picked, the scroll, the help. */
export interface ScoreState {
	pick: number;
	/** First line of the summary shown, or null to keep the picked sentence in view. */
	offset: number | null;
	help: boolean;
	helpScroll: number;
	/** The summary as last laid out: the rows of its pane and the first line it shows. */
	layout: ScoreLayout;
}

export interface ScoreLayout {
	page: number;
	shownFrom: number;
}

export type ScoreMsg = { type: 'press'; press: KeyPress } | { type: 'layout'; layout: ScoreLayout };

export type ScoreEffect = { kind: 'back' } | { kind: 'quit' } | { kind: 'validate' };

/** What the screen reads of the scoring when a key arrives: how many sentences can be picked now. */
export interface ScoreWorld {
	confusing: number;
}

export const init = (): ScoreState => ({
	pick: 0,
	offset: null,
	help: false,
	helpScroll: 0,
	layout: { page: 1, shownFrom: 0 },
});

export const update: Update<ScoreState, ScoreMsg, ScoreEffect, ScoreWorld> = (ui, msg, { confusing }) => {
	if (msg.type === 'layout') return stay({ ...ui, layout: msg.layout });
	const none = (state: ScoreState) => stay<ScoreState, ScoreEffect>(state);
	const { page, shownFrom } = ui.layout;
	const action = actionFor('score', msg.press);
	if (action === 'quit') return stay(ui, [{ kind: 'quit' }]);
	if (ui.help) {
		const scroll = helpScroll(ui.helpScroll, action, page);
		return none(scroll === null ? { ...ui, help: false } : { ...ui, helpScroll: scroll });
	}
	switch (action) {
		case 'help':
			return none({ ...ui, help: true, helpScroll: 0 });
		case 'back':
			return stay(ui, [{ kind: 'back' }]);
		case 'validate':
			return stay(ui, [{ kind: 'validate' }]);
		case 'up':
			return none({ ...ui, pick: Math.max(0, Math.min(ui.pick, confusing - 1) - 1), offset: null });
		case 'down':
			return none({ ...ui, pick: Math.min(Math.max(0, confusing - 1), ui.pick + 1), offset: null });
		case 'scrollUp':
			return none({ ...ui, offset: Math.max(0, shownFrom - Math.max(1, page - 1)) });
		case 'scrollDown':
			return none({ ...ui, offset: shownFrom + Math.max(1, page - 1) });
		default:
			return none(ui);
	}
};
