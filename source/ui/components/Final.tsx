import { Box, Text } from 'ink';
import { useLayoutEffect } from 'react';
import type { NodeRef, Run } from '../../domain.ts';
import { EXTRACTIVE_LABEL } from '../../llm/provider.ts';
import { activeVersion, findNode } from '../../summarize/graph.ts';
import { totalsOf } from '../../summarize/totals.ts';
import { summaryStats } from '../../text/stats.ts';
import type { RunInfo } from '../controls.ts';
import type { ViewFeed } from '../state/view-feed.ts';
import type { FinalItem } from '../state/view.ts';
import { usePrint } from '../print.tsx';
import { clean, wrap } from '../../format/text.ts';
import { useTerminalSize } from '../hooks.ts';
import { useTheme } from '../theme.ts';
import { spentFigures, summaryFigures } from '../../format/summary.ts';

/** The final summary's lines: a title, the summary, its statistics. */
interface FinalText {
	title: string;
	text: string;
	stats: string;
}

/**
 * What a run's final summary prints, read when it is printed. Only text: what was printed stays
 * with the app's `<Static>`, which should not hold the run or its book.
 */
function finalText(run: Run, info: RunInfo, root: NodeRef): FinalText {
	const node = findNode(run, root);
	const text = (node ? activeVersion(node)?.text : undefined) ?? '';
	const stats = summaryStats(text, info.book, run.config.encoding);
	const totals = totalsOf(run);
	return {
		title: clean(`━━ Final summary · ${info.title} (node ${root}, version ${(node?.active ?? 0) + 1})`),
		text: clean(text),
		stats: clean(
			`${summaryFigures(stats)}; ${spentFigures(totals.calls, totals.input + totals.output, totals.cost, info.priced)} ` +
				`(${info.isLLM ? `${info.provider} ${info.model}` : EXTRACTIVE_LABEL}); session ${info.session}`,
		),
	};
}

/**
 * The final summary with its statistics: printed once, above the live area, when a run ends. The
 * summary is wrapped here, at `width`, with the spaces at each break dropped: Ink's own wrapping
 * keeps them, so a wrapped line would start with one.
 */
export function Final({ title, text, stats, width }: FinalText & { width: number }) {
	const theme = useTheme();
	return (
		<Box flexDirection="column" marginBottom={1}>
			<Text bold color={theme.color('accent')}>
				{title}
			</Text>
			<Text>{wrap(text, width).join('\n')}</Text>
			<Text color={theme.color('muted')} dimColor={!theme.color('muted')}>
				{stats}
			</Text>
		</Box>
	);
}

/**
 * Prints the final summaries through the app's `<Static>`, each once: the feed outlives the
 * screen, so a screen drawn again prints only those it has not printed.
 */
export function Finals({
	feed,
	finals,
	run,
	info,
}: {
	feed: ViewFeed;
	finals: readonly FinalItem[];
	run: Run;
	info: RunInfo;
}) {
	const print = usePrint();
	const { columns } = useTerminalSize();
	useLayoutEffect(() => {
		for (const f of finals.slice(feed.printedFinals))
			print(<Final {...finalText(run, info, f.root)} width={columns} />);
		feed.markPrinted(finals.length);
	}, [feed, finals, run, info, print, columns]);
	return null;
}
