import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { countTokens } from '../../source/text/tokens.ts';
import { startFakeApi } from '../support/fake-api.ts';
import { withFake } from '../support/provider-kit.ts';
import { bookishReply } from '../support/summary-reply.ts';

const REPLY = 'The miller kept the wheel turning. The river never asked why.';

const openai = (url: string) => new OpenAI({ apiKey: 'sk-test', baseURL: url, maxRetries: 0 });
const anthropic = (url: string) => new Anthropic({ apiKey: 'sk-test', baseURL: url, maxRetries: 0 });

test('a request that does not stream is refused unless the fake answers plain ones', async () => {
	await withFake(REPLY, {}, async (fake) => {
		await assert.rejects(
			openai(fake.openaiBaseUrl).chat.completions.create({
				model: 'gpt-4o-mini',
				messages: [{ role: 'user', content: 'Hi.' }],
			}),
			{ status: 400 },
		);
	});
});

test('plain: the OpenAI SDK gets one completion with its usage, and max_tokens still truncates', async () => {
	await withFake(REPLY, { plain: true }, async (fake) => {
		const client = openai(fake.openaiBaseUrl);
		const done = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			messages: [{ role: 'user', content: 'Tell me of the mill.' }],
		});
		assert.equal(done.choices[0]?.message.content, REPLY);
		assert.equal(done.choices[0]?.finish_reason, 'stop');
		assert.deepEqual(
			[done.usage?.prompt_tokens, done.usage?.completion_tokens],
			[countTokens('Tell me of the mill.'), countTokens(REPLY)],
		);

		const cut = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			max_tokens: 3,
			messages: [{ role: 'user', content: 'Again.' }],
		});
		assert.equal(cut.choices[0]?.finish_reason, 'length');
		assert.equal(countTokens(cut.choices[0]?.message.content ?? ''), 3);
	});
});

test('plain: the Anthropic SDK gets one message with its usage', async () => {
	await withFake(REPLY, { plain: true }, async (fake) => {
		const done = await anthropic(fake.anthropicBaseUrl).messages.create({
			model: 'claude-sonnet-4-6',
			max_tokens: 100,
			messages: [{ role: 'user', content: 'Tell me of the mill.' }],
		});
		assert.deepEqual(done.content, [{ type: 'text', text: REPLY }]);
		assert.equal(done.stop_reason, 'end_turn');
		assert.equal(done.usage.output_tokens, countTokens(REPLY));
	});
});

test('plain: a cut answer fails in the SDK, a stalled one still arrives', async () => {
	await withFake(REPLY, { plain: true }, async (fake) => {
		const client = openai(fake.openaiBaseUrl);
		fake.fail({ kind: 'cut' });
		await assert.rejects(
			client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi.' }] }),
		);
		fake.fail({ kind: 'stall', ms: 30 });
		const late = await client.chat.completions.create({
			model: 'gpt-4o-mini',
			messages: [{ role: 'user', content: 'Hi.' }],
		});
		assert.equal(late.choices[0]?.message.content, REPLY);
	});
});

test('GET /stats counts the requests and the tokens in and out', async () => {
	const fake = await startFakeApi({ respond: () => REPLY, plain: true });
	try {
		const stats = async () =>
			(await (await fetch(`${fake.url}/stats`)).json()) as {
				requests: number;
				input: number;
				output: number;
			};
		assert.deepEqual(await stats(), { requests: 0, input: 0, output: 0 });
		await openai(fake.openaiBaseUrl).chat.completions.create({
			model: 'gpt-4o-mini',
			messages: [{ role: 'user', content: 'One.' }],
		});
		await openai(fake.openaiBaseUrl).chat.completions.create({
			model: 'gpt-4o-mini',
			messages: [{ role: 'user', content: 'Two.' }],
			stream: false,
		});
		assert.deepEqual(await stats(), {
			requests: 2,
			input: countTokens('One.') + countTokens('Two.'),
			output: 2 * countTokens(REPLY),
		});
	} finally {
		await fake.close();
	}
});

test('bookishReply: 80% of the last length a prompt asks for, else the given words, in sentences of its words', () => {
	const words = (text: string) => text.split(/\s+/u).filter(Boolean);
	const book = 'Elizabeth walked to Netherfield through the mud, and Darcy admired her fine eyes.';
	const asked = `Summarize this in less than 900 words:\n${book}\nThe summary must be within 300 words.`;
	const reply = bookishReply(250);
	assert.equal(words(reply({ prompt: asked, body: {}, api: 'openai' })).length, 240);
	const plain = reply({
		prompt: `Write a concise summary of the following:\n\n${book}`,
		body: {},
		api: 'openai',
	});
	assert.equal(words(plain).length, 250);
	// An edit limited to 100 tokens (booook's clean step): what fits, not 250 words cut short.
	assert.equal(
		words(reply({ prompt: `Remove the artifacts:\n\n${book}`, body: { max_tokens: 100 }, api: 'openai' }))
			.length,
		67,
	);
	assert.equal(
		plain,
		reply({ prompt: `Write a concise summary of the following:\n\n${book}`, body: {}, api: 'openai' }),
		'same prompt, same text',
	);
	assert.match(plain, /^[A-Z][^.]*\./u);
	assert.ok(plain.endsWith('.'));
	const vocabulary = new Set(
		words(`Write a concise summary of the following ${book}`.toLowerCase().replace(/[,.:]/gu, '')),
	);
	assert.ok(
		words(plain.toLowerCase().replace(/\./gu, '')).every((w) => vocabulary.has(w)),
		'every word comes from the prompt',
	);
});
