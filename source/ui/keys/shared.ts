import type { Keys, Place } from './binding.ts';

/** Where q quits: every screen, and the lists over them (where no letter is typed). */
const ALL: readonly Place[] = [
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
const EVERY: readonly Place[] = [...ALL, 'filter', 'editor', 'confirm', 'form', 'help'];

/**
 * The keys every screen shares (quit, help), the help's own, and those of the dialogs several
 * screens open: a text field (typing, as the run screen's editor does too), a form, a yes/no question.
 */
export const SHARED_KEYS: Keys = {
	main: { field: ['save', 'cancel'] },
	bindings: [
		{
			action: 'quit',
			keys: [{ char: 'q' }],
			description: 'quit (saves; calls in flight are cancelled)',
			short: 'quit',
			on: ALL,
		},
		{
			action: 'quit',
			keys: [{ char: 'c', ctrl: true }],
			description: 'quit from anywhere, as q does',
			short: 'quit',
			on: EVERY,
		},
		{
			action: 'help',
			keys: [{ char: '?' }],
			description: 'show every key (again to close)',
			short: 'help',
			on: [...ALL, 'help'],
		},
		{
			action: 'nextPane',
			keys: [{ name: 'tab' }],
			description: 'next pane (text, inputs, attempts, evidence)',
			short: 'pane',
			on: ['form'],
		},
		{
			action: 'up',
			keys: [{ name: 'up' }, { char: 'k' }],
			description: 'scroll the help up',
			short: 'up',
			on: ['help'],
		},
		{
			action: 'down',
			keys: [{ name: 'down' }, { char: 'j' }],
			description: 'scroll the help down',
			short: 'down',
			on: ['help'],
		},
		// Letters are typed into the form's fields, so there only the arrows move.
		{ action: 'up', keys: [{ name: 'up' }], description: 'previous field', short: 'up', on: ['form'] },
		{ action: 'down', keys: [{ name: 'down' }], description: 'next field', short: 'down', on: ['form'] },
		{
			action: 'left',
			keys: [{ name: 'left' }],
			description: 'previous (node, step of the timeline, sentence, choice)',
			short: 'prev',
			on: ['form'],
		},
		{
			action: 'right',
			keys: [{ name: 'right' }],
			description: 'next (node, step of the timeline, sentence, choice)',
			short: 'next',
			on: ['form'],
		},
		{
			action: 'scrollUp',
			keys: [{ name: 'pageUp' }],
			description: 'scroll the text up',
			short: 'scroll',
			on: ['help'],
		},
		{
			action: 'scrollDown',
			keys: [{ name: 'pageDown' }],
			description: 'scroll the text down',
			short: 'scroll',
			on: ['help'],
		},
		{
			action: 'open',
			keys: [{ name: 'return' }],
			description: 'start the run',
			short: 'open',
			on: ['form'],
		},
		{
			action: 'back',
			keys: [{ name: 'escape' }],
			description: 'close the help',
			short: 'back',
			on: ['help'],
		},
		{
			action: 'save',
			keys: [{ name: 'return' }],
			description: "done (a note is saved; the validation walk's questions go on to their error types)",
			short: 'done',
			on: ['field'],
		},
		// Ink names the key most terminals send for backspace (DEL) "delete": both erase backwards.
		{
			action: 'erase',
			keys: [{ name: 'backspace' }, { name: 'delete' }],
			description: 'erase the character before the cursor',
			short: 'erase',
			on: ['field', 'editor'],
		},
		{
			action: 'left',
			keys: [{ name: 'left' }],
			description: 'cursor left',
			short: 'cursor',
			on: ['field', 'editor'],
		},
		{
			action: 'right',
			keys: [{ name: 'right' }],
			description: 'cursor right',
			short: 'cursor',
			on: ['field', 'editor'],
		},
		{
			action: 'lineStart',
			keys: [{ name: 'home' }, { char: 'a', ctrl: true }],
			description: 'cursor to the start (of the line, in the editor)',
			short: 'to start',
			on: ['field', 'editor'],
		},
		{
			action: 'lineEnd',
			keys: [{ name: 'end' }, { char: 'e', ctrl: true }],
			description: 'cursor to the end (of the line, in the editor)',
			short: 'to end',
			on: ['field', 'editor'],
		},
		{
			action: 'insert',
			keys: [{ printable: true }],
			description: 'type: letters, digits, spaces and punctuation go into the text',
			short: 'type',
			on: ['field', 'editor'],
		},
		{ action: 'cancel', keys: [{ name: 'escape' }], description: 'cancel', on: ['field'] },
		{
			action: 'quit',
			keys: [{ char: 'c', ctrl: true }],
			description: 'quit from anywhere, as q does',
			short: 'quit',
			on: ['field'],
		},
		{ action: 'confirm', keys: [{ char: 'y' }], description: 'yes', on: ['confirm'] },
		{ action: 'cancel', keys: [{ char: 'n' }, { name: 'escape' }], description: 'no', on: ['confirm'] },
		{
			action: 'save',
			keys: [{ char: 's', ctrl: true }],
			description: 'save (the edit as a new version; the form: start the run)',
			short: 'save',
			on: ['form'],
		},
		{ action: 'cancel', keys: [{ name: 'escape' }], description: 'cancel', on: ['form'] },
	],
};
