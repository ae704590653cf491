import { Box, Text } from 'ink';
import type { Span } from '../../text/sentences.ts';
import { highlightLines } from '../styled-lines.ts';
import { windowOf } from '../../format/text.ts';

/**
 * A summary in a box of `height` rows, its marked spans drawn inverse and scrolled into view (a
 * third of the way down), as both walks show the sentence they are about.
 */
export function MarkedSummary({
	text,
	spans,
	width,
	height,
}: {
	text: string;
	spans: readonly Span[];
	width: number;
	height: number;
}) {
	const { lines, firstMarked } = highlightLines(text, spans, width - 3);
	const shown = windowOf(lines, height, Math.max(0, (firstMarked ?? 0) - Math.floor(height / 3)));
	return (
		<Box flexDirection="column" borderStyle="single" paddingX={1} height={height + 2}>
			{shown.lines.map((line, i) => (
				// The gutter mark carries the highlight where styles are off (NO_COLOR, dumb terminals).
				<Text key={i} wrap="truncate">
					{line.some((p) => p.style !== null) ? '▌' : ' '}
					{line.map((p, k) =>
						p.style !== null ? (
							<Text key={k} inverse>
								{p.text}
							</Text>
						) : (
							<Text key={k}>{p.text}</Text>
						),
					)}
				</Text>
			))}
		</Box>
	);
}
