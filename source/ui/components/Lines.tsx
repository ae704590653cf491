import { Box, Text } from 'ink';
import { useTheme, type Tone } from '../theme.ts';

/** A line of a pane or of the help: its text (wrapped already), drawn in one tone. */
export interface Line {
	text: string;
	tone?: Tone;
	bold?: boolean;
}

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
