import { Box, Text } from 'ink';
import type { ComponentProps } from 'react';
import type { TextField as Field } from '../state/text-field.ts';
import { clean, truncate } from '../../format/text.ts';
import { useTheme } from '../theme.ts';
import { Footer } from './Footer.tsx';
import { TextField } from './TextField.tsx';

/** Rows the foot takes above the footer: the note's box (three) and the message (one). */
export function walkFootRows(note: Field | null, message: string | null): number {
	return (note ? 3 : 0) + (message ? 1 : 0);
}

/**
 * The foot the faithfulness and compare walks share: the note being written, the latest message
 * (untrusted text, cleaned and cut to the width), then the keys of the screen in front.
 */
export function WalkFoot({
	note,
	message,
	width,
	screen,
}: {
	note: Field | null;
	message: string | null;
	width: number;
	screen: ComponentProps<typeof Footer>['screen'];
}) {
	const theme = useTheme();
	return (
		<>
			{note ? (
				<Box borderStyle="round" paddingX={1}>
					<TextField label="note: " field={note} width={Math.max(10, width - 4)} />
				</Box>
			) : null}
			{message ? (
				<Text wrap="truncate" color={theme.color('accent')}>
					{truncate(clean(message), width)}
				</Text>
			) : null}
			<Footer screen={screen} />
		</>
	);
}
