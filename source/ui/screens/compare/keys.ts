import type { Keys } from '../../keys/binding.ts';

/** The comparison's keys: a / b / t answer the criterion under the cursor (not ?, which is help everywhere). */
export const COMPARE_KEYS: Keys = {
	main: { compare: ['preferFirst', 'preferSecond', 'tie', 'down', 'nextUnjudged', 'undo', 'note'] },
	bindings: [
		{
			action: 'preferFirst',
			keys: [{ char: 'a' }],
			description: 'summary A is better on this criterion',
			short: 'A',
			on: ['compare'],
		},
		{
			action: 'preferSecond',
			keys: [{ char: 'b' }],
			description: 'summary B is better on this criterion',
			short: 'B',
			on: ['compare'],
		},
		{
			action: 'tie',
			keys: [{ char: 't' }],
			description: 'a tie on this criterion',
			short: 'tie',
			on: ['compare'],
		},
		{
			action: 'up',
			keys: [{ name: 'up' }, { char: 'k' }],
			description: 'previous criterion',
			short: 'criterion',
			on: ['compare'],
		},
		{
			action: 'down',
			keys: [{ name: 'down' }, { char: 'j' }],
			description: 'next criterion',
			short: 'criterion',
			on: ['compare'],
		},
		{
			action: 'left',
			keys: [{ name: 'left' }],
			description: 'previous pair',
			short: 'prev',
			on: ['compare'],
		},
		{ action: 'right', keys: [{ name: 'right' }], description: 'next pair', short: 'next', on: ['compare'] },
		{
			action: 'nextUnjudged',
			keys: [{ char: 'n' }],
			description: 'next pair not judged yet',
			short: 'unjudged',
			on: ['compare'],
		},
		{
			action: 'undo',
			keys: [{ char: 'u' }],
			description: 'undo your last answer or note',
			short: 'undo',
			on: ['compare'],
		},
		{
			action: 'note',
			keys: [{ char: 'm' }],
			description: 'a note on this pair',
			short: 'note',
			on: ['compare'],
		},
		{
			action: 'scrollUp',
			keys: [{ name: 'pageUp' }],
			description: 'scroll both summaries up',
			short: 'scroll',
			on: ['compare'],
		},
		{
			action: 'scrollDown',
			keys: [{ name: 'pageDown' }],
			description: 'scroll both summaries down',
			short: 'scroll',
			on: ['compare'],
		},
		{
			action: 'back',
			keys: [{ name: 'escape' }],
			description: 'back / close',
			short: 'back',
			on: ['compare'],
		},
	],
};
