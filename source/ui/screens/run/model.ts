import type { NodeRef } from '../../../domain.ts';
import { actionFor } from '../../keymap.ts';
import type { Action, KeyPress, Place } from '../../keys/binding.ts';
import { editorPress } from './editor-keys.ts';
import { helpScroll } from '../../state/help-keys.ts';
import { editorOf, textOf, type EditorState } from '../../state/editor.ts';
import { levelsOf, phaseOf, runningOf, stepsOf, type NodeView, type ViewState } from '../../state/view.ts';
import { next as booookCommand, said, type Said } from '../../../program.ts';
import { stay, type Step, type Update } from '../../model.ts';

/**
 * What the run screen shows besides the run itself (selection, pane, overlays), and what its keys
 * do: a pure update from (state, message) to the next state plus the effects to carry out on the
 * run, reading the run's view as it is when the message arrives. The component only executes effects.
 */

export type Pane = 'text' | 'inputs' | 'attempts' | 'evidence';
export const PANES: readonly Pane[] = ['text', 'inputs', 'attempts', 'evidence'];
export type Overlay = 'none' | 'help' | 'versions' | 'editor';

export interface RunState {
	overlay: Overlay;
	/** Follow the run: select what is running, else the last node (or step) made. */
	follow: boolean;
	selected: NodeRef | null;
	pane: Pane;
	/** Show the chunk the selected node reads instead of its text. */
	chunk: boolean;
	/** First line shown of the main pane, or null for automatic (the end while streaming). */
	scroll: number | null;
	versionCursor: number;
	helpScroll: number;
	/** One line of feedback after an action, until the next key (the screen says the commands it names). */
	message: Said | null;
	quitting: boolean;
	/** The sentence of the selected node whose evidence the evidence pane shows (clamped to its text). */
	sentence: number;
	/** The in-app editor's buffer while it is open; `original` tells an unchanged save from an edit. */
	editor: { node: NodeRef; buffer: EditorState; original: string } | null;
	/** The screen as last laid out: what paging, the editor's rows and the sentence choice count by. */
	layout: RunLayout;
}

export type RunEffect =
	| { kind: 'pause' }
	| { kind: 'resume' }
	| { kind: 'step' }
	| { kind: 'start' }
	| { kind: 'quit' }
	| { kind: 'edit'; node: NodeRef }
	| { kind: 'saveEdit'; node: NodeRef; text: string }
	| { kind: 'rerun'; node: NodeRef }
	| { kind: 'setActive'; node: NodeRef; version: number }
	| { kind: 'score' }
	| { kind: 'validate' }
	/** Esc with nothing left to close: leave the run screen (where it was opened from another, as a study's cell). */
	| { kind: 'back' };

export interface RunLayout {
	/** Rows of the main pane (a page). */
	page: number;
	/** The first line the main pane shows now (what `scroll: null` resolved to). */
	offset: number;
	/** Columns of the editor's rows (its cursor moves up and down by them). */
	width: number;
	/** Sentences of the selected node's text (the evidence pane's choice stays among them). */
	sentences: number;
}

/** What changes the run screen's state: a key, a message, the editor opening on a node's text, a new layout. */
export type RunMsg =
	| { type: 'press'; press: KeyPress }
	| { type: 'say'; message: string }
	| { type: 'editor'; node: NodeRef; text: string }
	| { type: 'layout'; layout: RunLayout };

export function init(): RunState {
	return {
		overlay: 'none',
		follow: true,
		selected: null,
		pane: 'text',
		chunk: false,
		scroll: null,
		versionCursor: 0,
		helpScroll: 0,
		message: null,
		quitting: false,
		editor: null,
		sentence: 0,
		layout: { page: 1, offset: 0, width: 80, sentences: 0 },
	};
}

export const update: Update<RunState, RunMsg, RunEffect, ViewState> = (state, msg, view) => {
	switch (msg.type) {
		case 'press':
			return runPress(state, msg.press, view);
		case 'say':
			return stay({ ...state, message: msg.message });
		case 'editor':
			return stay(openEditor(state, msg.node, msg.text));
		case 'layout':
			return stay({ ...state, layout: msg.layout });
	}
};

/** The node the screen is about: the user's choice, or what the run is doing when following. */
export function selectedNode(ui: RunState, view: ViewState): NodeView | null {
	if (!ui.follow && ui.selected) {
		const node = view.nodes[ui.selected];
		if (node && node.status !== 'superseded') return node;
	}
	return followTarget(view);
}

function followTarget(view: ViewState): NodeView | null {
	const steps = stepsOf(view);
	if (steps.length === 0) return null;
	if (view.root && view.nodes[view.root] && !view.active) return view.nodes[view.root]!;
	const running = runningOf(view);
	if (running.length > 0) return view.method === 'inc' ? running.at(-1)! : running[0]!;
	// Not the newest step: between steps (stepping, paused) it is planned but not run yet.
	const done = steps.filter((n) => n.status === 'done');
	return done.at(-1) ?? steps[0]!;
}

/** The screen whose keys apply now. */
export function screenOf(ui: RunState): Place {
	return ui.overlay === 'none' ? 'run' : ui.overlay;
}

/** One key press: typed into the editor while it is open, else the action it is bound to. */
function runPress(ui: RunState, press: KeyPress, view: ViewState): Step<RunState, RunEffect> {
	if (ui.overlay === 'editor' && ui.editor) {
		const { buffer, action } = editorPress(ui.editor.buffer, press, ui.layout.width);
		if (action === 'quit') return runKey(ui, 'quit', view);
		const editor = { ...ui.editor, buffer };
		if (action === 'cancel')
			return {
				state: { ...ui, overlay: 'none', editor: null, message: 'Edit cancelled: nothing saved.' },
				effects: [],
			};
		if (action === 'save') {
			const text = textOf(buffer);
			const closed: RunState = { ...ui, overlay: 'none', editor: null };
			if (text === editor.original)
				return { state: { ...closed, message: 'No change: nothing saved.' }, effects: [] };
			return {
				state: { ...closed, message: `Saving a new version of node ${editor.node}…` },
				effects: [{ kind: 'saveEdit', node: editor.node, text }],
			};
		}
		return { state: { ...ui, editor }, effects: [] };
	}
	const action = actionFor(screenOf(ui), press);
	return action ? runKey(ui, action, view) : stay(ui);
}

/** Opens the in-app editor on a node's text (the text is read from the run by the screen). */
function openEditor(ui: RunState, node: NodeRef, text: string): RunState {
	return {
		...ui,
		overlay: 'editor',
		follow: false,
		selected: node,
		editor: { node, buffer: editorOf(text), original: text },
	};
}

/** What an action (a key looked up in the keymap) does on the run screen. */
export function runKey(ui: RunState, action: Action, view: ViewState): Step<RunState, RunEffect> {
	const ctx = ui.layout;
	const next: RunState = { ...ui, message: null };
	const none = (u: RunState = next) => stay<RunState, RunEffect>(u);
	if (action === 'quit') return { state: { ...next, quitting: true }, effects: [{ kind: 'quit' }] };
	if (ui.overlay === 'help') {
		const scroll = helpScroll(ui.helpScroll, action, ctx.page);
		return none(scroll === null ? { ...next, overlay: 'none' } : { ...next, helpScroll: scroll });
	}
	if (ui.overlay === 'versions') return versionsKey(next, action, view);
	if (ui.overlay === 'editor') return none();
	const node = selectedNode(ui, view);
	const select = (target: NodeView | null | undefined): RunState =>
		target ? { ...next, follow: false, selected: target.id, scroll: null, sentence: 0 } : next;
	switch (action) {
		case 'help':
			return none({ ...next, overlay: 'help', helpScroll: 0 });
		case 'pause':
			// Space runs on from a pause and from stepping (as the help says), and pauses a running run.
			if (view.active)
				return { state: next, effects: [{ kind: view.gate === 'running' ? 'pause' : 'resume' }] };
			// A finished run whose nodes an edit left stale is not done: what is stale is left to run.
			if (phaseOf(view) === 'done')
				return none({ ...next, message: 'The run is done: r re-runs the selected node, e edits it.' });
			return { state: next, effects: startAll(view) };
		case 'step':
			if (view.active) return { state: next, effects: [{ kind: 'step' }] };
			if (phaseOf(view) === 'done') return none({ ...next, message: 'The run is done: nothing to step.' });
			return { state: next, effects: [{ kind: 'step' }, { kind: 'start' }] };
		case 'nextPane':
			return none({
				...next,
				pane: PANES[(PANES.indexOf(ui.pane) + 1) % PANES.length]!,
				scroll: 0,
				chunk: false,
			});
		case 'prevSentence':
		case 'nextSentence':
			if (ui.pane !== 'evidence')
				return none({ ...next, message: 'tab to the evidence pane first: [ and ] choose its sentence.' });
			return none({
				...next,
				sentence: Math.max(
					0,
					Math.min(ctx.sentences - 1, ui.sentence) + (action === 'prevSentence' ? -1 : 1),
				),
				scroll: 0,
			});
		case 'chunk':
			return none({ ...next, chunk: !ui.chunk, scroll: ui.chunk ? null : 0 });
		case 'follow':
			return none({ ...next, follow: true, selected: null, scroll: null });
		case 'back':
			if (ui.chunk) return none({ ...next, chunk: false, scroll: null });
			if (ui.pane !== 'text') return none({ ...next, pane: 'text', scroll: null });
			if (ui.follow && ui.selected === null && ui.scroll === null)
				return { state: next, effects: [{ kind: 'back' }] };
			return none({ ...next, follow: true, selected: null, scroll: null });
		case 'scrollUp':
			return none({ ...next, scroll: Math.max(0, ctx.offset - Math.max(1, ctx.page - 1)) });
		case 'scrollDown':
			return none({ ...next, scroll: ctx.offset + Math.max(1, ctx.page - 1) });
		case 'left':
		case 'right': {
			const delta = action === 'left' ? -1 : 1;
			if (view.method !== 'inc') return none(select(nodeBeside(view, node, delta)));
			const target = stepBeside(view, node, delta);
			// Stepping onto the step the run is at is following the run again.
			if (target && target.id === followTarget(view)?.id)
				return none({ ...next, follow: true, selected: null, scroll: null });
			return none(select(target));
		}
		case 'up':
		case 'down':
			if (view.method === 'inc')
				return none({ ...next, scroll: Math.max(0, ctx.offset + (action === 'up' ? -1 : 1)) });
			return none(select(levelBeside(view, node, action === 'up' ? -1 : 1)));
		case 'versions':
			if (!node || node.versions === 0) return none({ ...next, message: 'This node has no versions yet.' });
			return none({
				...next,
				overlay: 'versions',
				versionCursor: node.active ?? node.versions - 1,
				follow: false,
				selected: node.id,
			});
		case 'edit':
			if (!node || node.active === null)
				return none({ ...next, message: 'Nothing to edit yet: the node has no text.' });
			return {
				state: { ...next, follow: false, selected: node.id },
				effects: [{ kind: 'edit', node: node.id }],
			};
		case 'rerun': {
			const stale = stepsOf(view).some((n) => n.status === 'stale' || n.status === 'pending');
			if (stale) {
				if (view.active) return none({ ...next, message: 'Stale nodes are re-run as the run reaches them.' });
				return { state: next, effects: startAll(view) };
			}
			if (!node || node.active === null)
				return none({ ...next, message: 'Select a finished node to re-run.' });
			return {
				state: { ...next, follow: false, selected: node.id },
				effects: [{ kind: 'rerun', node: node.id }, ...(view.active ? [] : startAll(view))],
			};
		}
		case 'score':
			if (view.active || view.outcome !== 'done')
				return none({ ...next, message: 'BooookScore needs a finished run.' });
			return { state: next, effects: [{ kind: 'score' }] };
		case 'validate':
			if (view.active)
				return none({
					...next,
					message: said`Validation opens once the run has stopped: let it finish, or quit and run ${booookCommand('validate', 'ID')}.`,
				});
			return { state: next, effects: [{ kind: 'validate' }] };
		default:
			return none();
	}
}

/** Starts what is left with every call let through: a gate left holding (a run made with s) would hold it. */
function startAll(view: ViewState): RunEffect[] {
	return view.gate === 'running' ? [{ kind: 'start' }] : [{ kind: 'resume' }, { kind: 'start' }];
}

function versionsKey(ui: RunState, action: Action, view: ViewState): Step<RunState, RunEffect> {
	const node = ui.selected ? view.nodes[ui.selected] : undefined;
	const count = node?.versions ?? 0;
	switch (action) {
		case 'up':
			return { state: { ...ui, versionCursor: Math.max(0, ui.versionCursor - 1) }, effects: [] };
		case 'down':
			return {
				state: { ...ui, versionCursor: Math.min(Math.max(0, count - 1), ui.versionCursor + 1) },
				effects: [],
			};
		case 'open':
			if (!node || ui.versionCursor >= count) return { state: { ...ui, overlay: 'none' }, effects: [] };
			if (node.active === ui.versionCursor)
				return {
					state: { ...ui, overlay: 'none', message: `Version ${ui.versionCursor + 1} is already active.` },
					effects: [],
				};
			return {
				state: { ...ui, overlay: 'none' },
				effects: [{ kind: 'setActive', node: node.id, version: ui.versionCursor }],
			};
		case 'back':
			return { state: { ...ui, overlay: 'none' }, effects: [] };
		case 'help':
			return { state: { ...ui, overlay: 'help', helpScroll: 0 }, effects: [] };
		default:
			return { state: ui, effects: [] };
	}
}

function nodeBeside(view: ViewState, node: NodeView | null, delta: number): NodeView | null {
	if (!node) return stepsOf(view)[0] ?? null;
	const row = levelsOf(view).find((r) => r.nodes.some((n) => n.id === node.id));
	if (!row) return node;
	const at = row.nodes.findIndex((n) => n.id === node.id);
	return row.nodes[Math.min(row.nodes.length - 1, Math.max(0, at + delta))]!;
}

/** The next level's node that reads this one (down), or the first node this one reads (up). */
function levelBeside(view: ViewState, node: NodeView | null, delta: number): NodeView | null {
	const rows = levelsOf(view);
	if (!node) return rows[0]?.nodes[0] ?? null;
	const r = rows.findIndex((row) => row.nodes.some((n) => n.id === node.id));
	const target = rows[r + delta];
	if (r < 0 || !target) return node;
	const linked =
		delta > 0
			? target.nodes.find((n) => n.inputs.includes(node.id))
			: target.nodes.find((n) => node.inputs.includes(n.id));
	if (linked) return linked;
	const at = rows[r]!.nodes.findIndex((n) => n.id === node.id);
	const share = rows[r]!.nodes.length > 1 ? at / (rows[r]!.nodes.length - 1) : 0;
	return target.nodes[Math.round(share * (target.nodes.length - 1))]!;
}

function stepBeside(view: ViewState, node: NodeView | null, delta: number): NodeView | null {
	const steps = stepsOf(view);
	if (steps.length === 0) return null;
	const at = node ? steps.findIndex((n) => n.id === node.id) : steps.length - 1;
	return steps[Math.min(steps.length - 1, Math.max(0, at + delta))] ?? null;
}
