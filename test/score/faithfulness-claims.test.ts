import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	checkClaim,
	claimsNote,
	maxClaims,
	readClaimAnswer,
	readClaims,
	sentenceLabel,
} from '../../source/score/claims.ts';
import { checksOutcome } from '../../source/score/faithfulness-count.ts';

const SENTENCE = 'Victor builds the creature in Ingolstadt and flees from it.';

test('readClaims takes only lines numbered from 1 without a gap, and no more claims than content words', () => {
	assert.deepEqual(readClaims('1. Victor builds the creature.\n\n2) Victor flees from it.\n', SENTENCE), {
		ok: true,
		value: ['Victor builds the creature.', 'Victor flees from it.'],
	});
	assert.equal(readClaims('', SENTENCE).ok, false);
	assert.equal(readClaims('Here are the claims:\n1. Victor builds it.', SENTENCE).ok, false);
	assert.equal(readClaims('1. Victor builds it.\n3. He flees.', SENTENCE).ok, false);
	assert.equal(readClaims('- Victor builds it.', SENTENCE).ok, false);
	assert.equal(maxClaims('It was.'), 1);
	const many = Array.from({ length: maxClaims(SENTENCE) + 1 }, (_, i) => `${i + 1}. claim ${i}`).join('\n');
	assert.equal(readClaims(many, SENTENCE).ok, false);
});

test('readClaimAnswer takes exactly Label, Quote and Reason lines; a supported or contradicted claim must quote', () => {
	assert.deepEqual(readClaimAnswer('Label: Supported.\nQuote: "he fled"\nReason: passage 2.'), {
		ok: true,
		value: { label: 'supported', quote: 'he fled', reason: 'passage 2.' },
	});
	assert.deepEqual(readClaimAnswer('label: not found\nquote: none\nreason: no passage names him'), {
		ok: true,
		value: { label: 'not found', quote: null, reason: 'no passage names him' },
	});
	assert.equal(readClaimAnswer('Label: supported\nQuote: none\nReason: x').ok, false);
	assert.equal(readClaimAnswer('Label: contradicted\nReason: x').ok, false);
	assert.equal(readClaimAnswer('Label: mostly supported\nQuote: a\nReason: x').ok, false);
	assert.equal(readClaimAnswer('Label: supported\nQuote: a\nReason: x\nAlso: y').ok, false);
	assert.equal(readClaimAnswer('Quote: a\nLabel: supported\nReason: x').ok, false);
});

const shown = [
	{ text: 'I fled from the room, and he followed.', start: 10, end: 48 },
	{ text: 'It was on a dreary night of November that I beheld my man’s work.', start: 90, end: 156 },
];

test('checkClaim accepts a quote word for word in a passage shown (whitespace and curly marks aside) and catches one that is not', () => {
	const supported = (quote: string) => ({ label: 'supported' as const, quote, reason: 'r' });
	assert.deepEqual(checkClaim('Victor flees.', supported('I fled  from\nthe room'), shown).passage, {
		start: 10,
		end: 48,
	});
	assert.equal(checkClaim('c', supported("my man's work"), shown).verdict, 'supported');
	// Parts between ellipses count when they are in one passage, in order.
	assert.equal(checkClaim('c', supported('I fled … he followed'), shown).verdict, 'supported');
	assert.equal(checkClaim('c', supported('dreary night... my man’s work.'), shown).verdict, 'supported');
	// A paraphrase, a word changed, words joined across two passages, parts out of order, or a quote
	// without a content word (in almost any passage) are not quotes.
	for (const quote of [
		'I ran from the room',
		'I fled from the house',
		'he followed. It was on a dreary night',
		'he followed ... I fled',
		'I fled ... on a dreary night',
		'the',
		'...',
	]) {
		const check = checkClaim('c', supported(quote), shown);
		assert.deepEqual([check.verdict, check.passage, check.quote], ['unquoted', null, quote], quote);
	}
	assert.equal(
		checkClaim('c', { label: 'contradicted', quote: 'he stayed', reason: 'r' }, shown).verdict,
		'unquoted',
	);
	assert.equal(checkClaim('c', { label: 'not found', quote: null, reason: 'r' }, shown).verdict, 'not found');
	assert.deepEqual(checkClaim('c', null, shown), {
		claim: 'c',
		verdict: 'unreadable',
		quote: null,
		passage: null,
		reason: null,
	});
});

test('a sentence is as faithful as its claims: any contradicted or not found is unfaithful (LongEval\'s "not present"), all supported faithful, else can\'t tell', () => {
	const of = (...verdicts: Parameters<typeof sentenceLabel>[0][number]['verdict'][]) =>
		sentenceLabel(verdicts.map((verdict) => ({ verdict })));
	assert.equal(of('supported', 'supported'), 'faithful');
	assert.equal(of('supported', 'contradicted', 'not found'), 'unfaithful');
	assert.equal(of('supported', 'not found'), 'unfaithful');
	assert.equal(of('not found', 'unreadable'), 'unfaithful', 'one claim the book does not state is enough');
	assert.equal(of('supported', 'unquoted'), 'unsure');
	assert.equal(of('supported', 'unreadable'), 'unsure');
	assert.equal(of(), 'unsure');
	// What each sentence counts as: why it is not faithful is kept.
	const outcome = (...verdicts: Parameters<typeof sentenceLabel>[0][number]['verdict'][]) =>
		checksOutcome(verdicts.map((verdict) => ({ verdict })));
	assert.deepEqual(
		[
			outcome('supported', 'supported'),
			outcome('not found', 'contradicted'),
			outcome('supported', 'not found', 'unquoted'),
			outcome('supported', 'unquoted'),
			outcome('unreadable'),
		],
		['faithful', 'contradicted', 'not found', 'unchecked', 'unchecked'],
	);
	assert.equal(
		claimsNote([{ verdict: 'supported' }, { verdict: 'not found' }, { verdict: 'supported' }], 'read'),
		'3 claims: 2 supported, 1 not found',
	);
});
