import type { PrepareOptions, SessionRun } from '../app/run.ts';
import { runFailed, runStopped } from '../format/run-end.ts';
import { say } from '../program.ts';
import { output, type Stream } from './output.ts';
import { headlessReporter } from './progress.ts';
import { abortOnSignal } from './interrupt.ts';
import { printFinal } from './final.ts';

/** The run of a session shown: headless progress lines, or the terminal app; and how it ended, said. */

export interface ExecuteOptions extends PrepareOptions {
	json: boolean;
	/** How booook was started, for the command line that continues the run. */
	program: string;
	/** A line for stderr when the run starts (why it is headless). */
	note?: string;
	step?: boolean;
	stdout?: Stream;
	stderr?: Stream;
}

export interface InteractiveOptions extends ExecuteOptions {
	/** Open the live terminal app (a TTY and no --headless/--json); else progress on stderr. */
	interactive?: boolean;
	/** Start the run at once (the default), or show it and wait for space or s. */
	autoStart?: boolean;
	stdin?: NodeJS.ReadStream;
}

/** The run made ready, shown as `opts.interactive` says, then the session closed (`close`): its exit code. */
export async function shown(
	ready: () => SessionRun | Promise<SessionRun>,
	close: () => Promise<void>,
	opts: InteractiveOptions,
): Promise<number> {
	try {
		const run = await ready();
		return await (opts.interactive ? runInteractive(run, opts) : execute(run, opts));
	} finally {
		await close();
	}
}

/**
 * Runs (or continues) the session's plan headless until it is done, fails or is interrupted.
 * Ctrl-C / SIGTERM cancel the calls in flight; the session is saved and can be resumed.
 * Returns the exit code: 0 done, 1 failed, 130 interrupted.
 */
export async function execute(run: SessionRun, opts: ExecuteOptions): Promise<number> {
	const stdout = opts.stdout ?? process.stdout;
	const stderr = opts.stderr ?? process.stderr;
	const err = output(stderr);
	const { session, prepared } = run;
	if (opts.note) err.line(opts.note);
	const status = await abortOnSignal((signal) =>
		run.runUnseen({
			signal,
			step: opts.step,
			onEvent: headlessReporter({
				json: opts.json,
				stdout,
				stderr,
				priced: prepared.priced,
				name: run.nodeName,
			}),
		}),
	);
	if (status === 'done') {
		if (!opts.json) printFinal(session.data, prepared.ctx.book, stdout, stderr);
		return 0;
	}
	if (status === 'cancelled') {
		if (!opts.json) err.line(say(runStopped(session.continueWith), opts.program));
		return 130;
	}
	const outcome = run.outcome();
	if (!opts.json && outcome.kind === 'failed') err.text(say(runFailed(outcome), opts.program));
	return 1;
}

/**
 * Runs (or continues, or just shows) the session's plan on the navigator's run screen until the
 * user quits. Same exit codes as `execute`: 0 done, 1 failed, 130 interrupted (the session is saved
 * and `booook resume ID` continues it).
 */
async function runInteractive(run: SessionRun, opts: InteractiveOptions): Promise<number> {
	const stdout = (opts.stdout ?? process.stdout) as NodeJS.WriteStream;
	const stderr = (opts.stderr ?? process.stderr) as NodeJS.WriteStream;
	preferReactProduction();
	const { navigateRun } = await import('../ui/navigator.tsx');
	const streams = { stdin: opts.stdin, stdout, stderr };
	await navigateRun({ env: opts.env ?? process.env, streams, program: opts.program }, run, opts);
	return leaveRun(run, stderr, opts.program);
}

/** How a run left in the terminal app stands, on stderr, and the exit code that says it. */
export function leaveRun(run: SessionRun, stderr: Stream, program: string): number {
	const outcome = run.outcome();
	if (outcome.kind === 'done') return 0;
	if (outcome.kind === 'failed') {
		output(stderr).text(say(runFailed(outcome), program));
		return 1;
	}
	output(stderr).line(say(runStopped(outcome.continueWith), program));
	return 130;
}

/**
 * React picks its build when it is first loaded: the development build checks and warns on every
 * render and costs about a third more CPU while text streams (bench/render). The app uses the
 * production build unless NODE_ENV says otherwise; this must run before the UI is imported.
 */
export function preferReactProduction(): void {
	process.env.NODE_ENV ??= 'production';
}
