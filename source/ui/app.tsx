import { Box, render, Text, useApp } from 'ink';
import { useState } from 'react';
import type { NodeRef, RunStatus } from '../domain.ts';
import { errorMessage } from '../errors.ts';
import type { RunControls, RunInfo, ScoreControls } from './controls.ts';
import { ScoreScreen } from './screens/score/Screen.tsx';
import { ScorerScreen } from './screens/scorer/Screen.tsx';
import type { ScorerChoice, ScorerQuestion } from '../app/score-model.ts';
import { ValidateScreen } from './screens/validate/Screen.tsx';
import type { ValidationWalk } from '../app/validation-walk.ts';
import type { SessionRun } from '../app/run.ts';
import { HomeScreen, type HomeChoice, type HomeScreenProps } from './screens/home/Screen.tsx';
import { RunScreen, type ExternalEditor } from './screens/run/Screen.tsx';
import { ViewFeed } from './state/view-feed.ts';
import { initialView } from './state/view.ts';
import { useKeys } from './keys/KeysProvider.tsx';
import { backOverEmptyFrame, Root, untilExit, useLeave } from './root.tsx';
import { themeFor } from './theme.ts';
import { clean } from '../format/text.ts';
import { inkStreams } from './terminal.ts';

/** Redraws per second: enough to read text as it streams, cheap for the CPU (bench/render checks it). */
export const MAX_FPS = 10;

/**
 * Ink's own frame cap for an app whose updates are paced at `fps` (the view feed's, the study
 * state's): twice that, so Ink never holds back a frame that was already paced. Two caps of one
 * interval in a row beat against each other and draw about half the frames asked for.
 */
export const inkFps = (fps: number): number => 2 * fps;

export interface RunAppOptions {
	controls: RunControls;
	/** How booook was started, for the command lines the screens show. */
	program: string;
	info: RunInfo;
	/** Start by holding calls until `s` (`--step`). */
	stepping?: boolean;
	/** Start the run at once (default); otherwise wait for space or s. */
	autoStart?: boolean;
	externalEditor?: ExternalEditor | null;
	/**
	 * Sets up BooookScore of the final summary (`b` on a finished run), by `model` when one was
	 * chosen; rejects with a message to show.
	 */
	score?: (root: NodeRef, model?: ScorerChoice) => Promise<ScoreControls>;
	/** What `b` asks first when the run has no model of its own to score with; null: nothing. */
	scorer?: () => ScorerQuestion | null;
	/** The validation walk over the session's annotations (V). */
	validate?: () => { walk: ValidationWalk; title: string };
	env?: NodeJS.ProcessEnv;
	stdout?: NodeJS.WriteStream;
	stdin?: NodeJS.ReadStream;
	stderr?: NodeJS.WriteStream;
	fps?: number;
	/**
	 * Opened from the home screen, which comes back afterwards: esc with nothing left to close
	 * leaves as q does, and the live area is cleared on the way out.
	 */
	fromHome?: boolean;
}

export interface RunAppResult {
	/** How the last start of the run ended, or null if it never started. */
	status: RunStatus | null;
	/** The user quit (q, Ctrl-C or a signal) rather than the app ending otherwise. */
	quit: boolean;
	/** SIGINT or SIGTERM ended the app: the process is asked to stop, not just the screen. */
	signalled: boolean;
	error: string | null;
}

/**
 * Keeps the one `start()` in progress and ends the app on quit once the engine has cancelled its
 * calls and saved: the screens ask it to start or quit, never the engine directly.
 */
export class RunDriver {
	#running: Promise<RunStatus> | null = null;
	status: RunStatus | null = null;
	error: string | null = null;
	quitting = false;

	constructor(
		private readonly controls: RunControls,
		/** How booook was started, for the commands a failure names. */
		private readonly program: string,
	) {}

	start(): void {
		if (this.#running || this.quitting) return;
		this.#running = this.controls
			.start()
			.then((status) => (this.status = status))
			.catch((error: unknown) => {
				this.error = errorMessage(error, this.program);
				this.status = 'failed';
				return 'failed' as const;
			})
			.finally(() => {
				this.#running = null;
			});
	}

	/** Cancels what is in flight and resolves once the run has stopped and saved. */
	async quit(): Promise<void> {
		this.quitting = true;
		const running = this.#running;
		if (!running) return;
		this.controls.cancel();
		await running;
	}
}

function RunApp({ options, feed, driver }: { options: RunAppOptions; feed: ViewFeed; driver: RunDriver }) {
	const { exit } = useApp();
	const { left, leave } = useLeave();
	const [scoring, setScoring] = useState<ScoreControls | { error: string } | null>(null);
	const [validation, setValidation] = useState<{ walk: ValidationWalk; title: string } | null>(null);
	const onValidate = options.validate ? () => setValidation(options.validate!()) : undefined;
	const quit = () => {
		if (scoring && 'cancel' in scoring) scoring.cancel();
		// Back to the home screen, which is drawn where this one was: this one is erased first.
		void driver.quit().then(() => (options.fromHome ? leave() : exit()));
	};
	const [asking, setAsking] = useState<{ root: NodeRef; question: ScorerQuestion } | null>(null);
	const [chosen, setChosen] = useState<ScorerChoice | null>(null);
	const score = options.score;
	const show = (controls: ScoreControls) => {
		setAsking(null);
		setScoring(controls);
		// A failure that is not a call's (a call log it cannot read) is shown as one set up is.
		controls.start().catch((error: unknown) => setScoring({ error: errorMessage(error, options.program) }));
	};
	const onScore = score
		? (root: NodeRef) => {
				const question = options.scorer?.() ?? null;
				if (question) return setAsking({ root, question });
				score(root).then(show, (error: unknown) =>
					setScoring({ error: errorMessage(error, options.program) }),
				);
			}
		: undefined;
	if (left) return null;
	if (validation)
		return (
			<ValidateScreen
				walk={validation.walk}
				title={validation.title}
				onBack={() => setValidation(null)}
				onQuit={quit}
			/>
		);
	// Refused, the question stays open with the reason under its fields, to be mended there.
	if (asking && score)
		return (
			<ScorerScreen
				question={asking.question}
				last={chosen}
				start={(choice) =>
					score(asking.root, choice).then((controls) => {
						setChosen(choice);
						show(controls);
					})
				}
				onBack={() => setAsking(null)}
				onQuit={quit}
			/>
		);
	if (scoring && 'error' in scoring) return <Notice text={scoring.error} onDone={() => setScoring(null)} />;
	if (scoring)
		return (
			<ScoreScreen controls={scoring} onBack={() => setScoring(null)} onQuit={quit} onValidate={onValidate} />
		);
	return (
		<RunScreen
			controls={options.controls}
			feed={feed}
			info={options.info}
			start={() => driver.start()}
			quit={quit}
			externalEditor={options.externalEditor}
			onScore={onScore}
			onValidate={onValidate}
			onBack={options.fromHome ? quit : undefined}
		/>
	);
}

/** A message (such as why BooookScore cannot start) until any key. */
function Notice({ text, onDone }: { text: string; onDone: () => void }) {
	useKeys(() => onDone());
	return (
		<Box flexDirection="column" borderStyle="round" paddingX={1}>
			<Text wrap="wrap">{clean(text)}</Text>
			<Text dimColor>any key: back to the run</Text>
		</Box>
	);
}

/**
 * The run screen in the terminal until the user quits. SIGINT and SIGTERM quit as `q` does (the
 * session is saved either way). Resolves how the run stood when the app ended.
 */
export async function renderRunApp(options: RunAppOptions): Promise<RunAppResult> {
	const { controls } = options;
	const feed = new ViewFeed(initialView(controls.run, { stepping: options.stepping }), {
		fps: options.fps ?? MAX_FPS,
		run: () => controls.run,
	});
	const unsubscribe = controls.on(feed.dispatch);
	const driver = new RunDriver(controls, options.program);
	const theme = themeFor(options.env);
	const instance = render(
		<Root theme={theme} program={options.program}>
			<RunApp options={options} feed={feed} driver={driver} />
		</Root>,
		{
			...inkStreams(options),
			exitOnCtrlC: false,
			patchConsole: false,
			maxFps: inkFps(options.fps ?? MAX_FPS),
		},
	);
	let signalled = false;
	const onSignal = () => {
		signalled = true;
		void driver.quit().then(() => instance.unmount());
	};
	try {
		if (options.autoStart !== false) driver.start();
		await untilExit(instance, onSignal);
		// The home screen is drawn next, where the run's live area was (erased on leaving); what <Static> printed stays.
		if (options.fromHome && !signalled) backOverEmptyFrame(options.stdout);
	} finally {
		unsubscribe();
		feed.dispose();
	}
	return {
		status: driver.status ?? controls.run.status,
		quit: driver.quitting || signalled,
		signalled,
		error: driver.error,
	};
}

/** What the terminal sets for a session's run screen: the rest comes from the run. */
export type SessionRunAppOptions = Omit<RunAppOptions, 'controls' | 'info' | 'score' | 'scorer' | 'validate'>;

/**
 * A session's run as app/ started or opened it (`SessionRun`), on the run screen: its engine, its
 * BooookScore (`b`) and its validation walk (V), until the user leaves it.
 */
export async function renderSessionRun(
	run: SessionRun,
	options: SessionRunAppOptions,
): Promise<RunAppResult> {
	const { session, prepared } = run;
	const { provider } = prepared;
	const [{ liveScoring }, walk] = await Promise.all([import('./live-scoring.ts'), run.validation()]);
	return await renderRunApp({
		...options,
		controls: run.engine({ step: options.stepping }),
		info: {
			session: session.id,
			title: session.data.book.title,
			book: prepared.ctx.book,
			provider: provider.name,
			model: provider.model,
			isLLM: provider.isLLM,
			priced: prepared.priced,
		},
		validate: () => ({ walk: walk(), title: session.data.book.title }),
		score: async (_root, model) => liveScoring(session, await run.scoring(model), options.program),
		scorer: () => run.scorerQuestion(),
	});
}

export interface HomeAppOptions extends Omit<HomeScreenProps, 'onChoose'> {
	/** How booook was started, for the command lines the screens show. */
	program: string;
	env?: NodeJS.ProcessEnv;
	stdout?: NodeJS.WriteStream;
	stdin?: NodeJS.ReadStream;
	stderr?: NodeJS.WriteStream;
}

/** The home screen until the user picks a session, fills the new-run form or quits. */
export async function renderHomeApp(options: HomeAppOptions): Promise<HomeChoice> {
	let choice: HomeChoice = { kind: 'quit' };
	const { env, stdout, stdin, stderr, program, ...props } = options;
	function HomeApp() {
		const { exit } = useApp();
		const { left, leave } = useLeave();
		if (left) return null;
		return (
			<HomeScreen
				{...props}
				onChoose={(c) => {
					choice = c;
					// Quitting leaves the list on the terminal; any other choice draws its screen where the list was.
					if (c.kind === 'quit') exit();
					else leave();
				}}
			/>
		);
	}
	const instance = render(
		<Root theme={themeFor(env)} program={program}>
			<HomeApp />
		</Root>,
		{ ...inkStreams({ stdout, stdin, stderr }), exitOnCtrlC: false, patchConsole: false, maxFps: MAX_FPS },
	);
	await untilExit(instance, () => instance.unmount());
	if (choice.kind !== 'quit') backOverEmptyFrame(stdout);
	return choice;
}

export type { HomeChoice, HomeQuestion } from './screens/home/Screen.tsx';
export type { NewRunInput, FormDefaults } from './screens/home/form.ts';
