import type { HomeChoice } from './screens/home/model.ts';

/**
 * The terminal app's navigation, pure: which screen is shown after each one ends. The navigator
 * (navigator.tsx) shows the screen of each place and reports how it ended; this decides the next.
 */

/** A choice on the list that opens a session's run screen: open, resume, or a new run from the form. */
export type RunChoice = { kind: 'open' | 'resume'; id: string } | Extract<HomeChoice, { kind: 'new' }>;

/** Where the app is: a screen, or the end with the exit code the process ends with. */
export type Place =
	/** The list of saved sessions, with a line saying why the last choice came back to it. */
	| { screen: 'home'; notice?: string }
	/** A session's run screen: the session made or opened first, asking about lost work on the list. */
	| { screen: 'run'; choice: RunChoice }
	/** The session's validation walk (blind, over its annotations). */
	| { screen: 'validate'; id: string }
	/** The session against the other finished sessions of its book, blind. */
	| { screen: 'compare'; id: string }
	| { screen: 'end'; code: number };

/** How the screen of a place ended. */
export type Ending =
	/** Chosen on the list. */
	| { kind: 'chosen'; choice: HomeChoice }
	/** The session was not opened (batches still out, an imported summary), worded for the list. */
	| { kind: 'refused'; notice: string }
	/** Something the user can mend (a missing key, a session another process holds), worded for the list. */
	| { kind: 'failed'; message: string }
	/** The lost-work question was answered no (`quit`: by quitting the app). */
	| { kind: 'declined'; quit: boolean }
	/** The user left the screen. */
	| { kind: 'left' }
	/** SIGINT or SIGTERM ended the screen: the process ends with `code`. */
	| { kind: 'signalled'; code: number };

/** Where the app starts: the list. */
export const START: Place = { screen: 'home' };

/** The place after a screen ended this way: every screen goes back to the list but for quitting and signals. */
export function next(ending: Ending): Place {
	switch (ending.kind) {
		case 'chosen':
			return chosen(ending.choice);
		case 'refused':
			return { screen: 'home', notice: ending.notice };
		case 'failed':
			// Back to the list, where it was chosen, rather than ending the app.
			return { screen: 'home', notice: ending.message };
		case 'declined':
			return ending.quit ? { screen: 'end', code: 0 } : START;
		case 'left':
			return START;
		case 'signalled':
			return { screen: 'end', code: ending.code };
	}
}

function chosen(choice: HomeChoice): Place {
	switch (choice.kind) {
		case 'quit':
			return { screen: 'end', code: 0 };
		// Only a question is answered, and none was asked.
		case 'answer':
			return START;
		case 'validate':
		case 'compare':
			return { screen: choice.kind, id: choice.id };
		case 'open':
		case 'resume':
			return { screen: 'run', choice: { kind: choice.kind, id: choice.id } };
		case 'new':
			return { screen: 'run', choice };
	}
}
