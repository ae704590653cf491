/**
 * Every key of the app, in one place: screens look their actions up here, the footer shows the
 * ones of the current screen, and `?` lists them all. A key means one thing on a screen.
 */

export type Screen = 'home' | 'run' | 'score' | 'validate' | 'results' | 'editor' | 'versions' | 'confirm' | 'form';

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
	| 'save';

/** A key as Ink's useInput reports it: the input string plus the named-key flags we use. */
export interface KeyPress {
	input: string;
	upArrow?: boolean;
	downArrow?: boolean;
	leftArrow?: boolean;
	rightArrow?: boolean;
	return?: boolean;
	escape?: boolean;
	tab?: boolean;
	ctrl?: boolean;
}

export interface Binding {
	action: Action;
	/** What the footer and the help show. */
	label: string;
	description: string;
	screens: readonly Screen[];
	matches: (key: KeyPress) => boolean;
}

const char = (c: string) => (key: KeyPress) => key.input === c && !key.ctrl;

const ALL: readonly Screen[] = ['home', 'run', 'score', 'validate', 'results', 'versions'];

export const BINDINGS: readonly Binding[] = [
	{ action: 'quit', label: 'q', description: 'quit (saves; calls in flight are cancelled)', screens: ALL, matches: char('q') },
	{ action: 'help', label: '?', description: 'show every key', screens: ALL, matches: char('?') },
	{ action: 'pause', label: 'space', description: 'pause / resume (calls in flight finish, no new ones start)', screens: ['run'], matches: char(' ') },
	{ action: 'step', label: 's', description: 'step: make one call, then hold', screens: ['run'], matches: char('s') },
	{ action: 'nextPane', label: 'tab', description: 'next pane', screens: ['run', 'score', 'validate'], matches: (k) => Boolean(k.tab) },
	{ action: 'up', label: '↑', description: 'select previous', screens: ['home', 'run', 'score', 'versions', 'results'], matches: (k) => Boolean(k.upArrow) },
	{ action: 'down', label: '↓', description: 'select next', screens: ['home', 'run', 'score', 'versions', 'results'], matches: (k) => Boolean(k.downArrow) },
	{ action: 'left', label: '←', description: 'previous (node, step or sentence)', screens: ['run', 'validate'], matches: (k) => Boolean(k.leftArrow) },
	{ action: 'right', label: '→', description: 'next (node, step or sentence)', screens: ['run', 'validate'], matches: (k) => Boolean(k.rightArrow) },
	{ action: 'open', label: 'enter', description: 'open the selection (in versions: make it active)', screens: ['home', 'run', 'versions'], matches: (k) => Boolean(k.return) },
	{ action: 'back', label: 'esc', description: 'back / close', screens: ['run', 'score', 'validate', 'results', 'versions'], matches: (k) => Boolean(k.escape) },
	{ action: 'edit', label: 'e', description: "edit the selected node's text (a new version; dependents go stale)", screens: ['run'], matches: char('e') },
	{ action: 'rerun', label: 'r', description: 're-run stale nodes, or the selected node from the same inputs', screens: ['run'], matches: char('r') },
	{ action: 'resume', label: 'r', description: 'resume the selected session', screens: ['home'], matches: char('r') },
	{ action: 'versions', label: 'v', description: "browse the selected node's versions", screens: ['run'], matches: char('v') },
	{ action: 'score', label: 'b', description: 'BooookScore the final summary', screens: ['run', 'home'], matches: char('b') },
	{ action: 'chunk', label: 'c', description: "show the current chunk's text", screens: ['run'], matches: char('c') },
	{ action: 'newRun', label: 'n', description: 'start a new run', screens: ['home'], matches: char('n') },
	{ action: 'delete', label: 'd', description: 'delete the session (asks first)', screens: ['home'], matches: char('d') },
	{ action: 'validate', label: 'V', description: 'validate the annotations by hand', screens: ['home', 'run', 'score'], matches: char('V') },
	{ action: 'agree', label: 'a', description: 'agree', screens: ['validate'], matches: char('a') },
	{ action: 'partial', label: 'p', description: 'partially agree (then pick the failed standards)', screens: ['validate'], matches: char('p') },
	{ action: 'disagree', label: 'd', description: 'disagree', screens: ['validate'], matches: char('d') },
	{ action: 'undo', label: 'u', description: 'undo the last verdict', screens: ['validate'], matches: char('u') },
	{ action: 'nextUnjudged', label: 'n', description: 'next unjudged', screens: ['validate'], matches: char('n') },
	{ action: 'addAnnotation', label: 'h', description: 'add your own annotation', screens: ['validate'], matches: char('h') },
	{ action: 'link', label: 'l', description: 'link two spans as one confusion', screens: ['validate'], matches: char('l') },
	{ action: 'note', label: 'm', description: 'add a note to the verdict', screens: ['validate'], matches: char('m') },
	{ action: 'confirm', label: 'y', description: 'yes', screens: ['confirm'], matches: char('y') },
	{ action: 'cancel', label: 'n / esc', description: 'no', screens: ['confirm'], matches: (k) => char('n')(k) || Boolean(k.escape) },
	{ action: 'save', label: 'ctrl-s', description: 'save the edit as a new version', screens: ['editor', 'form'], matches: (k) => Boolean(k.ctrl) && k.input === 's' },
	{ action: 'cancel', label: 'esc', description: 'cancel', screens: ['editor', 'form'], matches: (k) => Boolean(k.escape) },
];

/** The action `key` means on `screen`, if any. */
export function actionFor(screen: Screen, key: KeyPress): Action | null {
	for (const b of BINDINGS) if (b.screens.includes(screen) && b.matches(key)) return b.action;
	return null;
}

/** The bindings of one screen, in the order the footer shows them. */
export function bindingsFor(screen: Screen): Binding[] {
	return BINDINGS.filter((b) => b.screens.includes(screen));
}
