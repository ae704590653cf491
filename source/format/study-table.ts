import { alignTable } from './table.ts';
import { textWidth, truncate, wrap } from './text.ts';

/** A study's results table (header first) fitted to a terminal, for `booook study` and the study screen alike. */

/**
 * A table (header first) with the columns every row shares taken out and said once, as "header:
 * value" in a caption: what differs between the rows is what a narrow screen has room for.
 */
export function compactTable(table: readonly string[][]): { caption: string; table: string[][] } {
	const [header, ...rows] = table;
	if (!header || rows.length < 2) return { caption: '', table: table.map((r) => [...r]) };
	const same = header.map((_, i) => rows.every((r) => r[i] === rows[0]![i]));
	const keep = (row: readonly string[]) => row.filter((_, i) => !same[i]);
	return {
		caption: header.flatMap((h, i) => (same[i] ? [`${h}: ${rows[0]![i]}`] : [])).join(' · '),
		table: [keep(header), ...rows.map(keep)],
	};
}

/** Shorter headers, for a table still too wide once the shared columns are said above it. */
const SHORT_HEADERS: Record<string, string> = {
	'books done': 'books',
	'words (mean)': 'words',
	'BooookScore (95% CI)': 'BooookScore',
};
/** Columns left out first when nothing else makes a table fit: the ones a reader of the results needs least. */
const DROP_FIRST = ['cost', 'calls', 'books done', 'window', 'chunk', 'words (mean)'];

/**
 * A study's table (header first) as lines of at most `width` columns, for a terminal: whole when it
 * fits; else the columns every row shares said once above it, then shorter headers, then columns
 * left out (named in a last line), never a row wrapped across lines. Piped output keeps every column.
 */
export function fitTable(table: readonly string[][], width: number): string[] {
	const fits = (lines: readonly string[]) => lines.every((l) => textWidth(l) <= width);
	const whole = alignTable(table).split('\n');
	if (table.length === 0 || fits(whole)) return whole;
	const { caption, table: compact } = compactTable(table);
	const above = caption ? [...wrap(caption, width)] : [];
	const names = compact[0]!;
	let columns = names.map((_, i) => i);
	const lay = (short: boolean) =>
		alignTable(
			compact.map((row, r) =>
				columns.map((i) => (r === 0 && short ? (SHORT_HEADERS[row[i]!] ?? row[i]!) : row[i]!)),
			),
		).split('\n');
	let lines = lay(false);
	if (fits(lines)) return [...above, ...lines];
	lines = lay(true);
	const dropped: string[] = [];
	const order = [
		...DROP_FIRST.filter((h) => names.includes(h)).map((h) => names.indexOf(h)),
		...names.map((_, i) => names.length - 1 - i),
	];
	for (const i of order) {
		if (fits(lines) || columns.length <= 1) break;
		if (i === 0 || !columns.includes(i)) continue;
		columns = columns.filter((c) => c !== i);
		dropped.push(names[i]!);
		lines = lay(true);
	}
	const note =
		dropped.length > 0
			? wrap(
					`left out for the width: ${dropped.join(', ')} (every column: pipe the output or use --csv)`,
					width,
				)
			: [];
	return [...above, ...lines.map((l) => truncate(l, width)), ...note];
}

/** A study's results as `study --json` prints them: the rows, the paired differences, each cell's outcome, the comparisons made over them. */
export function studyJson(
	plan: { spec: { name: string }; cells: readonly { key: string; sessionId: string }[] },
	found: ReadonlyMap<string, object>,
	results: { rows: unknown; pairs: unknown },
	comparisons: readonly unknown[],
) {
	return {
		name: plan.spec.name,
		rows: results.rows,
		pairs: results.pairs,
		cells: plan.cells.map((c) => ({
			key: c.key,
			session: c.sessionId,
			...(found.get(c.key) ?? { status: 'missing' }),
		})),
		...(comparisons.length > 0 ? { comparisons } : {}),
	};
}
