/**
 * Every key of the app, in one place: screens look their actions up here, the footer shows the
 * ones of the current screen, and `?` lists them all. A key means one thing on a screen.
 */

export type Screen =
	| 'home'
	| 'filter'
	| 'run'
	| 'study'
	| 'score'
	| 'validate'
	| 'faith'
	| 'results'
	| 'editor'
	| 'versions'
	| 'confirm'
	| 'form'
	| 'help'
	// The validation walk's dialogs: partial-agree reasons, the span of your own annotation, its error types, a text field.
	| 'reasons'
	| 'span'
	| 'types'
	| 'field';

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
	// The faithfulness walk's verdicts (LongEval).
	| 'faithful'
	| 'unfaithful'
	| 'cantTell'
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
	| 'filter'
	| 'prevSentence'
	| 'nextSentence'
	// The validation walk's.
	| 'results'
	| 'toggle'
	| 'shrink'
	| 'grow'
	| 'trimStart'
	| 'trimEnd'
	| 'whole'
	| 'erase'
	| 'insert'
	| 'lineStart'
	| 'lineEnd';

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

const ctrl = (c: string) => (key: KeyPress) => Boolean(key.ctrl) && key.input === c;
/** A digit from 1 to `max` (the number of a choice in a list). */
const digit = (max: number) => (key: KeyPress) =>
	!key.ctrl && !key.meta && /^[1-9]$/u.test(key.input) && Number(key.input) <= max;
/** A character typed into a text field: one press, printable, no ctrl or alt. */
const printable = (key: KeyPress) =>
	!key.ctrl && !key.meta && [...key.input].length === 1 && !/[\p{Cc}]/u.test(key.input);
/** The validation walk's dialogs, where ctrl-c still quits and esc cancels. */
const WALK_DIALOGS: readonly Screen[] = ['reasons', 'span', 'types', 'field'];

const ALL: readonly Screen[] = ['home', 'study', 'run', 'score', 'validate', 'faith', 'results', 'versions'];
// Ctrl-C must work even where letters are typed (editor, form), so it is bound on every screen.
const EVERY: readonly Screen[] = [
	'home',
	'filter',
	'study',
	'run',
	'score',
	'validate',
	'faith',
	'results',
	'editor',
	'versions',
	'confirm',
	'form',
	'help',
];

export const BINDINGS: readonly Binding[] = [
	{
		action: 'quit',
		label: 'q',
		description: 'quit (saves; calls in flight are cancelled)',
		short: 'quit',
		screens: ALL,
		matches: char('q'),
	},
	{
		action: 'quit',
		label: 'ctrl-c',
		description: 'quit from anywhere, as q does',
		short: 'quit',
		screens: EVERY,
		matches: (k) => Boolean(k.ctrl) && k.input === 'c',
	},
	{
		action: 'help',
		label: '?',
		description: 'show every key (again to close)',
		short: 'help',
		screens: [...ALL, 'help'],
		matches: char('?'),
	},
	{
		action: 'pause',
		label: 'space',
		description: 'pause / resume (calls in flight finish, no new ones start); while stepping, run on',
		short: 'pause',
		screens: ['run'],
		matches: char(' '),
	},
	{
		action: 'step',
		label: 's',
		description: 'step: make one call, then hold',
		short: 'step',
		screens: ['run'],
		matches: char('s'),
	},
	{
		action: 'edit',
		label: 'e',
		description: "edit the selected node's text (a new version; dependents go stale)",
		short: 'edit',
		screens: ['run'],
		matches: char('e'),
	},
	{
		action: 'rerun',
		label: 'r',
		description: 're-run stale nodes, or (when none is stale) the selected node from the same inputs',
		short: 're-run',
		screens: ['run'],
		matches: char('r'),
	},
	{
		action: 'resume',
		label: 'r',
		description: 'resume the selected session',
		short: 'resume',
		screens: ['home'],
		matches: char('r'),
	},
	{
		action: 'versions',
		label: 'v',
		description: "browse the selected node's versions",
		short: 'versions',
		screens: ['run'],
		matches: char('v'),
	},
	{
		action: 'score',
		label: 'b',
		description: 'BooookScore the final summary',
		short: 'score',
		screens: ['run', 'home'],
		matches: char('b'),
	},
	{
		action: 'chunk',
		label: 'c',
		description: "show the current chunk's text (again to hide)",
		short: 'chunk',
		screens: ['run'],
		matches: char('c'),
	},
	{
		action: 'newRun',
		label: 'n',
		description: 'start a new run',
		short: 'new',
		screens: ['home'],
		matches: char('n'),
	},
	{
		action: 'delete',
		label: 'd',
		description: 'delete the session (asks first)',
		short: 'delete',
		screens: ['home'],
		matches: char('d'),
	},
	{
		action: 'validate',
		label: 'V',
		description: 'validate the annotations by hand',
		short: 'validate',
		screens: ['home', 'run', 'score'],
		matches: char('V'),
	},
	{
		action: 'nextPane',
		label: 'tab',
		description: 'next pane (text, inputs, attempts, evidence)',
		short: 'pane',
		screens: ['run', 'form'],
		matches: (k) => Boolean(k.tab),
	},
	{
		action: 'up',
		label: '↑ k',
		description: 'select previous (level, session, cell, version, field); scroll up in incremental runs',
		short: 'up',
		screens: ['home', 'study', 'run', 'score', 'versions', 'results', 'help'],
		matches: (k) => Boolean(k.upArrow) || char('k')(k),
	},
	{
		action: 'down',
		label: '↓ j',
		description: 'select next (level, session, cell, version, field); scroll down in incremental runs',
		short: 'down',
		screens: ['home', 'study', 'run', 'score', 'versions', 'results', 'help'],
		matches: (k) => Boolean(k.downArrow) || char('j')(k),
	},
	// Letters are typed into the form's fields, so there only the arrows move.
	{
		action: 'up',
		label: '↑',
		description: 'previous field',
		short: 'up',
		screens: ['form'],
		matches: (k) => Boolean(k.upArrow),
	},
	{
		action: 'down',
		label: '↓',
		description: 'next field',
		short: 'down',
		screens: ['form'],
		matches: (k) => Boolean(k.downArrow),
	},
	{
		action: 'left',
		label: '←',
		description: 'previous (node, step of the timeline, sentence, choice)',
		short: 'prev',
		screens: ['run', 'validate', 'faith', 'form'],
		matches: (k) => Boolean(k.leftArrow),
	},
	{
		action: 'right',
		label: '→',
		description: 'next (node, step of the timeline, sentence, choice)',
		short: 'next',
		screens: ['run', 'validate', 'faith', 'form'],
		matches: (k) => Boolean(k.rightArrow),
	},
	{
		action: 'scrollUp',
		label: 'pgup',
		description: 'scroll the text up',
		short: 'scroll',
		screens: ['run', 'score', 'help'],
		matches: (k) => Boolean(k.pageUp),
	},
	{
		action: 'scrollDown',
		label: 'pgdn',
		description: 'scroll the text down',
		short: 'scroll',
		screens: ['run', 'score', 'help'],
		matches: (k) => Boolean(k.pageDown),
	},
	{
		action: 'open',
		label: 'enter',
		description: 'open the selection (in versions: make it active; in the form: start the run)',
		short: 'open',
		screens: ['home', 'versions', 'form'],
		matches: (k) => Boolean(k.return),
	},
	{
		action: 'open',
		label: 'enter',
		description: "watch the selected cell's run live while it runs (esc comes back)",
		short: 'watch',
		screens: ['study'],
		matches: (k) => Boolean(k.return),
	},
	{
		action: 'scrollUp',
		label: 'pgup',
		description: 'a page of cells up',
		short: 'page',
		screens: ['study'],
		matches: (k) => Boolean(k.pageUp),
	},
	{
		action: 'scrollDown',
		label: 'pgdn',
		description: 'a page of cells down',
		short: 'page',
		screens: ['study'],
		matches: (k) => Boolean(k.pageDown),
	},
	{
		action: 'prevSentence',
		label: '[',
		description: 'in the evidence pane: the previous sentence',
		short: 'sentence',
		screens: ['run'],
		matches: char('['),
	},
	{
		action: 'nextSentence',
		label: ']',
		description: 'in the evidence pane: the next sentence',
		short: 'sentence',
		screens: ['run'],
		matches: char(']'),
	},
	{
		action: 'follow',
		label: 'f',
		description: 'follow the run again (select what is running, else the last node or step made)',
		short: 'follow',
		screens: ['run'],
		matches: char('f'),
	},
	{
		action: 'back',
		label: 'esc',
		description: 'back / close (on the session list: clear the filter)',
		short: 'back',
		screens: ['home', 'run', 'score', 'validate', 'faith', 'results', 'versions', 'help'],
		matches: (k) => Boolean(k.escape),
	},
	{ action: 'agree', label: 'a', description: 'agree', screens: ['validate'], matches: char('a') },
	{
		action: 'partial',
		label: 'p',
		description: 'partially agree (then pick the failed standards)',
		short: 'partial',
		screens: ['validate'],
		matches: char('p'),
	},
	{ action: 'disagree', label: 'd', description: 'disagree', screens: ['validate'], matches: char('d') },
	{
		action: 'undo',
		label: 'u',
		description: 'undo your last action: a verdict, a note, or a verdict with the note written on it',
		short: 'undo',
		screens: ['validate'],
		matches: char('u'),
	},
	{
		action: 'undo',
		label: 'u',
		description: 'undo the last verdict',
		short: 'undo',
		screens: ['faith'],
		matches: char('u'),
	},
	{
		action: 'nextUnjudged',
		label: 'n',
		description: 'next unjudged',
		short: 'unjudged',
		screens: ['validate', 'faith'],
		matches: char('n'),
	},
	{
		action: 'addAnnotation',
		label: 'h',
		description: 'add your own annotation',
		short: 'add',
		screens: ['validate'],
		matches: char('h'),
	},
	{
		action: 'link',
		label: 'l',
		description: 'link two spans as one confusion',
		short: 'link',
		screens: ['validate'],
		matches: char('l'),
	},
	{
		action: 'note',
		label: 'm',
		description: "a note on the verdict just given (else on this item's verdict)",
		short: 'note',
		screens: ['validate'],
		matches: char('m'),
	},
	{
		action: 'note',
		label: 'm',
		description: 'add a note to the verdict',
		short: 'note',
		screens: ['faith'],
		matches: char('m'),
	},
	// The faithfulness walk: f / x / c (not ?, which is help everywhere).
	{
		action: 'faithful',
		label: 'f',
		description: 'faithful: everything the sentence says is supported by the book',
		short: 'faithful',
		screens: ['faith'],
		matches: char('f'),
	},
	{
		action: 'unfaithful',
		label: 'x',
		description: 'unfaithful: it contradicts the book or says what the book does not',
		short: 'unfaithful',
		screens: ['faith'],
		matches: char('x'),
	},
	{
		action: 'cantTell',
		label: 'c',
		description: "can't tell from what you have read and the evidence shown",
		short: "can't tell",
		screens: ['faith'],
		matches: char('c'),
	},
	// The validation walk's results, and its dialogs (see WALK_DIALOGS).
	{
		action: 'results',
		label: 'tab',
		description: 'results so far (both sources pooled while a blind walk is unfinished)',
		short: 'results',
		screens: ['validate'],
		matches: (k) => Boolean(k.tab),
	},
	{
		action: 'toggle',
		label: '1-4',
		description: 'tick or untick a standard the questions fail',
		short: 'tick',
		screens: ['reasons'],
		matches: digit(4),
	},
	{
		action: 'save',
		label: 'enter',
		description: 'save the verdict with the ticked standards',
		short: 'save',
		screens: ['reasons'],
		matches: (k) => Boolean(k.return),
	},
	{
		action: 'left',
		label: '←',
		description: 'move the span a sentence back',
		short: 'move',
		screens: ['span'],
		matches: (k) => Boolean(k.leftArrow),
	},
	{
		action: 'right',
		label: '→',
		description: 'move the span a sentence on',
		short: 'move',
		screens: ['span'],
		matches: (k) => Boolean(k.rightArrow),
	},
	{
		action: 'shrink',
		label: '[',
		description: 'one sentence fewer',
		short: 'fewer',
		screens: ['span'],
		matches: char('['),
	},
	{
		action: 'grow',
		label: ']',
		description: 'one sentence more',
		short: 'more',
		screens: ['span'],
		matches: char(']'),
	},
	{
		action: 'trimStart',
		label: '>',
		description: 'drop a word at the start',
		short: 'drop first word',
		screens: ['span'],
		matches: char('>'),
	},
	{
		action: 'trimEnd',
		label: '<',
		description: 'drop a word at the end',
		short: 'drop last word',
		screens: ['span'],
		matches: char('<'),
	},
	{
		action: 'whole',
		label: '=',
		description: 'whole sentences again',
		short: 'whole',
		screens: ['span'],
		matches: char('='),
	},
	{
		action: 'link',
		label: 'l',
		description: 'link a second span (one confusion in two places)',
		short: 'link',
		screens: ['span'],
		matches: char('l'),
	},
	{
		action: 'confirm',
		label: 'enter',
		description: 'done: write the questions',
		short: 'questions',
		screens: ['span'],
		matches: (k) => Boolean(k.return),
	},
	{
		action: 'toggle',
		label: '1-8',
		description: 'tick or untick an error type',
		short: 'tick',
		screens: ['types'],
		matches: digit(8),
	},
	{
		action: 'save',
		label: 'enter',
		description: 'save your annotation',
		short: 'save',
		screens: ['types'],
		matches: (k) => Boolean(k.return),
	},
	{
		action: 'save',
		label: 'enter',
		description: 'done (a note is saved; questions go on to the error types)',
		short: 'done',
		screens: ['field'],
		matches: (k) => Boolean(k.return),
	},
	// Ink names the key most terminals send for backspace (DEL) "delete": both erase backwards.
	{
		action: 'erase',
		label: 'backspace',
		description: 'erase the character before the cursor',
		short: 'erase',
		screens: ['field'],
		matches: (k) => Boolean(k.backspace || k.delete),
	},
	{
		action: 'left',
		label: '←',
		description: 'cursor left',
		short: 'cursor',
		screens: ['field'],
		matches: (k) => Boolean(k.leftArrow),
	},
	{
		action: 'right',
		label: '→',
		description: 'cursor right',
		short: 'cursor',
		screens: ['field'],
		matches: (k) => Boolean(k.rightArrow),
	},
	{
		action: 'lineStart',
		label: 'home',
		description: 'cursor to the start',
		short: 'to start',
		screens: ['field'],
		matches: (k) => Boolean(k.home) || ctrl('a')(k),
	},
	{
		action: 'lineEnd',
		label: 'end',
		description: 'cursor to the end',
		short: 'to end',
		screens: ['field'],
		matches: (k) => Boolean(k.end) || ctrl('e')(k),
	},
	{
		action: 'insert',
		label: 'keys',
		description: 'type: letters, digits, spaces and punctuation go into the field',
		short: 'type',
		screens: ['field'],
		matches: printable,
	},
	{
		action: 'cancel',
		label: 'esc',
		description: 'cancel',
		screens: WALK_DIALOGS,
		matches: (k) => Boolean(k.escape),
	},
	{
		action: 'quit',
		label: 'ctrl-c',
		description: 'quit from anywhere, as q does',
		short: 'quit',
		screens: WALK_DIALOGS,
		matches: ctrl('c'),
	},
	{ action: 'confirm', label: 'y', description: 'yes', screens: ['confirm'], matches: char('y') },
	{
		action: 'cancel',
		label: 'n / esc',
		description: 'no',
		screens: ['confirm'],
		matches: (k) => char('n')(k) || Boolean(k.escape),
	},
	{
		action: 'filter',
		label: '/',
		description: 'filter the list (type to narrow it: id, book, method, model, status)',
		short: 'filter',
		screens: ['home'],
		matches: char('/'),
	},
	{
		action: 'open',
		label: 'enter',
		description: 'keep the filter and go back to the list',
		short: 'keep',
		screens: ['filter'],
		matches: (k) => Boolean(k.return),
	},
	{
		action: 'cancel',
		label: 'esc',
		description: 'clear the filter',
		short: 'clear',
		screens: ['filter'],
		matches: (k) => Boolean(k.escape),
	},
	{
		action: 'up',
		label: '↑',
		description: 'select previous',
		short: 'up',
		screens: ['filter'],
		matches: (k) => Boolean(k.upArrow),
	},
	{
		action: 'down',
		label: '↓',
		description: 'select next',
		short: 'down',
		screens: ['filter'],
		matches: (k) => Boolean(k.downArrow),
	},
	{
		action: 'save',
		label: 'ctrl-s',
		description: 'save (the edit as a new version; the form: start the run)',
		short: 'save',
		screens: ['editor', 'form'],
		matches: (k) => Boolean(k.ctrl) && k.input === 's',
	},
	{
		action: 'cancel',
		label: 'esc',
		description: 'cancel',
		screens: ['editor', 'form'],
		matches: (k) => Boolean(k.escape),
	},
];

/** The action `key` means on `screen`, if any. */
export function actionFor(screen: Screen, key: KeyPress): Action | null {
	for (const b of BINDINGS) if (b.screens.includes(screen) && b.matches(key)) return b.action;
	return null;
}

/**
 * The keys a screen is for, which its footer shows first (before help and quit): a narrow terminal
 * cuts the footer's end, and these are the ones a person reaches for on every item.
 */
export const MAIN_KEYS: Partial<Record<Screen, readonly Action[]>> = {
	home: ['open', 'newRun', 'resume'],
	run: ['pause', 'step', 'edit', 'rerun', 'score', 'validate', 'versions', 'nextPane', 'chunk'],
	study: ['up', 'open'],
	validate: ['agree', 'partial', 'disagree', 'undo', 'note', 'nextUnjudged', 'addAnnotation', 'link'],
	faith: ['faithful', 'unfaithful', 'cantTell', 'undo', 'note', 'nextUnjudged'],
	reasons: ['toggle', 'save', 'cancel'],
	span: ['left', 'shrink', 'grow', 'confirm', 'cancel', 'trimStart', 'trimEnd', 'whole', 'link'],
	types: ['toggle', 'save', 'cancel'],
	field: ['save', 'cancel'],
};

/** What the footer shows for a binding: its short name, else its description. */
export function shortName(b: Binding): string {
	return b.short ?? b.description;
}

/** The bindings of one screen, in the order the footer shows them. */
export function bindingsFor(screen: Screen): Binding[] {
	return BINDINGS.filter((b) => b.screens.includes(screen));
}
