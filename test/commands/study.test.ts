import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clash, studyCells } from '../../source/study/grid.ts';
import {
	intervalLines,
	pairedDifferences,
	pairedLines,
	resultCsvTable,
	resultRows,
	resultTable,
	type CellOutcome,
} from '../../source/study/results.ts';
import { MIN_CLUSTERS } from '../../source/score/interval.ts';
import { parseStudy, type StudySpec } from '../../source/study/spec.ts';
import { UserError } from '../../source/errors.ts';
import { Session } from '../../source/store/session.ts';
import { emptyCounts, LABELS, type Label } from '../../source/score/labels.ts';
import { booook } from '../support/cli.ts';
import { annotatingReply, startFakeApi } from '../support/fake-api.ts';
import { loggedCalls } from '../support/logged-calls.ts';
import { tempDir } from '../support/temp.ts';
import { BOOKS_DIR as BOOKS } from '../support/repo-data.ts';

const TITLES = ['frankenstein', 'pride-and-prejudice', 'war-and-peace'];

const grid = {
	name: 'table2',
	books: TITLES.map((t) => join(BOOKS, `${t}.txt`)),
	methods: ['hier', 'inc'],
	providers: [{ provider: 'extractive' }],
	chunkSizes: [4096, 8192],
	contextWindows: [16384],
	concurrency: 4,
};

function studyFile(value: unknown, name = 'study.json'): string {
	const file = join(tempDir('study-file'), name);
	writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
	return file;
}

/** Sessions under `dir` whose run is done, read as booook reads them (session.json and its journal). */
async function sessionsDone(dir: string): Promise<number> {
	const ids = readdirSync(dir, { withFileTypes: true }).filter(
		(e) => e.isDirectory() && !e.name.startsWith('.'),
	);
	const done = await Promise.all(
		ids.map(async (e) => {
			const { data } = await Session.snapshot(dir, e.name);
			return data.kind === 'book' && data.run.status === 'done' && data.run.root !== null;
		}),
	);
	return done.filter(Boolean).length;
}

const cellLines = (text: string, what: string) => text.split('\n').filter((l) => l.includes(what)).length;

test('a study file: each problem is one line naming the field and the fix', () => {
	const message = (value: unknown) => {
		try {
			parseStudy(value, 's.json');
		} catch (error) {
			assert.ok(error instanceof UserError && error.exitCode === 2);
			assert.ok(!error.message.includes('\n'), error.message);
			return error.message;
		}
		assert.fail('accepted');
	};
	assert.match(
		message({ ...grid, methods: ['hier', 'tree'] }),
		/^study s\.json: methods\[1\]: .*use "methods": \["hier", "inc"\]$/u,
	);
	assert.match(message({ ...grid, chunkSizes: [2048.5] }), /chunkSizes\[0\]: .*whole numbers of tokens/u);
	assert.match(message({ ...grid, folder: 'books/' }), /books: give exactly one of books and folder/u);
	assert.match(message({ ...grid, chunksize: [1] }), /unknown field "chunksize"/u);
	assert.match(
		message({ ...grid, providers: [{ provider: 'gemini' }] }),
		/providers\[0\]\.provider: .*openai, anthropic or extractive/u,
	);
	const { name, ...nameless } = grid;
	assert.match(message(nameless), /name: .*"name": "table2"/u, name);
});

test('a study file without chunkSizes runs the chunk size a run has by default, as contextWindows its window', () => {
	const { chunkSizes, contextWindows, ...bare } = grid;
	const spec = parseStudy(bare, 's.json');
	const cells = studyCells(spec, [{ key: 'a', path: 'a.txt' }], () => 'textrank', {
		chunkSize: 2048,
		contextWindow: 8192,
	});
	assert.deepEqual(
		cells.map((c) => [c.chunkSize, c.contextWindow]),
		[
			[2048, 8192],
			[2048, 8192],
		],
		`${chunkSizes.length} sizes and ${contextWindows.length} windows left out`,
	);
});

test('paired differences: two configurations compared book by book over the books both have scores on', () => {
	const spec = parseStudy({ ...grid, chunkSizes: [4096], methods: ['hier', 'inc'] }, 's.json');
	const cells = studyCells(
		spec,
		TITLES.map((key) => ({ key, path: `${key}.txt` })),
		() => 'textrank',
		{ chunkSize: 2048, contextWindow: 8192 },
	);
	const cell = (book: string, method: string) =>
		cells.find((c) => c.book.key === book && c.method === method)!;
	const done = (score: number | null): CellOutcome => ({
		status: 'done',
		words: 100,
		calls: 1,
		cost: 0,
		score,
	});
	// hier beats inc by 0.10 on two books and 0.20 on the third; the third inc has no score.
	const [b0, b1, b2] = TITLES;
	const outcomes = new Map<string, CellOutcome>([
		[cell(b0!, 'hier').key, done(0.9)],
		[cell(b0!, 'inc').key, done(0.8)],
		[cell(b1!, 'hier').key, done(0.7)],
		[cell(b1!, 'inc').key, done(0.6)],
		[cell(b2!, 'hier').key, done(0.95)],
		[cell(b2!, 'inc').key, done(null)],
	]);
	const [pair, ...rest] = pairedDifferences(cells, outcomes, { resamples: 500 });
	assert.equal(rest.length, 0);
	assert.equal(pair!.books, 2, 'only books scored on both sides');
	assert.match(pair!.a, /^hier /u);
	assert.ok(Math.abs(pair!.difference.estimate - 0.1) < 1e-9);
	// Two books: a bootstrap over them once gave "+10.0 [+10.0, +10.0] over 2 books", certain-looking and meaningless.
	assert.deepEqual(
		[pair!.difference.method, pair!.difference.low, pair!.difference.high],
		['none', null, null],
	);
	assert.match(
		pairedLines([pair!])[1]!,
		/hier extractive textrank c4096 w16384 − inc extractive textrank c4096 w16384: \+10\.0 \(2 books are too few for an interval over books\)$/u,
	);
	// From MIN_CLUSTERS shared books on, the books are resampled.
	const many = Array.from({ length: MIN_CLUSTERS }, (_, i) => `book${i}`);
	const manyCells = studyCells(
		spec,
		many.map((key) => ({ key, path: `${key}.txt` })),
		() => 'textrank',
		{ chunkSize: 2048, contextWindow: 8192 },
	);
	const scores = new Map(
		manyCells.map((c, i) => [c.key, done(c.method === 'hier' ? 0.8 + (i % 3) / 20 : 0.7)] as const),
	);
	const [ten] = pairedDifferences(manyCells, scores, { resamples: 500 });
	assert.equal(ten!.difference.method, 'bootstrap');
	assert.ok(
		ten!.difference.low! < ten!.difference.estimate && ten!.difference.estimate < ten!.difference.high!,
	);
	assert.match(pairedLines([ten!])[1]!, /: \+\d+\.\d \[\+\d+\.\d, \+\d+\.\d\] over 10 books$/u);
});

test('the grid: book × method × provider/model × chunk size × window, each cell its own session id', () => {
	const spec = parseStudy(
		{
			...grid,
			providers: [{ provider: 'extractive' }, { provider: 'openai', model: 'gpt-4o-mini' }],
			contextWindows: [8192, 16384],
		},
		's.json',
	) as StudySpec;
	const cells = studyCells(
		spec,
		TITLES.map((key) => ({ key, path: `${key}.txt` })),
		() => 'textrank',
		{ chunkSize: 2048, contextWindow: 8192 },
	);
	assert.equal(cells.length, 3 * 2 * 2 * 2 * 2);
	assert.equal(new Set(cells.map((c) => c.sessionId)).size, cells.length);
	assert.equal(clash(cells), null);
	assert.equal(cells[0]!.sessionId, 'table2-frankenstein-hier-extractive-textrank-c4096-w8192');
	assert.ok(cells.every((c) => c.sessionId.length <= 128));
	// The same book named twice would share sessions.
	assert.ok(
		clash(
			studyCells(
				spec,
				[
					{ key: 'a', path: 'x/a.txt' },
					{ key: 'a', path: 'y/a.txt' },
				],
				() => 'm',
				{ chunkSize: 2048, contextWindow: 8192 },
			),
		),
	);
});

test('results: one row per configuration over its books, BooookScore with a bootstrap interval over the books scored', () => {
	const spec = parseStudy({ ...grid, chunkSizes: [4096], methods: ['hier'] }, 's.json');
	const cells = studyCells(
		spec,
		TITLES.map((key) => ({ key, path: `${key}.txt` })),
		() => 'textrank',
		{ chunkSize: 2048, contextWindow: 8192 },
	);
	const outcome = (words: number, score: number | null): CellOutcome => ({
		status: 'done',
		words,
		calls: 10,
		cost: 0.5,
		score,
	});
	const outcomes = new Map([
		[cells[0]!.key, outcome(500, 0.8)],
		[cells[1]!.key, outcome(700, 0.9)],
		[cells[2]!.key, { status: 'running', words: null, calls: 3, cost: 0.1, score: null } as CellOutcome],
	]);
	const [row] = resultRows(cells, outcomes, { score: true, resamples: 500 });
	assert.equal(row!.books, 3);
	assert.equal(row!.done, 2);
	assert.equal(row!.meanWords, 600);
	assert.equal(row!.calls, 23);
	assert.ok(Math.abs(row!.cost - 1.1) < 1e-9);
	assert.equal(row!.score!.books, 2);
	assert.ok(Math.abs(row!.score!.estimate - 0.85) < 1e-9);
	// Two books are too few for an interval over books: none, and the table and its note say so.
	assert.deepEqual([row!.score!.method, row!.score!.low, row!.score!.high], ['none', null, null]);
	assert.equal(resultTable([row!], { priced: true })[1]![8], '85.0');
	assert.deepEqual(intervalLines([row!]), [
		'BooookScore: too few books (2) for an interval over books; a bootstrap over books needs 10',
	]);
	assert.deepEqual(resultCsvTable([row!], { priced: true })[1]!.slice(10), ['85', '', '', 'none']);
	assert.equal(resultRows(cells, outcomes, { score: false })[0]!.score, null);
});

test('booook study: a bad study file is one line and exit 2, with nothing written', async () => {
	const sessions = join(tempDir('study-bad'), 'sessions');
	for (const [file, pattern] of [
		[studyFile({ ...grid, chunkSizes: [] }), /chunkSizes: .*whole numbers of tokens/u],
		[studyFile('{ "name": '), /not valid JSON/u],
		[studyFile({ ...grid, books: [join(BOOKS, 'missing.txt')] }), /missing\.txt/u],
		[
			studyFile({ ...grid, chunkSizes: [16000] }),
			/cell frankenstein\/hier-extractive-textrank-c16000-w16384: /u,
		],
		[studyFile('name: x\nbooks: [one', 'study.yaml'), /not valid YAML/u],
		[studyFile('name: x\nmethods: [hier]', 'study.yml'), /providers: expected array/u],
	] as const) {
		const result = await booook(['study', file, '--sessions-dir', sessions]);
		assert.equal(result.code, 2, result.stderr);
		assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
		assert.match(result.stderr, pattern);
		assert.equal(result.stdout, '');
		assert.ok(!existsSync(sessions), 'nothing written');
	}
});

test('booook study: --plan prints the 12 cells with their calls and cost and spends nothing; a run completes every cell; running again makes no call', async () => {
	const file = studyFile(grid);
	const sessions = join(tempDir('study-run'), 'sessions');
	const planned = await booook(['study', file, '--plan', '--sessions-dir', sessions]);
	assert.equal(planned.code, 0, planned.stderr);
	assert.equal(cellLines(planned.stdout, 'extractive textrank'), 12, planned.stdout);
	assert.match(planned.stdout, /^12 cells, ~\d+ calls, estimated \$0\.0000; at most 4 calls at once$/mu);
	assert.ok(!existsSync(sessions), '--plan writes nothing');

	const ran = await booook(['study', file, '--sessions-dir', sessions]);
	assert.equal(ran.code, 0, ran.stderr);
	assert.equal(await sessionsDone(sessions), 12);
	assert.equal(cellLines(ran.stderr, ': started (session table2-'), 12, ran.stderr);
	assert.equal(cellLines(ran.stderr, ': done: '), 12, ran.stderr);
	// The table: four configurations, each done on all three books.
	assert.equal(cellLines(ran.stdout, '3/3'), 4, ran.stdout);
	const record = JSON.parse(readFileSync(join(sessions, 'table2.study.json'), 'utf8')) as {
		cells: Record<string, { session: string; status: string }>;
	};
	assert.equal(Object.values(record.cells).filter((c) => c.status === 'done').length, 12);
	const calls = loggedCalls(sessions);

	const again = await booook(['study', file, '--sessions-dir', sessions, '--json']);
	assert.equal(again.code, 0, again.stderr);
	assert.equal(cellLines(again.stderr, 'done already, skipped'), 12, again.stderr);
	assert.deepEqual(loggedCalls(sessions), calls, 'no new call');
	const json = JSON.parse(again.stdout) as {
		rows: { done: number; books: number; calls: number; meanWords: number }[];
	};
	assert.equal(json.rows.length, 4);
	assert.ok(json.rows.every((r) => r.done === 3 && r.books === 3 && r.meanWords > 0));
	assert.equal(
		json.rows.reduce((s, r) => s + r.calls, 0),
		calls.length,
	);

	const table = await booook(['study', file, '--sessions-dir', sessions, '--csv']);
	assert.equal(table.code, 0, table.stderr);
	const lines = table.stdout.split('\r\n').filter((l) => l !== '');
	assert.equal(
		lines[0],
		'method,provider,model,chunk_size,context_window,books,books_done,words_mean,calls,cost_usd,score,ci_low,ci_high,ci_method',
	);
	assert.equal(lines.length, 5);
});

test('booook study: killed (SIGKILL) once its first cell is done, it resumes the unfinished cells and makes no call twice', async () => {
	const file = studyFile(grid);
	const sessions = join(tempDir('study-kill'), 'sessions');
	const killed = await booook(['study', file, '--sessions-dir', sessions], {
		onStderr: (text, kill) => {
			if (/: done: /u.test(text)) kill();
		},
	});
	assert.equal(killed.signal, 'SIGKILL', killed.stderr);
	assert.ok((await sessionsDone(sessions)) < 12, 'killed before the study was over');
	const resumed = await booook(['study', file, '--sessions-dir', sessions]);
	assert.equal(resumed.code, 0, resumed.stderr);
	assert.equal(await sessionsDone(sessions), 12);
	assert.ok(cellLines(resumed.stderr, 'done already, skipped') >= 1, resumed.stderr);
	assert.ok(cellLines(resumed.stderr, ': resumed (session ') >= 1, resumed.stderr);
	const calls = loggedCalls(sessions);
	assert.equal(new Set(calls).size, calls.length, 'no call logged twice');
	assert.equal(
		readdirSync(sessions).filter((n) => !n.startsWith('.') && !n.endsWith('.study.json')).length,
		12,
		'one session per cell',
	);
});

test('booook study reads the same grid from YAML: --plan prints the same cells as from JSON', async () => {
	const lines = [
		'name: table2',
		'books:',
		...grid.books.map((b) => `  - ${JSON.stringify(b)}`),
		'methods: [hier, inc]',
		'providers:',
		'  - provider: extractive',
		'chunkSizes: [4096, 8192]',
		'contextWindows: [16384]',
		'concurrency: 4',
	];
	const sessions = join(tempDir('study-yaml'), 'sessions');
	const fromYaml = await booook([
		'study',
		studyFile(lines.join('\n'), 'study.yaml'),
		'--plan',
		'--sessions-dir',
		sessions,
	]);
	assert.equal(fromYaml.code, 0, fromYaml.stderr);
	const fromJson = await booook(['study', studyFile(grid), '--plan', '--sessions-dir', sessions]);
	assert.equal(fromYaml.stdout, fromJson.stdout);
	assert.equal(cellLines(fromYaml.stdout, 'extractive textrank'), 12);
});

test('booook study with "score": true scores each cell done with the scorer, shows BooookScore per configuration, and scores nothing twice', async (t) => {
	const api = await startFakeApi({ respond: annotatingReply });
	t.after(() => api.close());
	const scored = {
		...grid,
		name: 'scored',
		books: grid.books.slice(0, 2),
		chunkSizes: [8192],
		score: true,
		scorer: { provider: 'openai', model: 'gpt-4o-mini', baseUrl: api.openaiBaseUrl },
	};
	const file = studyFile(scored);
	const sessions = join(tempDir('study-score'), 'sessions');

	// No key: one line, exit 2, nothing created or called.
	const keyless = await booook(['study', file, '--sessions-dir', sessions]);
	assert.equal(keyless.code, 2, keyless.stderr);
	assert.equal(keyless.stderr.trim().split('\n').length, 1, keyless.stderr);
	assert.match(keyless.stderr, /needs OPENAI_API_KEY/u);
	assert.ok(!existsSync(sessions), 'nothing written');
	assert.equal(api.requests.length, 0);

	const env = { OPENAI_API_KEY: 'sk-test' };
	const ran = await booook(['study', file, '--sessions-dir', sessions], { env });
	assert.equal(ran.code, 0, ran.stderr);
	assert.equal(cellLines(ran.stderr, ': scored with openai/gpt-4o-mini: BooookScore '), 4, ran.stderr);
	assert.ok(api.requests.length > 0, 'annotation calls were made');
	// Two configurations (hier, inc), each with a score; two books are too few for an interval, and it says so.
	const [results, types] = ran.stdout.split('\n\n');
	const rows = results!.split('\n').filter((l) => /^(hier|inc) .*extractive textrank/u.test(l));
	assert.equal(rows.length, 2, ran.stdout);
	for (const row of rows) assert.match(row, /2\/2 .* \d+\.\d$/u, ran.stdout);
	assert.match(
		results!,
		/^BooookScore: too few books \(2\) for an interval over books; a bootstrap over books needs 10$/mu,
	);
	assert.match(results!, /: [+-]\d+\.\d \(2 books are too few for an interval over books\)$/mu);
	// Under it, the error types per configuration, as the sessions' annotations have them.
	const expected = await annotatedTypes(sessions, scored.name);
	const typeLines = types!.trimEnd().split('\n');
	assert.match(
		typeLines[0]!,
		/^method +model +chunk +window +books +sentences +confusing +ent +evt +cause +sal +disc +dup +incon +lang$/u,
		ran.stdout,
	);
	assert.match(
		typeLines.at(-1)!,
		/^error types, % of annotated sentences \(count\): ent entity omission, .*lang language$/u,
	);
	for (const method of ['hier', 'inc']) {
		const line = typeLines.find((l) => l.startsWith(`${method} `));
		const e = expected.get(method)!;
		assert.ok(e.sentences > 0 && e.confusing > 0, 'the fake annotator flags some sentences');
		const cells = line!.split(/ {2,}/u);
		assert.equal(cells[4], '2');
		assert.equal(cells[5], String(e.sentences));
		assert.equal(cells[6], `${((100 * e.confusing) / e.sentences).toFixed(1)} (${e.confusing})`);
		assert.deepEqual(
			cells.slice(7),
			LABELS.map((l) => `${((100 * e.counts[l]) / e.sentences).toFixed(1)} (${e.counts[l]})`),
			line,
		);
	}
	const annotations = api.requests.length;

	const again = await booook(['study', file, '--sessions-dir', sessions, '--json'], { env });
	assert.equal(again.code, 0, again.stderr);
	assert.equal(api.requests.length, annotations, 'no new annotation call');
	assert.equal(cellLines(again.stderr, 'scored already'), 4, again.stderr);
	const json = JSON.parse(again.stdout) as {
		rows: {
			method: string;
			score: { estimate: number; books: number } | null;
			errorTypes: {
				books: number;
				sentences: number;
				counts: Record<string, number>;
				shares: Record<string, number>;
			};
		}[];
		cells: { session: string; errorTypes: { sentences: number; counts: Record<string, number> } }[];
	};
	assert.ok(
		json.rows.every(
			(r) => r.score !== null && r.score.books === 2 && r.score.estimate >= 0 && r.score.estimate <= 1,
		),
		again.stdout,
	);
	for (const row of json.rows) {
		const e = expected.get(row.method)!;
		assert.equal(row.errorTypes.books, 2);
		assert.equal(row.errorTypes.sentences, e.sentences);
		assert.deepEqual(row.errorTypes.counts, e.counts);
		for (const l of LABELS)
			assert.ok(Math.abs(row.errorTypes.shares[l]! - e.counts[l] / e.sentences) < 1e-12, l);
	}
	const perCell = await annotatedTypes(sessions, scored.name, 'session');
	for (const cell of json.cells) assert.deepEqual(cell.errorTypes.counts, perCell.get(cell.session)!.counts);

	// booook report FILE: the same results from the sessions, with no key and no call.
	const report = await booook(['report', file, '--sessions-dir', sessions, '--json']);
	assert.equal(report.code, 0, report.stderr);
	assert.equal(report.stdout, again.stdout);
	assert.equal(api.requests.length, annotations);

	// The CSV: the results' columns, then sentences and each type's count and percent, one row per configuration.
	const table = await booook(['study', file, '--sessions-dir', sessions, '--csv'], { env });
	const [header, ...csvRows] = table.stdout.split('\r\n').filter((l) => l !== '');
	const columns = csvFields(header!);
	assert.deepEqual(columns.slice(10, 17), [
		'score',
		'ci_low',
		'ci_high',
		'ci_method',
		'sentences annotated',
		'sentences confusing',
		'entity omission n',
	]);
	assert.equal(columns.length, 14 + 2 + 2 * LABELS.length);
	for (const line of csvRows) {
		const values = csvFields(line);
		// Two books: no interval over them, and the CSV says which (none) rather than leaving it to guess.
		assert.deepEqual(values.slice(11, 14), ['', '', 'none']);
		const e = expected.get(values[0]!)!;
		assert.equal(values[columns.indexOf('sentences annotated')], String(e.sentences));
		for (const l of LABELS) assert.equal(values[columns.indexOf(`${l} n`)], String(e.counts[l]));
	}
	const reportCsv = await booook(['report', file, '--sessions-dir', sessions, '--csv']);
	assert.equal(reportCsv.code, 0, reportCsv.stderr);
	assert.equal(reportCsv.stdout, table.stdout, "report FILE --csv is the study's CSV");
	// A session's report has no CSV: one line that says what to use, exit 2.
	const session = await booook(['report', json.cells[0]!.session, '--sessions-dir', sessions, '--csv']);
	assert.equal(session.code, 2);
	assert.match(session.stderr, /--csv .*study file.*--json/u);
	assert.equal(session.stderr.trim().split('\n').length, 1);
});

/** One line of RFC 4180 CSV as its fields (a quoted field may hold commas). */
function csvFields(line: string): string[] {
	const fields: string[] = [];
	let field = '';
	let quoted = false;
	for (let i = 0; i < line.length; i++) {
		const c = line[i]!;
		if (quoted && c === '"' && line[i + 1] === '"') {
			field += '"';
			i += 1;
		} else if (c === '"') quoted = !quoted;
		else if (c === ',' && !quoted) {
			fields.push(field);
			field = '';
		} else field += c;
	}
	return [...fields, field];
}

/**
 * Error types counted straight from a scored study's sessions, by method (or by session): each
 * session has one summary annotated by one model, so every model annotation without a failure is
 * one annotated sentence.
 */
async function annotatedTypes(dir: string, study: string, by: 'method' | 'session' = 'method') {
	const out = new Map<string, { sentences: number; confusing: number; counts: Record<Label, number> }>();
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		if (!entry.isDirectory() || !entry.name.startsWith(`${study}-`)) continue;
		const { data } = await Session.snapshot(dir, entry.name);
		assert.ok(data.kind === 'book');
		const key = by === 'session' ? entry.name : data.run.config.method;
		const e = out.get(key) ?? { sentences: 0, confusing: 0, counts: emptyCounts() };
		for (const a of data.annotations) {
			if (a.source !== 'model' || a.failure !== null) continue;
			e.sentences += 1;
			if (a.confusing) e.confusing += 1;
			for (const t of a.types) e.counts[t] += 1;
		}
		out.set(key, e);
	}
	return out;
}
