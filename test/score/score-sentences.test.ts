import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sentenceSpans, splitSentences } from '../../source/text/sentences.ts';
import type { ScoredSummary } from '../../source/domain.ts';
import { sentencesOf } from '../../source/score/annotate.ts';
import type { BookSessionData } from '../../source/store/schema.ts';
import { finalSummaryPin } from '../../source/store/scored-summaries.ts';
import { DATA_DIR as DATA } from '../support/repo-data.ts';

const load = (rel: string): unknown => JSON.parse(readFileSync(DATA + rel, 'utf8'));

test('honorifics and titles do not end a sentence', () => {
	assert.deepEqual(splitSentences("Mr. Smith meets Dr. Snow at St. Mary's church. They talk."), [
		"Mr. Smith meets Dr. Snow at St. Mary's church.",
		'They talk.',
	]);
	assert.deepEqual(splitSentences('Mrs. Reed and Ms. Hyde climb Mt. Fuji with Fr. Brown. Prof. Lee waits.'), [
		'Mrs. Reed and Ms. Hyde climb Mt. Fuji with Fr. Brown.',
		'Prof. Lee waits.',
	]);
});

test('initials stay with the name, but end a sentence before a sentence opener', () => {
	assert.deepEqual(splitSentences('J. R. R. Tolkien wrote it. Then he slept.'), [
		'J. R. R. Tolkien wrote it.',
		'Then he slept.',
	]);
	assert.deepEqual(splitSentences('They met J. A. Smith and Emily B. Marks. An hour passed.'), [
		'They met J. A. Smith and Emily B. Marks.',
		'An hour passed.',
	]);
	assert.deepEqual(splitSentences('Simon J. Craft meets J.R.R. Tolkien and D.C. Stephenson. They talk.'), [
		'Simon J. Craft meets J.R.R. Tolkien and D.C. Stephenson.',
		'They talk.',
	]);
	assert.deepEqual(
		splitSentences('She returns to D.C. Back in Toronto, Jana works. He fought in World War I. They met.'),
		['She returns to D.C.', 'Back in Toronto, Jana works.', 'He fought in World War I.', 'They met.'],
	);
});

test('a sentence that ends inside quotes or brackets ends there', () => {
	assert.deepEqual(splitSentences('He asked, "Are you leaving?" She cried.'), [
		'He asked, "Are you leaving?"',
		'She cried.',
	]);
	assert.deepEqual(splitSentences('She shouted “Stop!” Then silence fell.'), [
		'She shouted “Stop!”',
		'Then silence fell.',
	]);
	assert.deepEqual(splitSentences("The sign read 'Closed.' He left."), [
		"The sign read 'Closed.'",
		'He left.',
	]);
	assert.deepEqual(
		splitSentences('A man introduces Proctor to "Arrivalism." He learns more (as told before.) It ends.'),
		['A man introduces Proctor to "Arrivalism."', 'He learns more (as told before.)', 'It ends.'],
	);
	// ... but not when the sentence goes on after the quote.
	assert.deepEqual(splitSentences('"Stop!" she said. "Why?" he asked.'), [
		'"Stop!" she said.',
		'"Why?" he asked.',
	]);
	assert.deepEqual(splitSentences('He calls it "the end." and leaves.'), [
		'He calls it "the end." and leaves.',
	]);
});

test('a short name before a full stop ends the sentence; known abbreviations do not', () => {
	assert.deepEqual(splitSentences('Oliver arrives late, angrily confronting Vera. Julia admits it.'), [
		'Oliver arrives late, angrily confronting Vera.',
		'Julia admits it.',
	]);
	assert.deepEqual(splitSentences('They honor fallen comrade Sun. The Links go on. King Jr. was there.'), [
		'They honor fallen comrade Sun.',
		'The Links go on.',
		'King Jr. was there.',
	]);
	assert.deepEqual(
		splitSentences('She plays Prokofiev No. 2 and says no. He reads 1984. Then, etc. and so on.'),
		['She plays Prokofiev No. 2 and says no.', 'He reads 1984.', 'Then, etc. and so on.'],
	);
});

test('line breaks are boundaries, and spans index the original text exactly', () => {
	const text =
		'  Heading without a stop\n\nFirst one. Second "quoted." Third\tone!  \nPh.D. students use Node.js daily.';
	const spans = sentenceSpans(text);
	assert.deepEqual(
		spans.map((s) => text.slice(s.start, s.end)),
		[
			'Heading without a stop',
			'First one.',
			'Second "quoted."',
			'Third\tone!',
			'Ph.D. students use Node.js daily.',
		],
	);
	for (const s of spans) assert.equal(text.slice(s.start, s.end), text.slice(s.start, s.end).trim());
	// As in NLTK, a mark with no space after it is no boundary.
	assert.deepEqual(splitSentences('The story ends.Then it begins.'), ['The story ends.Then it begins.']);
});

test("Punkt's decisions: an ordinary word before a full stop ends the sentence whatever follows", () => {
	assert.deepEqual(splitSentences('She says yes. he leaves. Then, etc. and so on.'), [
		'She says yes.',
		'he leaves.',
		'Then, etc. and so on.',
	]);
});

test('after an abbreviation, a capitalised common word starts a sentence and a name does not', () => {
	assert.deepEqual(
		splitSentences('He works for Acme Inc. The firm grows. She marries Dr. Edna Daedalus in a town.'),
		['He works for Acme Inc.', 'The firm grows.', 'She marries Dr. Edna Daedalus in a town.'],
	);
	assert.deepEqual(splitSentences('They sell pens, ink, etc. Later they close.'), [
		'They sell pens, ink, etc.',
		'Later they close.',
	]);
});

test('after a number, a lower-case word goes on and a sentence opener starts anew', () => {
	assert.deepEqual(splitSentences('It costs 5. and more. He reads 1984. Then he sleeps.'), [
		'It costs 5. and more.',
		'He reads 1984.',
		'Then he sleeps.',
	]);
});

/**
 * The authors' sentence keys (NLTK) found whole among our sentences of the same summary. NLTK
 * itself cuts after "Dr." or "Mt." before a name, and those keys cannot be found in a split that
 * does not; everything else should match.
 */
function matchRate(config: string): { rate: number; keys: number } {
	const summaries = load(`summaries/gpt4-2048-${config}-cleaned.json`) as Record<string, string>;
	const annotations = load(`annotations/gpt4-2048-${config}.json`) as Record<
		string,
		Record<string, unknown> | null
	>;
	let keys = 0;
	let found = 0;
	for (const [book, sentences] of Object.entries(annotations)) {
		const summary = summaries[book];
		assert.ok(summary !== undefined, `${book} has annotations but no summary`);
		const ours = new Set(splitSentences(summary).map((s) => s.trim()));
		for (const key of Object.keys(sentences ?? {})) {
			keys += 1;
			if (ours.has(key.trim())) found += 1;
		}
	}
	return { rate: found / keys, keys };
}

test("our sentences contain the authors' annotated sentences (hierarchical: at least 99%)", (t) => {
	const { rate, keys } = matchRate('hier');
	t.diagnostic(`gpt4-2048-hier: ${(100 * rate).toFixed(2)}% of ${keys} sentence keys found`);
	assert.ok(keys > 0);
	assert.ok(rate >= 0.99, `${(100 * rate).toFixed(2)}%`);
});

test("our sentences contain the authors' annotated sentences (incremental: at least 95%)", (t) => {
	const { rate, keys } = matchRate('inc');
	t.diagnostic(`gpt4-2048-inc: ${(100 * rate).toFixed(2)}% of ${keys} sentence keys found`);
	assert.ok(keys > 0);
	assert.ok(rate >= 0.95, `${(100 * rate).toFixed(2)}%`);
});

test('BooookScore counts NLTK sentences: a line break alone ends none; summaries pinned before keep their line units', () => {
	const text = 'The family moves\nto Geneva after the war.\n\nVictor studies. He leaves\nfor Ingolstadt.';
	assert.deepEqual(splitSentences(text, { lineBreaks: false }), [
		'The family moves\nto Geneva after the war.',
		'Victor studies.',
		'He leaves\nfor Ingolstadt.',
	]);
	assert.equal(splitSentences(text).length, 5, "a book's lines stay units of their own");
	// A summary pinned now is cut as NLTK cuts it; one pinned before (no `units`) as its annotations were made.
	assert.equal(sentencesOf({ text, units: 'nltk' }).length, 3);
	assert.equal(sentencesOf({ text }).length, 5);
});

test('a summary pinned to score, and a summary imported from the authors, are cut as NLTK cuts them', () => {
	const text = 'Elizabeth refuses\nMr. Collins. Her mother is furious.';
	const data = {
		id: 'x',
		book: { title: 'P&P' },
		summaries: [] as ScoredSummary[],
		run: {
			status: 'done',
			root: 'n0',
			nodes: [{ id: 'n0', active: 0, versions: [{ text }] }],
		},
	} as unknown as BookSessionData;
	const pinned = finalSummaryPin(data, 'sessions').pin!;
	assert.equal(pinned.units, 'nltk');
	assert.deepEqual(
		sentencesOf(pinned).map((s) => s.text),
		['Elizabeth refuses\nMr. Collins.', 'Her mother is furious.'],
	);
});
