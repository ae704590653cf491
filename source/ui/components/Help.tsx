import { Box, Text } from 'ink';
import { BINDINGS } from '../keymap.ts';
import { labelOf, type Place } from '../keys/binding.ts';
import { textWidth, truncate, windowOf, wrap } from '../../format/text.ts';
import { MARKS, OVER_BUDGET_MARK } from '../theme.ts';
import { Lines, type Line } from './Lines.tsx';

const SCREEN_NAMES: Record<Place, string> = {
	run: 'Run screen',
	home: 'Home (saved sessions)',
	study: 'Study (booook study FILE)',
	filter: 'Filtering the sessions',
	versions: 'Versions of a node',
	editor: 'Editor',
	form: 'New run form',
	confirm: 'Confirmation',
	help: 'This help',
	score: 'BooookScore',
	validate: 'Validation',
	faithfulness: 'Faithfulness validation (per sentence)',
	compare: 'Comparing two summaries (blind)',
	results: 'Results',
	reasons: 'Validation: partially agree',
	span: 'Validation: the span of your annotation',
	types: 'Validation: the error types of your annotation',
	field: 'A text field (a note, questions, a form, the filter)',
};

// Screens reached from a screen, listed right after it: the validation walk's dialogs after the walk.
const RELATED: Partial<Record<Place, readonly Place[]>> = {
	validate: ['reasons', 'span', 'types', 'field', 'results'],
	faithfulness: ['field'],
	compare: ['field'],
};

/** Every key of the keymap, the current screen's first (and those of its dialogs), then the marks of the tree. */
export function helpLines(current: Place, width: number): Line[] {
	const first: Place[] = [current, ...(RELATED[current] ?? [])];
	const order: Place[] = [
		...first,
		...(Object.keys(SCREEN_NAMES) as Place[]).filter((s) => !first.includes(s)),
	];
	const lines: Line[] = [];
	const labelWidth = Math.max(...BINDINGS.map((b) => textWidth(labelOf(b)))) + 2;
	for (const screen of order) {
		const bindings = BINDINGS.filter((b) => b.on.includes(screen));
		if (bindings.length === 0) continue;
		lines.push({ text: SCREEN_NAMES[screen], tone: 'accent', bold: true });
		// A description longer than the width goes on under itself, never cut: at 80 columns many are.
		const room = Math.max(10, width - 2 - labelWidth);
		for (const b of bindings)
			wrap(b.description, room).forEach((row, i) =>
				lines.push({ text: truncate(`  ${(i === 0 ? labelOf(b) : '').padEnd(labelWidth)}${row}`, width) }),
			);
		lines.push({ text: '' });
	}
	lines.push({ text: 'Marks', tone: 'accent', bold: true });
	lines.push({
		text:
			`  ${MARKS.pending} pending  ${MARKS.running} running  ${MARKS.done} done  ${OVER_BUDGET_MARK} ` +
			`done, over budget  ${MARKS.stale} stale  ${MARKS.failed} failed`,
	});
	lines.push({ text: '  + sentence added by a step   − sentence dropped by a step' });
	return lines;
}

export function Help({
	screen,
	width,
	height,
	scroll,
}: {
	screen: Place;
	width: number;
	height: number;
	scroll: number;
}) {
	const shown = windowOf(helpLines(screen, width), height - 1, scroll);
	return (
		<Box flexDirection="column">
			<Text bold wrap="truncate-end">
				Keys
				{shown.total > height - 1
					? ` (${shown.offset + 1}–${shown.offset + shown.lines.length} of ${shown.total}; ↑↓ pgup pgdn scroll)`
					: ''}{' '}
				· esc or ? closes
			</Text>
			<Lines lines={shown.lines} />
		</Box>
	);
}
