import { Text } from 'ink';
import { useMemo } from 'react';
import { bindingsFor, MAIN_KEYS, shortName } from '../keymap.ts';
import { keyLabel, labelOf, type Action, type Place } from '../keys/binding.ts';
import { useTerminalSize } from '../hooks.ts';
import { textWidth, truncate } from '../../format/text.ts';
import { useTheme } from '../theme.ts';

// Keys shown as one item: the pair's labels joined, and one name for both.
const PAIRS: Partial<Record<Action, { partner: Action; name: string }>> = {
	up: { partner: 'down', name: 'select' },
	left: { partner: 'right', name: 'prev/next' },
	scrollUp: { partner: 'scrollDown', name: 'scroll' },
};
// Help and quit come first, after the screen's main keys (MAIN_KEYS): a narrow terminal cuts the
// line's end, and `?` lists everything else.
const FIRST: readonly Action[] = ['help', 'quit'];

/** The footer's items for `screen`: one per action, pairs joined; its main keys, then help and quit, first. */
export function footerItems(screen: Place, hide: readonly Action[] = []): string[] {
	return footerEntries(screen, hide).map((e) => e.text);
}

/** An item: its text, and a shorter one for a crowded line (a pair by its first keys: "↑↓ select"). */
type Entry = { text: string; tight: string; action: Action };

function footerEntries(screen: Place, hide: readonly Action[]): Entry[] {
	const main = MAIN_KEYS[screen] ?? [];
	const bindings = bindingsFor(screen).filter((b) => !hide.includes(b.action));
	const seen = new Set<Action>();
	const items: (Entry & { rank: number })[] = [];
	const rankOf = (action: Action) =>
		main.includes(action) ? main.indexOf(action) : FIRST.includes(action) ? main.length : main.length + 1;
	for (const b of bindings) {
		if (seen.has(b.action)) continue;
		seen.add(b.action);
		const pair = PAIRS[b.action];
		const partner = pair ? bindings.find((p) => p.action === pair.partner) : undefined;
		if (pair && partner) {
			seen.add(partner.action);
			const [label, partnerLabel] = [labelOf(b), labelOf(partner)];
			const labels =
				label.length === 1 && partnerLabel.length === 1
					? `${label}${partnerLabel}`
					: `${label}/${partnerLabel}`;
			// A pair that shares a name on this screen (the span picker's ←→ "move") says it.
			const name = b.short !== undefined && b.short === partner.short ? b.short : pair.name;
			const [first, partnerFirst] = [keyLabel(b.keys[0]!), keyLabel(partner.keys[0]!)];
			const tight =
				first.length === 1 && partnerFirst.length === 1
					? `${first}${partnerFirst} ${name}`
					: `${labels} ${name}`;
			items.push({ text: `${labels} ${name}`, tight, action: b.action, rank: rankOf(b.action) });
		} else
			items.push({
				text: `${labelOf(b)} ${shortName(b)}`,
				tight: `${labelOf(b)} ${shortName(b)}`,
				action: b.action,
				rank: rankOf(b.action),
			});
	}
	// A stable sort: within a rank, the keymap's order.
	return items.sort((a, b) => a.rank - b.rank);
}

const SEP = ' · ';
/** Between the items of a crowded line: a column more for the keys each gap. */
const TIGHT_SEP = '  ';

/**
 * The footer's line in `width` columns: whole items only, never one cut in the middle ("c chu…").
 * When not all fit, the line is tightened (pairs named by their first keys, two spaces between
 * items) and the items that fit are kept in their order, help and quit always: `?` lists the rest.
 */
export function footerLine(screen: Place, width: number, hide: readonly Action[] = []): string {
	const entries = footerEntries(screen, hide);
	const all = entries.map((e) => e.text).join(SEP);
	if (textWidth(all) <= width) return all;
	const kept = new Set(entries.filter((e) => FIRST.includes(e.action)));
	const line = () =>
		entries
			.filter((e) => kept.has(e))
			.map((e) => e.tight)
			.join(TIGHT_SEP);
	for (const e of entries) {
		if (kept.has(e)) continue;
		kept.add(e);
		if (textWidth(line()) > width) kept.delete(e);
	}
	return truncate(line(), width);
}

/** The keys that work on `screen` (as the keymap has them), on one line of whole items that fits the terminal. */
export function Footer({ screen, hide = [] }: { screen: Place; hide?: readonly Action[] }) {
	const theme = useTheme();
	const { columns } = useTerminalSize();
	// The run screen redraws at its frame rate while text streams; the footer changes only with the
	// width. Screens pass `hide` as a new array each frame, so it is compared by its contents.
	const hidden = hide.join(' ');
	const line = useMemo(
		() => footerLine(screen, columns, hidden.split(' ') as Action[]),
		[screen, columns, hidden],
	);
	return (
		<Text wrap="truncate-end" color={theme.color('muted')} dimColor={!theme.color('muted')}>
			{line}
		</Text>
	);
}
