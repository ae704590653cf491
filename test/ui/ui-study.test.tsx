import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeEngine, prepare } from '../../source/app/run.ts';
import { cellWork, readResults } from '../../source/app/study.ts';
import { studyReport } from '../../source/commands/study-results.ts';
import { capture } from '../support/assertions.ts';
import type { PlannedCell } from '../../source/app/study-plan.ts';
import type { Engine } from '../../source/engine/engine.ts';
import { StudyRunner, type CellWork, type StudyState } from '../../source/engine/study-runner.ts';
import { StudyScreen } from '../../source/ui/screens/study/Screen.tsx';
import { init } from '../../source/ui/screens/study/model.ts';
import { Root } from '../../source/ui/root.tsx';
import { themeFor } from '../../source/ui/theme.ts';
import { Session } from '../../source/store/session.ts';
import { StudyApp, type StudyAppOptions } from '../../source/ui/screens/study/App.tsx';
import { KEYS } from '../support/keys.ts';
import { inkStatic, renderScreen, until } from '../support/screen.tsx';
import { tinyStudy } from '../support/study-books.ts';

// A book whose file name would set the terminal's title if it reached the screen raw.
const HOSTILE = 'bob\u001B]0;owned\u0007';

/**
 * The study's real wiring, except that the engine of the last cell starts held (as `--step` does):
 * the study cannot end until the test lets it go, so a frame mid-study is there to be waited on.
 */
function heldLast(plan: Awaited<ReturnType<typeof tinyStudy>>['plan']): {
	work: CellWork<PlannedCell>;
	held: () => Engine | null;
} {
	const last = plan.cells.at(-1)!.key;
	let engine: Engine | null = null;
	const work = cellWork(null, { env: {} });
	return {
		work: {
			engine: async (cell, session, queue) => {
				if (cell.key !== last) return work.engine(cell, session, queue);
				const prepared = await prepare(
					session.data.run.config,
					await session.bookText(),
					{ env: {} },
					cell.ctx.templates,
				);
				engine = makeEngine(session, prepared, { step: true, queue });
				return engine;
			},
		},
		held: () => engine,
	};
}

async function studyScreen(name: string) {
	const study = await tinyStudy(name, ['ann', HOSTILE], {
		methods: ['hier', 'inc'],
		chunkSizes: [512],
		concurrency: 1,
	});
	const { plan, sessions } = study;
	const { work, held } = heldLast(plan);
	const runner = new StudyRunner({
		name: plan.spec.name,
		cells: plan.cells,
		concurrency: plan.concurrency,
		sessionsDir: sessions,
		work,
	});
	let exited = 0;
	const options: StudyAppOptions = {
		runner,
		info: { name: plan.spec.name, again: `booook study ${study.file}`, priced: true },
		start: () => runner.start(),
		results: () => readResults(plan, sessions),
		liveRun: (key) => {
			const live = runner.liveCell(key);
			if (!live) return null;
			return {
				controls: live.engine,
				gate: live.engine.gate.state,
				info: {
					session: live.session.id,
					title: live.session.data.book.title,
					book: '',
					provider: 'extractive',
					model: 'textrank',
					isLLM: false,
					priced: true,
				},
			};
		},
	};
	const app = renderScreen(<StudyApp options={options} onExit={() => exited++} />);
	const frame = () => app.lastFrame() ?? '';
	return { ...study, runner, app, frame, held, exited: () => exited };
}

const rowOf = (frame: string, book: string, config: string) =>
	frame.split('\n').find((l) => l.includes(book) && new RegExp(`\\b${config}\\b`, 'u').test(l)) ?? '';

test("the study screen shows every cell live, watches a running cell's run, and shows the results once the study ends, until q", async () => {
	const { runner, app, frame, held, exited, plan } = await studyScreen('screen');
	try {
		let f = await until(
			frame,
			(x) => (x.match(/queued ░/gu) ?? []).length === 4,
			'every cell queued before the start',
		);
		assert.match(f, /booook study screen · 0\/4 done/u);
		const started = runner.start();
		f = await until(
			frame,
			(x) => /3\/4 done, 1 running/u.test(x) && /running/u.test(rowOf(x, 'bob', 'inc')),
			'three cells done and the held one running',
		);
		// Done cells: a full bar and their calls; the held one: an empty bar, nothing made yet.
		const done = rowOf(f, 'ann', 'hier');
		const cell = runner.state.cells[0]!;
		assert.ok(done.includes(`██████████ ${cell.calls}/${cell.calls}`), done);
		assert.match(done, /● .*done/u);
		assert.match(rowOf(f, 'bob', 'inc'), /◐ .*running\s+░{10} 0\/\d+/u);
		assert.ok(!f.includes('\u001B]0;'), "the book's hostile name never reaches the frame raw");

		// Enter on the running cell: its run screen, live; s makes one call; esc comes back.
		app.stdin.write('jjj');
		await until(frame, (x) => /› ◐/u.test(x), 'the running cell selected');
		app.stdin.write(KEYS.enter);
		await until(
			frame,
			(x) => /booook · .* · incremental updating · extractive baseline/u.test(x) && /stepping/u.test(x),
			"the cell's run screen",
		);
		app.stdin.write('s');
		await until(frame, (x) => /1\/\d+ calls/u.test(x), 'one call made by s');
		app.stdin.write(KEYS.escape);
		// The call made there counts here.
		await until(
			frame,
			(x) => /configuration/u.test(x) && /running\s+█?░+ 1\/\d+/u.test(rowOf(x, 'bob', 'inc')),
			'back on the study screen, the call counted',
		);

		// Watching the cell as its run ends: back to the study, which says so.
		app.stdin.write(KEYS.enter);
		await until(frame, (x) => /stepping/u.test(x), "the cell's run screen again");
		held()!.resume();
		assert.equal(await started, 'done');
		await until(
			frame,
			(x) => /The run of bob\/inc-\S+ ended \(done\)/u.test(x) && /configuration/u.test(x),
			'back on the study screen when the run ended',
		);
		app.stdin.write('k');
		f = await until(
			frame,
			(x) => /✓ done/u.test(x) && /^Results$/mu.test(x) && /Every cell is done/u.test(x),
			'the results',
		);
		// The configurations differ only by method: the rest is said once, above the table.
		assert.match(f, /model: extractive textrank · chunk: 512 · window: 8192 · books done: 2\/2/u);
		assert.match(f, /^hier\s+\d+\s+\d+/mu);
		assert.match(f, /^inc\s+\d+\s+\d+/mu);
		assert.match(f, new RegExp(`${runner.state.totals.calls}/${runner.state.totals.calls} calls`, 'u'));
		assert.equal(exited(), 0, 'the screen stays once the study is over');
		app.stdin.write('q');
		await until(
			() => String(exited()),
			(x) => x === '1',
			'q ends the screen',
		);
		assert.equal(plan.cells.length, 4);
	} finally {
		app.unmount();
	}
});

test("a cell's run screen, closed by esc or by its run's end, leaves Ink no unmounted <Static> to draw from", async () => {
	const { runner, app, frame, held } = await studyScreen('static');
	try {
		const started = runner.start();
		await until(frame, (x) => /3\/4 done, 1 running/u.test(x), 'the held cell running');
		app.stdin.write('jjj');
		await until(frame, (x) => /› ◐/u.test(x), 'the running cell selected');
		const watch = async () => {
			app.stdin.write(KEYS.enter);
			await until(frame, (x) => /stepping/u.test(x), "the cell's run screen");
			assert.notEqual(inkStatic(app), 'unmounted');
		};
		await watch();
		app.stdin.write(KEYS.escape);
		await until(frame, (x) => /configuration/u.test(x), 'back on the study screen');
		assert.notEqual(inkStatic(app), 'unmounted', 'esc closed the run screen');
		await watch();
		held()!.resume();
		assert.equal(await started, 'done');
		await until(frame, (x) => /ended \(done\)/u.test(x), 'back on the study screen when the run ended');
		assert.notEqual(inkStatic(app), 'unmounted', "the run's end closed the run screen");
	} finally {
		app.unmount();
	}
});

test('the study screen: q mid-study cancels the calls in flight, saves every session, and ends once they are saved', async () => {
	const { runner, app, frame, exited, plan, sessions } = await studyScreen('quit');
	try {
		const started = runner.start();
		await until(frame, (x) => /3\/4 done, 1 running/u.test(x), 'the held cell running');
		app.stdin.write('q');
		await until(
			() => String(exited()),
			(x) => x === '1',
			'the screen ends',
		);
		assert.equal(await started, 'cancelled');
		const { data } = await Session.snapshot(sessions, plan.cells.at(-1)!.sessionId);
		assert.equal(
			data.kind === 'book' && data.run.status,
			'cancelled',
			'the held cell is saved, to be resumed',
		);
		assert.deepEqual(
			runner.state.cells.map((c) => c.status),
			['done', 'done', 'done', 'cancelled'],
		);
	} finally {
		app.unmount();
	}
});

test("the study screen says in its title line while the account's rate limit holds calls back", async () => {
	const state: StudyState = {
		status: 'running',
		cells: [],
		totals: { cells: 6, done: 2, failed: 0, active: 4, calls: 40, expected: 120, cost: 0 },
		startedAt: Date.now(),
		endedAt: null,
		batches: null,
		rateLimit: {
			wait: { resumesAt: Date.now() + 8_400, why: 'tokens', used: 99_000, limit: 100_000 },
			refusals: 0,
			answered: 40,
			asked: 200_000,
			used: 150_000,
			limits: { tokens: 100_000 },
		},
	};
	const info = { name: 'grid', again: 'booook study grid.json', priced: true };
	const r = renderScreen(
		<StudyScreen state={state} cells={[]} info={info} ui={init()} results={null} width={100} rows={20} />,
	);
	const shown = await until(
		() => r.lastFrame(),
		(f) => f.includes('waiting for the rate limit'),
		'the wait',
	);
	assert.match(
		shown,
		/waiting for the rate limit: resumes in [78]s \(99,000 of 100,000 tokens a minute used\)/u,
	);
	r.rerender(
		<Root theme={themeFor({})} program="booook">
			<StudyScreen
				state={{ ...state, rateLimit: { ...state.rateLimit!, wait: null } }}
				cells={[]}
				info={info}
				ui={init()}
				results={null}
				width={100}
				rows={20}
			/>
		</Root>,
	);
	await until(
		() => r.lastFrame(),
		(f) => f.includes('booook study grid') && !f.includes('waiting'),
		'the title back',
	);
	r.unmount();
});

test('the results printed on a terminal of 80 columns fit it; piped, they keep every column', async () => {
	const { file, sessions } = await tinyStudy('print', ['ann', 'bob'], {
		methods: ['hier', 'inc'],
		chunkSizes: [512],
	});
	const print = async (tty: boolean) => {
		const out = capture();
		if (tty) Object.assign(out.stream, { isTTY: true, columns: 80 });
		assert.equal(
			await studyReport(file, {
				sessionsDir: sessions,
				json: false,
				csv: false,
				seed: 1,
				resamples: 10,
				stdout: out.stream,
			}),
			0,
		);
		return out.text().trimEnd().split('\n');
	};
	const onTerminal = await print(true);
	assert.ok(
		onTerminal.every((l) => l.length <= 80),
		onTerminal.join('\n'),
	);
	assert.match(onTerminal.join('\n'), /model: extractive textrank/u, 'what every row shares, said once');
	assert.match(onTerminal.join('\n'), /^method\s/mu);
	const piped = await print(false);
	assert.match(
		piped[0]!,
		/^method\s+model\s+chunk\s+window\s+books done\s+words \(mean\)\s+calls\s+cost\s+BooookScore \(95% CI\)$/u,
	);
	assert.ok(
		piped.some((l) => l.length > 80),
		'piped: the whole table, as wide as it is',
	);
});

test("the study screen at 80×24: a failed cell's error and how to continue wrap onto more rows instead of being cut", async () => {
	const error =
		'the server answered 401: incorrect API key provided; set OPENAI_API_KEY to a key of this account, or pass --base-url for another server';
	const failed = {
		key: 'ann/hier-openai-gpt-4o-mini-c512-w8192',
		session: 's',
		status: 'failed',
		calls: 1,
		expected: 10,
		cost: 0,
		words: null,
		score: null,
		activity: null,
		scoring: null,
		error,
		batch: null,
	} as const;
	const state: StudyState = {
		status: 'failed',
		cells: [failed],
		totals: { cells: 1, done: 0, failed: 1, active: 0, calls: 1, expected: 10, cost: 0 },
		startedAt: 0,
		endedAt: 1000,
		batches: null,
		rateLimit: null,
	};
	const again =
		'booook study /home/someone/studies/a-long-folder-name/grid.json --sessions-dir /home/someone/sessions';
	const cells = [
		{
			key: failed.key,
			book: { key: 'ann' },
			method: 'hier',
			provider: 'openai',
			model: 'gpt-4o-mini',
			baseUrl: null,
			chunkSize: 512,
			contextWindow: 8192,
			priced: true,
		},
	] as never;
	const r = renderScreen(
		<StudyScreen
			state={state}
			cells={cells}
			info={{ name: 'grid', again, priced: true }}
			ui={init()}
			results={null}
			width={80}
			rows={24}
		/>,
	);
	const f = await until(
		() => r.lastFrame(),
		(x) => x.includes('Some cells failed'),
		'the failed study',
	);
	const lines = f.split('\n');
	assert.ok(lines.length < 24 && lines.every((l) => l.length <= 80), f);
	const flat = lines.join(' ').replace(/\s+/gu, ' ');
	assert.ok(flat.includes(`error: ${error}`), `the whole error:\n${f}`);
	assert.ok(flat.includes(`continue with: ${again}`), `the whole command:\n${f}`);
	assert.doesNotMatch(lines.at(-1)!, /…/u);
	r.unmount();
});
