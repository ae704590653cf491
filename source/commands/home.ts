import { DEFAULTS } from '../config.ts';
import { UserError } from '../errors.ts';
import { defaultModel, defaultProvider } from '../llm/create.ts';
import { deleteSession } from '../store/remove.ts';
import { listSessions } from '../app/list-sessions.ts';
import { openSession } from '../app/open-session.ts';
import {
	createRunSession,
	loadBook,
	prepare,
	sessionRun,
	type LoadedRun,
	type Prepared,
} from '../app/run.ts';
import type { HomeAppOptions, HomeChoice, HomeQuestion } from '../ui/app.tsx';
import { leaveRun, preferReactProduction, showRun, type InteractiveOptions } from './execute.ts';
import { refusalLine } from './open-refusal.ts';
import { validateInTerminal } from './validate-screen.ts';

/** A new run's form as checked: its book read, its provider set up. */
interface Checked {
	input: unknown;
	loaded: LoadedRun;
	prepared: Prepared;
}

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
	// The form's book is read and checked once; the run then starts from what the check prepared.
	const checked: Checked[] = [];
	const home: HomeAppOptions = {
		sessionsDir: dir,
		load: () => listSessions(dir),
		remove: (id) => deleteSession(dir, id),
		defaults: {
			method: DEFAULTS.method,
			provider: defaultProvider(env),
			models: {
				openai: defaultModel('openai'),
				anthropic: defaultModel('anthropic'),
				extractive: defaultModel('extractive'),
			},
			baseUrls: {
				openai: env.OPENAI_BASE_URL?.trim() ?? '',
				anthropic: env.ANTHROPIC_BASE_URL?.trim() ?? '',
				extractive: '',
			},
			chunkSize: DEFAULTS.chunkSize,
		},
		check: async (input) => {
			try {
				const loaded = await loadBook(input.book, {
					method: input.method,
					provider: input.provider,
					model: input.model,
					baseUrl: input.baseUrl,
					chunkSize: input.chunkSize,
				});
				const prepared = await prepare(loaded.config, loaded.loaded.text, interactive);
				checked.splice(0, checked.length, { input, loaded, prepared });
				return null;
			} catch (error) {
				if (error instanceof UserError) return error.message;
				throw error;
			}
		},
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
			const back = await openChoice(choice, dir, interactive, checked, ask);
			if (back.exit !== undefined) return back.exit;
			notice = back.notice;
		} catch (error) {
			// What the user can mend (a missing key, a session another process holds) goes back to the
			// list, where they chose it, rather than ending the app.
			if (!(error instanceof UserError)) throw error;
			notice = error.message;
		}
	}
}

/** Where the home screen's loop goes on: the list again (with a notice), or the exit code a signal ends with. */
type Back = { exit?: number; notice?: string };

/** The screen of what was chosen on the list until the user leaves it. */
async function openChoice(
	choice: Exclude<HomeChoice, { kind: 'quit' | 'answer' }>,
	dir: string,
	interactive: InteractiveOptions,
	checked: Checked[],
	ask: (question: HomeQuestion) => Promise<HomeChoice>,
): Promise<Back> {
	if (choice.kind === 'validate') {
		await validateInTerminal(dir, choice.id, { mode: 'blind', seed: 2024 });
		return {};
	}
	if (choice.kind === 'compare') {
		const { compareFromHome } = await import('./compare-screen.ts');
		await compareFromHome(dir, choice.id);
		return {};
	}
	const stderr = interactive.stderr ?? process.stderr;
	if (choice.kind === 'new') {
		const made = checked.find((c) => c.input === choice.input);
		if (!made) throw new Error('internal: the new run was not checked');
		const session = await createRunSession(dir, made.loaded);
		try {
			const ended = await showRun(sessionRun(session, made.prepared, interactive), interactive);
			return ended.signalled ? { exit: leaveRun(session, stderr) } : {};
		} finally {
			await session.close();
		}
	}
	let answer: HomeChoice | undefined;
	const result = await openSession(dir, choice.id, interactive, {
		// Asked on the home screen, before the run screen shows the run (r would start it at once).
		lostWork: async (warning) => {
			answer = await ask({ id: choice.id, warning });
			return answer.kind === 'answer' && answer.yes;
		},
	});
	if (result.kind === 'refused') return { notice: refusalLine(result.reason, dir, 'home') };
	if (result.kind === 'declined') return answer?.kind === 'quit' ? { exit: 0 } : {};
	const { opened } = result;
	try {
		const run = await opened.prepare();
		const ended = await showRun(run, { ...interactive, autoStart: choice.kind === 'resume' });
		return ended.signalled ? { exit: leaveRun(opened.session, stderr) } : {};
	} finally {
		await opened.close();
	}
}
