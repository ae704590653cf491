import type { PrepareOptions, RunOutcome, SessionRun } from '../app/run.ts';
import { commandLine, shellWord } from '../program.ts';
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
		if (!opts.json)
			err.line(`stopped; session saved. Continue with: ${commandLine(opts.program, session.continueWith)}`);
		return 130;
	}
	const outcome = run.outcome();
	if (!opts.json && outcome.kind === 'failed') err.text(failedLines(outcome, opts.program));
	return 1;
}

export interface InteractiveOptions extends ExecuteOptions {
	/** Start the run at once (the default), or show it and wait for space or s. */
	autoStart?: boolean;
	stdin?: NodeJS.ReadStream;
}

/**
 * Runs (or continues, or just shows) the session's plan on the navigator's run screen until the
 * user quits. Same exit codes as `execute`: 0 done, 1 failed, 130 interrupted (the session is saved
 * and `booook resume ID` continues it).
 */
export async function runInteractive(run: SessionRun, opts: InteractiveOptions): Promise<number> {
	const env = opts.env ?? process.env;
	const stdout = (opts.stdout ?? process.stdout) as NodeJS.WriteStream;
	const stderr = (opts.stderr ?? process.stderr) as NodeJS.WriteStream;
	preferReactProduction();
	const [{ navigateRun }, { externalEditorFrom }] = await Promise.all([
		import('../ui/navigator.tsx'),
		import('./external-editor.ts'),
	]);
	await navigateRun({ env, streams: { stdin: opts.stdin, stdout, stderr }, program: opts.program }, run, {
		step: opts.step,
		autoStart: opts.autoStart,
		externalEditor: externalEditorFrom(env, stdout),
	});
	return leaveRun(run, stderr, opts.program);
}

/** How a run left in the terminal app stands, on stderr, and the exit code that says it. */
export function leaveRun(run: SessionRun, stderr: Stream, program: string): number {
	const outcome = run.outcome();
	switch (outcome.kind) {
		case 'done':
			return 0;
		case 'failed':
			output(stderr).text(failedLines(outcome, program));
			return 1;
		case 'stopped':
			output(stderr).line(
				`stopped; session saved. Continue with: ${commandLine(program, outcome.continueWith)}`,
			);
			return 130;
	}
}

/**
 * Why a run failed (the provider's or planner's message, which may quote a server) and how to go on.
 * A server that could not be reached may have stopped or moved: the command names the address the
 * session uses, where a new one goes.
 */
function failedLines(
	{ error, unreached, baseUrl, continueWith: next }: Extract<RunOutcome, { kind: 'failed' }>,
	program: string,
): string {
	const continueWith = commandLine(program, next);
	const down = `The server at ${unreached} could not be reached`;
	const way = !unreached
		? `Fix the cause, then continue with: ${continueWith}`
		: baseUrl
			? `${down}: start it (or put its new address after --base-url), then continue with: ` +
				`${continueWith} --base-url ${shellWord(baseUrl)}`
			: `${down}: check your network or the server, then continue with: ${continueWith} ` +
				'(--base-url URL points the session at another server)';
	return `run failed: ${error ?? 'unknown error'}\n${way}\n`;
}

/**
 * React picks its build when it is first loaded: the development build checks and warns on every
 * render and costs about a third more CPU while text streams (bench/render). The app uses the
 * production build unless NODE_ENV says otherwise; this must run before the UI is imported.
 */
export function preferReactProduction(): void {
	process.env.NODE_ENV ??= 'production';
}
