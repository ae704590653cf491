import type { Keys } from '../../keys/binding.ts';

/** The BooookScore screen's keys. */
export const SCORE_KEYS: Keys = {
	main: {},
	bindings: [
		{
			action: 'validate',
			keys: [{ char: 'V' }],
			description: 'validate the annotations by hand',
			short: 'validate',
			on: ['score'],
		},
		{
			action: 'up',
			keys: [{ name: 'up' }, { char: 'k' }],
			description: 'select the previous confusing sentence',
			short: 'up',
			on: ['score'],
		},
		{
			action: 'down',
			keys: [{ name: 'down' }, { char: 'j' }],
			description: 'select the next confusing sentence',
			short: 'down',
			on: ['score'],
		},
		{
			action: 'scrollUp',
			keys: [{ name: 'pageUp' }],
			description: 'scroll the text up',
			short: 'scroll',
			on: ['score'],
		},
		{
			action: 'scrollDown',
			keys: [{ name: 'pageDown' }],
			description: 'scroll the text down',
			short: 'scroll',
			on: ['score'],
		},
		{
			action: 'back',
			keys: [{ name: 'escape' }],
			description: 'back to where the score was opened from',
			short: 'back',
			on: ['score'],
		},
	],
};
