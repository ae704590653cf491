import type { Keys } from '../../keys/binding.ts';

/** The faithfulness walk's keys: f / p / x / c (not ?, which is help everywhere), s for its units and 1-5 for the whole summary. */
export const FAITHFULNESS_KEYS: Keys = {
	main: {
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
	},
	bindings: [
		{
			action: 'left',
			keys: [{ name: 'left' }],
			description: 'previous (node, step of the timeline, sentence, choice)',
			short: 'prev',
			on: ['faithfulness'],
		},
		{
			action: 'right',
			keys: [{ name: 'right' }],
			description: 'next (node, step of the timeline, sentence, choice)',
			short: 'next',
			on: ['faithfulness'],
		},
		{
			action: 'back',
			keys: [{ name: 'escape' }],
			description: 'leave the walk (every verdict is saved as it is given)',
			short: 'back',
			on: ['faithfulness'],
		},
		{
			action: 'undo',
			keys: [{ char: 'u' }],
			description: 'undo the last verdict',
			short: 'undo',
			on: ['faithfulness'],
		},
		{
			action: 'nextUnjudged',
			keys: [{ char: 'n' }],
			description: 'next unjudged',
			short: 'unjudged',
			on: ['faithfulness'],
		},
		{
			action: 'note',
			keys: [{ char: 'm' }],
			description: 'add a note to the verdict',
			short: 'note',
			on: ['faithfulness'],
		},
		{
			action: 'faithful',
			keys: [{ char: 'f' }],
			description: 'faithful: everything the sentence (or claim) says is supported by the book',
			short: 'faithful',
			on: ['faithfulness'],
		},
		{
			action: 'partial',
			keys: [{ char: 'p' }],
			description: 'partial support (FABLES): the book states some of what it says, not all',
			short: 'partial',
			on: ['faithfulness'],
		},
		{
			action: 'unfaithful',
			keys: [{ char: 'x' }],
			description: 'unfaithful: it contradicts the book or says what the book does not',
			short: 'unfaithful',
			on: ['faithfulness'],
		},
		{
			action: 'cantTell',
			keys: [{ char: 'c' }],
			description: "can't tell from what you have read and the evidence shown",
			short: "can't tell",
			on: ['faithfulness'],
		},
		{
			action: 'units',
			keys: [{ char: 's' }],
			description: 'switch between whole sentences and the claims a model judge split them into',
			short: 'claims',
			on: ['faithfulness'],
		},
		{
			action: 'rate',
			keys: [{ digits: 5 }],
			description:
				"rate the whole summary's faithfulness, 1 (most or all of it wrong or not in the book) to 5 (most or all in it); best before its sentences",
			short: 'rate summary',
			on: ['faithfulness'],
		},
	],
};
