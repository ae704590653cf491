import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../source/errors.ts';
import { BUILTIN_PRICES, callCost, findPrice, loadPrices, type ModelPrice } from '../../source/llm/prices.ts';
import { tempDir } from '../support/temp.ts';

const MILLION = { input: 1_000_000, output: 0, cached: 0 };

function price(model: string): ModelPrice {
	const found = findPrice(BUILTIN_PRICES, model);
	assert.ok(found, `${model} has a price`);
	return found.price;
}

test('the common models are all in the built-in table', () => {
	for (const model of [
		'gpt-4o',
		'gpt-4o-mini',
		'gpt-4.1',
		'gpt-4.1-mini',
		'gpt-4-turbo',
		'gpt-4',
		'gpt-3.5-turbo',
		'claude-3-5-sonnet',
		'claude-3-5-haiku',
		'claude-sonnet-4',
		'claude-opus-4',
		'claude-3-haiku',
	]) {
		assert.equal(findPrice(BUILTIN_PRICES, model)?.key, model);
		assert.equal(callCost(BUILTIN_PRICES, model, MILLION).known, true);
	}
});

test('dated and aliased names find their own family, never a shorter one', () => {
	assert.equal(findPrice(BUILTIN_PRICES, 'gpt-4o-2024-08-06')?.key, 'gpt-4o');
	assert.equal(findPrice(BUILTIN_PRICES, 'gpt-4o-mini-2024-07-18')?.key, 'gpt-4o-mini');
	assert.equal(findPrice(BUILTIN_PRICES, 'gpt-4-0613')?.key, 'gpt-4');
	assert.equal(findPrice(BUILTIN_PRICES, 'gpt-4-turbo-2024-04-09')?.key, 'gpt-4-turbo');
	assert.equal(findPrice(BUILTIN_PRICES, 'claude-3-5-sonnet-20241022')?.key, 'claude-3-5-sonnet');
	assert.equal(findPrice(BUILTIN_PRICES, 'claude-3-5-haiku-latest')?.key, 'claude-3-5-haiku');
	assert.equal(findPrice(BUILTIN_PRICES, 'claude-sonnet-4-20250514')?.key, 'claude-sonnet-4');
	assert.equal(findPrice(BUILTIN_PRICES, 'openai/gpt-4o-mini')?.key, 'gpt-4o-mini');
	// A later version is a different model with its own price, not its predecessor's.
	assert.equal(findPrice(BUILTIN_PRICES, 'claude-opus-4-9'), null);
	assert.equal(findPrice(BUILTIN_PRICES, 'gpt-4o-audio-preview'), null);
});

test('an unknown model costs 0 and says it is unknown', () => {
	const cost = callCost(BUILTIN_PRICES, 'llama3:8b', { input: 5000, output: 500, cached: 0 });
	assert.deepEqual(cost, { cost: 0, known: false });
});

test('the extractive baseline costs nothing and is known', () => {
	assert.deepEqual(callCost(BUILTIN_PRICES, 'textrank', { input: 9000, output: 300, cached: 0 }), {
		cost: 0,
		known: true,
	});
	assert.deepEqual(
		callCost(BUILTIN_PRICES, 'whatever', { input: 9000, output: 300, cached: 0 }, 'extractive'),
		{
			cost: 0,
			known: true,
		},
	);
});

test('costs follow the table: input, output and cached input at their own rates', () => {
	const p = price('gpt-4o');
	assert.equal(callCost(BUILTIN_PRICES, 'gpt-4o', MILLION).cost, p.input);
	assert.equal(callCost(BUILTIN_PRICES, 'gpt-4o', { input: 0, output: 1_000_000, cached: 0 }).cost, p.output);
	assert.equal(
		callCost(BUILTIN_PRICES, 'gpt-4o', { input: 1_000_000, output: 0, cached: 1_000_000 }).cost,
		p.cachedInput,
	);
	const mixed = callCost(BUILTIN_PRICES, 'gpt-4o', { input: 3_000, output: 200, cached: 1_000 }).cost;
	assert.ok(Math.abs(mixed - (2_000 * p.input + 1_000 * p.cachedInput + 200 * p.output) / 1e6) < 1e-12);
	assert.ok(p.cachedInput < p.input, 'caching is cheaper for gpt-4o');
});

test('a prices file replaces and adds models', (t) => {
	const dir = tempDir('prices', t);
	const file = join(dir, 'prices.json');
	writeFileSync(
		file,
		JSON.stringify({
			'gpt-4o': { input: 1, cachedInput: 0.5, output: 2 },
			'my-local-model': { input: 0.1, output: 0.2 },
		}),
	);
	const table = loadPrices(file, {});
	assert.deepEqual(table['gpt-4o'], { input: 1, cachedInput: 0.5, output: 2 });
	assert.deepEqual(table['my-local-model'], { input: 0.1, cachedInput: 0.1, output: 0.2 });
	assert.deepEqual(table['gpt-4o-mini'], BUILTIN_PRICES['gpt-4o-mini']);
	assert.equal(callCost(table, 'gpt-4o-2024-08-06', MILLION).cost, 1);
});

test('the prices file comes from the argument, else $BOOOOK_PRICES, else the config directory', (t) => {
	const dir = tempDir('prices', t);
	const fromEnv = join(dir, 'env.json');
	writeFileSync(fromEnv, JSON.stringify({ 'env-model': { input: 1, output: 1 } }));
	const fromArg = join(dir, 'arg.json');
	writeFileSync(fromArg, JSON.stringify({ 'arg-model': { input: 1, output: 1 } }));
	mkdirSync(join(dir, 'home', '.config', 'booook'), { recursive: true });
	writeFileSync(
		join(dir, 'home', '.config', 'booook', 'prices.json'),
		JSON.stringify({ 'home-model': { input: 1, output: 1 } }),
	);
	const home = join(dir, 'home');

	assert.ok(loadPrices(fromArg, { BOOOOK_PRICES: fromEnv, HOME: home })['arg-model']);
	assert.equal(loadPrices(fromArg, { BOOOOK_PRICES: fromEnv, HOME: home })['env-model'], undefined);
	assert.ok(loadPrices(undefined, { BOOOOK_PRICES: fromEnv, HOME: home })['env-model']);
	assert.ok(loadPrices(undefined, { HOME: home })['home-model']);
	// No file anywhere: just the built-in table.
	assert.deepEqual(loadPrices(undefined, { HOME: join(dir, 'nobody') }), BUILTIN_PRICES);
});

test('a malformed or missing named prices file is a bad-input error naming the file', (t) => {
	const dir = tempDir('prices', t);
	const cases: Array<[string, string]> = [
		['broken.json', '{ "gpt-4o": { "input": 1, '],
		['negative.json', JSON.stringify({ 'gpt-4o': { input: -1, output: 2 } })],
		['shape.json', JSON.stringify({ 'gpt-4o': 2.5 })],
		['typo.json', JSON.stringify({ 'gpt-4o': { input: 1, outptu: 2 } })],
	];
	for (const [name, content] of cases) {
		const file = join(dir, name);
		writeFileSync(file, content);
		assert.throws(
			() => loadPrices(file, {}),
			(error: unknown) => {
				assert.ok(error instanceof UserError, name);
				assert.equal(error.exitCode, 2);
				assert.ok(error.message.includes(file), `${name}: ${error.message}`);
				assert.doesNotMatch(error.message, /\n/u);
				return true;
			},
		);
	}
	const missing = join(dir, 'missing.json');
	for (const [path, env] of [
		[undefined, { BOOOOK_PRICES: missing }],
		[missing, {}],
	] as const) {
		assert.throws(
			() => loadPrices(path, env),
			(error: unknown) =>
				error instanceof UserError &&
				error.message ===
					`prices file ${missing} does not exist; check the path (--prices or $BOOOOK_PRICES)`,
		);
	}
});

test('a model with no price is "cost unknown", never $0.0000; the extractive baseline is priced at $0', async () => {
	const { BUILTIN_PRICES, isPriced } = await import('../../source/llm/prices.ts');
	const { costText } = await import('../../source/format/cost.ts');
	assert.equal(isPriced(BUILTIN_PRICES, 'local-llama', 'openai'), false);
	assert.equal(isPriced(BUILTIN_PRICES, 'gpt-4o-mini', 'openai'), true);
	assert.equal(isPriced(BUILTIN_PRICES, 'textrank', 'extractive'), true);
	assert.equal(costText(0, false), 'cost unknown');
	assert.equal(costText(0.01234, true), '$0.0123');
});
