import { useStdout } from 'ink';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ViewStore } from './state/store.ts';
import type { ViewState } from './state/view.ts';

/** The view model as last published: re-renders at the store's bounded rate, never per token. */
export function useView(store: ViewStore): ViewState {
	return useSyncExternalStore(store.subscribe, store.getSnapshot);
}

export interface Size {
	columns: number;
	rows: number;
}

/** The terminal's size, updated on resize (a stream without a size counts as 80×24). */
export function useTerminalSize(): Size {
	const { stdout } = useStdout();
	const read = (): Size => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
	const [size, setSize] = useState(read);
	useEffect(() => {
		const onResize = () => setSize(read());
		stdout.on('resize', onResize);
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}

/**
 * The clock, read at every render and drawn again every `ms` while `running` (the elapsed time and
 * ETA move without events). The tick only asks for a render: a time kept from the last tick (or
 * from before a run started again) would be older than the start it is measured from.
 */
export function useNow(running: boolean, ms = 1000): number {
	const [, setTick] = useState(0);
	useEffect(() => {
		if (!running) return;
		const timer = setInterval(() => setTick((n) => n + 1), ms);
		return () => clearInterval(timer);
	}, [running, ms]);
	return Date.now();
}

/** What a screen's reducer returns: its next state and what to carry out (save, start, quit). */
export interface Step<S, E> {
	state: S;
	effects: E[];
}

/**
 * A screen's state kept by a pure reducer `(state, action) → {state, effects}`. Each dispatch is
 * applied at once to the newest state (several presses in one event each see the one before),
 * and its effects are carried out right after, in order. Returns the state of this render, the
 * dispatch, and a reader of the newest state for callbacks that outlive a render.
 */
export function useReducerWithEffects<S, A, E>(
	reduce: (state: S, action: A) => Step<S, E>,
	initial: () => S,
	perform: (effect: E) => void,
): [S, (action: A) => void, () => S] {
	const [state, setState] = useState(initial);
	const latest = useRef(state);
	const performRef = useRef(perform);
	performRef.current = perform;
	const reduceRef = useRef(reduce);
	reduceRef.current = reduce;
	const dispatch = useCallback((action: A) => {
		const step = reduceRef.current(latest.current, action);
		latest.current = step.state;
		setState(step.state);
		for (const effect of step.effects) performRef.current(effect);
	}, []);
	const read = useCallback(() => latest.current, []);
	return [state, dispatch, read];
}
