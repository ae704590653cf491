import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryQuestion } from '../../source/domain.ts';
import { questionPromptValues, readChoice } from '../../source/memory/prompt.ts';
import { loadTemplates } from '../../source/prompts/load.ts';
import { fill } from '../../source/summarize/templates.ts';

const question: Pick<MemoryQuestion, 'options'> = {
	options: [
		{ kind: 'true', scene: 's0', book: 'voyage', text: 'Ann sails\nto Dover.' },
		{ kind: 'lookahead', scene: 's5', book: 'voyage', text: 'Bob  sells the boat.' },
	],
};

test('the question prompt shows the text given and the scene options numbered from 1, one a line, then "None of the above"', async () => {
	const values = questionPromptValues(question, 'Ann met Bob in Dover.');
	assert.deepEqual(values, {
		summary: 'Ann met Bob in Dover.',
		options: '1) Ann sails to Dover.\n2) Bob sells the boat.\n3) None of the above.',
	});
	const prompt = fill((await loadTemplates())['memory-question'], values);
	assert.match(prompt, /know only through the text below/u);
	assert.match(prompt, /In what you have read so far, was there a scene where/u);
	assert.match(prompt, /Answer: N\n?$/u);
	assert.ok(prompt.includes('Ann met Bob in Dover.\n') && prompt.includes(values.options));
});

test('readChoice reads a number, "Answer: N", "N)" or "None of the above", 0-based with None as the number of options', () => {
	const read = (text: string) => readChoice(text, 2);
	assert.deepEqual(read('Answer: 1'), { ok: true, value: 0 });
	assert.deepEqual(read('2'), { ok: true, value: 1 });
	assert.deepEqual(read('2)'), { ok: true, value: 1 });
	assert.deepEqual(read('**Answer:** 3) None of the above.'), { ok: true, value: 2 });
	assert.deepEqual(read('None of the above'), { ok: true, value: 2 });
	assert.deepEqual(read('Let me think.\nAnswer: 2'), { ok: true, value: 1 });
});

test('readChoice refuses, with a reason, an answer out of range, two numbers, none, or a scene named with "None of the above"', () => {
	const reason = (text: string) => {
		const read = readChoice(text, 2);
		assert.equal(read.ok, false, text);
		return read.ok ? '' : read.reason;
	};
	assert.equal(reason('Answer: 4'), 'option 4 is not among 1 to 3');
	assert.equal(reason('Answer: 0'), 'option 0 is not among 1 to 3');
	assert.equal(reason('Answer: 1 or 2'), 'two options named (1, 2)');
	assert.equal(reason('Answer: 1\nAnswer: 2'), '2 "Answer:" lines');
	assert.equal(reason('The second one.'), 'no option number');
	assert.equal(reason('I think so.\nIt is the first.'), 'no "Answer: N" line');
	assert.equal(reason('   '), 'no answer');
	assert.equal(reason('Answer: 1) None of the above'), 'option 1 named with "None of the above"');
});
