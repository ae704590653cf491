import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { headlessReporter, progressReporter } from '../../source/commands/progress.ts';
import { PIPED_EVERY_MS, statusLine } from '../../source/commands/output.ts';
import { safeJson, sanitize } from '../../source/text/sanitize.ts';
import { BEL, ESC } from '../support/ansi.ts';

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
		levels: [],
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
	// A pipe gets a line every few seconds: each report comes that much later.
	let clock = 0;
	const now = () => (clock += PIPED_EVERY_MS);
	const report = headlessReporter({ json: false, stdout: new PassThrough(), stderr: err, now });
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
		levels: [],
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
	let clock = 0;
	const report = progressReporter(err, () => (clock += PIPED_EVERY_MS));
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
			levels: [],
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

/** A stream that says it is a terminal of `columns` columns. */
function terminalStream(columns: number): PassThrough & { written: string } {
	const stream = Object.assign(new PassThrough(), { isTTY: true, columns, written: '' });
	stream.on('data', (d) => (stream.written += d));
	return stream;
}

test('on a terminal the progress line is redrawn in place, cut to the width so it never wraps', () => {
	const tty = terminalStream(40);
	const line = statusLine(tty);
	for (let i = 0; i < 3; i++)
		line.draw(`[${i}/55 calls] 0/55 sentences, 5,391 tokens in (0 cached), 20 out, 3s elapsed, ETA 1m38s`);
	line.end();
	const rows = tty.written.split('\n');
	// One row in all: every draw returns to its start, and none is longer than the terminal.
	assert.equal(rows.filter((r) => r !== '').length, 1, JSON.stringify(tty.written));
	for (const draw of tty.written.split('\r\x1b[2K').filter(Boolean))
		assert.ok(draw.replace('\n', '').length < 40, JSON.stringify(draw));
});

test('piped, the progress line is written every few seconds, and its last text at the end', () => {
	const pipe = new PassThrough();
	let written = '';
	pipe.on('data', (d) => (written += d));
	let clock = 0;
	const line = statusLine(pipe, () => clock);
	for (let i = 1; i <= 100; i++) {
		clock = i * 100; // ten seconds of updates, one each 100 ms
		line.draw(`step ${i}`);
	}
	line.end();
	const lines = written.split('\n').filter(Boolean);
	assert.ok(lines.length <= 4, lines.join('|'));
	assert.equal(lines.at(-1), 'step 100');
});

test("score's progress counts answered calls only: refused attempts (429s) are shown apart, and the ETA heeds the limits", () => {
	const err = new PassThrough();
	let written = '';
	err.on('data', (d) => (written += d));
	let clock = 0;
	const report = progressReporter(err, () => (clock += PIPED_EVERY_MS));
	const usage = (calls: number) => ({
		type: 'usage' as const,
		unit: `u${calls}`,
		usage: { input: 10, output: 1, cached: 0 },
		cost: 0,
		saved: 0,
		totals: { input: 10 * calls, output: calls, cached: 0, cost: 0, saved: 0, calls },
		planned: 55,
	});
	report(usage(1));
	// 10 refusals so far; the limit: 1 request a minute, so 54 more calls take 54 minutes at least.
	report({
		type: 'rate-limit',
		wait: null,
		answered: 1,
		asked: 100,
		used: 11,
		refusals: 10,
		limits: { requests: 1 },
	} as never);
	report(usage(2));
	const last = written
		.split('\n')
		.filter((l) => l.startsWith('['))
		.at(-1)!;
	assert.match(last, /^\[2\/55 calls, 10 refused \(429\)\]/u);
	const eta = /ETA (.*)$/u.exec(last)![1]!;
	assert.match(eta, /^53m/u, last);
});
