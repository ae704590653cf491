import type { CellState } from '../../../engine/study-runner.ts';
import { actionFor } from '../../keymap.ts';
import type { KeyPress, Place } from '../../keys/binding.ts';
import { helpScroll } from '../../state/help-keys.ts';
import { CELL_STATUS } from './table.ts';
import { clean } from '../../../format/text.ts';
import { stay, type Step, type Update } from '../../model.ts';

/**
 * The study screen's state and what its keys do: which cell is selected, the help, the cell whose
 * run is shown live. A pure update from (state, message) to the next state and the effects.
 */

export interface StudyScreenState {
	mode: 'table' | 'help';
	cursor: number;
	helpScroll: number;
	/** The cell whose run screen is open, or null. */
	watching: string | null;
	message: string | null;
	/** Quitting: the calls in flight are being cancelled and the sessions saved. */
	quitting: boolean;
}

export type StudyEffect = { kind: 'quit' } | { kind: 'watch'; key: string };

export type StudyMsg =
	{ type: 'press'; press: KeyPress } | { type: 'back' } | { type: 'say'; message: string };

/** What the study screen reads when a message arrives. */
export interface StudyWorld {
	cells: readonly CellState[];
	/** Rows of a page (of cells, or of the help). */
	page: number;
}

export const init = (): StudyScreenState => ({
	mode: 'table',
	cursor: 0,
	helpScroll: 0,
	watching: null,
	message: null,
	quitting: false,
});

export function studyScreen(ui: StudyScreenState): Place {
	return ui.mode === 'help' ? 'help' : 'study';
}

type Result = Step<StudyScreenState, StudyEffect>;
const none = (state: StudyScreenState): Result => stay(state);

export const update: Update<StudyScreenState, StudyMsg, StudyEffect, StudyWorld> = (ui, msg, ctx) => {
	if (msg.type === 'say') return none({ ...ui, message: clean(msg.message) });
	if (msg.type === 'back') return none({ ...ui, watching: null });
	if (ui.quitting) return none(ui);
	const action = actionFor(studyScreen(ui), msg.press);
	if (action === 'quit')
		return { state: { ...ui, quitting: true, message: null }, effects: [{ kind: 'quit' }] };
	const next: StudyScreenState = { ...ui, message: null };
	if (ui.mode === 'help') {
		const scroll = helpScroll(ui.helpScroll, action, ctx.page);
		return none(scroll === null ? { ...next, mode: 'table' } : { ...next, helpScroll: scroll });
	}
	const last = Math.max(0, ctx.cells.length - 1);
	const move = (by: number) => none({ ...next, cursor: Math.max(0, Math.min(last, ui.cursor + by)) });
	switch (action) {
		case 'help':
			return none({ ...next, mode: 'help', helpScroll: 0 });
		case 'up':
			return move(-1);
		case 'down':
			return move(1);
		case 'scrollUp':
			return move(-Math.max(1, ctx.page - 1));
		case 'scrollDown':
			return move(Math.max(1, ctx.page - 1));
		case 'open': {
			const cell = ctx.cells[Math.min(ui.cursor, last)];
			if (!cell) return none(next);
			if (cell.status !== 'running') {
				return none({
					...next,
					message: clean(
						`${cell.key} is ${CELL_STATUS[cell.status].word}: only a running cell's run can be watched (its session: ${cell.session})`,
					),
				});
			}
			return { state: { ...next, watching: cell.key }, effects: [{ kind: 'watch', key: cell.key }] };
		}
		default:
			return none(next);
	}
};
