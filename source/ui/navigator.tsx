import { errorMessage, UserError } from '../errors.ts';
import { say } from '../program.ts';
import type { CompareTarget } from '../app/compare.ts';
import { externalEditorFrom } from '../app/external-editor.ts';
import { sessionsHome } from '../app/home.ts';
import type { OpenRefusal } from '../app/open-session.ts';
import type { SessionRun } from '../app/run.ts';
import type { AppServices } from '../app/services.ts';
import type { StudyEnd, StudyRun } from '../app/study.ts';
import type { ValidateMode } from '../app/validation.ts';
import {
	renderHomeApp,
	renderSessionRun,
	type HomeAppOptions,
	type HomeChoice,
	type RunAppResult,
} from './app.tsx';
import { next, START, type Ending, type Place, type RunChoice } from './navigation.ts';
import type { ComparisonAsked, WalkedComparison } from './screens/compare/App.tsx';
import type { StudyInfo } from './screens/study/Screen.tsx';
import type { ValidationAsked, WalkedValidation } from './screens/validate/App.tsx';

/**
 * The one navigator of the terminal app (`booook` with no arguments): it shows the screen of each
 * place — the list, a session's run, a validation walk, a comparison — and `navigation.ts` decides
 * which comes next when one ends. Each screen is an Ink app of its own, drawn where the last one was.
 * `booook run` and `resume` open a session's run screen alone (`navigateRun`), `booook study` the
 * study's screen with a running cell's run screen over it (`navigateStudy`).
 */

/** What the edge (the command) says for the navigator: the words of its lines. */
export interface NavigatorEdge {
	/** Why a saved session was not opened, one line for the list. */
	refusal(reason: OpenRefusal): string;
	/** A run screen a signal ended: how the run stands, said, and the exit code the process ends with. */
	signalled(run: SessionRun): number;
	/** The validation walk of session `id` as asked here, and what is said once it is left. */
	validation(
		id: string,
		walk: { mode: ValidateMode; seed: number },
	): { asked: ValidationAsked; done(walked: WalkedValidation): void };
	/** A comparison's walk by whoever uses this terminal, and what is said once it is left. */
	comparison(
		target: CompareTarget,
	): Promise<{ asked: ComparisonAsked; done(walked: WalkedComparison): void }>;
}

/** The home screen's walks: blind, in one seeded order, as `booook validate` and `booook compare` walk them by default. */
const HOME_SEED = 2024;

/**
 * The list of saved sessions, and the screen of the one opened, resumed, started, validated or
 * compared; leaving that screen shows the list again. Resolves the exit code: 0 when the user quits
 * the list, or the run's when a signal (SIGINT, SIGTERM) ended its screen.
 */
export async function navigate(services: AppServices, edge: NavigatorEdge): Promise<number> {
	const { sessionsDir: dir, env, streams } = services;
	const sessions = sessionsHome(services);
	const home: HomeAppOptions = {
		sessionsDir: dir,
		load: sessions.load,
		remove: sessions.remove,
		defaults: sessions.defaults,
		check: sessions.check,
		program: services.program,
		env,
		...streams,
	};

	/** A session's run screen, once it is made or opened, until the user leaves it; then the session is closed. */
	async function runScreen(
		run: () => SessionRun | Promise<SessionRun>,
		close: () => Promise<void>,
		autoStart?: boolean,
	): Promise<Ending> {
		try {
			const shown = await run();
			const ended = await renderSessionRun(shown, {
				autoStart,
				externalEditor: externalEditorFrom(env, streams.stdout),
				program: services.program,
				env,
				...streams,
				fromHome: true,
			});
			return ended.signalled ? { kind: 'signalled', code: edge.signalled(shown) } : { kind: 'left' };
		} finally {
			await close();
		}
	}

	async function opened(choice: RunChoice): Promise<Ending> {
		if (choice.kind === 'new') {
			const started = await sessions.start(choice.input);
			return await runScreen(() => started.run, started.close);
		}
		let answer: HomeChoice | undefined;
		const result = await sessions.open(choice.id, {
			// Asked on the list, before the run screen shows the run (r would start it at once).
			lostWork: async (warning) => {
				answer = await renderHomeApp({
					...home,
					question: { id: choice.id, warning: say(warning, services.program) },
				});
				return answer.kind === 'answer' && answer.yes;
			},
		});
		if (result.kind === 'refused') return { kind: 'refused', notice: edge.refusal(result.reason) };
		if (result.kind === 'declined') return { kind: 'declined', quit: answer?.kind === 'quit' };
		const { prepare, close } = result.opened;
		return await runScreen(() => prepare(), close, choice.kind === 'resume');
	}

	async function shown(place: Exclude<Place, { screen: 'end' }>): Promise<Ending> {
		switch (place.screen) {
			case 'home':
				return { kind: 'chosen', choice: await renderHomeApp({ ...home, notice: place.notice }) };
			case 'run':
				return await opened(place.choice);
			// The walks' screens load when first asked for: the list starts without them.
			case 'validate': {
				const { walkValidation } = await import('./screens/validate/App.tsx');
				const { asked, done } = edge.validation(place.id, { mode: 'blind', seed: HOME_SEED });
				done(await walkValidation(dir, asked, streams));
				return { kind: 'left' };
			}
			case 'compare': {
				const [{ sameBookSessions }, { walkComparison }] = await Promise.all([
					import('../app/compare.ts'),
					import('./screens/compare/App.tsx'),
				]);
				const sources = await sameBookSessions(dir, place.id);
				const { asked, done } = await edge.comparison({ sources, seed: HOME_SEED });
				done(await walkComparison(dir, asked, streams));
				return { kind: 'left' };
			}
		}
	}

	let place: Place = START;
	while (place.screen !== 'end') {
		try {
			place = next(await shown(place));
		} catch (error) {
			if (!(error instanceof UserError) || place.screen === 'home') throw error;
			place = next({ kind: 'failed', message: errorMessage(error, services.program) });
		}
	}
	return place.code;
}

/**
 * `booook run` and `booook resume` in a terminal: the session's run screen (its BooookScore and
 * validation walk over it) until the user leaves it. Resolves how the run stood when it closed.
 */
export async function navigateRun(
	services: Pick<AppServices, 'env' | 'streams' | 'program'>,
	run: SessionRun,
	opts: { step?: boolean; autoStart?: boolean },
): Promise<RunAppResult> {
	return await renderSessionRun(run, {
		stepping: opts.step,
		autoStart: opts.autoStart,
		// The editor `e` runs: the user's (VISUAL, EDITOR), or null for the in-app one.
		externalEditor: externalEditorFrom(services.env, services.streams.stdout),
		program: services.program,
		env: services.env,
		...services.streams,
	});
}

/**
 * `booook study`'s screen until the user quits: the study's cells, and a running cell's run screen
 * over them (enter; esc back). The runner starts at once; quitting cancels what is in flight and
 * waits for every session to be saved. Resolves how the study ended.
 */
export async function navigateStudy(
	services: AppServices,
	run: StudyRun,
	info: StudyInfo,
): Promise<StudyEnd> {
	const { runner } = run;
	const { renderStudyApp } = await import('./screens/study/App.tsx');
	await renderStudyApp({
		program: services.program,
		runner,
		info,
		start: () => runner.start(),
		results: () => run.results(),
		liveRun: (key) => {
			const live = run.live(key);
			if (!live) return null;
			const { engine, session, cell } = live;
			return {
				controls: engine,
				gate: engine.gate.state,
				info: {
					session: session.id,
					title: session.data.book.title,
					book: cell.book.loaded.text,
					provider: cell.provider,
					model: cell.model,
					isLLM: cell.provider !== 'extractive',
					priced: cell.priced,
				},
			};
		},
		env: services.env,
		...services.streams,
	});
	// The screen ends once the study has stopped and saved (or could not start: this says why).
	return await runner.start();
}
