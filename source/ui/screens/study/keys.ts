import type { Keys } from '../../keys/binding.ts';

/** The study screen's keys: its cells. */
export const STUDY_KEYS: Keys = {
	main: { study: ['up', 'open'] },
	bindings: [
		{
			action: 'up',
			keys: [{ name: 'up' }, { char: 'k' }],
			description: 'select the previous cell',
			short: 'up',
			on: ['study'],
		},
		{
			action: 'down',
			keys: [{ name: 'down' }, { char: 'j' }],
			description: 'select the next cell',
			short: 'down',
			on: ['study'],
		},
		{
			action: 'open',
			keys: [{ name: 'return' }],
			description: "watch the selected cell's run live while it runs (esc comes back)",
			short: 'watch',
			on: ['study'],
		},
		{
			action: 'scrollUp',
			keys: [{ name: 'pageUp' }],
			description: 'a page of cells up',
			short: 'page',
			on: ['study'],
		},
		{
			action: 'scrollDown',
			keys: [{ name: 'pageDown' }],
			description: 'a page of cells down',
			short: 'page',
			on: ['study'],
		},
	],
};
