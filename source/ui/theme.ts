import { createContext, useContext } from 'react';
import type { NodeStatus } from '../domain.ts';

/** Colours by meaning. Every meaning is also carried by a mark or a word, so no colour is needed. */
export type Tone = 'accent' | 'ok' | 'warn' | 'error' | 'added' | 'dropped' | 'muted';

export interface Theme {
	color: (tone: Tone | undefined) => string | undefined;
}

const COLORS: Record<Tone, string> = {
	accent: 'cyan',
	ok: 'green',
	warn: 'yellow',
	error: 'red',
	added: 'green',
	dropped: 'red',
	muted: 'gray',
};

/** NO_COLOR (https://no-color.org): present and not empty means no colour at all. */
export function themeFor(env: NodeJS.ProcessEnv = process.env): Theme {
	const color = !env.NO_COLOR;
	return { color: (tone) => (color && tone ? COLORS[tone] : undefined) };
}

export const ThemeContext = createContext<Theme>(themeFor({}));

export function useTheme(): Theme {
	return useContext(ThemeContext);
}

/** One character per node status, used in the tree, the timeline and the help. */
export const MARKS: Record<NodeStatus, string> = {
	pending: '·',
	running: '◐',
	done: '●',
	failed: '✗',
	stale: '○',
	superseded: '×',
};
/** A done node whose text is over its budget (the best attempt was kept). */
export const OVER_BUDGET_MARK = '◆';

export const STATUS_TONE: Record<NodeStatus, Tone | undefined> = {
	pending: 'muted',
	running: 'accent',
	done: 'ok',
	failed: 'error',
	stale: 'warn',
	superseded: 'muted',
};
