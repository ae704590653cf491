import type { RunStatus } from '../domain.ts';
import type { Column } from './table.ts';
import { clean } from './text.ts';
import { scoreText } from './number.ts';

/**
 * The saved sessions as `booook sessions` and the home screen list them: the same columns and the
 * same words. Pure; it reads a session's summary by its shape (app/list-sessions.ts' SessionSummary),
 * which lives above this layer.
 */
export interface SessionRow {
	id: string;
	kind: 'book' | 'collection';
	title: string;
	method: string | null;
	provider: string | null;
	model: string | null;
	status: RunStatus | 'imported';
	progress: { done: number; total: number };
	updatedAt: string;
	booookscore?: number;
	busy?: { pid: number };
}

/**
 * A run that ended before its end, quit (cancelled) or killed (left 'running'), is 'stopped' here, in
 * `sessions`, in the run screen's header and in the line a command prints when it stops: one word
 * for what `resume` continues.
 */
const STATUS_WORDS: Record<string, string> = {
	planned: 'not started',
	running: 'stopped',
	done: 'done',
	failed: 'failed',
	cancelled: 'stopped',
	imported: 'imported',
};

/** How a session's status reads in the list (and what the filter matches). */
export function statusWord(status: string): string {
	return STATUS_WORDS[status] ?? status;
}

/**
 * The sessions' columns. The id is never cut: it is what a person copies into the next command.
 * When the width is short the others give way instead: the model, then the book, then the
 * progress, then the method are left out, and the book's title is cut before any of that.
 */
export function sessionColumns(sessions: readonly SessionRow[]): Column[] {
	return [
		{ header: 'id', cells: sessions.map((s) => clean(s.id)) },
		{ header: 'book', cells: sessions.map((s) => clean(s.title)), flex: true, min: 8, want: 32, shed: 1 },
		{ header: 'method', cells: sessions.map((s) => s.method ?? '—'), shed: 3 },
		{
			header: 'model',
			cells: sessions.map((s) =>
				s.kind === 'collection' ? '—' : s.provider === 'extractive' ? 'extractive' : clean(s.model ?? '—'),
			),
			cut: 'end',
			min: 8,
			rank: 1,
			shed: 0,
		},
		{
			header: 'progress',
			// Open in another process: its saved status ('running' reads 'stopped') is not what it is doing.
			cells: sessions.map(
				(s) => `${s.busy ? 'busy' : statusWord(s.status)} ${s.progress.done}/${s.progress.total}`,
			),
			shed: 2,
		},
		{
			header: 'score',
			cells: sessions.map((s) => scoreText(s.booookscore)),
		},
		{
			header: 'updated',
			cells: sessions.map((s) => s.updatedAt.slice(0, 16).replace('T', ' ')),
			optional: true,
		},
	];
}
