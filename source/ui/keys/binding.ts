/**
 * What a key binding is, as data: the keys it answers to, the action it means and where. Each
 * screen's bindings are in its folder (ui/screens/<name>/keys.ts), the ones several share in
 * shared.ts; ui/keymap.ts puts them together.
 */

/** The app's screens: what a command or the home screen opens. */
export type Screen = 'home' | 'run' | 'study' | 'score' | 'validate' | 'faithfulness' | 'compare';

/**
 * What opens over a screen and reads keys of its own: the home screen's filter; the run screen's
 * versions and editor; the validation walk's results and its dialogs (partial-agree reasons, the
 * span of your own annotation, its error types); and the ones several screens open: a text field
 * (a note, questions, a form's text), a form, a yes/no question, the help.
 */
export type Dialog =
	| 'filter'
	| 'versions'
	| 'editor'
	| 'results'
	| 'reasons'
	| 'span'
	| 'types'
	| 'field'
	| 'form'
	| 'confirm'
	| 'help';

/** Where keys are read: a screen, or a dialog over it. */
export type Place = Screen | Dialog;

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
	/** Where the keys do it: screens, and dialogs over them. */
	on: readonly Place[];
}

/**
 * A screen's keys (or the shared ones): its bindings, and the actions its footer shows first
 * (before help and quit) on each of its places: a narrow terminal cuts the footer's end, and these
 * are the ones a person reaches for on every item.
 */
export interface Keys {
	bindings: readonly Binding[];
	main: Partial<Record<Place, readonly Action[]>>;
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
