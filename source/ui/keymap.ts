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
	| 'faithfulness'
	// The blind comparison of two summaries (ui/screens/compare).
	| 'compare'
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
	// The faithfulness walk's verdicts (LongEval; FABLES' partial support is 'partial'), and its units.
	| 'faithful'
	| 'unfaithful'
	| 'cantTell'
	| 'units'
	// The faithfulness walk's coarse rating of a whole summary (LongEval), 1 to 5.
	| 'rate'
	// The comparison's answers: the summary shown first (A) or second (B) is better, or a tie.
	| 'compare'
	| 'preferFirst'
	| 'preferSecond'
	| 'tie'
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
	| 'lineEnd'
	// The in-app editor's.
	| 'newline';

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

/** The keys Ink names, by the flag a press carries for each. */
const NAMED = {
	up: { flag: 'upArrow', label: '↑' },
	down: { flag: 'downArrow', label: '↓' },
	left: { flag: 'leftArrow', label: '←' },
	right: { flag: 'rightArrow', label: '→' },
	pageUp: { flag: 'pageUp', label: 'pgup' },
	pageDown: { flag: 'pageDown', label: 'pgdn' },
	home: { flag: 'home', label: 'home' },
	end: { flag: 'end', label: 'end' },
	return: { flag: 'return', label: 'enter' },
	escape: { flag: 'escape', label: 'esc' },
	tab: { flag: 'tab', label: 'tab' },
	backspace: { flag: 'backspace', label: 'backspace' },
	delete: { flag: 'delete', label: 'delete' },
} as const satisfies Record<string, { flag: keyof KeyPress; label: string }>;

/**
 * One key a binding answers to, as data: what it matches and how the footer and the help name it
 * are both read from here, so they cannot drift apart.
 */
export type Key =
	/** A named key, whatever modifiers are held. */
	| { name: keyof typeof NAMED }
	/** A character typed: with ctrl held when `ctrl`, else only without it. */
	| { char: string; ctrl?: true }
	/** A digit from 1 to `digits` (the number of a choice in a list), no ctrl or alt. */
	| { digits: number }
	/** Any one printable character (typing into a text field), no ctrl or alt. */
	| { printable: true };

export interface Binding {
	action: Action;
	/** The keys that do it; the footer and the help name them (see `labelOf`). */
	keys: readonly Key[];
	description: string;
	/** What the footer shows next to the label, when the description is too long for it. */
	short?: string;
	screens: readonly Screen[];
}

/** Whether `press` is `key`. */
export function keyMatches(key: Key, press: KeyPress): boolean {
	if ('name' in key) return Boolean(press[NAMED[key.name].flag]);
	if ('char' in key) return press.input === key.char && Boolean(press.ctrl) === Boolean(key.ctrl);
	if (press.ctrl || press.meta) return false;
	if ('digits' in key) return /^[1-9]$/u.test(press.input) && Number(press.input) <= key.digits;
	return [...press.input].length === 1 && !/[\p{Cc}]/u.test(press.input);
}

/** How the footer and the help name one key: "↑", "ctrl-s", "space", "1-4". */
export function keyLabel(key: Key): string {
	if ('name' in key) return NAMED[key.name].label;
	if ('char' in key) return `${key.ctrl ? 'ctrl-' : ''}${key.char === ' ' ? 'space' : key.char}`;
	if ('digits' in key) return `1-${key.digits}`;
	return 'keys';
}

/** A binding's keys as the footer and the help show them: "↑ k". */
export function labelOf(binding: Binding): string {
	return binding.keys.map(keyLabel).join(' ');
}

/** The validation walk's dialogs, where ctrl-c still quits and esc cancels. */
const WALK_DIALOGS: readonly Screen[] = ['reasons', 'span', 'types', 'field'];

const ALL: readonly Screen[] = [
	'home',
	'study',
	'run',
	'score',
	'validate',
	'faithfulness',
	'compare',
	'results',
	'versions',
];
// Ctrl-C must work even where letters are typed (editor, form), so it is bound on every screen.
const EVERY: readonly Screen[] = [...ALL, 'filter', 'editor', 'confirm', 'form', 'help'];

export const BINDINGS: readonly Binding[] = [
	{
		action: 'quit',
		keys: [{ char: 'q' }],
		description: 'quit (saves; calls in flight are cancelled)',
		short: 'quit',
		screens: ALL,
	},
	{
		action: 'quit',
		keys: [{ char: 'c', ctrl: true }],
		description: 'quit from anywhere, as q does',
		short: 'quit',
		screens: EVERY,
	},
	{
		action: 'help',
		keys: [{ char: '?' }],
		description: 'show every key (again to close)',
		short: 'help',
		screens: [...ALL, 'help'],
	},
	{
		action: 'pause',
		keys: [{ char: ' ' }],
		description: 'pause / resume (calls in flight finish, no new ones start); while stepping, run on',
		short: 'pause',
		screens: ['run'],
	},
	{
		action: 'step',
		keys: [{ char: 's' }],
		description: 'step: make one call, then hold',
		short: 'step',
		screens: ['run'],
	},
	{
		action: 'edit',
		keys: [{ char: 'e' }],
		description: "edit the selected node's text (a new version; dependents go stale)",
		short: 'edit',
		screens: ['run'],
	},
	{
		action: 'rerun',
		keys: [{ char: 'r' }],
		description: 're-run stale nodes, or (when none is stale) the selected node from the same inputs',
		short: 're-run',
		screens: ['run'],
	},
	{
		action: 'resume',
		keys: [{ char: 'r' }],
		description: 'resume the selected session',
		short: 'resume',
		screens: ['home'],
	},
	{
		action: 'versions',
		keys: [{ char: 'v' }],
		description: "browse the selected node's versions",
		short: 'versions',
		screens: ['run'],
	},
	{
		action: 'score',
		keys: [{ char: 'b' }],
		description: 'BooookScore the final summary',
		short: 'score',
		screens: ['run', 'home'],
	},
	{
		action: 'chunk',
		keys: [{ char: 'c' }],
		description: "show the current chunk's text (again to hide)",
		short: 'chunk',
		screens: ['run'],
	},
	{
		action: 'newRun',
		keys: [{ char: 'n' }],
		description: 'start a new run',
		short: 'new',
		screens: ['home'],
	},
	{
		action: 'delete',
		keys: [{ char: 'd' }],
		description: 'delete the session (asks first)',
		short: 'delete',
		screens: ['home'],
	},
	{
		action: 'validate',
		keys: [{ char: 'V' }],
		description: 'validate the annotations by hand',
		short: 'validate',
		screens: ['home', 'run', 'score'],
	},
	{
		action: 'nextPane',
		keys: [{ name: 'tab' }],
		description: 'next pane (text, inputs, attempts, evidence)',
		short: 'pane',
		screens: ['run', 'form'],
	},
	{
		action: 'up',
		keys: [{ name: 'up' }, { char: 'k' }],
		description: 'select previous (level, session, cell, version, field); scroll up in incremental runs',
		short: 'up',
		screens: ['home', 'study', 'run', 'score', 'versions', 'results', 'help'],
	},
	{
		action: 'down',
		keys: [{ name: 'down' }, { char: 'j' }],
		description: 'select next (level, session, cell, version, field); scroll down in incremental runs',
		short: 'down',
		screens: ['home', 'study', 'run', 'score', 'versions', 'results', 'help'],
	},
	// Letters are typed into the form's fields, so there only the arrows move.
	{
		action: 'up',
		keys: [{ name: 'up' }],
		description: 'previous field',
		short: 'up',
		screens: ['form'],
	},
	{
		action: 'down',
		keys: [{ name: 'down' }],
		description: 'next field',
		short: 'down',
		screens: ['form'],
	},
	{
		action: 'left',
		keys: [{ name: 'left' }],
		description: 'previous (node, step of the timeline, sentence, choice)',
		short: 'prev',
		screens: ['run', 'validate', 'faithfulness', 'form'],
	},
	{
		action: 'right',
		keys: [{ name: 'right' }],
		description: 'next (node, step of the timeline, sentence, choice)',
		short: 'next',
		screens: ['run', 'validate', 'faithfulness', 'form'],
	},
	{
		action: 'scrollUp',
		keys: [{ name: 'pageUp' }],
		description: 'scroll the text up',
		short: 'scroll',
		screens: ['run', 'score', 'help'],
	},
	{
		action: 'scrollDown',
		keys: [{ name: 'pageDown' }],
		description: 'scroll the text down',
		short: 'scroll',
		screens: ['run', 'score', 'help'],
	},
	{
		action: 'open',
		keys: [{ name: 'return' }],
		description: 'open the selection (in versions: make it active; in the form: start the run)',
		short: 'open',
		screens: ['home', 'versions', 'form'],
	},
	{
		action: 'open',
		keys: [{ name: 'return' }],
		description: "watch the selected cell's run live while it runs (esc comes back)",
		short: 'watch',
		screens: ['study'],
	},
	{
		action: 'scrollUp',
		keys: [{ name: 'pageUp' }],
		description: 'a page of cells up',
		short: 'page',
		screens: ['study'],
	},
	{
		action: 'scrollDown',
		keys: [{ name: 'pageDown' }],
		description: 'a page of cells down',
		short: 'page',
		screens: ['study'],
	},
	{
		action: 'prevSentence',
		keys: [{ char: '[' }],
		description: 'in the evidence pane: the previous sentence',
		short: 'sentence',
		screens: ['run'],
	},
	{
		action: 'nextSentence',
		keys: [{ char: ']' }],
		description: 'in the evidence pane: the next sentence',
		short: 'sentence',
		screens: ['run'],
	},
	{
		action: 'follow',
		keys: [{ char: 'f' }],
		description: 'follow the run again (select what is running, else the last node or step made)',
		short: 'follow',
		screens: ['run'],
	},
	{
		action: 'back',
		keys: [{ name: 'escape' }],
		description: 'back / close (on the session list: clear the filter)',
		short: 'back',
		screens: ['home', 'run', 'score', 'validate', 'faithfulness', 'results', 'versions', 'help'],
	},
	{ action: 'agree', keys: [{ char: 'a' }], description: 'agree', screens: ['validate'] },
	{
		action: 'partial',
		keys: [{ char: 'p' }],
		description: 'partially agree (then pick the failed standards)',
		short: 'partial',
		screens: ['validate'],
	},
	{ action: 'disagree', keys: [{ char: 'd' }], description: 'disagree', screens: ['validate'] },
	{
		action: 'undo',
		keys: [{ char: 'u' }],
		description: 'undo your last action: a verdict, a note, or a verdict with the note written on it',
		short: 'undo',
		screens: ['validate'],
	},
	{
		action: 'undo',
		keys: [{ char: 'u' }],
		description: 'undo the last verdict',
		short: 'undo',
		screens: ['faithfulness'],
	},
	{
		action: 'nextUnjudged',
		keys: [{ char: 'n' }],
		description: 'next unjudged',
		short: 'unjudged',
		screens: ['validate', 'faithfulness'],
	},
	{
		action: 'addAnnotation',
		keys: [{ char: 'h' }],
		description: 'add your own annotation',
		short: 'add',
		screens: ['validate'],
	},
	{
		action: 'link',
		keys: [{ char: 'l' }],
		description: 'link two spans as one confusion',
		short: 'link',
		screens: ['validate'],
	},
	{
		action: 'note',
		keys: [{ char: 'm' }],
		description: "a note on the verdict just given (else on this item's verdict)",
		short: 'note',
		screens: ['validate'],
	},
	{
		action: 'note',
		keys: [{ char: 'm' }],
		description: 'add a note to the verdict',
		short: 'note',
		screens: ['faithfulness'],
	},
	// The faithfulness walk: f / p / x / c (not ?, which is help everywhere), and s for its units.
	{
		action: 'faithful',
		keys: [{ char: 'f' }],
		description: 'faithful: everything the sentence (or claim) says is supported by the book',
		short: 'faithful',
		screens: ['faithfulness'],
	},
	{
		action: 'partial',
		keys: [{ char: 'p' }],
		description: 'partial support (FABLES): the book states some of what it says, not all',
		short: 'partial',
		screens: ['faithfulness'],
	},
	{
		action: 'unfaithful',
		keys: [{ char: 'x' }],
		description: 'unfaithful: it contradicts the book or says what the book does not',
		short: 'unfaithful',
		screens: ['faithfulness'],
	},
	{
		action: 'cantTell',
		keys: [{ char: 'c' }],
		description: "can't tell from what you have read and the evidence shown",
		short: "can't tell",
		screens: ['faithfulness'],
	},
	{
		action: 'units',
		keys: [{ char: 's' }],
		description: 'switch between whole sentences and the claims a model judge split them into',
		short: 'claims',
		screens: ['faithfulness'],
	},
	{
		action: 'rate',
		keys: [{ digits: 5 }],
		description:
			"rate the whole summary's faithfulness, 1 (most or all of it wrong or not in the book) to 5 (most or all in it); best before its sentences",
		short: 'rate summary',
		screens: ['faithfulness'],
	},
	{
		action: 'compare',
		keys: [{ char: 'C' }],
		description:
			"compare the selected session's summary, blind, with the other finished sessions of its book",
		short: 'compare',
		screens: ['home'],
	},
	// The comparison: A / B / t answer the criterion under the cursor (not ?, which is help everywhere).
	{
		action: 'preferFirst',
		keys: [{ char: 'a' }],
		description: 'summary A is better on this criterion',
		short: 'A',
		screens: ['compare'],
	},
	{
		action: 'preferSecond',
		keys: [{ char: 'b' }],
		description: 'summary B is better on this criterion',
		short: 'B',
		screens: ['compare'],
	},
	{
		action: 'tie',
		keys: [{ char: 't' }],
		description: 'a tie on this criterion',
		short: 'tie',
		screens: ['compare'],
	},
	{
		action: 'up',
		keys: [{ name: 'up' }, { char: 'k' }],
		description: 'previous criterion',
		short: 'criterion',
		screens: ['compare'],
	},
	{
		action: 'down',
		keys: [{ name: 'down' }, { char: 'j' }],
		description: 'next criterion',
		short: 'criterion',
		screens: ['compare'],
	},
	{
		action: 'left',
		keys: [{ name: 'left' }],
		description: 'previous pair',
		short: 'prev',
		screens: ['compare'],
	},
	{
		action: 'right',
		keys: [{ name: 'right' }],
		description: 'next pair',
		short: 'next',
		screens: ['compare'],
	},
	{
		action: 'nextUnjudged',
		keys: [{ char: 'n' }],
		description: 'next pair not judged yet',
		short: 'unjudged',
		screens: ['compare'],
	},
	{
		action: 'undo',
		keys: [{ char: 'u' }],
		description: 'undo your last answer or note',
		short: 'undo',
		screens: ['compare'],
	},
	{
		action: 'note',
		keys: [{ char: 'm' }],
		description: 'a note on this pair',
		short: 'note',
		screens: ['compare'],
	},
	{
		action: 'scrollUp',
		keys: [{ name: 'pageUp' }],
		description: 'scroll both summaries up',
		short: 'scroll',
		screens: ['compare'],
	},
	{
		action: 'scrollDown',
		keys: [{ name: 'pageDown' }],
		description: 'scroll both summaries down',
		short: 'scroll',
		screens: ['compare'],
	},
	{
		action: 'back',
		keys: [{ name: 'escape' }],
		description: 'back / close',
		short: 'back',
		screens: ['compare'],
	},
	// The validation walk's results, and its dialogs (see WALK_DIALOGS).
	{
		action: 'results',
		keys: [{ name: 'tab' }],
		description: 'results so far (both sources pooled while a blind walk is unfinished)',
		short: 'results',
		screens: ['validate'],
	},
	{
		action: 'toggle',
		keys: [{ digits: 4 }],
		description: 'tick or untick a standard the questions fail',
		short: 'tick',
		screens: ['reasons'],
	},
	{
		action: 'save',
		keys: [{ name: 'return' }],
		description: 'save the verdict with the ticked standards',
		short: 'save',
		screens: ['reasons'],
	},
	{
		action: 'left',
		keys: [{ name: 'left' }],
		description: 'move the span a sentence back',
		short: 'move',
		screens: ['span'],
	},
	{
		action: 'right',
		keys: [{ name: 'right' }],
		description: 'move the span a sentence on',
		short: 'move',
		screens: ['span'],
	},
	{
		action: 'shrink',
		keys: [{ char: '[' }],
		description: 'one sentence fewer',
		short: 'fewer',
		screens: ['span'],
	},
	{
		action: 'grow',
		keys: [{ char: ']' }],
		description: 'one sentence more',
		short: 'more',
		screens: ['span'],
	},
	{
		action: 'trimStart',
		keys: [{ char: '>' }],
		description: 'drop a word at the start',
		short: 'drop first word',
		screens: ['span'],
	},
	{
		action: 'trimEnd',
		keys: [{ char: '<' }],
		description: 'drop a word at the end',
		short: 'drop last word',
		screens: ['span'],
	},
	{
		action: 'whole',
		keys: [{ char: '=' }],
		description: 'whole sentences again',
		short: 'whole',
		screens: ['span'],
	},
	{
		action: 'link',
		keys: [{ char: 'l' }],
		description: 'link a second span (one confusion in two places)',
		short: 'link',
		screens: ['span'],
	},
	{
		action: 'confirm',
		keys: [{ name: 'return' }],
		description: 'done: write the questions',
		short: 'questions',
		screens: ['span'],
	},
	{
		action: 'toggle',
		keys: [{ digits: 8 }],
		description: 'tick or untick an error type',
		short: 'tick',
		screens: ['types'],
	},
	{
		action: 'save',
		keys: [{ name: 'return' }],
		description: 'save your annotation',
		short: 'save',
		screens: ['types'],
	},
	{
		action: 'save',
		keys: [{ name: 'return' }],
		description: 'done (a note is saved; questions go on to the error types)',
		short: 'done',
		screens: ['field'],
	},
	// Ink names the key most terminals send for backspace (DEL) "delete": both erase backwards.
	{
		action: 'erase',
		keys: [{ name: 'backspace' }, { name: 'delete' }],
		description: 'erase the character before the cursor',
		short: 'erase',
		screens: ['field', 'editor'],
	},
	{
		action: 'left',
		keys: [{ name: 'left' }],
		description: 'cursor left',
		short: 'cursor',
		screens: ['field', 'editor'],
	},
	{
		action: 'right',
		keys: [{ name: 'right' }],
		description: 'cursor right',
		short: 'cursor',
		screens: ['field', 'editor'],
	},
	{
		action: 'lineStart',
		keys: [{ name: 'home' }, { char: 'a', ctrl: true }],
		description: 'cursor to the start (of the line, in the editor)',
		short: 'to start',
		screens: ['field', 'editor'],
	},
	{
		action: 'lineEnd',
		keys: [{ name: 'end' }, { char: 'e', ctrl: true }],
		description: 'cursor to the end (of the line, in the editor)',
		short: 'to end',
		screens: ['field', 'editor'],
	},
	{
		action: 'insert',
		keys: [{ printable: true }],
		description: 'type: letters, digits, spaces and punctuation go into the text',
		short: 'type',
		screens: ['field', 'editor'],
	},
	{
		action: 'cancel',
		keys: [{ name: 'escape' }],
		description: 'cancel',
		screens: WALK_DIALOGS,
	},
	{
		action: 'quit',
		keys: [{ char: 'c', ctrl: true }],
		description: 'quit from anywhere, as q does',
		short: 'quit',
		screens: WALK_DIALOGS,
	},
	{ action: 'confirm', keys: [{ char: 'y' }], description: 'yes', screens: ['confirm'] },
	{
		action: 'cancel',
		keys: [{ char: 'n' }, { name: 'escape' }],
		description: 'no',
		screens: ['confirm'],
	},
	{
		action: 'filter',
		keys: [{ char: '/' }],
		description: 'filter the list (type to narrow it: id, book, method, model, status)',
		short: 'filter',
		screens: ['home'],
	},
	{
		action: 'open',
		keys: [{ name: 'return' }],
		description: 'keep the filter and go back to the list',
		short: 'keep',
		screens: ['filter'],
	},
	{
		action: 'cancel',
		keys: [{ name: 'escape' }],
		description: 'clear the filter',
		short: 'clear',
		screens: ['filter'],
	},
	{
		action: 'up',
		keys: [{ name: 'up' }],
		description: 'select previous',
		short: 'up',
		screens: ['filter'],
	},
	{
		action: 'down',
		keys: [{ name: 'down' }],
		description: 'select next',
		short: 'down',
		screens: ['filter'],
	},
	// Letters are typed into the editor's text, so there only the arrows move.
	{
		action: 'up',
		keys: [{ name: 'up' }],
		description: 'cursor up a row',
		short: 'up',
		screens: ['editor'],
	},
	{
		action: 'down',
		keys: [{ name: 'down' }],
		description: 'cursor down a row',
		short: 'down',
		screens: ['editor'],
	},
	{
		action: 'newline',
		keys: [{ name: 'return' }],
		description: 'a new line',
		short: 'line',
		screens: ['editor'],
	},
	{
		action: 'save',
		keys: [{ char: 's', ctrl: true }],
		description: 'save (the edit as a new version; the form: start the run)',
		short: 'save',
		screens: ['editor', 'form'],
	},
	{
		action: 'cancel',
		keys: [{ name: 'escape' }],
		description: 'cancel',
		screens: ['editor', 'form'],
	},
];

/** The action `key` means on `screen`, if any. */
export function actionFor(screen: Screen, key: KeyPress): Action | null {
	for (const b of BINDINGS)
		if (b.screens.includes(screen) && b.keys.some((k) => keyMatches(k, key))) return b.action;
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
	faithfulness: [
		'faithful',
		'partial',
		'unfaithful',
		'cantTell',
		'units',
		'undo',
		'note',
		'nextUnjudged',
		'rate',
	],
	compare: ['preferFirst', 'preferSecond', 'tie', 'down', 'nextUnjudged', 'undo', 'note'],
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
