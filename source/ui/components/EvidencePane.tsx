import { Box, Text } from 'ink';
import { clean, truncate, wrap } from '../../format/text.ts';
import { useTheme } from '../theme.ts';

/** A passage of the book offered as evidence for a sentence, and where in the book it is. */
export interface Evidence {
	text: string;
	where: string;
}

/**
 * The evidence slot: passages of the book for the sentence being judged, each with where it is,
 * cut to `rows` lines. Draws nothing when there is no evidence (none retrieved, or no retriever).
 */
export function EvidencePane({
	evidence,
	rows,
	width,
}: {
	evidence?: { text: string; where: string }[];
	rows: number;
	width: number;
}) {
	const theme = useTheme();
	if (!evidence || evidence.length === 0 || rows <= 0) return null;
	const lines: { text: string; muted: boolean }[] = [{ text: 'evidence from the book:', muted: true }];
	for (const e of evidence) {
		lines.push({ text: clean(e.where), muted: true });
		for (const l of wrap(clean(e.text), Math.max(10, width - 2)))
			lines.push({ text: `  ${l}`, muted: false });
	}
	const kept = lines.slice(0, rows);
	return (
		<Box flexDirection="column">
			{kept.map((l, i) => (
				<Text key={i} wrap="truncate" color={l.muted ? theme.color('muted') : undefined}>
					{truncate(l.text, width)}
				</Text>
			))}
		</Box>
	);
}
