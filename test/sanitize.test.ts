import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { headlessReporter, progressReporter } from '../source/commands/progress.ts';
import { safeJson, sanitize } from '../source/text/sanitize.ts';
import { BEL, ESC } from './support/ansi.ts';

test('terminal control sequences from books and models are removed, text and newlines kept', () => {
	const cases: [string, string][] = [
		[`copy ${ESC}]52;c;ZXZpbCBjb21tYW5k${BEL}this`, 'copy this'], // OSC 52 clipboard write
		[`a${ESC}]0;pwned${ESC}\\b`, 'ab'], // window title, ST-terminated
		[`x${ESC}[2J${ESC}[H${ESC}[31my`, 'xy'], // clear screen, cursor home, colour
		[`over\rwrite`, 'overwrite'], // carriage return
		[`left \u202Etxt.exe\u202C right`, 'left txt.exe right'], // bidi override
		[`c1 \x9b31mred`, 'c1 red'], // 8-bit CSI
		[`bell${BEL} nul\x00 del\x7f`, 'bell nul del'],
		['line one\n\tline two', 'line one\n\tline two'],
		['Élise — “quoted” 日本語', 'Élise — “quoted” 日本語'],
	];
	for (const [input, expected] of cases) assert.equal(sanitize(input), expected, JSON.stringify(input));
});

test('the headless progress line and messages never carry control sequences from a model', () => {
	const out = new PassThrough();
	const err = new PassThrough();
	let written = '';
	err.on('data', (d) => (written += d));
	const report = headlessReporter({ json: false, stdout: out, stderr: err });
	report({
		type: 'run-started',
		session: 's',
		method: 'hier',
		provider: 'openai',
		model: 'm',
		isLLM: true,
		planned: 10,
		done: 0,
	});
	report({ type: 'retry', node: 'n1', attempt: 1, reason: `bad ${ESC}]52;c;aGk=${BEL}answer` });
	report({ type: 'node-failed', node: 'n2', error: `boom${ESC}[2J` });
	report({
		type: 'usage',
		node: 'n1',
		usage: { input: 1000, output: 50, cached: 0 },
		cost: 0.01,
		saved: 0,
		totals: { input: 1000, output: 50, cached: 0, cost: 0.01, calls: 1, saved: 0 },
	});
	assert.ok(!written.includes(ESC), JSON.stringify(written));
	assert.match(written, /\[1\/10 calls\] 1,000 tokens in, 50 out, \$0\.0100/u);
	assert.match(written, /n1: retrying \(bad answer\)/u);
});

test('JSON output escapes control characters and bidi overrides inside strings; the values parse back unchanged', () => {
	const value = {
		title: `a${ESC}]0;x${BEL}b \u202Etxt\u202C c\x7f\x9b d`,
		nested: [`e\u2066f`, 'plain — “quoted” 日本語'],
		n: 1,
	};
	for (const indent of [undefined, 2]) {
		const text = safeJson(value, indent);
		// eslint-disable-next-line no-control-regex -- control characters are what the test looks for
		assert.doesNotMatch(text, /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/u, text);
		assert.deepEqual(JSON.parse(text), value);
	}
	assert.match(safeJson('\u202E'), /^"\\u202e"$/u);
});

test('the progress line only moves forward when concurrent calls report their totals out of order', () => {
	const err = new PassThrough();
	let written = '';
	err.on('data', (d) => (written += d));
	const report = headlessReporter({ json: false, stdout: new PassThrough(), stderr: err, now: () => 0 });
	const usage = (calls: number) => ({
		type: 'usage' as const,
		node: `n${calls}` as const,
		usage: { input: 100, output: 10, cached: 0 },
		cost: 0,
		saved: 0,
		totals: { input: 100 * calls, output: 10 * calls, cached: 0, cost: 0, calls, saved: 0 },
	});
	report({
		type: 'run-started',
		session: 's',
		method: 'hier',
		provider: 'openai',
		model: 'm',
		isLLM: true,
		planned: 4,
		done: 0,
	});
	// The second call saved first; the first call's totals (1 call) arrive after them.
	report(usage(2));
	report(usage(1));
	report(usage(3));
	const lines = written.split('\n').filter((l) => l.startsWith('['));
	assert.deepEqual(
		lines.map((l) => l.slice(0, l.indexOf(']') + 1)),
		['[2/4 calls]', '[3/4 calls]'],
	);
});

test("score's progress line only moves forward too", () => {
	const err = new PassThrough();
	let written = '';
	err.on('data', (d) => (written += d));
	const report = progressReporter(err, () => 0);
	const totals = (calls: number) => ({
		input: 10 * calls,
		output: calls,
		cached: 0,
		cost: 0,
		saved: 0,
		calls,
	});
	const usage = (calls: number) => ({
		type: 'usage' as const,
		unit: `u${calls}`,
		usage: { input: 10, output: 1, cached: 0 },
		cost: 0,
		saved: 0,
		totals: totals(calls),
		planned: 4,
	});
	report(usage(2));
	report(usage(1));
	report(usage(3));
	const lines = written.split('\n').filter((l) => l.startsWith('['));
	assert.deepEqual(
		lines.map((l) => l.slice(0, l.indexOf(']') + 1)),
		['[2/4 calls]', '[3/4 calls]'],
	);
});

test('an unknown price reads "cost unknown" in the progress line, never $0.0000; a known one in dollars', () => {
	for (const [priced, want, not] of [
		[false, 'cost unknown', '$0.0000'],
		[true, '$0.0120', 'cost unknown'],
	] as const) {
		const err = new PassThrough();
		let written = '';
		err.on('data', (d) => (written += d));
		const report = headlessReporter({
			json: false,
			stdout: new PassThrough(),
			stderr: err,
			priced,
			now: () => 0,
		});
		report({
			type: 'run-started',
			session: 's',
			method: 'hier',
			provider: 'openai',
			model: 'local-llama',
			isLLM: true,
			planned: 2,
			done: 0,
		});
		report({
			type: 'usage',
			node: 'n0',
			usage: { input: 100, output: 10, cached: 0 },
			cost: 0.012,
			saved: 0,
			totals: { input: 100, output: 10, cached: 0, cost: 0.012, calls: 1, saved: 0 },
		});
		assert.ok(written.includes(want), written);
		assert.ok(!written.includes(not), written);
	}
});
