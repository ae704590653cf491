import { errorMessage, UserError } from '../errors.ts';
import { say } from '../program.ts';
import { sessionsHome, type SessionsHome } from '../app/home.ts';
import type { SessionRun } from '../app/run.ts';
import type { HomeAppOptions, HomeChoice, HomeQuestion } from '../ui/app.tsx';
import { leaveRun, preferReactProduction, showRun, type InteractiveOptions } from './execute.ts';
import { refusalLine } from './open-refusal.ts';
import { validateInTerminal } from './validate-screen.ts';

/**
 * `booook` with no arguments in a terminal: the saved sessions, and the screen of the one opened,
 * resumed or started; leaving that screen shows the list again. Returns 0 when the user quits the
 * list, or the run's exit code when a signal (SIGINT, SIGTERM) ended its screen.
 */
export async function homeInteractive(
	opts: Omit<InteractiveOptions, 'json'> & { sessionsDir: string },
): Promise<number> {
	const env = opts.env ?? process.env;
	const dir = opts.sessionsDir;
	const interactive: InteractiveOptions = { ...opts, json: false, fromHome: true };
	preferReactProduction();
	const { renderHomeApp } = await import('../ui/app.tsx');
	const sessions = sessionsHome(dir, interactive);
	const home: HomeAppOptions = {
		sessionsDir: dir,
		load: sessions.load,
		remove: sessions.remove,
		defaults: sessions.defaults,
		check: sessions.check,
		program: opts.program,
		env,
		stdout: opts.stdout as NodeJS.WriteStream | undefined,
		stdin: opts.stdin,
		stderr: opts.stderr as NodeJS.WriteStream | undefined,
	};
	const ask = (question: HomeQuestion) => renderHomeApp({ ...home, question });
	let notice: string | undefined;
	for (;;) {
		const choice = await renderHomeApp({ ...home, notice });
		notice = undefined;
		if (choice.kind === 'quit') return 0;
		// Only a question is answered, and none was asked.
		if (choice.kind === 'answer') continue;
		try {
			const back = await openChoice(choice, dir, sessions, interactive, ask);
			if (back.exit !== undefined) return back.exit;
			notice = back.notice;
		} catch (error) {
			// What the user can mend (a missing key, a session another process holds) goes back to the
			// list, where they chose it, rather than ending the app.
			if (!(error instanceof UserError)) throw error;
			notice = errorMessage(error, interactive.program);
		}
	}
}

/** Where the home screen's loop goes on: the list again (with a notice), or the exit code a signal ends with. */
type Back = { exit?: number; notice?: string };

/** The screen of what was chosen on the list until the user leaves it. */
async function openChoice(
	choice: Exclude<HomeChoice, { kind: 'quit' | 'answer' }>,
	dir: string,
	sessions: SessionsHome,
	interactive: InteractiveOptions,
	ask: (question: HomeQuestion) => Promise<HomeChoice>,
): Promise<Back> {
	if (choice.kind === 'validate') {
		await validateInTerminal(dir, choice.id, { mode: 'blind', seed: 2024, program: interactive.program });
		return {};
	}
	if (choice.kind === 'compare') {
		const { compareFromHome } = await import('./compare-screen.ts');
		await compareFromHome(dir, choice.id, interactive.program);
		return {};
	}
	if (choice.kind === 'new') {
		const started = await sessions.start(choice.input);
		return await shown(() => started.run, started.close, interactive);
	}
	let answer: HomeChoice | undefined;
	const result = await sessions.open(choice.id, {
		// Asked on the home screen, before the run screen shows the run (r would start it at once).
		lostWork: async (warning) => {
			answer = await ask({ id: choice.id, warning: say(warning, interactive.program) });
			return answer.kind === 'answer' && answer.yes;
		},
	});
	if (result.kind === 'refused')
		return { notice: refusalLine(result.reason, dir, 'home', interactive.program) };
	if (result.kind === 'declined') return answer?.kind === 'quit' ? { exit: 0 } : {};
	const { opened } = result;
	return await shown(() => opened.prepare(), opened.close, {
		...interactive,
		autoStart: choice.kind === 'resume',
	});
}

/** The run screen of a session made or opened, until the user leaves it; then the session is closed. */
async function shown(
	run: () => SessionRun | Promise<SessionRun>,
	close: () => Promise<void>,
	opts: InteractiveOptions,
): Promise<Back> {
	try {
		const shownRun = await run();
		const ended = await showRun(shownRun, opts);
		return ended.signalled ? { exit: leaveRun(shownRun, opts.stderr ?? process.stderr, opts.program) } : {};
	} finally {
		await close();
	}
}
