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
			description: 'select previous (level, session, cell, version, field); scroll up in incremental runs',
			short: 'up',
			on: ['score'],
		},
		{
			action: 'down',
			keys: [{ name: 'down' }, { char: 'j' }],
			description: 'select next (level, session, cell, version, field); scroll down in incremental runs',
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
			description: 'back / close (on the session list: clear the filter)',
			short: 'back',
			on: ['score'],
		},
	],
};
