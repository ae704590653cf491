import { textWidth, truncate, truncateStart } from './text.ts';

/**
 * Tables as a terminal shows them, for the screens and the headless commands alike: columns as wide
 * as their widest cell (in terminal columns, so wide characters do not shift the rows below them),
 * laid out in a width. Pure, and free of Ink, so a headless command does not load the terminal app.
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

/** Columns padded to their widest cell; numbers right-aligned. */
export function alignTable(table: readonly string[][]): string {
	const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => [...(row[i] ?? '')].length)));
	const numeric = (text: string) => /^[$\d.\-/, [()]+$/u.test(text) && /\d/u.test(text);
	return table
		.map((row) =>
			row
				.map((cell, i) => (numeric(cell) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
				.join('  ')
				.trimEnd(),
		)
		.join('\n');
}

/** `width` characters, `ratio` of them filled. */
export function bar(ratio: number, width: number): string {
	const filled = Math.round(Math.max(0, Math.min(1, Number.isFinite(ratio) ? ratio : 0)) * width);
	return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/** A table as CSV (RFC 4180): a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csv(table: readonly (readonly string[])[]): string {
	const field = (text: string) => (/[",\r\n]/u.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
	return table.map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
