import { render, useApp } from 'ink';
import { useEffect, useEffectEvent, useState } from 'react';
import type { StudyCell, StudyListener, StudyState } from '../../../engine/study-runner.ts';
import { errorMessage } from '../../../errors.ts';
import type { StudyEnd } from '../../../app/study.ts';
import { inkFps, MAX_FPS } from '../../app.tsx';
import type { RunControls, RunInfo } from '../../controls.ts';
import { useModel, useTerminalSize } from '../../hooks.ts';
import { useKeys } from '../../keys/KeysProvider.tsx';
import { Root, untilExit } from '../../root.tsx';
import { RunScreen } from '../run/Screen.tsx';
import { StudyScreen, type StudyInfo, type StudyResults } from './Screen.tsx';
import { ViewFeed } from '../../state/view-feed.ts';
import { init, update, type StudyEffect, type StudyMsg } from './model.ts';
import { initialView } from '../../state/view.ts';
import { inkStreams } from '../../terminal.ts';
import { themeFor } from '../../theme.ts';
import { useProgram } from '../../program-context.ts';

/** What the study screen may ask of a study (the StudyRunner satisfies it; the command adds the rest). */
export interface StudyAppOptions {
	runner: {
		readonly state: StudyState;
		readonly cells: readonly StudyCell[];
		on(listener: StudyListener): () => void;
		cancel(): void;
	};
	info: StudyInfo;
	/** Starts the study, or returns the promise of the start in progress. */
	start: () => Promise<StudyEnd>;
	/** The results table (cells of text, header first) and the lines under it, read once the study is over. */
	results: () => Promise<StudyResults>;
	/** A running cell's run, for the run screen, and whether its calls are held; null once it is not running. */
	liveRun: (key: string) => LiveRun | null;
	fps?: number;
}

export interface LiveRun {
	controls: RunControls;
	info: RunInfo;
	gate: 'running' | 'paused' | 'stepping';
}

interface Watched {
	key: string;
	controls: RunControls;
	info: RunInfo;
	feed: ViewFeed;
	off: () => void;
}

/**
 * The runner's state as last published: every event is seen at once, but the screen is drawn at
 * most `fps` times a second (a study of fast cells changes far more often than a terminal redraws).
 */
function useStudyState(runner: StudyAppOptions['runner'], fps: number): StudyState {
	const [state, setState] = useState(() => runner.state);
	useEffect(() => {
		let timer: ReturnType<typeof setTimeout> | null = null;
		let last = Number.NEGATIVE_INFINITY;
		const publish = () => {
			timer = null;
			last = Date.now();
			setState(runner.state);
		};
		const off = runner.on(() => {
			if (timer) return;
			const wait = last + 1000 / fps - Date.now();
			if (wait <= 0) publish();
			else timer = setTimeout(publish, wait);
		});
		publish();
		return () => {
			off();
			if (timer) clearTimeout(timer);
		};
	}, [runner, fps]);
	return state;
}

/** A run screen's view of a cell whose run started before the screen opened. */
function watch(key: string, live: LiveRun, cell: StudyState['cells'][number], fps: number): Watched {
	const { controls, info, gate } = live;
	const feed = new ViewFeed(initialView(controls.run, { stepping: gate === 'stepping' }), {
		fps,
		run: () => controls.run,
	});
	// The run started before this view: it joins it as if it had seen the start, with what the cell has made so far.
	feed.dispatch({
		type: 'run-started',
		session: info.session,
		method: controls.run.config.method,
		provider: info.provider,
		model: info.model,
		isLLM: info.isLLM,
		planned: Math.max(cell.expected, cell.calls),
		// The levels' sizes come with the run's next plan.
		levels: [],
		done: cell.calls,
	});
	if (gate === 'paused') feed.dispatch({ type: 'run-paused' });
	const off = controls.on(feed.dispatch);
	return { key, controls, info, feed, off };
}

/** The study screen, and a running cell's run screen over it (enter, esc back), until the user quits. */
export function StudyApp({ options, onExit }: { options: StudyAppOptions; onExit: () => void }) {
	const { runner } = options;
	const fps = options.fps ?? MAX_FPS;
	const state = useStudyState(runner, fps);
	const program = useProgram();
	const { columns, rows } = useTerminalSize();
	const [results, setResults] = useState<StudyResults | null>(null);
	const [watched, setWatched] = useState<Watched | null>(null);
	const [ui, dispatch] = useModel(
		{ init, update },
		() => ({ cells: state.cells, page: Math.max(1, rows - 8) }),
		(effect: StudyEffect, dispatch: (msg: StudyMsg) => void) => {
			if (effect.kind === 'quit') {
				runner.cancel();
				void options.start().then(onExit, onExit);
				return;
			}
			const index = runner.cells.findIndex((c) => c.key === effect.key);
			const live = options.liveRun(effect.key);
			if (!live || index < 0) {
				dispatch({ type: 'back' });
				dispatch({ type: 'say', message: `${effect.key} is not running any more.` });
				return;
			}
			setWatched(watch(effect.key, live, runner.state.cells[index]!, fps));
		},
	);
	useKeys((press) => dispatch({ type: 'press', press }), { active: ui.watching === null });
	const over = state.status === 'done' || state.status === 'failed' || state.status === 'cancelled';
	const readResults = useEffectEvent(() => options.results());
	useEffect(() => {
		if (!over) return;
		let gone = false;
		readResults().then(
			(read) => !gone && setResults(read),
			(error: unknown) =>
				!gone &&
				setResults({ table: [], notes: [`The results cannot be read: ${errorMessage(error, program)}`] }),
		);
		return () => {
			gone = true;
		};
	}, [over, program]);
	// The watched view lets go of the engine when it closes.
	useEffect(() => {
		if (!watched) return;
		return () => {
			watched.off();
			watched.feed.dispose();
		};
	}, [watched]);
	const back = () => {
		setWatched(null);
		dispatch({ type: 'back' });
	};
	// A cell's run that ends closes its session: its run screen goes with it, so nothing is asked of a closed session.
	useEffect(() => {
		if (!watched) return;
		let open = true;
		const closeIfEnded = () => {
			const cell = runner.state.cells.find((c) => c.key === watched.key);
			if (!open || !cell || cell.status === 'running') return;
			open = false;
			setWatched(null);
			dispatch({ type: 'back' });
			dispatch({
				type: 'say',
				message: `The run of ${cell.key} ended (${cell.status}); its session is ${cell.session}.`,
			});
		};
		const off = runner.on(closeIfEnded);
		// It may have ended between the watch and this subscription.
		queueMicrotask(closeIfEnded);
		return () => {
			open = false;
			off();
		};
	}, [runner, watched, dispatch]);
	const quit = () => dispatch({ type: 'press', press: { input: 'q' } });
	if (watched && ui.watching === watched.key && !ui.quitting) {
		return (
			<RunScreen
				key={watched.key}
				controls={watched.controls}
				feed={watched.feed}
				info={watched.info}
				start={() => {}}
				quit={quit}
				onBack={back}
			/>
		);
	}
	return (
		<StudyScreen
			state={state}
			cells={runner.cells}
			info={options.info}
			ui={ui}
			results={results}
			width={columns}
			rows={rows}
		/>
	);
}

export interface RenderStudyOptions extends StudyAppOptions {
	/** How booook was started, for the command lines the screens show. */
	program: string;
	env?: NodeJS.ProcessEnv;
	stdout?: NodeJS.WriteStream;
	stdin?: NodeJS.ReadStream;
	stderr?: NodeJS.WriteStream;
}

/**
 * The study screen in the terminal until the user quits; the study starts at once. SIGINT and
 * SIGTERM quit as `q` does (every session is saved either way).
 */
export async function renderStudyApp(options: RenderStudyOptions): Promise<void> {
	const { env, stdout, stdin, stderr } = options;
	function App() {
		const { exit } = useApp();
		return <StudyApp options={options} onExit={() => exit()} />;
	}
	const instance = render(
		<Root theme={themeFor(env)} program={options.program}>
			<App />
		</Root>,
		{
			...inkStreams({ stdout, stdin, stderr }),
			exitOnCtrlC: false,
			patchConsole: false,
			maxFps: inkFps(options.fps ?? MAX_FPS),
		},
	);
	const started = options.start();
	const end = () => instance.unmount();
	// A study that cannot start (its record is held by another process) ends the screen; the caller hears why.
	started.then(() => {}, end);
	const onSignal = () => {
		options.runner.cancel();
		void started.then(end, end);
	};
	await untilExit(instance, onSignal);
}
