import { counted } from '../../format/count.ts';
import { Box, Text } from 'ink';
import type { Run } from '../../domain.ts';
import { findNode } from '../../summarize/graph.ts';
import { countWords } from '../../text/tokens.ts';
import type { NodeView } from '../state/view.ts';
import { clean, truncate, windowOf, wrap } from '../../format/text.ts';
import { useTheme } from '../theme.ts';
import { Lines } from './Lines.tsx';

/** A node's versions (origin, model, words, created); enter makes the one under the cursor active. */
export function Versions({
	run,
	node,
	cursor,
	width,
	height,
}: {
	run: Run;
	node: NodeView;
	cursor: number;
	width: number;
	height: number;
}) {
	const theme = useTheme();
	const full = findNode(run, node.id);
	const versions = full?.versions ?? [];
	const listHeight = Math.min(versions.length, Math.max(3, Math.floor(height / 3)));
	const list = windowOf(
		versions.map((v, i) => ({ v, i })),
		listHeight,
		Math.max(0, cursor - Math.floor(listHeight / 2)),
	);
	const preview = versions[cursor] ? wrap(clean(versions[cursor]!.text), width) : [];
	return (
		<Box flexDirection="column">
			<Text
				bold
				wrap="truncate-end"
			>{`Versions of node ${node.id} (${versions.length}) · ↑↓ choose · enter make active · esc back`}</Text>
			{list.lines.map(({ v, i }) => (
				<Text
					key={i}
					inverse={i === cursor}
					wrap="truncate-end"
					color={i === full?.active ? theme.color('ok') : undefined}
				>
					{truncate(
						`${i === full?.active ? '*' : ' '} v${i + 1}  ${v.origin === 'edit' ? 'edited by hand' : `model ${clean(v.model ?? '?')}`} ` +
							` ${counted(countWords(v.text), 'word')}  ${v.createdAt.replace('T', ' ').slice(0, 19)}${v.overBudget ? '  over budget' : ''}`,
						width,
					)}
				</Text>
			))}
			<Text color={theme.color('muted')} dimColor={!theme.color('muted')}>
				{'─'.repeat(Math.max(1, width))}
			</Text>
			<Lines lines={preview.slice(0, Math.max(1, height - listHeight - 2)).map((text) => ({ text }))} />
		</Box>
	);
}
