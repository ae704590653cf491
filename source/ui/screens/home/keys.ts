import type { Keys } from '../../keys/binding.ts';

/** The home screen's keys: the session list and its filter. */
export const HOME_KEYS: Keys = {
	main: { home: ['open', 'newRun', 'resume'] },
	bindings: [
		{
			action: 'resume',
			keys: [{ char: 'r' }],
			description: 'resume the selected session',
			short: 'resume',
			on: ['home'],
		},
		{
			action: 'score',
			keys: [{ char: 'b' }],
			description: 'BooookScore the final summary',
			short: 'score',
			on: ['home'],
		},
		{ action: 'newRun', keys: [{ char: 'n' }], description: 'start a new run', short: 'new', on: ['home'] },
		{
			action: 'delete',
			keys: [{ char: 'd' }],
			description: 'delete the session (asks first)',
			short: 'delete',
			on: ['home'],
		},
		{
			action: 'validate',
			keys: [{ char: 'V' }],
			description: 'validate the annotations by hand',
			short: 'validate',
			on: ['home'],
		},
		{
			action: 'up',
			keys: [{ name: 'up' }, { char: 'k' }],
			description: 'select the previous session',
			short: 'up',
			on: ['home'],
		},
		{
			action: 'down',
			keys: [{ name: 'down' }, { char: 'j' }],
			description: 'select the next session',
			short: 'down',
			on: ['home'],
		},
		{
			action: 'open',
			keys: [{ name: 'return' }],
			description: 'open the selected session',
			short: 'open',
			on: ['home'],
		},
		{
			action: 'back',
			keys: [{ name: 'escape' }],
			description: 'clear the filter',
			short: 'back',
			on: ['home'],
		},
		{
			action: 'compare',
			keys: [{ char: 'C' }],
			description:
				"compare the selected session's summary, blind, with the other finished sessions of its book",
			short: 'compare',
			on: ['home'],
		},
		{
			action: 'filter',
			keys: [{ char: '/' }],
			description: 'filter the list (type to narrow it: id, book, method, model, status)',
			short: 'filter',
			on: ['home'],
		},
		{
			action: 'open',
			keys: [{ name: 'return' }],
			description: 'keep the filter and go back to the list',
			short: 'keep',
			on: ['filter'],
		},
		{
			action: 'cancel',
			keys: [{ name: 'escape' }],
			description: 'clear the filter',
			short: 'clear',
			on: ['filter'],
		},
		{ action: 'up', keys: [{ name: 'up' }], description: 'select previous', short: 'up', on: ['filter'] },
		{ action: 'down', keys: [{ name: 'down' }], description: 'select next', short: 'down', on: ['filter'] },
	],
};
