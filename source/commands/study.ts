import { sessionsDirArg, resolveSessionsDir } from '../config.ts';
import { Command } from '@commander-js/extra-typings';
import { appServices, type AppServices, type Streams } from '../app/services.ts';
import { cellLine, studyProgress } from '../app/progress.ts';
import { openStudy, type StudyEnd, type StudyRun } from '../app/study.ts';
import { planTable, type StudyPlan } from '../app/study-plan.ts';
import type { StudyEvent } from '../engine/study-runner.ts';
import { batchLine } from '../format/batch.ts';
import { planJson, planTotal } from '../format/study-plan.ts';
import { preferReactProduction } from './execute.ts';
import { interactive, PRICES_HELP, sessionsDirOption, type Exit } from './flags.ts';
import { abortOnSignal } from './interrupt.ts';
import { output, type Stream } from './output.ts';
import { printResults, tableFor } from './study-results.ts';
import { commandLine, say, shellWord } from '../program.ts';

export const spec = (exit: Exit, program: string) =>
	new Command('study')
		.description(
			'run a grid of books × methods × models × chunk sizes × context windows, one session per cell, ' +
				"resumably; print a table like the paper's Table 2. In a terminal, a screen shows every cell's " +
				'progress live (q quits; the same command continues)',
		)
		.argument(
			'<file>',
			'a study file (JSON, or YAML as .yaml/.yml): name, books or folder, methods, providers, chunkSizes, ' +
				"contextWindows, maxSummary, score, scorer, concurrency, batch (the providers' batch APIs, at half price)",
		)
		.option('--plan', "print every cell's expected calls and cost, and exit without a call")
		.option('--json', 'print the plan or the results as JSON (headless)')
		.option(
			'--csv',
			'print the results table as CSV (headless; with "score": true, each error type\'s count and percent as more columns)',
		)
		.option(
			'--headless',
			'no study screen: one line per cell on stderr, the results table on stdout (the default without a terminal)',
		)
		.addOption(sessionsDirOption())
		.option('--prices <file>', PRICES_HELP)
		.action(async (file, flags) => {
			const screen = !flags.plan && interactive({ headless: flags.headless || flags.csv, json: flags.json });
			exit(
				await studyCommand(file, {
					sessionsDir: resolveSessionsDir(flags.sessionsDir),
					plan: !!flags.plan,
					json: !!flags.json,
					csv: !!flags.csv,
					prices: flags.prices,
					interactive: screen,
					program,
				}),
			);
		});

export interface StudyOptions {
	sessionsDir: string;
	/** How booook was started, for the command line that continues the study. */
	program: string;
	plan: boolean;
	json: boolean;
	csv: boolean;
	prices?: string;
	/** Show the study screen (a terminal, and no --headless, --json or --csv); else one line per cell on stderr. */
	interactive?: boolean;
	stdin?: NodeJS.ReadStream;
	env?: NodeJS.ProcessEnv;
	stdout?: Stream;
	stderr?: Stream;
}

/**
 * `booook study FILE`: plans the grid (nothing is written if any cell cannot run), prints it, then
 * runs every cell not done yet as an ordinary session — new ones created, unfinished ones resumed,
 * done ones skipped — with one limit on calls in flight across cells. Exit 0 when every cell is
 * done, 1 when one failed, 130 when interrupted (running the same command again continues).
 */
export async function studyCommand(file: string, opts: StudyOptions): Promise<number> {
	const outStream = opts.stdout ?? process.stdout;
	const errStream = opts.stderr ?? process.stderr;
	const stdout = output(outStream);
	const err = output(errStream);
	const table = tableFor(outStream);
	const streams = { stdin: opts.stdin, stdout: outStream, stderr: errStream } as Streams;
	const services = appServices({ ...opts, streams });
	const study = await openStudy(file, { ...services, planOnly: opts.plan });
	const { plan } = study;
	const total = planTotal(plan.cells.length, plan.concurrency, study);
	if (opts.plan) {
		if (opts.json) stdout.json(planJson(plan.spec.name, plan.cells, study.status, study), 2);
		else stdout.line(`${table(planTable(plan, study.status))}\n${total}`);
		return 0;
	}
	if (!opts.interactive)
		err.line(`study ${plan.spec.name}:\n${tableFor(errStream)(planTable(plan, study.status))}\n${total}`);
	const ran = await abortOnSignal((signal) =>
		study.run({
			signal,
			shown: opts.interactive ? (run) => studyInteractive(services, run, plan) : undefined,
			onEvent: studyLines(errStream, plan.cells.length, services.now),
			onBatches: (batches) =>
				batches.on((state, change, detail) => err.line(batchLine(state, change, detail))),
			say: (cell, text) =>
				err.line(
					cellLine(plan.cells.indexOf(cell), plan.cells.length, cell.key, say(text, services.program)),
				),
		}),
	);
	const after = await study.outcomes();
	printResults(plan, after, opts, stdout, table);
	const done = plan.cells.filter((c) => after.get(c.key)?.status === 'done').length;
	err.line(`study ${plan.spec.name}: ${done}/${plan.cells.length} cells done`);
	if (ran === 'cancelled') {
		err.line(
			`stopped; every session is saved. Continue with: ${continueStudy(opts.program, file, opts.sessionsDir)}`,
		);
		return 130;
	}
	return ran === 'failed' ? 1 : 0;
}

/** The command that continues the study where it stopped, as the user can paste it. */
function continueStudy(program: string, file: string, sessionsDir: string): string {
	return commandLine(program, `study ${shellWord(file)}${sessionsDirArg(sessionsDir)}`);
}

/** The study's progress as lines on stderr, one per change of a cell's state (headless). */
export function studyLines(stderr: Stream, cells: number, now: () => number = Date.now) {
	const err = output(stderr);
	const progress = studyProgress(cells, now);
	return (event: StudyEvent) => {
		for (const line of progress(event)) err.line(line);
	};
}

/** The study screen (the navigator's) until the user quits; resolves how the study ended. */
async function studyInteractive(services: AppServices, run: StudyRun, plan: StudyPlan): Promise<StudyEnd> {
	preferReactProduction();
	const { navigateStudy } = await import('../ui/navigator.tsx');
	return await navigateStudy(services, run, {
		name: plan.spec.name,
		again: continueStudy(services.program, plan.file, services.sessionsDir),
		priced: plan.cells.every((c) => c.priced),
	});
}
