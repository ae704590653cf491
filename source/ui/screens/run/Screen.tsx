import { counted } from '../../../format/count.ts';
import { Box, Text } from 'ink';
import { useEffect, useEffectEvent, useLayoutEffect, useState } from 'react';
import type { NodeRef } from '../../../domain.ts';
import { errorMessage } from '../../../errors.ts';
import { activeVersion, findNode } from '../../../summarize/graph.ts';
import { Editor } from '../../components/Editor.tsx';
import { Finals } from '../../components/Final.tsx';
import { Footer } from '../../components/Footer.tsx';
import { Header } from '../../components/Header.tsx';
import { Help } from '../../components/Help.tsx';
import { Lines, type Line } from '../../components/Lines.tsx';
import { Timeline } from '../../components/Timeline.tsx';
import { Tree, treeRows } from '../../components/Tree.tsx';
import { Versions } from '../../components/Versions.tsx';
import type { RunControls, RunInfo } from '../../controls.ts';
import { useModel, useTerminalSize, useView } from '../../hooks.ts';
import { useKeys } from '../../keys/KeysProvider.tsx';
import type { Action } from '../../keys/binding.ts';
import { attemptLines, chunkLines, evidenceLines, inputLines, nodeSummary, textLines } from './panes.ts';
import { evidenceOfNode } from '../../state/evidence-view.ts';
import {
	init,
	PANES,
	screenOf,
	selectedNode,
	update,
	type RunEffect,
	type RunMsg,
	type RunState,
} from './model.ts';
import type { ViewFeed } from '../../state/view-feed.ts';
import { phaseOf, runningOf, type NodeView, type ViewState } from '../../state/view.ts';
import { clean, cutLines, windowOf, wrap } from '../../../format/text.ts';
import { MARKS, useTheme } from '../../theme.ts';
import { say } from '../../../program.ts';
import { useProgram } from '../../program-context.ts';

/**
 * Edits a text outside the app (in the user's editor): the new text, or null when it was left
 * unchanged; `command` names the editor on the screen while it runs.
 */
export type ExternalEditor = ((text: string) => string | null) & { command?: string };

export interface RunScreenProps {
	controls: RunControls;
	feed: ViewFeed;
	info: RunInfo;
	/** Starts (or continues) the run; the caller keeps the promise, to wait for it on quit. */
	start: () => void;
	/** Cancels calls in flight and ends the app once the session is saved. */
	quit: () => void;
	externalEditor?: ExternalEditor | null;
	/** Called with the final summary's node when `b` is pressed on a finished run. */
	onScore?: (root: NodeRef) => void;
	/** Opens the validation walk over this session's annotations (V). */
	onValidate?: () => void;
	/** Esc with nothing left to close: back to the screen this one was opened from. */
	onBack?: () => void;
}

const HEADER_ROWS = 2;
// A message line and the keys; one row is left free so the frame never fills the terminal (Ink
// would then clear the whole screen on every frame).
const FOOTER_ROWS = 3;
/** Rows a long message (an error) may wrap onto, taken from the body, before it is cut. */
const STATUS_ROWS = 4;

export function RunScreen({
	controls,
	feed,
	info,
	start,
	quit,
	externalEditor,
	onScore,
	onValidate,
	onBack,
}: RunScreenProps) {
	const view = useView(feed);
	const program = useProgram();
	const { columns: width, rows } = useTerminalSize();
	const [external, setExternal] = useState<{ node: NodeRef; text: string } | null>(null);

	const say = (dispatch: (msg: RunMsg) => void) => (message: string) => dispatch({ type: 'say', message });
	const stale = (n: number, then = '') => (n ? `; ${counted(n, 'node')} went stale${then}` : '');
	const saveEdit = (id: NodeRef, text: string, tell: (message: string) => void) => {
		controls
			.edit(id, text)
			.then((went) => tell(`Saved as a new version of node ${id}${stale(went.length, ': r re-runs them')}.`))
			.catch((error: unknown) => tell(clean(errorMessage(error, program))));
	};
	const perform = async (effect: RunEffect, dispatch: (msg: RunMsg) => void) => {
		const tell = say(dispatch);
		switch (effect.kind) {
			case 'pause':
				return controls.pause();
			case 'resume':
				return controls.resume();
			case 'step':
				return controls.step();
			case 'start':
				return start();
			case 'quit':
				return quit();
			case 'back':
				return onBack?.();
			case 'score':
				if (onScore && feed.current.root) onScore(feed.current.root);
				else tell('BooookScore is not available here yet.');
				return;
			case 'validate':
				if (onValidate) onValidate();
				else tell('Validation is not available here.');
				return;
			case 'edit': {
				const full = findNode(controls.run, effect.node);
				const text = full ? activeVersion(full)?.text : undefined;
				if (text === undefined) return;
				if (externalEditor) setExternal({ node: effect.node, text });
				else dispatch({ type: 'editor', node: effect.node, text: clean(text) });
				return;
			}
			case 'saveEdit':
				return saveEdit(effect.node, effect.text, tell);
			case 'rerun': {
				const went = await controls.rerun(effect.node);
				return tell(
					`${effect.node} will be made again from the same inputs${went.length ? `; ${counted(went.length, 'node')} after it went stale` : ''}.`,
				);
			}
			case 'setActive': {
				const went = await controls.setActive(effect.node, effect.version);
				return tell(
					`Version ${effect.version + 1} of node ${effect.node} is active${stale(went.length, ': r re-runs them')}.`,
				);
			}
		}
	};
	const [ui, dispatch] = useModel(
		{ init, update },
		() => feed.current,
		(effect: RunEffect, dispatch: (msg: RunMsg) => void) => {
			perform(effect, dispatch).catch((error: unknown) => say(dispatch)(clean(errorMessage(error, program))));
		},
	);

	const node = selectedNode(ui, view);
	const status = statusOf(view, ui, program);
	const statusRows = cutLines(wrap(status.text, width), STATUS_ROWS, width).map((text) => ({
		...status,
		text,
	}));
	const bodyRows = Math.max(4, rows - HEADER_ROWS - FOOTER_ROWS - (statusRows.length - 1));
	const layout = bodyLayout(view, ui, node, width, bodyRows);
	const pane = paneLines(controls, view, ui, node, info, width);
	const shown = windowOf(pane.lines, layout.text, ui.scroll ?? (pane.live ? null : 0));
	// The keys page, move the editor's cursor and choose sentences by what this frame shows.
	const page = layout.text;
	const offset = shown.offset;
	const sentences = pane.sentences;
	useLayoutEffect(() => {
		dispatch({ type: 'layout', layout: { page, offset, width, sentences } });
	}, [dispatch, page, offset, width, sentences]);

	useKeys((press) => dispatch({ type: 'press', press }), { active: external === null && !ui.quitting });

	// $EDITOR owns the terminal until it exits: Ink's input is released (the hook above is
	// inactive), nothing is drawn (the feed is frozen), and the editor runs synchronously so this
	// process reads nothing from the terminal meanwhile.
	const editOutside = useEffectEvent((edit: { node: NodeRef; text: string }, editor: ExternalEditor) => {
		const tell = say(dispatch);
		feed.freeze(true);
		let edited: string | null = null;
		let failure: string | null = null;
		try {
			edited = editor(edit.text);
		} catch (error) {
			failure = errorMessage(error, program);
		} finally {
			feed.freeze(false);
		}
		setExternal(null);
		if (failure) tell(clean(`The editor failed: ${failure}`));
		else if (edited === null || edited === edit.text) tell('No change: nothing saved.');
		else saveEdit(edit.node, edited, tell);
	});
	useEffect(() => {
		if (!external || !externalEditor) return;
		const timer = setTimeout(() => editOutside(external, externalEditor), 0);
		return () => clearTimeout(timer);
	}, [external, externalEditor]);

	if (ui.quitting) return <Text>Stopping: cancelling calls in flight and saving the session…</Text>;
	if (external)
		return (
			<Text>
				{clean(
					`Editing ${external.node} in ${externalEditor?.command ?? 'the editor'}; save and close it to come back.`,
				)}
			</Text>
		);

	const screen = screenOf(ui);
	return (
		<>
			<Finals feed={feed} finals={view.finals} run={controls.run} info={info} />
			<Box flexDirection="column" width={width}>
				<Header info={info} view={view} width={width} />
				{ui.overlay === 'help' ? (
					<Help screen="run" width={width} height={bodyRows} scroll={ui.helpScroll} />
				) : ui.overlay === 'versions' && node ? (
					<Versions
						run={controls.run}
						node={node}
						cursor={ui.versionCursor}
						width={width}
						height={bodyRows}
					/>
				) : ui.overlay === 'editor' && ui.editor ? (
					<Editor
						title={`Editing ${ui.editor.node}`}
						state={ui.editor.buffer}
						width={width}
						height={bodyRows}
					/>
				) : (
					<Body
						view={view}
						ui={ui}
						node={node}
						layout={layout}
						lines={shown.lines}
						controls={controls}
						width={width}
						scroll={{ offset: shown.offset, total: shown.total }}
						counts={pane.counts}
						priced={info.priced}
					/>
				)}
				<Lines lines={statusRows} />
				<Footer screen={screen} hide={footerHidden(view, onScore !== undefined)} />
			</Box>
		</>
	);
}

interface Layout {
	tree: number;
	/** One line per node streaming (hierarchical runs make several calls at once). */
	streams: number;
	text: number;
}

/** Rows of each part of the body: the tree (or timeline), two lines about the node, tabs, text. */
function bodyLayout(
	view: ViewState,
	ui: RunState,
	node: NodeView | null,
	width: number,
	rows: number,
): Layout {
	const fixed = 3; // node summary (2) + tabs line
	if (view.method === 'inc') return { tree: 1, streams: 0, text: Math.max(1, rows - 1 - fixed) };
	const wanted = treeRows(
		view,
		ui.follow ? (node?.id ?? null) : ui.selected,
		width,
		Math.max(1, Math.floor(rows / 3)),
	).length;
	const tree = Math.max(1, wanted);
	const streams = Math.min(runningOf(view).length, Math.max(0, Math.floor(rows / 6)));
	return { tree, streams, text: Math.max(1, rows - tree - streams - fixed) };
}

function paneLines(
	controls: RunControls,
	view: ViewState,
	ui: RunState,
	node: NodeView | null,
	{ book, priced }: RunInfo,
	width: number,
): { lines: Line[]; live: boolean; counts: { added: number; dropped: number } | null; sentences: number } {
	const none = { live: false, counts: null, sentences: 0 };
	if (!node)
		return {
			...none,
			lines: [
				{ text: view.active ? 'planning…' : 'Nothing has run yet: space starts the run.', tone: 'muted' },
			],
		};
	const run = controls.run;
	if (ui.chunk) return { ...none, lines: chunkLines(run, node, book, width) };
	if (ui.pane === 'evidence') {
		// Traced and ranked offline, kept until the node's text changes (state/evidence-view.ts).
		const evidence = node.status === 'running' ? null : evidenceOfNode(run, book, node.id);
		return {
			...none,
			lines: evidenceLines(evidence, ui.sentence, book, width, run.chunks.length).lines,
			sentences: evidence?.length ?? 0,
		};
	}
	if (ui.pane === 'inputs') return { ...none, lines: inputLines(run, node, book, width) };
	if (ui.pane === 'attempts') return { ...none, lines: attemptLines(run, node, width, priced) };
	return { ...textLines(run, view, node, width, { diff: view.method === 'inc' }), sentences: 0 };
}

function Body({
	view,
	ui,
	node,
	layout,
	lines,
	controls,
	width,
	scroll,
	counts,
	priced,
}: {
	priced: boolean;
	view: ViewState;
	ui: RunState;
	node: NodeView | null;
	layout: Layout;
	lines: Line[];
	controls: RunControls;
	width: number;
	scroll: { offset: number; total: number };
	counts: { added: number; dropped: number } | null;
}) {
	const theme = useTheme();
	const [first, second] = node
		? nodeSummary(controls.run, view, node, priced, width)
		: [{ text: '' }, { text: '' }];
	const extra = counts ? ` · +${counts.added} −${counts.dropped} sentences` : '';
	const more =
		scroll.total > layout.text
			? ` · lines ${scroll.offset + 1}–${Math.min(scroll.total, scroll.offset + layout.text)} of ${scroll.total}`
			: '';
	return (
		<Box flexDirection="column">
			{view.method === 'inc' ? (
				<Timeline view={view} current={node?.id ?? null} width={width} />
			) : (
				<Tree view={view} selected={node?.id ?? null} width={width} height={layout.tree} />
			)}
			{layout.streams > 0 ? <Lines lines={streamLines(view, layout.streams, width)} /> : null}
			<Lines lines={[{ ...first, text: first.text + extra }, second]} />
			<Text wrap="truncate-end">
				{ui.chunk ? (
					<Text bold color={theme.color('accent')}>
						chunk text (c hides it)
					</Text>
				) : (
					PANES.map((p) => <Text key={p} bold={p === ui.pane} inverse={p === ui.pane}>{` ${p} `}</Text>)
				)}
				<Text dimColor>{`${ui.follow ? ' · following the run' : ' · f follows the run'}${more}`}</Text>
			</Text>
			<Box height={layout.text} flexDirection="column" overflow="hidden">
				<Lines lines={lines} />
			</Box>
		</Box>
	);
}

/** The end of what each running node has written so far, one line each. */
function streamLines(view: ViewState, count: number, width: number): Line[] {
	return runningOf(view)
		.slice(0, count)
		.map((n) => {
			const room = Math.max(8, width - n.id.length - 4);
			// Only the end is shown, so only the end is cleaned.
			const text = clean((view.live[n.id]?.text ?? '').slice(-2 * room))
				.replace(/\s+/gu, ' ')
				.trim();
			return {
				text: `${MARKS.running} ${n.id} ${text.length > room ? `…${text.slice(text.length - room + 1)}` : text || 'waiting for the model…'}`,
				tone: 'muted' as const,
			};
		});
}

/** The line under the body: a message, how the run stands, or its latest warning or error (wrapped, not cut). */
function statusOf(view: ViewState, ui: RunState, program: string): Line {
	const last = view.log.at(-1);
	if (ui.message) return { text: clean(say(ui.message, program)), tone: 'accent' };
	if (phaseOf(view) === 'idle')
		return { text: 'Not running: space runs what is left, s makes one call at a time.', tone: 'accent' };
	// A session opened finished printed nothing: its final summary is only the root's text.
	const where = view.finals.length > 0 ? 'printed above' : `the text of node ${view.root}`;
	if (phaseOf(view) === 'done')
		return {
			text: `The run is done: the final summary is ${where}. e edits a node, r re-runs it, q quits.`,
			tone: 'ok',
		};
	if (last) return { text: clean(last.text), tone: last.level === 'error' ? 'error' : 'warn' };
	return { text: '' };
}

function footerHidden(view: ViewState, scoring: boolean): Action[] {
	const hidden: Action[] = [];
	if (!scoring || phaseOf(view) !== 'done') hidden.push('score');
	return hidden;
}
