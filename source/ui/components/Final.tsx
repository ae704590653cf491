import { Box, Static, Text } from 'ink';
import { useLayoutEffect, useMemo, useState } from 'react';
import type { NodeRef, Run } from '../../domain.ts';
import { costText } from '../../format/cost.ts';
import { formatInt } from '../../format/count.ts';
import { EXTRACTIVE_LABEL } from '../../llm/provider.ts';
import { activeVersion, findNode } from '../../summarize/graph.ts';
import { totalsOf } from '../../summarize/totals.ts';
import { summaryStats } from '../../text/stats.ts';
import type { RunInfo } from '../controls.ts';
import type { ViewFeed } from '../state/view-feed.ts';
import type { FinalItem } from '../state/view.ts';
import { clean } from '../text.ts';
import { useTheme } from '../theme.ts';

/** The final summary with its statistics: printed once, above the live area, when a run ends. */
export function Final({ run, info, root }: { run: Run; info: RunInfo; root: NodeRef }) {
	const theme = useTheme();
	const node = findNode(run, root);
	const version = node ? activeVersion(node) : null;
	const text = version?.text ?? '';
	const stats = useMemo(
		() => summaryStats(text, info.book, run.config.encoding),
		[text, info.book, run.config.encoding],
	);
	const totals = totalsOf(run);
	return (
		<Box flexDirection="column" marginBottom={1}>
			<Text bold color={theme.color('accent')}>
				{clean(`━━ Final summary · ${info.title} (node ${root}, version ${(node?.active ?? 0) + 1})`)}
			</Text>
			<Text>{clean(text)}</Text>
			<Text color={theme.color('muted')} dimColor={!theme.color('muted')}>
				{clean(
					`${formatInt(stats.tokens)} tokens, ${formatInt(stats.words)} words, ${stats.repeated3gramPct.toFixed(1)}% repeated 3-grams, ${stats.novel3gramPct.toFixed(1)}% novel 3-grams; ${totals.calls} calls, ${formatInt(totals.input + totals.output)} tokens, ${costText(totals.cost, info.priced)} (${info.isLLM ? `${info.provider} ${info.model}` : EXTRACTIVE_LABEL}); session ${info.session}`,
				)}
			</Text>
		</Box>
	);
}

/**
 * The final summaries, each printed once. Ink's `<Static>` prints every item it is given when it
 * mounts, so one mounted again would copy the summaries into the scrollback again: it is given only
 * those the feed has not seen printed.
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
	const [from] = useState(() => feed.printedFinals);
	useLayoutEffect(() => {
		feed.markPrinted(finals.length);
	}, [feed, finals.length]);
	return (
		<Static items={finals.slice(from)}>
			{(f) => <Final key={f.seq} run={run} info={info} root={f.root} />}
		</Static>
	);
}
