import { Box, Text } from 'ink';
import { bar } from '../../format/table.ts';
import { textWidth } from '../../format/text.ts';
import { useTheme, type Tone } from '../theme.ts';

/**
 * The two header lines of a run and of a study: the title (in the warning colour while a rate
 * limit holds calls back and says so in its place) with the state's mark at the right, then the
 * progress bar and the facts after it.
 */
export function ProgressHeader({
	title,
	waiting,
	mark,
	tone,
	ratio,
	facts,
	width,
}: {
	title: string;
	waiting: boolean;
	mark: string;
	tone: Tone | undefined;
	ratio: number;
	facts: string;
	width: number;
}) {
	const theme = useTheme();
	const filled = bar(ratio, Math.max(8, Math.min(30, width - textWidth(facts) - 2)));
	return (
		<Box flexDirection="column">
			<Box justifyContent="space-between">
				<Text bold wrap="truncate-end" color={waiting ? theme.color('warn') : undefined}>
					{title}
				</Text>
				<Text bold color={theme.color(tone)}>
					{mark}
				</Text>
			</Box>
			<Text wrap="truncate-end">
				<Text color={theme.color('accent')}>{filled.replace(/░/gu, '')}</Text>
				<Text color={theme.color('muted')} dimColor={!theme.color('muted')}>
					{filled.replace(/█/gu, '')}
				</Text>
				{facts}
			</Text>
		</Box>
	);
}
