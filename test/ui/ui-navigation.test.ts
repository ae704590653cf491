import { test } from 'node:test';
import assert from 'node:assert/strict';
import { next, START, type Ending, type Place } from '../../source/ui/navigation.ts';
import type { NewRunInput } from '../../source/ui/app.tsx';

/** The place each way of ending leads to, as the navigator walks them one after another. */
function walk(endings: Ending[]): Place[] {
	return endings.map(next);
}

const input: NewRunInput = {
	book: 'examples/books/a.txt',
	method: 'hier',
	provider: 'extractive',
	model: 'textrank',
	baseUrl: null,
	chunkSize: 2048,
};

test('the navigator starts on the list', () => {
	assert.deepEqual(START, { screen: 'home' });
});

test("a choice on the list opens that choice's screen; quitting the list ends with 0", () => {
	assert.deepEqual(
		walk([
			{ kind: 'chosen', choice: { kind: 'open', id: 's1' } },
			{ kind: 'chosen', choice: { kind: 'resume', id: 's2' } },
			{ kind: 'chosen', choice: { kind: 'new', input } },
			{ kind: 'chosen', choice: { kind: 'validate', id: 's3' } },
			{ kind: 'chosen', choice: { kind: 'compare', id: 's4' } },
			{ kind: 'chosen', choice: { kind: 'quit' } },
		]),
		[
			{ screen: 'run', choice: { kind: 'open', id: 's1' } },
			{ screen: 'run', choice: { kind: 'resume', id: 's2' } },
			{ screen: 'run', choice: { kind: 'new', input } },
			{ screen: 'validate', id: 's3' },
			{ screen: 'compare', id: 's4' },
			{ screen: 'end', code: 0 },
		],
	);
});

test('an answer with no question asked shows the list again, with no notice', () => {
	assert.deepEqual(next({ kind: 'chosen', choice: { kind: 'answer', yes: true } }), { screen: 'home' });
});

test('a screen left goes back to the list; a refusal or a failure goes back with its line as the notice', () => {
	assert.deepEqual(
		walk([
			{ kind: 'left' },
			{ kind: 'refused', notice: 'session s1 holds a summary imported from x.txt' },
			{ kind: 'failed', message: 'OPENAI_API_KEY is not set' },
		]),
		[
			{ screen: 'home' },
			{ screen: 'home', notice: 'session s1 holds a summary imported from x.txt' },
			{ screen: 'home', notice: 'OPENAI_API_KEY is not set' },
		],
	);
});

test('the lost-work question answered no goes back to the list; quit there ends the app with 0', () => {
	assert.deepEqual(next({ kind: 'declined', quit: false }), { screen: 'home' });
	assert.deepEqual(next({ kind: 'declined', quit: true }), { screen: 'end', code: 0 });
});

test('a signal ends the app with the exit code of the run it ended', () => {
	assert.deepEqual(next({ kind: 'signalled', code: 130 }), { screen: 'end', code: 130 });
	assert.deepEqual(next({ kind: 'signalled', code: 1 }), { screen: 'end', code: 1 });
});
