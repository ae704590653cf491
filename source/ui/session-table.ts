import type { SessionSummary } from '../app/list-sessions.ts';
import { statusWord } from './screens/home/model.ts';
import { clean, textWidth, truncate, truncateStart } from './text.ts';

/**
 * The saved sessions as a table, for the home screen and `booook sessions` alike: the same columns,
 * each as wide as its widest cell (in terminal columns, so wide characters do not shift the rows
 * below them), the book's title taking what the width leaves. Pure, and free of Ink, so the
 * headless command does not load the terminal app.
 */

export interface Column {
	header: string;
	cells: readonly string[];
	/** The column that takes what the width leaves (one per table): past `want` only after the rest. */
	flex?: boolean;
	want?: number;
	/** May be cut down to `min` columns when the width is short, keeping its start or its end. */
	cut?: 'end' | 'start';
	min?: number;
	/** Among cut columns, the lower rank has its width back first. */
	rank?: number;
	/** Left out rather than squeeze the flexible column below `want`. */
	optional?: boolean;
	/** Left out, lowest first, when even the narrowest layout is too wide: the row's end would be cut off. */
	shed?: number;
}

export interface Table {
	header: string;
	rows: string[];
}

/**
 * Lays `columns` out in `width` terminal columns (Infinity: no limit). Every column starts at its
 * narrowest (a column that may not be cut at its widest cell, so it always reads whole), then the
 * room left goes, in turn, to the flexible column up to `want`, to optional columns that fit whole,
 * to the flexible column up to its widest cell, and back to the cut columns by rank.
 */
export function layoutTable(columns: readonly Column[], width: number, gap = 2): Table {
	const natural = columns.map((c) => Math.max(textWidth(c.header), ...c.cells.map(textWidth)));
	const floor = (i: number) => {
		const c = columns[i]!;
		return c.flex || c.cut ? Math.min(natural[i]!, c.min ?? textWidth(c.header)) : natural[i]!;
	};
	const widths = columns.map((_, i) => floor(i));
	const shown = new Set(columns.map((c, i) => (c.optional ? -1 : i)).filter((i) => i >= 0));
	const used = () => [...shown].reduce((sum, i) => sum + widths[i]!, 0) + gap * (shown.size - 1);
	// A terminal cuts a row that is too wide at its end, which would make a number read wrong ("6…"
	// for 67.5): columns that may go, go first.
	for (const i of [...shown]
		.filter((i) => columns[i]!.shed !== undefined)
		.sort((a, b) => columns[a]!.shed! - columns[b]!.shed!)) {
		if (used() <= width) break;
		shown.delete(i);
	}
	const grow = (i: number, to: number) => {
		widths[i] = Math.max(widths[i]!, Math.min(to, widths[i]! + Math.max(0, width - used())));
	};
	const flex = columns.findIndex((c) => c.flex);
	if (flex >= 0) grow(flex, Math.min(natural[flex]!, columns[flex]!.want ?? natural[flex]!));
	columns.forEach((c, i) => {
		if (c.optional && used() + gap + natural[i]! <= width) {
			shown.add(i);
			widths[i] = natural[i]!;
		}
	});
	if (flex >= 0) grow(flex, natural[flex]!);
	const cut = columns.map((_, i) => i).filter((i) => columns[i]!.cut && i !== flex);
	for (const i of cut.sort((a, b) => (columns[a]!.rank ?? 0) - (columns[b]!.rank ?? 0))) grow(i, natural[i]!);

	const order = columns.map((_, i) => i).filter((i) => shown.has(i));
	const last = order.at(-1);
	const line = (cell: (i: number) => string) =>
		order
			.map((i) => {
				const w = widths[i]!;
				const text = fit(cell(i), w, columns[i]!.cut === 'start' ? 'start' : 'end');
				return i === last ? text : text + ' '.repeat(w - textWidth(text));
			})
			.join(' '.repeat(gap));
	const count = Math.max(0, ...columns.map((c) => c.cells.length));
	return {
		header: line((i) => columns[i]!.header),
		rows: Array.from({ length: count }, (_, r) => line((i) => columns[i]!.cells[r] ?? '')),
	};
}

function fit(text: string, width: number, keep: 'start' | 'end'): string {
	if (textWidth(text) <= width) return text;
	return keep === 'end' ? truncate(text, width) : truncateStart(text, width);
}

/**
 * The sessions' columns. The id is never cut: it is what a person copies into the next command.
 * When the width is short the others give way instead: the model, then the book, then the
 * progress, then the method are left out, and the book's title is cut before any of that.
 */
export function sessionColumns(sessions: readonly SessionSummary[]): Column[] {
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
			cells: sessions.map((s) => (s.booookscore === undefined ? '—' : s.booookscore.toFixed(1))),
		},
		{
			header: 'updated',
			cells: sessions.map((s) => s.updatedAt.slice(0, 16).replace('T', ' ')),
			optional: true,
		},
	];
}
