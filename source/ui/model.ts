/**
 * The one shape of a screen's state: a pure `update` from (state, message) to the next state and
 * the effects for the screen to carry out (save, start, quit). What the screen reads but does not
 * own (the run as it stands, the saved sessions, the walk's verdicts, the terminal's rows) comes
 * as `world`, read when the message arrives; what only a drawn frame knows (the first line a pane
 * shows, its rows) arrives as a `layout` message and is kept in the state. Messages are keyed
 * `type`, effects `kind`.
 */

import type { Action, KeyPress } from './keys/binding.ts';

export interface Step<State, Effect> {
	state: State;
	effects: Effect[];
}

export type Update<State, Msg, Effect, World = void> = (
	state: State,
	msg: Msg,
	world: World,
) => Step<State, Effect>;

/**
 * A screen's model as its screen holds it: the first state (made once, when the screen mounts)
 * and the update. Each screen's model.ts exports the two, `init` and `update`.
 */
export interface Model<State, Msg, Effect, World = void> {
	init: () => State;
	update: Update<State, Msg, Effect, World>;
}

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
