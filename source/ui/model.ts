/**
 * The one shape of a screen's state: a pure `update` from (state, message) to the next state and
 * the effects for the screen to carry out (save, start, quit). What the screen reads but does not
 * own (the run as it stands, the saved sessions, the walk's verdicts) comes as `world`, read when
 * the message arrives; what it lays out (page sizes, the first line shown) arrives as a message
 * and is kept in the state. Messages and effects are keyed `type`.
 */

import type { Action, KeyPress } from './keymap.ts';

export interface Step<State, Effect> {
	state: State;
	effects: Effect[];
}

export type Update<State, Msg, Effect, World = void> = (
	state: State,
	msg: Msg,
	world: World,
) => Step<State, Effect>;

/** A step with nothing to carry out. */
export const stay = <State, Effect>(state: State, effects: Effect[] = []): Step<State, Effect> => ({
	state,
	effects,
});

/** A key press with the action the keymap binds it to on what is open (null: none; text fields take the press). */
export interface KeyMsg {
	type: 'key';
	action: Action | null;
	press: KeyPress;
}
