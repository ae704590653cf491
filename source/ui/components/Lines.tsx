import { Box, Text } from 'ink';
import type { Line } from '../panes.ts';
import { useTheme } from '../theme.ts';

/** Pre-wrapped lines, one row each; a line that is still too wide is cut, never wrapped. */
export function Lines({ lines }: { lines: readonly Line[] }) {
	const theme = useTheme();
	return (
		<Box flexDirection="column">
			{lines.map((line, i) => (
				<Text
					key={i}
					wrap="truncate-end"
					color={theme.color(line.tone)}
					bold={line.bold}
					dimColor={line.tone === 'muted' && theme.color('muted') === undefined}
				>
					{line.text === '' ? ' ' : line.text}
				</Text>
			))}
		</Box>
	);
}
