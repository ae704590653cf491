import { useStdout } from 'ink';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useKeys } from './keys/KeysProvider.tsx';
import { actionFor } from './keymap.ts';
import type { Place } from './keys/binding.ts';
import type { KeyMsg, Model } from './model.ts';
import type { ViewFeed } from './state/view-feed.ts';
import type { ViewState } from './state/view.ts';
import { terminalRows } from './terminal.ts';

/** The view model as last published: re-renders at the feed's bounded rate, never per token. */
export function useView(feed: ViewFeed): ViewState {
	return useSyncExternalStore(feed.subscribe, feed.getSnapshot);
}

export interface Size {
	columns: number;
	rows: number;
}

const sizeOf = (stdout: NodeJS.WriteStream): Size => ({
	columns: stdout.columns || 80,
	rows: terminalRows(stdout) || 24,
});

/** The terminal's size, updated on resize (a stream without a size counts as 80×24). */
export function useTerminalSize(): Size {
	const { stdout } = useStdout();
	const [size, setSize] = useState(() => sizeOf(stdout));
	useEffect(() => {
		const onResize = () => setSize(sizeOf(stdout));
		stdout.on('resize', onResize);
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}

/**
 * The clock, read again every `ms` while `running` (the elapsed time and ETA move without events).
 * It is never earlier than `since`, the latest time the caller's state holds (a run's start): a
 * time kept from the last tick (or from before a run started again) would be older than the start
 * it is measured from.
 */
export function useNow(running: boolean, since: number, ms = 1000): number {
	const [now, setNow] = useState(() => Date.now());
	useEffect(() => {
		if (!running) return;
		const timer = setInterval(() => setNow(Date.now()), ms);
		return () => clearInterval(timer);
	}, [running, ms]);
	return Math.max(now, since);
}

/**
 * A screen's state kept by its model's pure `update` (model.ts). Each message is applied at once to
 * the newest state (several presses in one event each see the one before), with the world as it
 * is then, and its effects are carried out right after, in order; `perform` gets the dispatch, for
 * what an effect reports back. Returns the state of this render, the dispatch, and a reader of the
 * newest state for callbacks that outlive a render.
 */
export function useModel<S, M, E, W>(
	{ init, update }: Model<S, M, E, W>,
	world: () => W,
	perform: (effect: E, dispatch: (msg: M) => void) => void,
): [S, (msg: M) => void, () => S] {
	const [state, setState] = useState(init);
	const latest = useRef(state);
	// The newest render's callbacks, for a dispatch that runs between renders.
	const handlers = useRef({ update, world, perform });
	useLayoutEffect(() => {
		handlers.current = { update, world, perform };
	});
	const [dispatch] = useState(() => {
		const send = (msg: M) => {
			const { update, world, perform } = handlers.current;
			const step = update(latest.current, msg, world());
			latest.current = step.state;
			setState(step.state);
			for (const effect of step.effects) perform(effect, send);
		};
		return send;
	});
	const read = useCallback(() => latest.current, []);
	return [state, dispatch, read];
}

/**
 * A screen model whose keys come as `key` messages: each press is looked up in the keymap of what
 * is open now (in the newest state: several presses of one read are each updated before the next
 * render), then sent with the action it is bound to.
 */
export function useKeyedModel<S, M, E, W>(
	model: Model<S, M | KeyMsg, E, W>,
	world: () => W,
	perform: (effect: E, dispatch: (msg: M | KeyMsg) => void) => void,
	screenOf: (state: S) => Place,
): S {
	const [state, dispatch, read] = useModel(model, world, perform);
	useKeys((press) => dispatch({ type: 'key', action: actionFor(screenOf(read()), press), press }));
	return state;
}
