import { useStdout } from 'ink';
import { useEffect, useState, useSyncExternalStore } from 'react';
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

/** The clock, ticking every `ms` while `running` (the elapsed time and ETA move without events). */
export function useNow(running: boolean, ms = 1000): number {
	const [now, setNow] = useState(Date.now);
	useEffect(() => {
		if (!running) return;
		const timer = setInterval(() => setNow(Date.now()), ms);
		return () => clearInterval(timer);
	}, [running, ms]);
	return running ? now : Date.now();
}
