import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CellState, CellStatus } from '../../source/engine/study-runner.ts';
import { init, update, type StudyMsg, type StudyScreenState } from '../../source/ui/screens/study/model.ts';
import { cellDetail, cellRatio, configLabels } from '../../source/ui/screens/study/table.ts';
import { compactTable, fitTable } from '../../source/format/study-table.ts';
import { bar } from '../../source/format/table.ts';

const cell = (key: string, status: CellStatus, change: Partial<CellState> = {}): CellState => ({
	key,
	session: `s-${key}`,
	status,
	calls: 0,
	expected: 10,
	cost: 0,
	words: null,
	score: null,
	activity: null,
	scoring: null,
	error: null,
	batch: null,
	...change,
});

const CELLS = [
	cell('a/hier', 'done'),
	cell('a/inc', 'running'),
	cell('b/hier', 'queued'),
	cell('b/inc', 'queued'),
	cell('c/hier', 'queued'),
];
const press = (input: string, flags: Record<string, boolean> = {}): StudyMsg => ({
	type: 'press',
	press: { input, ...flags },
});

function keys(msgs: StudyMsg[], ui: StudyScreenState = init(), page = 3) {
	const effects = [];
	for (const msg of msgs) {
		const step = update(ui, msg, { cells: CELLS, page });
		ui = step.state;
		effects.push(...step.effects);
	}
	return { ui, effects };
}

test('study screen keys: ↑↓ and j k move within the cells, pgdn and pgup by a page', () => {
	assert.equal(keys([press('j'), press('', { downArrow: true })]).ui.cursor, 2);
	assert.equal(keys([press('k')]).ui.cursor, 0, 'not above the first');
	assert.equal(keys(Array.from({ length: 9 }, () => press('j'))).ui.cursor, 4, 'not below the last');
	assert.equal(keys([press('', { pageDown: true })]).ui.cursor, 2);
	assert.equal(
		keys([press('', { pageDown: true }), press('', { pageDown: true }), press('', { pageUp: true })]).ui
			.cursor,
		2,
	);
});

test('study screen keys: enter watches a running cell; on any other it says why not; back closes the watch', () => {
	const watched = keys([press('j'), press('', { return: true })]);
	assert.equal(watched.ui.watching, 'a/inc');
	assert.deepEqual(watched.effects, [{ kind: 'watch', key: 'a/inc' }]);
	assert.equal(keys([{ type: 'back' }], watched.ui).ui.watching, null);
	const refused = keys([press('', { return: true })]);
	assert.equal(refused.ui.watching, null);
	assert.deepEqual(refused.effects, []);
	assert.match(
		refused.ui.message!,
		/a\/hier is done: only a running cell's run can be watched \(its session: s-a\/hier\)/u,
	);
	assert.equal(keys([press('j')], refused.ui).ui.message, null, 'the next key clears the message');
	const hostile = update(init(), press('', { return: true }), {
		cells: [cell('b\u001B]0;owned\u0007ob/hier', 'queued')],
		page: 3,
	});
	assert.match(
		hostile.state.message!,
		/^bob\/hier is queued/u,
		"a book name's control sequence never reaches the message",
	);
});

test('study screen keys: ? opens the help, esc or ? closes it; q quits once, and keys after it do nothing', () => {
	const help = keys([press('?')]);
	assert.equal(help.ui.mode, 'help');
	assert.equal(keys([press('j')], help.ui).ui.cursor, 0, 'j scrolls the help, not the cells');
	assert.equal(keys([press('j')], help.ui).ui.helpScroll, 1);
	assert.equal(keys([press('', { escape: true, meta: true })], help.ui).ui.mode, 'table');
	assert.equal(keys([press('?')], help.ui).ui.mode, 'table');
	const quit = keys([press('q'), press('q'), press('j'), press('c', { ctrl: true })]);
	assert.deepEqual(quit.effects, [{ kind: 'quit' }]);
	assert.equal(quit.ui.quitting, true);
	assert.equal(quit.ui.cursor, 0);
	assert.deepEqual(
		keys([press('c', { ctrl: true })], help.ui).effects,
		[{ kind: 'quit' }],
		'ctrl-c quits from the help too',
	);
});

test('the cells table: a bar of calls made against calls expected, full once done; the detail line is clean', () => {
	assert.equal(bar(0.5, 10), '█████░░░░░');
	assert.equal(bar(2, 4), '████');
	assert.equal(bar(Number.NaN, 4), '░░░░');
	assert.equal(cellRatio(cell('x', 'running', { calls: 3, expected: 12 })), 0.25);
	assert.equal(cellRatio(cell('x', 'skipped', { calls: 3, expected: 12 })), 1);
	assert.equal(cellRatio(cell('x', 'queued', { expected: 0 })), 0);
	const detail = cellDetail(
		cell('x', 'failed', {
			activity: 'level 1, 2/3 merges',
			batch: 'batch b_12 in_progress 40/120',
			error: 'server said \u001B]0;owned\u0007no',
		}),
	);
	assert.equal(detail, 'level 1, 2/3 merges · batch b_12 in_progress 40/120 · error: server said no');
	assert.equal(cellDetail(cell('x', 'queued')), 'queued');
});

test('configurations are named by what varies between the cells; a table loses the columns every row shares to a caption', () => {
	const config = { provider: 'extractive' as const, model: 'textrank', baseUrl: null, contextWindow: 8192 };
	assert.deepEqual(
		configLabels([
			{ ...config, method: 'hier', chunkSize: 512 },
			{ ...config, method: 'inc', chunkSize: 512 },
		]),
		['hier', 'inc'],
	);
	assert.deepEqual(
		configLabels([
			{ ...config, method: 'hier', chunkSize: 512 },
			{ ...config, method: 'hier', chunkSize: 1024 },
		]),
		['c512', 'c1024'],
	);
	assert.deepEqual(
		configLabels([{ ...config, method: 'hier', chunkSize: 512 }]),
		['hier'],
		'one cell: its method',
	);
	const { caption, table } = compactTable([
		['method', 'model', 'chunk', 'calls'],
		['hier', 'extractive textrank', '512', '13'],
		['inc', 'extractive textrank', '512', '10'],
	]);
	assert.equal(caption, 'model: extractive textrank · chunk: 512');
	assert.deepEqual(table, [
		['method', 'calls'],
		['hier', '13'],
		['inc', '10'],
	]);
	assert.deepEqual(
		compactTable([['method'], ['hier']]).table,
		[['method'], ['hier']],
		'a single row keeps every column',
	);
});

test('a table for a terminal fits its width: whole, else shared columns said once, shorter headers, then fewer columns, named', () => {
	const header = [
		'method',
		'model',
		'chunk',
		'window',
		'books done',
		'words (mean)',
		'calls',
		'cost',
		'BooookScore (95% CI)',
	];
	const row = (method: string, chunk: string, score: string) => [
		method,
		'extractive textrank',
		chunk,
		'8192',
		'1/1',
		'585',
		'52',
		'$0.0000',
		`${score} [75.0, 86.1]`,
	];
	const table = [header, row('hier', '2048', '81.2'), row('inc', '4096', '79.9')];
	const widest = (lines: string[]) => Math.max(...lines.map((l) => l.length));
	assert.deepEqual(fitTable(table, 200), fitTable(table, 200).slice(0, 3), 'whole: three lines');
	assert.match(fitTable(table, 200)[0]!, /^method\s+model\s+chunk\s+window\s+books done/u);
	const at80 = fitTable(table, 80);
	assert.ok(widest(at80) <= 80, at80.join('\n'));
	assert.match(
		at80.join(' '),
		/^model: extractive textrank · window: 8192 · books done: 1\/1 · words \(mean\): 585 · calls: 52 · cost: \$0\.0000 method/u,
	);
	assert.match(
		at80.join('\n'),
		/^method\s+chunk\s+BooookScore \(95% CI\)\nhier\s+2048\s+81\.2 \[75\.0, 86\.1\]$/mu,
	);
	// Every row differs in every column: headers shorten, then the least needed columns go, and the last line says which.
	const varied = [
		header,
		...Array.from({ length: 3 }, (_, i) => [
			`m${i}`,
			`openai gpt-4o-mini-${i}`,
			`${i}024`,
			`${i}8192`,
			`${i}/3`,
			`${i}85`,
			`${i}2`,
			`$${i}.0000`,
			`8${i}.2 [75.0, 86.1]`,
		]),
	];
	const at50 = fitTable(varied, 50);
	assert.ok(widest(at50) <= 50, at50.join('\n'));
	assert.match(at50[0]!, /^method\s+model\s+.*BooookScore$/u);
	assert.match(at50.join(' '), /left out for the width: cost, calls, .*pipe the output or use --csv/u);
});
