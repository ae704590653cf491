/**
 * Every key of the app, in one place: screens look their actions up here, the footer shows the
 * ones of the current screen, and `?` lists them all. A key means one thing on a screen.
 */

export type Screen = 'home' | 'filter' | 'run' | 'score' | 'validate' | 'results' | 'editor' | 'versions' | 'confirm' | 'form' | 'help';

export type Action =
	| 'quit'
	| 'help'
	| 'pause'
	| 'step'
	| 'nextPane'
	| 'up'
	| 'down'
	| 'left'
	| 'right'
	| 'open'
	| 'back'
	| 'edit'
	| 'rerun'
	| 'versions'
	| 'score'
	| 'chunk'
	| 'newRun'
	| 'resume'
	| 'delete'
	| 'validate'
	| 'agree'
	| 'partial'
	| 'disagree'
	| 'undo'
	| 'nextUnjudged'
	| 'addAnnotation'
	| 'link'
	| 'note'
	| 'confirm'
	| 'cancel'
	| 'save'
	| 'scrollUp'
	| 'scrollDown'
	| 'follow'
	| 'filter';

/** One key press (see keys/presses.ts): the character typed, or the named key, plus modifiers. */
export interface KeyPress {
	input: string;
	upArrow?: boolean;
	downArrow?: boolean;
	leftArrow?: boolean;
	rightArrow?: boolean;
	pageUp?: boolean;
	pageDown?: boolean;
	home?: boolean;
	end?: boolean;
	return?: boolean;
	escape?: boolean;
	tab?: boolean;
	backspace?: boolean;
	delete?: boolean;
	ctrl?: boolean;
	meta?: boolean;
	shift?: boolean;
}

export interface Binding {
	action: Action;
	/** What the footer and the help show. */
	label: string;
	description: string;
	/** What the footer shows next to the label, when the description is too long for it. */
	short?: string;
	screens: readonly Screen[];
	matches: (key: KeyPress) => boolean;
}

const char = (c: string) => (key: KeyPress) => key.input === c && !key.ctrl;

const ALL: readonly Screen[] = ['home', 'run', 'score', 'validate', 'results', 'versions'];
// Ctrl-C must work even where letters are typed (editor, form), so it is bound on every screen.
const EVERY: readonly Screen[] = ['home', 'filter', 'run', 'score', 'validate', 'results', 'editor', 'versions', 'confirm', 'form', 'help'];

export const BINDINGS: readonly Binding[] = [
	{ action: 'quit', label: 'q', description: 'quit (saves; calls in flight are cancelled)', short: 'quit', screens: ALL, matches: char('q') },
	{ action: 'quit', label: 'ctrl-c', description: 'quit from anywhere, as q does', short: 'quit', screens: EVERY, matches: (k) => Boolean(k.ctrl) && k.input === 'c' },
	{ action: 'help', label: '?', description: 'show every key (again to close)', short: 'help', screens: [...ALL, 'help'], matches: char('?') },
	{ action: 'pause', label: 'space', description: 'pause / resume (calls in flight finish, no new ones start); while stepping, run on', short: 'pause', screens: ['run'], matches: char(' ') },
	{ action: 'step', label: 's', description: 'step: make one call, then hold', short: 'step', screens: ['run'], matches: char('s') },
	{ action: 'edit', label: 'e', description: "edit the selected node's text (a new version; dependents go stale)", short: 'edit', screens: ['run'], matches: char('e') },
	{ action: 'rerun', label: 'r', description: 're-run stale nodes, or (when none is stale) the selected node from the same inputs', short: 're-run', screens: ['run'], matches: char('r') },
	{ action: 'resume', label: 'r', description: 'resume the selected session', short: 'resume', screens: ['home'], matches: char('r') },
	{ action: 'versions', label: 'v', description: "browse the selected node's versions", short: 'versions', screens: ['run'], matches: char('v') },
	{ action: 'score', label: 'b', description: 'BooookScore the final summary', short: 'score', screens: ['run', 'home'], matches: char('b') },
	{ action: 'chunk', label: 'c', description: "show the current chunk's text (again to hide)", short: 'chunk', screens: ['run'], matches: char('c') },
	{ action: 'newRun', label: 'n', description: 'start a new run', short: 'new', screens: ['home'], matches: char('n') },
	{ action: 'delete', label: 'd', description: 'delete the session (asks first)', short: 'delete', screens: ['home'], matches: char('d') },
	{ action: 'validate', label: 'V', description: 'validate the annotations by hand', short: 'validate', screens: ['home', 'run', 'score'], matches: char('V') },
	{ action: 'nextPane', label: 'tab', description: 'next pane (text, inputs, attempts)', short: 'pane', screens: ['run', 'validate', 'form'], matches: (k) => Boolean(k.tab) },
	{ action: 'up', label: '↑ k', description: 'select previous (level, session, version, field); scroll up in incremental runs', short: 'up', screens: ['home', 'run', 'score', 'versions', 'results', 'help'], matches: (k) => Boolean(k.upArrow) || char('k')(k) },
	{ action: 'down', label: '↓ j', description: 'select next (level, session, version, field); scroll down in incremental runs', short: 'down', screens: ['home', 'run', 'score', 'versions', 'results', 'help'], matches: (k) => Boolean(k.downArrow) || char('j')(k) },
	// Letters are typed into the form's fields, so there only the arrows move.
	{ action: 'up', label: '↑', description: 'previous field', short: 'up', screens: ['form'], matches: (k) => Boolean(k.upArrow) },
	{ action: 'down', label: '↓', description: 'next field', short: 'down', screens: ['form'], matches: (k) => Boolean(k.downArrow) },
	{ action: 'left', label: '←', description: 'previous (node, step of the timeline, sentence, choice)', short: 'prev', screens: ['run', 'validate', 'form'], matches: (k) => Boolean(k.leftArrow) },
	{ action: 'right', label: '→', description: 'next (node, step of the timeline, sentence, choice)', short: 'next', screens: ['run', 'validate', 'form'], matches: (k) => Boolean(k.rightArrow) },
	{ action: 'scrollUp', label: 'pgup', description: 'scroll the text up', short: 'scroll', screens: ['run', 'score', 'help'], matches: (k) => Boolean(k.pageUp) },
	{ action: 'scrollDown', label: 'pgdn', description: 'scroll the text down', short: 'scroll', screens: ['run', 'score', 'help'], matches: (k) => Boolean(k.pageDown) },
	{ action: 'open', label: 'enter', description: 'open the selection (in versions: make it active; in the form: start the run)', short: 'open', screens: ['home', 'versions', 'form'], matches: (k) => Boolean(k.return) },
	{ action: 'follow', label: 'f', description: 'follow the run again (select what is running, show the latest step)', short: 'follow', screens: ['run'], matches: char('f') },
	{ action: 'back', label: 'esc', description: 'back / close (on the session list: clear the filter)', short: 'back', screens: ['home', 'run', 'score', 'validate', 'results', 'versions', 'help'], matches: (k) => Boolean(k.escape) },
	{ action: 'agree', label: 'a', description: 'agree', screens: ['validate'], matches: char('a') },
	{ action: 'partial', label: 'p', description: 'partially agree (then pick the failed standards)', short: 'partial', screens: ['validate'], matches: char('p') },
	{ action: 'disagree', label: 'd', description: 'disagree', screens: ['validate'], matches: char('d') },
	{ action: 'undo', label: 'u', description: 'undo the last verdict', short: 'undo', screens: ['validate'], matches: char('u') },
	{ action: 'nextUnjudged', label: 'n', description: 'next unjudged', screens: ['validate'], matches: char('n') },
	{ action: 'addAnnotation', label: 'h', description: 'add your own annotation', short: 'add', screens: ['validate'], matches: char('h') },
	{ action: 'link', label: 'l', description: 'link two spans as one confusion', short: 'link', screens: ['validate'], matches: char('l') },
	{ action: 'note', label: 'm', description: 'add a note to the verdict', short: 'note', screens: ['validate'], matches: char('m') },
	{ action: 'confirm', label: 'y', description: 'yes', screens: ['confirm'], matches: char('y') },
	{ action: 'cancel', label: 'n / esc', description: 'no', screens: ['confirm'], matches: (k) => char('n')(k) || Boolean(k.escape) },
	{ action: 'filter', label: '/', description: 'filter the list (type to narrow it: id, book, method, model, status)', short: 'filter', screens: ['home'], matches: char('/') },
	{ action: 'open', label: 'enter', description: 'keep the filter and go back to the list', short: 'keep', screens: ['filter'], matches: (k) => Boolean(k.return) },
	{ action: 'cancel', label: 'esc', description: 'clear the filter', short: 'clear', screens: ['filter'], matches: (k) => Boolean(k.escape) },
	{ action: 'up', label: '↑', description: 'select previous', short: 'up', screens: ['filter'], matches: (k) => Boolean(k.upArrow) },
	{ action: 'down', label: '↓', description: 'select next', short: 'down', screens: ['filter'], matches: (k) => Boolean(k.downArrow) },
	{ action: 'save', label: 'ctrl-s', description: 'save (the edit as a new version; the form: start the run)', short: 'save', screens: ['editor', 'form'], matches: (k) => Boolean(k.ctrl) && k.input === 's' },
	{ action: 'cancel', label: 'esc', description: 'cancel', screens: ['editor', 'form'], matches: (k) => Boolean(k.escape) },
];

/** The action `key` means on `screen`, if any. */
export function actionFor(screen: Screen, key: KeyPress): Action | null {
	for (const b of BINDINGS) if (b.screens.includes(screen) && b.matches(key)) return b.action;
	return null;
}

/** What the footer shows for a binding: its short name, else its description. */
export function shortName(b: Binding): string {
	return b.short ?? b.description;
}

/** The bindings of one screen, in the order the footer shows them. */
export function bindingsFor(screen: Screen): Binding[] {
	return BINDINGS.filter((b) => b.screens.includes(screen));
}
