import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellWork } from '../../source/app/study.ts';
import { StudyRunner } from '../../source/engine/study-runner.ts';
import { cellCost } from '../../source/format/cost.ts';
import type { Scorer } from '../../source/study/scorer.ts';
import { cellTable } from '../../source/ui/screens/study/table.ts';
import { booook } from '../support/cli.ts';
import { annotatingReply, startFakeApi } from '../support/fake-api.ts';
import { loggedCost } from '../support/logged-calls.ts';
import { tinyStudy } from '../support/study-books.ts';

/**
 * One definition of a cell's cost everywhere: its run's calls plus its BooookScore annotation
 * calls, which is what its session's call log holds. The screen's rows and header, the results
 * table, --json and --csv all give that figure, during the run and after a restart alike.
 */

const env = { OPENAI_API_KEY: 'sk-test' };

async function scoredStudy(name: string, baseUrl: string) {
	return tinyStudy(name, ['ann', 'bob'], {
		methods: ['hier'],
		chunkSizes: [512],
		concurrency: 2,
		providers: [{ provider: 'openai', model: 'gpt-4o-mini', baseUrl }],
		score: true,
		scorer: { provider: 'openai', model: 'gpt-4o-mini', baseUrl },
	});
}

function runnerOf(study: Awaited<ReturnType<typeof scoredStudy>>, baseUrl: string) {
	const { plan, sessions } = study;
	const scorers = new Map<string, Scorer>(
		plan.cells.map((c) => [c.key, { provider: 'openai', model: 'gpt-4o-mini', baseUrl }]),
	);
	return new StudyRunner({
		name: plan.spec.name,
		cells: plan.cells,
		concurrency: plan.concurrency,
		sessionsDir: sessions,
		work: cellWork(scorers, { env }),
	});
}

const near = (a: number, b: number, what: string) =>
	assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} against ${b}`);
const costColumn = (study: Awaited<ReturnType<typeof scoredStudy>>, runner: StudyRunner) =>
	cellTable(study.plan.cells, runner.state.cells, 140).rows.map((row) => /\$\d+\.\d{4}/u.exec(row)?.[0]);

test('a study cell costs its run plus its scoring, the same on the screen while it runs and as "done before" after a restart', async (t) => {
	const api = await startFakeApi({ respond: annotatingReply });
	t.after(() => api.close());
	const study = await scoredStudy('cost-screen', api.openaiBaseUrl);
	const first = runnerOf(study, api.openaiBaseUrl);
	assert.equal(await first.start(), 'done');
	const logged = study.plan.cells.map((c) => loggedCost(study.sessions, c.sessionId));
	first.state.cells.forEach((cell, i) => {
		assert.ok(cell.scoring !== null && cell.scoring.cost > 0, 'the cell was scored');
		near(cellCost(cell), logged[i]!, `${cell.key} while running`);
	});
	near(first.state.totals.cost, logged[0]! + logged[1]!, 'the header');
	const shown = costColumn(study, first);

	const again = runnerOf(study, api.openaiBaseUrl);
	assert.equal(await again.start(), 'done');
	assert.deepEqual(
		again.state.cells.map((c) => c.status),
		['skipped', 'skipped'],
	);
	again.state.cells.forEach((cell, i) => near(cellCost(cell), logged[i]!, `${cell.key} done before`));
	near(again.state.totals.cost, first.state.totals.cost, 'the header after a restart');
	assert.deepEqual(costColumn(study, again), shown, 'the rows show the same dollars');
});

test('a scoring stopped half way and finished by the next run: the cell still costs every call its session made', async (t) => {
	const api = await startFakeApi({ respond: annotatingReply });
	t.after(() => api.close());
	const study = await scoredStudy('cost-resume', api.openaiBaseUrl);
	const first = runnerOf(study, api.openaiBaseUrl);
	first.on((event) => {
		if (
			event.type === 'cell-progress' &&
			event.cell.status === 'scoring' &&
			(event.cell.scoring?.calls ?? 0) >= 1
		)
			first.cancel();
	});
	assert.equal(await first.start(), 'cancelled');
	const stopped = first.state.cells.find((c) => c.scoring !== null && c.scoring.calls > 0);
	assert.ok(stopped, 'a cell had begun scoring');

	const again = runnerOf(study, api.openaiBaseUrl);
	assert.equal(await again.start(), 'done');
	again.state.cells.forEach((cell, i) =>
		near(cellCost(cell), loggedCost(study.sessions, study.plan.cells[i]!.sessionId), cell.key),
	);
});

test('booook study: the results, --json and --csv give each configuration the cost of its runs and scorings; --csv writes numbers', async (t) => {
	const api = await startFakeApi({ respond: annotatingReply });
	t.after(() => api.close());
	const study = await scoredStudy('cost-cli', api.openaiBaseUrl);
	const ran = await booook(['study', study.file, '--sessions-dir', study.sessions, '--headless'], { env });
	assert.equal(ran.code, 0, ran.stderr);
	const logged = study.plan.cells.reduce((sum, c) => sum + loggedCost(study.sessions, c.sessionId), 0);
	const row = ran.stdout.split('\n').find((l) => l.startsWith('hier '))!;
	assert.match(row, new RegExp(`\\$${logged.toFixed(4).replace('.', '\\.')} `, 'u'), ran.stdout);

	const json = await booook(['study', study.file, '--sessions-dir', study.sessions, '--json'], { env });
	const results = JSON.parse(json.stdout) as {
		rows: { cost: number }[];
		cells: { session: string; cost: number; scoring: { calls: number; cost: number } }[];
	};
	near(results.rows[0]!.cost, logged, 'the row after a restart');
	for (const cell of results.cells) {
		near(cell.cost, loggedCost(study.sessions, cell.session), cell.session);
		assert.ok(
			cell.scoring.calls > 0 && cell.scoring.cost > 0 && cell.scoring.cost < cell.cost,
			'its scoring, part of its cost',
		);
	}

	const csv = await booook(['study', study.file, '--sessions-dir', study.sessions, '--csv'], { env });
	assert.equal(csv.code, 0, csv.stderr);
	const [header, line] = csv.stdout.split('\r\n');
	const columns = header!.split(',');
	assert.deepEqual(columns.slice(0, 14), [
		'method',
		'provider',
		'model',
		'chunk_size',
		'context_window',
		'books',
		'books_done',
		'words_mean',
		'calls',
		'cost_usd',
		'score',
		'ci_low',
		'ci_high',
		'ci_method',
	]);
	const values = line!.split(',');
	assert.equal(values.length, columns.length, 'no quoted field: one value a column');
	const value = (name: string) => values[columns.indexOf(name)]!;
	for (const name of ['chunk_size', 'books', 'books_done', 'words_mean', 'calls', 'cost_usd', 'score']) {
		assert.match(value(name), /^\d+(\.\d+)?$/u, `${name} is a number: ${value(name)}`);
	}
	// Two books are too few for an interval over books: its bounds are empty, and the method says why.
	assert.deepEqual([value('ci_low'), value('ci_high'), value('ci_method')], ['', '', 'none']);
	assert.ok(Math.abs(Number(value('cost_usd')) - logged) < 1e-6, value('cost_usd'));
});
